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


class Transaction:
    """`with Transaction(conn):` BEGIN … COMMIT (ROLLBACK when the block raises), or a savepoint when the
    connection is already in a transaction; `as` gives whether it was nested. What sqlite-utils' atomic()
    does, without a generator and a random savepoint name per call: a step of the bot opens several."""

    __slots__ = ("conn", "begin", "nested")

    def __init__(self, conn: sqlite3.Connection, begin: str = "BEGIN") -> None:
        self.conn = conn
        self.begin = begin   # "BEGIN IMMEDIATE" takes the write lock from the start
        self.nested = False

    def __enter__(self) -> bool:
        conn = self.conn
        self.nested = conn.in_transaction
        # Nested savepoints may share a name: RELEASE and ROLLBACK TO act on the innermost one.
        conn.execute("SAVEPOINT forumbot" if self.nested else self.begin)
        return self.nested

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        conn = self.conn
        if self.nested:
            if kind is None:
                conn.execute("RELEASE SAVEPOINT forumbot")
            elif conn.in_transaction:   # an error may already have ended the whole transaction
                conn.execute("ROLLBACK TO SAVEPOINT forumbot")
                conn.execute("RELEASE SAVEPOINT forumbot")
            return
        if kind is not None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
