"""Opening a SQLite database the way every part of forumbot does: a file in WAL mode (usable from the
scheduler's worker threads, one poll at a time) or ":memory:"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database


def open_database(path: str | Path) -> Database:
    """Raises sqlite3.Error or OSError when the file cannot be created or opened."""
    if str(path) == ":memory:":
        return Database(memory=True)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    database = Database(sqlite3.connect(str(path), check_same_thread=False, timeout=30))
    database.enable_wal()
    return database
