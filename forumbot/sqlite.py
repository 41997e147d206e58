"""Opening a SQLite database the way every part of forumbot does: a file in WAL mode (usable from the
scheduler's worker threads, one poll at a time) or ":memory:"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

# A database in memory (a replay's store and forum: the console replays a game per page) keeps a rollback
# journal in memory: the first change to a page in a transaction copies the whole page there (in 1 KB chunks,
# each one allocated) and commit frees it all. A step changes a row or two in a dozen tables and indexes, so
# what it copies is set by the page size: at 1 KB, a quarter of what 4 KB pages copy (and a new page is a
# quarter to clear). Debian's SQLite zeroes deleted content (SECURE_DELETE): nothing of a database in memory
# outlives the process, so it is not zeroed there. (Set before the first table: the page size is fixed then.)
# A file keeps SQLite's defaults: it is in WAL mode, which has no rollback journal.
_IN_MEMORY = ("PRAGMA page_size=1024", "PRAGMA secure_delete=OFF")


def in_memory(conn: sqlite3.Connection) -> sqlite3.Connection:
    """A new database in memory set as open_database sets one (schema.py's scratch copy too: a backup gives
    its copy the scratch's page size)."""
    for pragma in _IN_MEMORY:
        conn.execute(pragma)
    return conn


def open_database(path: str | Path) -> Database:
    """Raises sqlite3.Error or OSError when the file cannot be created or opened."""
    if str(path) == ":memory:":
        database = Database(memory=True)
        in_memory(database.conn)
        return database
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
