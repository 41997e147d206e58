"""The store's shared state and its transactions."""

from __future__ import annotations

import functools
import json
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from time import gmtime, strftime, time
from typing import TYPE_CHECKING, Any

from forumbot.errors import StoreError
from forumbot.storage.migrations import migrations
from forumbot.storage.sqlite import Transaction, open_database

if TYPE_CHECKING:
    from forumbot.model import Post
    from forumbot.storage.posts import Read


# A delivery recorded: (time, platform id, key). A message marked already keeps its first mark.
_MARK_SQL = ("UPDATE outbox SET delivered = ?, platform_id = ?, attempts = attempts + 1 WHERE key = ? AND "
             "delivered IS NULL")


def _write_marks(conn: sqlite3.Connection, marks: list[tuple[str, str, str]]) -> None:
    """The deliveries a store recorded `later` and had not written when it was dropped (Store.__init__)."""
    if not marks:
        return
    try:
        with Transaction(conn):
            conn.executemany(_MARK_SQL, marks)
        marks.clear()
    except sqlite3.Error:   # closed, or busy: the messages are looked for on the platform before a new send
        pass


def now() -> str:
    """The time now as format_time writes it, without going through format_time's cache (a time to the
    microsecond is never asked for again, and would push out the times that are)."""
    return _second_text(int(time()))   # (gmtime() too takes the time truncated to the second)


@functools.lru_cache(maxsize=1)
def _second_text(second: int) -> str:
    """A second's text, written once: a runner's steps come many a second (a replay's, a backlog's)."""
    return strftime("%Y-%m-%dT%H:%M:%SZ", gmtime(second))


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _refuse_emptied(path: str | Path) -> None:
    """A store file of 0 bytes is never one the bot made (SQLite writes its header when the bot first opens
    it): it was truncated. Taking it for a fresh store would start every game again and post its opening
    twice, so refuse it."""
    if str(path) == ":memory:":
        return
    file = Path(path)
    wal = Path(f"{path}-wal")
    if file.is_file() and file.stat().st_size == 0 and not (wal.is_file() and wal.stat().st_size > 0):
        raise StoreError(f"the store {path} is empty (0 bytes): it was truncated or is not a forumbot store; "
                         "restore it from a backup, or delete the file to start every game from scratch "
                         "(the games' opening posts will then be posted again)")


class _Tokens(dict[str, tuple[int, int]]):
    """Store.token's answers by what they are about: (PRAGMA data_version at the last look, writes of it through
    this connection). One not written yet is (that version, 0)."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        super().__init__()
        self.version = 0

    def __missing__(self, what: str) -> tuple[int, int]:
        return self.version, 0


class StepWrites:
    """What a runner's step (StoreBase.step) stored: once the step is over, `kept` says whether what it
    fetched was committed (False: a failed write rolled it back, and it is fetched again)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept = True


