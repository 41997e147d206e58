"""`python -m forumbot` is the `forumbot` command."""

from forumbot.cli import main

main()
