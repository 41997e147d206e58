"""What every command shares: its errors said as a message and an exit code, never a traceback."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import click

from forumbot.errors import ForumbotError


def guard(action: Callable[[], int]) -> int:
    """Run a command; a ForumbotError, or the store failing under it (a damaged page, a full disk, a
    read-only file), becomes a clear message and exit code 2, never a traceback."""
    try:
        return action()
    except ForumbotError as err:
        click.echo(f"error: {err}", err=True)
        return 2
    except sqlite3.Error as err:
        click.echo(f"error: the store failed: {err}\n  fix: {_store_fix(str(err))}", err=True)
        return 2


def _store_fix(message: str) -> str:
    text = message.lower()
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return "the bot must be able to write the store file and its folder: check their owner and permissions"
    if "full" in text or "disk i/o" in text:
        return "free some disk space, then start the bot again: nothing committed is lost"
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return "the store file is damaged: restore it from a backup (or sqlite3 STORE '.recover' > dump.sql)"
    return "check the store file (forumbot status --db STORE) and the disk it is on"


def command() -> str:
    """How to run forumbot again from here, for the hints commands print: the `forumbot` beside this Python
    (a virtual environment's `.venv/bin/forumbot`, relative when under the current folder) unless the shell
    finds that very one by name."""
    beside = Path(sys.executable).parent / "forumbot"
    if not beside.exists():
        return "forumbot"
    found = shutil.which("forumbot")
    if found and Path(found).resolve() == beside.resolve():
        return "forumbot"
    try:
        return str(beside.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(beside)