class StoreBase:
    """What every part of the store shares: the connection, what this connection knows it wrote (tokens),
    and its transactions (the one a runner's step holds open, and the delivery marks every transaction
    takes with it)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        _refuse_emptied(path)
        try:
            self.db = open_database(path)
            self.db.execute("PRAGMA foreign_keys=on")
            self.db.execute("PRAGMA synchronous=NORMAL")
            migrations.apply(self.db)
        except (sqlite3.Error, OSError) as err:
            raise StoreError(f"cannot open the store {path}: {err}") from err
        self.path = str(path)
        # A database in memory is this connection's alone: no other connection can commit to it.
        self._private = self.path == ":memory:"
        # The cursor a step's statements run on: one kept, not a new one per statement (Connection.execute
        # makes a cursor and registers it with the connection each call). (A Store is used by one thread.)
        self._cur = self.db.conn.cursor()
        # the rows (created, rowid, post) last handed out per game, for its next mark
        self._handed: dict[str, list[tuple[str, int, Post]]] = {}
        # Per game, (version, event_seq, post_mark) of the row this connection last wrote: a step computed
        # from that version needs no read before its write (the write itself checks the version).
        self._written: dict[str, tuple[int, int, int]] = {}
        # What PRAGMA data_version said when last asked (it changes when another connection commits), and
        # the writes through this connection by what they touched ("game:NAME", "cursors", "corrections",
        # "outbox" for messages queued), which it leaves out: together they tell a reader whether what it holds
        # may have changed.
        self._data_version = 0
        self._tokens = _Tokens()
        # token(what): differs from an earlier token of `what` ("game:NAME", "cursors", "corrections",
        # "outbox") whenever, between the `look`s before the two, another connection committed or `what` was
        # written through this one. A reader that takes the token before it reads, and reads again only when
        # the token differs, holds what the store holds as of its last `look`. (The dict's own look-up: a
        # step asks it several times.)
        self.token: Callable[[str], tuple[int, int]] = self._tokens.__getitem__
        # Each game's last read of its new posts: while no other connection committed, a game's next read is
        # what it left of its last one plus the posts this connection stored since (see unprocessed_posts).
        self._reads: dict[str, Read] = {}
        # The undelivered messages as of the last read of the whole outbox (with the data_version then), kept
        # up to date with what this connection queued and delivered since (see pending).
        self._owed: tuple[int, list[dict[str, Any]]] | None = None
        # Deliveries recorded `later` (record_delivery), (time, platform id, key) each: written by this
        # connection's next transaction, or before anything reads the outbox's delivered marks.
        self._marks: list[tuple[str, str, str]] = []
        # ... and when the store is dropped or the program ends without `close` (a replay's store)
        weakref.finalize(self, _write_marks, self.db.conn, self._marks)
        # Posts a statement of save_posts stores (its parameters stay within SQLite's limit).
        self._batch = max(1, min(500, self.db.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // 11))
        # The write transaction a runner's step opened to store what it fetched (save_posts `hold`): the posts,
        # PMs and cursors wait in it, uncommitted, and go in with the step's first commit_step (or write_held at
        # the step's end), so a step is one transaction. None when none is open; else how many delivery marks
        # it wrote (they count as written once it is committed). A crash before the commit loses them with
        # the cursor, so they are fetched again.
        self._held: int | None = None
        self._held_lost = 0   # how many held transactions were rolled back (what they held is fetched again)

    def close(self) -> None:
        self.write_held()
        self.write_deliveries()
        self.db.close()

    def look(self) -> None:
        """Ask whether another connection has committed since last asked (see `token`)."""
        if self._private:   # no other connection can
            return
        # (fetchall: the statement runs to its end and is reset, so the kept cursor holds no read open)
        version = self._cur.execute("PRAGMA data_version").fetchall()[0][0]
        if version != self._data_version:
            self._data_version = version
            tokens = self._tokens
            tokens.version = version
            for what, (_, count) in list(tokens.items()):
                tokens[what] = (version, count)

    def _wrote(self, what: str) -> None:
        tokens = self._tokens
        tokens[what] = (tokens.version, tokens[what][1] + 1)

    @contextmanager
    def step(self) -> Iterator[StepWrites]:
        """One runner step in one transaction: what save_posts `hold` stores in the block (the posts, PMs and
        cursors fetched) waits uncommitted and goes in with the block's first commit_step, or when the block
        ends, however it ends. A crash before that commit loses it with the cursor, so it is fetched again."""
        written = StepWrites()
        lost = self._held_lost
        try:
            yield written
        finally:
            self.write_held()
            written.kept = self._held_lost == lost

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The block's writes (commit_step, the corrections marked...) in one transaction, all or none (a
        savepoint within a transaction already open); what a fetch held is committed first."""
        self.write_held()
        with Transaction(self.db.conn, "BEGIN IMMEDIATE"):
            yield

    def write_held(self) -> None:
        """Commit the transaction save_posts `hold` left open, if the step's commits did not (a step where
        no game wrote anything, or before something that must not wait inside it: a call to the platform,
        a caller's own transaction)."""
        if self._held is None:
            return
        if not self.db.conn.in_transaction:   # SQLite ended it on an error (a full disk): what it held is gone
            self._drop_held()
            return
        self._commit_held()

    def _commit_held(self) -> None:
        """Commit the held transaction: its delivery marks are written; on a failure what it held is forgotten
        (SQLite rolled it back), and the error goes on."""
        try:
            self._cur.execute("COMMIT")
        except BaseException:
            self._drop_held()
            raise
        marks, self._held = self._held, None
        del self._marks[:marks]   # (written: committed)

    def _drop_held(self) -> None:
        """Roll the held transaction back (a statement in it failed, or its commit did): what it stored is
        gone, so nothing stored since the step's look is taken from memory, and every token moves (the posts'
        cursor above all: the runner reads it again, and fetches those posts again)."""
        self._held = None
        self._held_lost += 1
        conn = self.db.conn
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        self._reads.clear()
        self._owed = None
        self._written.clear()
        for what in [*self._tokens, "cursors"]:
            self._wrote(what)

    def write_deliveries(self) -> None:
        """The deliveries recorded `later`, written now (in a transaction of their own)."""
        if self._marks:
            with Transaction(self.db.conn) as nested:
                written = self._put_marks(nested)
            del self._marks[:written]

    def _put_marks(self, nested: bool, more: list[tuple[str, str, str]] | None = None) -> int:
        """Within the caller's transaction: the deliveries recorded `later` (unless the transaction is nested:
        the caller's may still roll back) and `more`. Returns how many of those recorded later were written,
        to drop from those recorded once the transaction is committed. A message marked already keeps its mark, so
        writing a mark twice changes nothing."""
        marks = self._marks
        if nested or not marks:
            if more:
                self._cur.executemany(_MARK_SQL, more)
            return 0
        self._cur.executemany(_MARK_SQL, [*marks, *more] if more else marks)
        return len(marks)
