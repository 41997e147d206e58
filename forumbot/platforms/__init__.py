"""Where forumbot reads and writes: one small Protocol (base.py) and one module per platform.

local.py is the embedded default (a forum in SQLite). A new platform is a module here implementing
`Platform`; nothing outside this package may import praw or requests.
"""
