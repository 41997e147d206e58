"""The bot's memory: SQLite through sqlite-utils. The only module that writes SQL.

Posts are stored once, by platform id, before anything reads them. A game's step (posts processed, the
intents and flags read from them, the events, the new state and the outbox) is written in ONE
transaction, so a crash leaves either all of it or none: the posts are then simply processed again. A
runner's step stores what it fetched in the same transaction as its first game's step (save_posts `hold`):
a crash before that commit loses the posts with the cursor that passed them, so they are fetched again.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from operator import attrgetter, itemgetter
from pathlib import Path
from time import gmtime, strftime, time
from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.errors import StaleState, StoreError
from forumbot.model import Event, Flag, Intent, Outgoing, Post, format_time, parse_time
from forumbot.sqlite import Transaction, open_database

migrations = Migrations("forumbot")


@migrations()
def m001_initial(db: Database) -> None:
    db.table("posts").create({"id": str, "platform": str, "thread": str, "author": str, "created": str,
                        "edited": str, "body": str, "edited_body": str, "dialect": str, "url": str,
                        "pm": int, "fetched": str}, pk="id", not_null={"thread", "author", "created", "body"})
    db.table("posts").create_index(["thread", "created"])
    db.table("games").create({"name": str, "game": str, "setup": str, "state": str, "event_seq": int,
                        "updated": str}, pk="name")
    db.table("processed").create({"game": str, "post": str, "at": str}, pk=("game", "post"))
    db.table("intents").create({"id": int, "game": str, "post": str, "kind": str, "data": str, "at": str},
                         pk="id", foreign_keys=[("post", "posts", "id")])
    db.table("intents").create_index(["game", "post"])
    db.table("flags").create({"id": int, "game": str, "post": str, "author": str, "reason": str,
                        "candidates": str, "line": str, "at": str}, pk="id")
    db.table("events").create({"game": str, "seq": int, "kind": str, "data": str, "post": str, "at": str},
                        pk=("game", "seq"))
    db.table("outbox").create({"key": str, "game": str, "kind": str, "thread": str, "pm_to": str, "subject": str,
                         "text": str, "created": str, "delivered": str, "platform_id": str,
                         "attempts": int, "last_error": str}, pk="key")
    db.table("outbox").create_index(["delivered"])
    db.table("cursors").create({"platform": str, "name": str, "value": str}, pk=("platform", "name"))


@migrations()
def m002_game_version(db: Database) -> None:
    """A counter bumped by every step, so a runner can trust the state it holds, and the rowid of the last
    post a game has read, so finding new posts does not scan every post of the game."""
    db.table("games").add_column("version", int, not_null_default=0)
    db.table("games").add_column("post_mark", int, not_null_default=0)


@migrations()
def m003_platform_status(db: Database) -> None:
    """How each platform's polls went, for `forumbot status`."""
    db.table("platform_status").create({"platform": str, "last_ok": str, "last_error": str, "last_error_at": str,
                                        "failures": int, "next_try": str}, pk="platform")


@migrations()
def m004_host_state(db: Database) -> None:
    """The host layer's state beside each game's own (pause, replaced accounts)."""
    db.table("games").add_column("host", str)


@migrations()
def m005_outbox_slot(db: Database) -> None:
    """A message that replaces an earlier one in place (a vote count kept up to date in one post)."""
    db.table("outbox").add_column("slot", str)


@migrations()
def m006_tournament_ledger(db: Database) -> None:
    """The tournament ledger (forumbot/tournament.py): Tokens of Life, garnets, Elimination Candidates."""
    db.table("ledger").create({"tournament": str, "game": str, "seq": int, "player": str, "tol": int,
                               "garnets": int, "ec": int, "reason": str, "at": str},
                              pk=("tournament", "game", "seq"))


@migrations()
def m007_flags_resolved(db: Database) -> None:
    """When the host resolved a flag (`forumbot flags --resolve`); NULL while it is open."""
    db.table("flags").add_column("resolved", str)
    db.table("flags").create_index(["resolved"])


@migrations()
def m008_carry_progress(db: Database) -> None:
    """A store from before m002 kept a game's progress only in `processed`; m002 gave every game a post mark
    of 0, so the game would read every stored post again. Carry that progress forward: the mark is the newest
    post the game has processed (before m002 a step read every stored post of its threads, so nothing older
    waits)."""
    db.execute("UPDATE games SET post_mark = coalesce((SELECT max(posts.rowid) FROM processed JOIN posts "
               "ON posts.id = processed.post WHERE processed.game = games.name), 0) WHERE post_mark = 0")


@migrations()
def m009_ledger_forum_penalty(db: Database) -> None:
    """The forums' penalty points in the tournament ledger (Mafia's warnings, section 8 of seed 002)."""
    db.table("ledger").add_column("forum", str, not_null_default="")
    db.table("ledger").add_column("penalty", int, not_null_default=0)


@migrations()
def m010_host_console(db: Database) -> None:
    """The host console (forumbot/web/console.py): the host's corrections with their audit trail, read by
    every step of the game (forumbot/corrections.py), and one-time sign-in links."""
    db.table("corrections").create({"id": int, "game": str, "post": str, "kind": str, "data": str, "reason": str,
                                    "by": str, "at": str, "undone": str, "undone_by": str, "applied": str,
                                    "outcome": str}, pk="id")
    db.table("corrections").create_index(["game", "applied"])
    db.table("host_links").create({"token": str, "host": str, "game": str, "expires": str, "used": str},
                                  pk="token")


@migrations()
def m011_state_parts(db: Database) -> None:
    """A game's state in parts, one row a field or list item (its `state` column NULL then). m014 puts
    every such state back together as one text and drops the table."""
    db.execute("CREATE TABLE state_parts (game TEXT NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, "
               "text TEXT NOT NULL, PRIMARY KEY (game, field, key)) WITHOUT ROWID")


@migrations()
def m012_posts_without_thread_index(db: Database) -> None:
    """No statement reads the posts by thread through an index (every one that picks threads says `+thread`:
    a game's new posts are a rowid range, a step's few), so the (thread, created) index only cost an insert
    a post stored."""
    db.execute("DROP INDEX IF EXISTS idx_posts_thread_created")


@migrations()
def m013_outbox_undelivered_index(db: Database) -> None:
    """The outbox's index holds only the messages not delivered yet (what every reader of it asks for:
    `delivered IS NULL`, by rowid): a delivery takes its message out of a small index instead of moving it
    within one that grows with every message ever sent. Each statement's plan is the same as before."""
    db.execute("DROP INDEX IF EXISTS idx_outbox_delivered")
    db.execute("CREATE INDEX idx_outbox_undelivered ON outbox (delivered) WHERE delivered IS NULL")


@migrations()
def m014_state_whole(db: Database) -> None:
    """Every game's state as one JSON text again: a state kept in parts (m011's table, its `state` NULL) is
    put together (each field's own value, key "", then a list's items in key order) and the table dropped."""
    states: dict[str, dict[str, Any]] = {}
    for game, field, key, text in db.execute("SELECT game, field, key, text FROM state_parts "
                                             "ORDER BY game, field, key").fetchall():
        state = states.setdefault(game, {})
        if key == "":
            state[field] = json.loads(text)
        else:
            state[field].append(json.loads(text))
    db.conn.executemany("UPDATE games SET state = ? WHERE name = ? AND state IS NULL",
                        [(json.dumps(state, ensure_ascii=False), game) for game, state in states.items()])
    db.execute("DROP TABLE state_parts")


@dataclass(frozen=True)
class GameRow:
    name: str
    game: str
    setup: dict[str, Any]
    state: dict[str, Any]
    event_seq: int
    version: int = 0
    host: dict[str, Any] | None = None


# The posts a game has read: those processed, and those it has intents of (commit_step writes a post with
# an intent there only: one row a vote, not two). (?1 and ?2: the game)
_READ_SQL = "SELECT post FROM processed WHERE game = ? UNION SELECT post FROM intents WHERE game = ?"

# The game's post mark (0 for a game not created yet), read inside the statement that uses it.
_MARK = "coalesce((SELECT post_mark FROM games WHERE name = ?), 0)"

# unprocessed_posts' statement by (number of threads, every PM read): built once, not every step.
_UNPROCESSED_SQL: dict[tuple[int, bool], str] = {}


@functools.lru_cache(maxsize=64)
def _known_posts_sql(count: int) -> str:
    return f"SELECT id, body, rowid FROM posts WHERE id IN ({','.join('?' * count)})"


@functools.lru_cache(maxsize=64)
def _insert_posts_sql(count: int) -> str:
    """`count` posts in one statement, those whose id is known left out (its rowcount says how many went in,
    its lastrowid the last one's rowid)."""
    return ("INSERT INTO posts (id, platform, thread, author, created, edited, body, dialect, url, pm, fetched) "
            f"VALUES {', '.join(['(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'] * count)} ON CONFLICT(id) DO NOTHING")


_INSERT_POST_SQL = _insert_posts_sql(1)

# Past this rowid SQLite may give a new row any free rowid (save_posts counts on them being in turn).
_LAST_ROWID = 2**62


# A platform's cursors written: one (platform, name, value); a fetch's "posts" cursor (platform, value);
# its "read_until" (platform, value); both (platform, posts, read_until). The texts are fixed: no parameters
# are put together per step.
_CURSOR_UPSERT = " ON CONFLICT(platform, name) DO UPDATE SET value = excluded.value"
_PUT_CURSOR_SQL = "INSERT INTO cursors (platform, name, value) VALUES (?, ?, ?)" + _CURSOR_UPSERT
_POSTS_CURSOR_SQL = "INSERT INTO cursors (platform, name, value) VALUES (?, 'posts', ?)" + _CURSOR_UPSERT
_READ_CURSOR_SQL = "INSERT INTO cursors (platform, name, value) VALUES (?, 'read_until', ?)" + _CURSOR_UPSERT
_BOTH_CURSORS_SQL = ("INSERT INTO cursors (platform, name, value) VALUES (?1, 'posts', ?2), (?1, 'read_until', ?3)"
                     + _CURSOR_UPSERT)


# A step's write of the game's row, only if it is still the version read: (game, event_seq, updated, version,
# post_mark, whether the state is written, the state, the host or NULL to keep it, the setup or NULL to keep
# it, name, and the event_seq, version and post_mark read).
_UPDATE_GAME_SQL = ("UPDATE games SET game = ?, event_seq = ?, updated = ?, version = ?, post_mark = ?, "
                    "state = CASE WHEN ? THEN ? ELSE state END, host = coalesce(?, host), setup = coalesce(?, setup) "
                    "WHERE name = ? AND event_seq = ? AND version = ? AND post_mark = ?")
_STEP_GAME_SQL = ("UPDATE games SET game = ?, event_seq = ?, updated = ?, version = ?, post_mark = ? "
                  "WHERE name = ? AND event_seq = ? AND version = ? AND post_mark = ?")   # (the others kept)
# A game's first step.
_INSERT_GAME_SQL = ("INSERT INTO games (name, game, event_seq, updated, version, post_mark, state, host, setup) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
# A step's rows of one table go in by one statement (up to _ROWS_A_STATEMENT of them; more, by several), not
# a statement run per row: SQLite then opens the table and its indexes once, and the game's name (and the
# step's time) is bound once, not once a row (each text bound is copied by SQLite into memory of its own).
_ROWS_A_STATEMENT = 16


def _events_text(count: int) -> str:
    """`count` events written: ?1 the game's name, ?2 the step's time, then (seq, kind, data, post) each."""
    rows = ", ".join(f"(?1, ?{3 + 4 * i}, ?{4 + 4 * i}, ?{5 + 4 * i}, ?{6 + 4 * i}, ?2)" for i in range(count))
    return f"INSERT INTO events (game, seq, kind, data, post, at) VALUES {rows}"


def _processed_text(count: int) -> str:
    """`count` posts processed: ?1 the game's name, ?2 the step's time, then each post's id."""
    rows = ", ".join(f"(?1, ?{3 + i}, ?2)" for i in range(count))
    return f"INSERT OR IGNORE INTO processed (game, post, at) VALUES {rows}"


def _intents_text(count: int) -> str:
    """`count` intents written, in turn (their ids in that order): ?1 the game's name, then (post, kind, data,
    at) each."""
    rows = ", ".join(f"(?1, ?{2 + 4 * i}, ?{3 + 4 * i}, ?{4 + 4 * i}, ?{5 + 4 * i})" for i in range(count))
    return f"INSERT INTO intents (game, post, kind, data, at) VALUES {rows}"


# Each number of rows' statement text, by the number (1 to _ROWS_A_STATEMENT), made at import: no step pays
# for making one, whatever its number of rows (nor a test for the order steps came in). One statement of a
# step's rows, not executemany's statement run per row: SQLite opens the table and its indexes once.
_EVENTS_SQL = ("", *map(_events_text, range(1, _ROWS_A_STATEMENT + 1)))
_PROCESSED_SQL = ("", *map(_processed_text, range(1, _ROWS_A_STATEMENT + 1)))
_INTENTS_SQL = ("", *map(_intents_text, range(1, _ROWS_A_STATEMENT + 1)))
# A message queued (a key queued already is left as it is).
_OUTBOX_SQL = ("INSERT OR IGNORE INTO outbox (key, game, kind, thread, pm_to, subject, text, created, attempts, slot) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)")


def _write_rows(cur: sqlite3.Cursor, texts: tuple[str, ...], shared: tuple[str, ...],
                rows: list[tuple[Any, ...]]) -> None:
    """`rows` written by texts[count] statements, each bound to `shared` and then its rows' values in turn."""
    for start in range(0, len(rows), _ROWS_A_STATEMENT):
        batch = rows[start:start + _ROWS_A_STATEMENT]
        cur.execute(texts[len(batch)], (*shared, *chain.from_iterable(batch)))


# pending()'s statement, for every game (False) or one (True).
_PENDING_SQL = {flag: f"SELECT * FROM outbox WHERE delivered IS NULL{' AND game = ?' if flag else ''} ORDER BY rowid"
                for flag in (False, True)}


# The outbox's columns, as `SELECT *` gives them.
_OUTBOX_COLUMNS = ["key", "game", "kind", "thread", "pm_to", "subject", "text", "created", "delivered", "platform_id",
                   "attempts", "last_error", "slot"]


# A message just queued, as pending() reads it back: these columns from commit_step's row, in this order...
_QUEUED_COLUMNS = ("key", "game", "kind", "thread", "pm_to", "subject", "text", "created", "slot")
# ... over a row not delivered, not tried (the columns in the order `SELECT *` gives them)
_UNTRIED = {column: 0 if column == "attempts" else None for column in _OUTBOX_COLUMNS}


def _outbox_row(queued: tuple[Any, ...]) -> dict[str, Any]:
    """A message just queued (commit_step's row) as pending() reads it back."""
    row = _UNTRIED.copy()
    row.update(zip(_QUEUED_COLUMNS, queued, strict=True))
    return row


# A delivery recorded: (time, platform id, key). A message marked already keeps its first mark.
_MARK_SQL = ("UPDATE outbox SET delivered = ?, platform_id = ?, attempts = attempts + 1 WHERE key = ? AND "
             "delivered IS NULL")
_KEY_OF_MARK = itemgetter(2)      # a mark's key
_KEY_OF_ROW = itemgetter("key")   # an outbox row's (pending)


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


def _now() -> str:
    """The time now as format_time writes it, without going through format_time's cache (a time to the
    microsecond is never asked for again, and would push out the times that are)."""
    return _second_text(int(time()))   # (gmtime() too takes the time truncated to the second)


@functools.lru_cache(maxsize=1)
def _second_text(second: int) -> str:
    """A second's text, written once: a runner's steps come many a second (a replay's, a backlog's)."""
    return strftime("%Y-%m-%dT%H:%M:%SZ", gmtime(second))


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


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)

# A post's columns as _post_from_row reads them, by position.
_POST_COLUMNS = "id, thread, author, created, edited, body, dialect, url, pm"


def _post_from_row(row: tuple[Any, ...]) -> Post:
    """A Post from a row of _POST_COLUMNS."""
    platform_id, thread, author, created, edited, body, dialect, url, pm = row
    return Post(platform_id=platform_id, thread=thread, author=author, created=parse_time(created), body=body,
                dialect=dialect or "plain", edited=parse_time(edited) if edited else None, url=url or "",
                pm=bool(pm))


def _post_row(post: Post, platform: str, fetched: str) -> tuple[Any, ...]:
    """A post's row in the posts table, as _insert_posts_sql takes it (id 0, created 4)."""
    return (post.platform_id, platform, post.thread, post.author, format_time(post.created),
            format_time(post.edited) if post.edited else None, post.body, post.dialect, post.url, int(post.pm),
            fetched)


def _as_stored(post: Post, row: tuple[Any, ...]) -> Post:
    """The post as reading its stored row (save_posts' `row`) gives it back: the same one when it is already
    in that form (times in UTC to the second, a dialect, a url)."""
    created, edited = post.created, post.edited
    if created.tzinfo is UTC and not created.microsecond and post.dialect and isinstance(post.url, str) \
            and type(post.pm) is bool and (edited is None or (edited.tzinfo is UTC and not edited.microsecond)):
        return post
    return _post_from_row((row[0], *row[2:10]))


@dataclass
class _Read:
    """What a game's last read of its new posts gave (Store.unprocessed_posts), less what it processed since,
    plus the posts this connection stored since that the read takes (Store._stored_fresh puts them in)."""

    version: int                                # PRAGMA data_version then
    key: tuple[Any, ...]                        # what it read: threads, PM authors, lookalike test
    rows: list[tuple[str, int, Post]]           # (created, rowid, post) of the posts still unprocessed, in order
    wanted: Callable[[tuple[str, int, Post]], bool] | None = None   # Store._wanted for `key`, once asked


# How many unprocessed posts a game's read keeps in memory (a backlog fetched batch by batch, a game that
# stopped reading); past that its next read asks the store.
_FRESH_KEPT = 5000

# The post of a row (created, rowid, post), and its rowid; a post's id.
_POST_OF = itemgetter(2)
_ROWID_OF = itemgetter(1)
_POST_ID_OF = attrgetter("platform_id")
_POST_OF_ROW = itemgetter(0)   # an intent's row's post (commit_step)


class _Tokens(dict[str, tuple[int, int]]):
    """Store.token's answers by what they are about: (PRAGMA data_version at the last look, writes of it through
    this connection). One not written yet is (that version, 0)."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        super().__init__()
        self.version = 0

    def __missing__(self, what: str) -> tuple[int, int]:
        return self.version, 0


class Store:
    """The SQLite store. `path` is a file (WAL mode) or ":memory:"."""

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
        self._reads: dict[str, _Read] = {}
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
        self.held_lost = 0   # how many held transactions were rolled back (what they held is fetched again)
    def close(self) -> None:
        self.write_held()
        self.write_deliveries()
        self.db.close()

    # ---- posts ---------------------------------------------------------------------------------
    def save_posts(self, platform: str, posts: Iterable[Post], cursor: str | None = None,
                   read_at: datetime | None = None, *, hold: bool = False) -> int:
        """Store new posts (a known id is kept as first seen; an edit is recorded beside it), the platform's
        cursor and the time of this successful read (`read_at`, cursor "read_until"), in one transaction.
        Returns how many posts were new.

        `hold` (a runner's fetch): that transaction is left open, held for the step's first commit_step, which
        commits it with the game's step (write_held commits it when no game has anything to write). The posts
        are read by the step's games from memory meanwhile, as if committed."""
        posts = list(posts)
        if not posts and cursor is None and read_at is None:
            return 0
        conn, cur = self.db.conn, self._cur
        # In the held transaction (opened here if none is), or in one of its own (a savepoint within a
        # caller's: `nested`).
        held = hold and (self._held is not None or not conn.in_transaction)
        try:
            with nullcontext(False) if held else Transaction(conn) as nested:
                marks = 0 if held else self._put_marks(nested)
                if held and self._held is None:
                    cur.execute("BEGIN IMMEDIATE")
                    self._held = 0   # (open: a failure below rolls it back)
                    self._held = self._put_marks(False)
                fetched = _now()
                if len(posts) == 1:   # the usual poll: one post, its row the statement's parameters as it is
                    post = posts[0]
                    row = _post_row(post, platform, fetched)
                    done = cur.execute(_INSERT_POST_SQL, row)
                    if done.rowcount == 1:   # new (SQLite gives a new row the rowid after the largest)
                        top = done.lastrowid or 0
                        fresh, edits = [(row[4], top, _as_stored(post, row))], False
                    else:   # known: looked up, as in a batch
                        fresh, edits, top = self._insert_posts(platform, posts, fetched)
                else:
                    fresh, edits, top = self._insert_posts(platform, posts, fetched)
                if read_at is not None:   # the cursors, by one statement text each way
                    self._wrote("cursors")
                    if cursor is not None:
                        cur.execute(_BOTH_CURSORS_SQL, (platform, cursor, format_time(read_at)))
                    else:
                        cur.execute(_READ_CURSOR_SQL, (platform, format_time(read_at)))
                elif cursor is not None:
                    self._wrote("cursors")
                    cur.execute(_POSTS_CURSOR_SQL, (platform, cursor))
        except BaseException:
            if held:
                self._drop_held()
            raise
        if marks:
            del self._marks[:marks]   # (written: committed)
        if nested or edits or top >= _LAST_ROWID:
            # the caller's transaction may still roll back, an edit changed a post (its edit time), or the
            # rowids may not be in turn: new posts are read from the store
            self._reads.clear()
        elif fresh and self._reads:
            self._stored_fresh(fresh)
        return len(fresh)

    def _insert_posts(self, platform: str, posts: list[Post],
                      fetched: str) -> tuple[list[tuple[str, int, Post]], bool, int]:
        """save_posts' posts, within its transaction: (the new posts as a read gives them, (created, rowid,
        post) each; whether an edit was recorded; the largest rowid stored)."""
        fresh: list[tuple[str, int, Post]] = []
        edits: list[tuple[str, str, str]] = []
        top = 0   # the largest rowid stored (the last of an insert that added rows: `ours` below)
        size, cur = self._batch, self._cur   # (the kept cursor: conn.execute makes a cursor each call)
        # a batch of posts: one insert (and a look-up if some are known)
        for start in range(0, len(posts), size):
            batch = posts[start:start + size]
            rows = [_post_row(post, platform, fetched) for post in batch]
            done = cur.execute(_insert_posts_sql(len(rows)), rows[0] if len(rows) == 1 else
                               tuple(chain.from_iterable(rows)))
            # SQLite gives new rows the rowids after the largest (below its maximum), in turn
            added, last = done.rowcount, done.lastrowid or 0
            ours = range(last - added + 1, last + 1) if added > 0 else range(0)
            if added > 0:
                top = max(top, last)
            if added == len(rows):   # every post new (a backlog's batch): nothing to look up
                fresh += [(row[4], rowid, _as_stored(post, row)) for rowid, row, post in
                          zip(ours, rows, batch, strict=True)]
                continue
            # some were known, or came twice: a known id keeps its first text, a different one is an edit
            stored = {platform_id: (body, rowid) for platform_id, body, rowid in
                      cur.execute(_known_posts_sql(len(rows)), [row[0] for row in rows]).fetchall()}
            for post, row in zip(batch, rows, strict=True):
                body, rowid = stored[post.platform_id]
                if rowid in ours:   # stored by this insert: its first time here
                    stored[post.platform_id] = (body, 0)
                    fresh.append((row[4], rowid, _as_stored(post, row)))
                elif post.body != body:
                    edits.append((post.body, format_time(post.edited or post.created), post.platform_id))
        if edits:
            cur.executemany("UPDATE posts SET edited_body = ?, edited = ? WHERE id = ?", edits)
        return fresh, bool(edits), top

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
        self.held_lost += 1
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

    def cursor(self, platform: str, name: str = "posts") -> str | None:
        row = self.db.conn.execute("SELECT value FROM cursors WHERE platform = ? AND name = ?",
                                   [platform, name]).fetchone()
        return row[0] if row else None

    def unprocessed_posts(self, game: str, threads: Iterable[str], pm_authors: Iterable[str] = (),
                          also: Callable[[str], bool] | None = None, *, looked: bool = False) -> list[Post]:
        """Posts in the game's threads, and private messages from `pm_authors` (or whose author `also` takes),
        that the game has not read yet, oldest first. The game's mark is the newest post up to which it has
        read every post, so the posts stored after it, less those already processed (a step may leave posts
        after a deadline that cannot fire yet for the next one), are exactly the new ones.

        `looked`: the caller asked `look` at the start of its step and takes what the store holds as of then
        (Store.token). While no other connection has committed since the game's last read with the same
        threads, authors and `also`, the answer is that read's posts less those the game processed since,
        plus the posts this connection stored since that it reads (_stored_fresh put them in), and the store
        is not asked."""
        threads, authors = tuple(threads), tuple(pm_authors)   # (a tuple is not copied)
        key = (threads, authors, also)
        read = self._reads.get(game) if looked else None
        if read is not None and read.version == self._data_version and read.key == key:
            rows = read.rows
        else:
            rows = self._unprocessed_rows(game, threads, authors, also)
            self._reads[game] = _Read(self._data_version, key, rows)
        self._handed[game] = rows   # (never changed in place: a read's rows are replaced by new lists)
        return list(map(_POST_OF, rows))

    @staticmethod
    def _wanted(threads: tuple[str, ...], authors: tuple[str, ...],
                also: Callable[[str], bool] | None) -> Callable[[tuple[str, int, Post]], bool]:
        """unprocessed_posts' filter, on a row (created, rowid, post) in memory."""
        in_threads, by = set(threads), set(authors)
        everyone = "*" in by

        def wanted(row: tuple[str, int, Post]) -> bool:
            post = row[2]
            if not post.pm:
                return post.thread in in_threads
            return everyone or post.author in by or (also is not None and also(post.author))
        return wanted

    def _unprocessed_rows(self, game: str, threads: tuple[str, ...], pm_authors: tuple[str, ...],
                          also: Callable[[str], bool] | None) -> list[tuple[str, int, Post]]:
        """unprocessed_posts asking the store: (created, rowid, post) each, oldest first."""
        authors = set(pm_authors)
        # Every new PM is selected and those from `authors` kept here: the statement does not grow with the
        # roster (new PMs are few, and the rowid range bounds them).
        every_pm = bool(authors) or also is not None
        sql = _UNPROCESSED_SQL.get((len(threads), every_pm))
        if sql is None:
            where, _ = self._posts_where(threads, (), every_pm=every_pm)
            # "+thread" keeps SQLite on the rowid range instead of scanning the whole thread through its index.
            sql = _UNPROCESSED_SQL[len(threads), every_pm] = (
                f"SELECT {_POST_COLUMNS}, rowid FROM posts WHERE rowid > {_MARK} AND ({where}) AND NOT EXISTS "
                f"(SELECT 1 FROM processed WHERE processed.game = ? AND processed.post = posts.id) AND NOT EXISTS "
                f"(SELECT 1 FROM intents WHERE intents.game = ? AND intents.post = posts.id) "
                f"ORDER BY created, rowid")
        everyone = "*" in authors
        # a row: _POST_COLUMNS (id 0, author 2, created 3, pm 8), then the rowid (9)
        return [(row[3], row[9], _post_from_row(row[:9]))
                for row in self.db.conn.execute(sql, [game, *threads, game, game]).fetchall()
                if not row[8] or everyone or row[2] in authors or (also is not None and also(row[2]))]

    def _stored_fresh(self, fresh: list[tuple[str, int, Post]]) -> None:
        """Posts this connection has just stored (or holds, uncommitted: _drop_held forgets every read), put
        into each game's last read that takes them, for its next read. When the reads would keep more than
        _FRESH_KEPT unprocessed posts in all (a backlog fetched batch by batch, games that stopped reading),
        every read is dropped: the games' next reads ask the store, and memory holds neither the whole
        backlog nor a share of it per game, however many games there are."""
        kept = 0
        for read in self._reads.values():   # (a loop: a step has a read or two)
            if read.wanted is None:   # the same filter for as long as the key is the same
                read.wanted = self._wanted(*read.key)
            new = [*filter(read.wanted, fresh)]
            if new:   # by created, then rowid (unique: the posts themselves are never compared)
                read.rows = sorted([*read.rows, *new])
            kept += len(read.rows)
        if kept > _FRESH_KEPT:
            self._reads.clear()

    @staticmethod
    def _mark_after(handed: list[tuple[str, int, Post]], left: list[tuple[str, int, Post]]) -> int:
        """The game's new mark as far as the posts handed out say (0: none): the newest of them such that it
        and every one handed out before it (by rowid) are processed now (`left`: those not processed)."""
        if not left:
            return max(map(_ROWID_OF, handed), default=0)
        first = min(map(_ROWID_OF, left))
        return max((rowid for rowid in map(_ROWID_OF, handed) if rowid < first), default=0)

    def posts(self, threads: Iterable[str] | None = None, pm_authors: Iterable[str] = ()) -> list[Post]:
        """Stored posts, oldest first: all, or those of some threads (and PMs from some authors)."""
        where, params = ("1", []) if threads is None else self._posts_where(threads, pm_authors)
        rows = self.db.conn.execute(f"SELECT {_POST_COLUMNS} FROM posts WHERE {where} ORDER BY created, rowid",
                                    params).fetchall()
        return [_post_from_row(row) for row in rows]

    @staticmethod
    def _posts_where(threads: Iterable[str], pm_authors: Iterable[str], *,
                     every_pm: bool = False) -> tuple[str, list[str]]:
        thread_list, authors = list(threads), list(pm_authors)
        parts, params = ["0"], []
        if thread_list:
            parts.append(f"(+thread IN ({','.join('?' * len(thread_list))}) AND pm = 0)")
            params += thread_list
        if every_pm or "*" in authors:   # "*": a game reading everyone's PMs (Mafia's sign-ups)
            parts.append("pm = 1")
        elif authors:
            parts.append(f"(pm = 1 AND author IN ({','.join('?' * len(authors))}))")
            params += authors
        return " OR ".join(parts), params

    # ---- games ---------------------------------------------------------------------------------
    def game(self, name: str) -> GameRow | None:
        row = self.db.conn.execute("SELECT name, game, setup, state, event_seq, version, host FROM games "
                                   "WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        return GameRow(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5],
                       json.loads(row[6]) if row[6] else None)

    def event_seq(self, name: str) -> int:
        row = self.db.conn.execute("SELECT event_seq FROM games WHERE name = ?", [name]).fetchone()
        return row[0] if row else 0

    def game_version(self, name: str) -> int | None:
        """The game's step counter (cheap: no JSON), or None for an unknown game."""
        row = self.db.conn.execute("SELECT version FROM games WHERE name = ?", [name]).fetchone()
        return row[0] if row else None

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

    def games(self) -> list[GameRow]:
        names = [row[0] for row in self.db.execute("SELECT name FROM games ORDER BY name").fetchall()]
        return [g for g in (self.game(n) for n in names) if g is not None]

    def commit_step(self, name: str, game: str, setup: dict[str, Any] | None,
                    state: dict[str, Any] | str | None,
                    *, processed: Iterable[str] = (), intents: Iterable[Intent] = (),
                    flags: Iterable[Flag] = (), events: Iterable[tuple[Event, str]] = (),
                    outbox: Iterable[Outgoing] = (), at: datetime | None = None,
                    expected_seq: int | None = None, expected_version: int | None = None,
                    host: dict[str, Any] | None = None) -> int:
        """Write one step of a game atomically. `events` pairs each event with the post that caused it.
        `setup` or `state` None keeps the stored one; `state` may come as JSON text already. Returns the
        game's new event count.

        `expected_version` is the version of the state the step was computed from (0: a game not created
        yet); it is checked inside the write transaction, so a step never commits over a state it did not
        read. Raises StaleState when another writer moved the game on (nothing is written).

        While save_posts `hold` holds a transaction, the step is written in it and commits it (so a caller
        must not wrap this in a transaction of its own then: write_held first)."""
        processed = list(processed)
        handed = self._handed.get(name) if processed else None
        if handed:   # the posts handed out that this step leaves unprocessed, and the mark they allow
            done = set(processed)
            if done.issuperset(map(_POST_ID_OF, map(_POST_OF, handed))):   # all of them (the usual step)
                left: list[tuple[str, int, Post]] | None = []
                top = max(map(_ROWID_OF, handed))
            else:
                left = [row for row in handed if row[2].platform_id not in done]
                top = self._mark_after(handed, left)
        else:
            left, top = None, 0
        stamp = format_time(at) if at else _now()
        conn, cur = self.db.conn, self._cur
        known = self._written.pop(name, None)   # set again below once this step is committed
        # In the transaction holding the step's fetch (committed with it), or in one of its own (a savepoint
        # within a caller's: `nested`).
        held = self._held is not None
        writing = False
        try:
            with nullcontext(False) if held else Transaction(conn, "BEGIN IMMEDIATE") as nested:
                marks = 0 if held else self._put_marks(nested)
                if known is not None and expected_version == known[0]:
                    # This connection wrote that version: no read; the write below checks that it is still there.
                    version, seq, mark = known
                    row: tuple[int, int, int] | None = known
                    if expected_seq is not None and seq != expected_seq:
                        raise StaleState(f"game {name} changed under us (events {seq}, expected {expected_seq})")
                else:
                    if nested:   # a deferred transaction: take the write lock first, so the row read is the newest
                        cur.execute("UPDATE games SET version = version WHERE 0")
                    row = next(iter(cur.execute("SELECT event_seq, version, post_mark FROM games WHERE name = ?",
                                                [name]).fetchall()), None)
                    seq, version, mark = row if row else (0, 0, 0)
                    if expected_seq is not None and seq != expected_seq:
                        raise StaleState(f"game {name} changed under us (events {seq}, expected {expected_seq})")
                    if expected_version is not None and version != expected_version:
                        raise StaleState(f"game {name} changed under us (version {version}, read {expected_version})")
                before = (seq, version, mark)
                # Every row is made before the first statement that writes: in the held transaction, a failure
                # before that (or StaleState, raised only where nothing was written) leaves the held posts for the
                # next commit; a failure after it rolls the whole transaction back (no part of a game's step is
                # ever committed without the rest).
                event_rows = []   # (seq, kind, data, post): the game's name and the time are bound once
                for event, post in events:
                    seq += 1
                    event_rows.append((seq, event.kind, _dumps(event.data), post))
                if top > mark:
                    mark = top
                # The game's row, by one statement text whatever the step changed: the state's text only with
                # `put_state`, the host's and the setup's only when given.
                put_state, state_text = 0, None
                if state is not None or row is None:
                    put_state, state_text = 1, state if isinstance(state, str) else _dumps(state or {})
                host_text = _dumps(host) if host is not None else None
                setup_text = _dumps(setup or {}) if setup is not None or row is None else None
                # (an empty list is not walked: most steps have no flags, a talk post no intents, a vote no message)
                intent_rows = [(i.post_id, i.kind, _dumps(i.data), format_time(i.at) if i.at else stamp)
                               for i in intents] if intents else ()
                flag_rows = [(name, f.post_id, f.author, f.reason, _dumps(list(f.candidates)), f.line,
                              format_time(f.at) if f.at else stamp) for f in flags] if flags else ()
                queued = [(o.key, name, o.kind, o.thread, o.pm_to, o.subject, o.text,
                           format_time(o.at) if o.at else stamp, o.slot or None) for o in outbox] if outbox else []
                writing = True
                # The game's row first: an existing one only if it is still the version read (checked in the
                # write itself, so a step never commits over a state it did not read).
                if row is None:
                    cur.execute(_INSERT_GAME_SQL, (name, game, seq, stamp, version + 1, mark, state_text, host_text,
                                                    setup_text))
                else:
                    if put_state or host_text is not None or setup_text is not None:
                        updated = cur.execute(_UPDATE_GAME_SQL, (game, seq, stamp, version + 1, mark, put_state,
                                                                  state_text, host_text, setup_text, name, *before))
                    else:   # the state, the host and the setup kept
                        updated = cur.execute(_STEP_GAME_SQL, (game, seq, stamp, version + 1, mark, name, *before))
                    if updated.rowcount != 1:
                        raise StaleState(f"game {name} changed under us (not at version {version} any more)")
                # A step's rows of a table by one statement (several past _ROWS_A_STATEMENT rows), the game's
                # name (and the step's time) bound once: not sqlite-utils' insert_all, which inspects the schema
                # on every call, nor executemany, which runs its statement once a row.
                # (IndexError: only from the texts' tuple, when there are more rows than one statement takes)
                # A post the step writes an intent of is not written here as well: its intents say the game
                # read it (every reader of `processed` takes the posts of the game's intents too), so a vote
                # writes one row, not two. Only the posts without an intent (talk, a PM with nothing in it, a
                # post that did not count) get a row of their own.
                unread = processed
                if intent_rows:
                    said = set(map(_POST_OF_ROW, intent_rows))
                    if said == set(processed):   # (the usual step: each post a command)
                        unread = []
                    elif said.issubset(processed):
                        unread = [post for post in processed if post not in said]
                    else:   # (never: a game's intents come from the posts its step read)
                        raise ValueError(f"game {name}: intents of posts the step did not read "
                                         f"({sorted(said.difference(processed))})")
                if unread:
                    try:
                        cur.execute(_PROCESSED_SQL[len(unread)], (name, stamp, *unread))
                    except IndexError:
                        _write_rows(cur, _PROCESSED_SQL, (name, stamp), [*zip(unread)])
                if intent_rows:
                    try:
                        cur.execute(_INTENTS_SQL[len(intent_rows)], (name, *chain.from_iterable(intent_rows)))
                    except IndexError:
                        _write_rows(cur, _INTENTS_SQL, (name,), intent_rows)
                if flag_rows:
                    cur.executemany("INSERT INTO flags (game, post, author, reason, candidates, line, at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?)", flag_rows)
                if event_rows:   # (a step's few: one statement, written out here)
                    try:
                        cur.execute(_EVENTS_SQL[len(event_rows)], (name, stamp, *chain.from_iterable(event_rows)))
                    except IndexError:
                        _write_rows(cur, _EVENTS_SQL, (name, stamp), event_rows)
                if queued:   # (a step's one or two)
                    added = cur.executemany(_OUTBOX_SQL, queued).rowcount
                else:
                    added = 0
                writing = False
                if held:
                    self._commit_held()   # (a failure rolls back what it held, and forgets it)
        except BaseException as err:
            if held and writing and not isinstance(err, StaleState):   # (StaleState: the game's row was not written)
                self._drop_held()
            self._reads.pop(name, None)   # another writer may have moved the game on: its posts are read again
            raise
        if marks:
            del self._marks[:marks]   # (written: committed)
        self._wrote(f"game:{name}")
        if queued:
            self._wrote("outbox")
            if self._owed is not None:   # a key already there (not queued again) or a rollback to come: read it
                if nested or added != len(queued):
                    self._owed = None
                else:
                    self._owed[1].extend(map(_outbox_row, queued))
        if nested:   # the caller's transaction may still roll back
            if processed:
                self._reads.pop(name, None)
            return seq
        self._written[name] = (version + 1, seq, mark)   # known only once committed
        if left is not None:   # only what is still unprocessed is kept for the next mark (not every Post
            self._handed[name] = left   # handed out: a backlog's posts would stay in memory, a batch a game)
        if processed:
            read = self._reads.get(name)
            if read is not None:
                if left is not None and read.rows is handed:
                    read.rows = left
                else:
                    done = set(processed)
                    read.rows = [row for row in read.rows if row[2].platform_id not in done]
        return seq

    # ---- outbox --------------------------------------------------------------------------------
    def pending(self, game: str | None = None, *, looked: bool = False) -> list[dict[str, Any]]:
        """Undelivered messages, in the order they were decided.

        `looked`: as in unprocessed_posts. While no other connection has committed since the outbox was last
        read, that read's messages less those delivered since plus those queued since are the answer, and
        the store is not asked."""
        owed = self._owed if looked else None
        if owed is not None and owed[0] == self._data_version:
            return [row for row in owed[1] if row["game"] == game] if game else list(owed[1])
        self.write_deliveries()
        cursor = self.db.conn.execute(_PENDING_SQL[bool(game)], [game] if game else [])
        columns = [c[0] for c in cursor.description]
        if not game:
            rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
            self._owed = (self._data_version, rows) if columns == _OUTBOX_COLUMNS else None
            return list(rows)
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def slot_holder(self, game: str, slot: str) -> str | None:
        """The platform id of the post that a slot's messages replace in place (the first one delivered)."""
        self.write_deliveries()
        row = self.db.conn.execute("SELECT platform_id FROM outbox WHERE game = ? AND slot = ? AND delivered IS NOT "
                                   "NULL AND platform_id NOT LIKE 'superseded:%' ORDER BY rowid LIMIT 1",
                                   [game, slot]).fetchone()
        return row[0] if row else None

    def newer_in_slot(self, game: str, slot: str, key: str) -> str | None:
        """The key of a later undelivered message of the same slot, if any (this one need not go out)."""
        self.write_deliveries()
        row = self.db.conn.execute("SELECT key FROM outbox WHERE game = ? AND slot = ? AND delivered IS NULL AND "
                                   "rowid > (SELECT rowid FROM outbox WHERE key = ?) ORDER BY rowid DESC LIMIT 1",
                                   [game, slot, key]).fetchone()
        return row[0] if row else None

    def command_posts(self, game: str, since: datetime, among: Collection[str] | None = None) -> list[Post]:
        """Thread posts that carried commands of a game, made since `since` (what a recheck re-reads); with
        `among`, only those whose ids it holds (the ones the platform says may have changed: a day's thousands
        of votes are not read and built to be found as they were)."""
        if among is None:
            rows = self.db.conn.execute(
                f"SELECT {_POST_COLUMNS} FROM posts WHERE pm = 0 AND created >= ? AND id IN "
                "(SELECT post FROM intents WHERE game = ?) ORDER BY created, rowid", [format_time(since), game]
            ).fetchall()
        elif among:   # (the ids as one JSON argument, any number of them; each looked up, not every intent)
            rows = self.db.conn.execute(
                f"SELECT {_POST_COLUMNS} FROM posts WHERE id IN (SELECT value FROM json_each(?)) AND pm = 0 AND "
                "created >= ? AND EXISTS (SELECT 1 FROM intents WHERE game = ? AND post = posts.id) "
                "ORDER BY created, rowid", [_dumps(sorted(among)), format_time(since), game]).fetchall()
        else:
            return []
        return [_post_from_row(row) for row in rows]

    def rechecked(self, platform: str, game: str, mark: str, value: str, posts: Iterable[Post],
                  flags: Iterable[Flag]) -> None:
        """What a recheck found, stored at once: edited bodies and re-read posts, flags, and the mark that
        says this deadline's recheck is done."""
        with Transaction(self.db.conn):
            self.save_posts(platform, posts)
            self.add_flags(game, flags)
            self.set_cursor(platform, mark, value)

    def add_flags(self, game: str, flags: Iterable[Flag]) -> None:
        with Transaction(self.db.conn):
            self.db.conn.executemany(
                "INSERT INTO flags (game, post, author, reason, candidates, line, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game, f.post_id, f.author, f.reason, _dumps(list(f.candidates)), f.line,
                  format_time(f.at) if f.at else _now()) for f in flags])

    def record_delivery(self, sent: Iterable[tuple[str, str]], at: datetime | None = None,
                        failed: tuple[str, str] | None = None, *, later: bool = False) -> None:
        """In one transaction: messages delivered, (key, platform id) each, and the one whose sending
        failed, (key, error). `attempts` counts the sends tried whose outcome was recorded.

        `later` (messages delivered, none failed): written by this connection's next transaction instead
        of one of their own (a runner's next poll writes one anyway), or before anything reads the outbox's
        delivered marks through this connection. A crash before that loses the marks, which costs what a
        crash just after a send costs: the platform is asked for the message (by its marker) before it is
        sent again."""
        sent = list(sent)
        if not sent and failed is None:
            return
        stamp = format_time(at) if at else _now()
        marks = [(stamp, platform_id, key) for key, platform_id in sent]
        if later and failed is None:
            self.delivered(marks)
            return
        conn = self.db.conn
        with Transaction(conn) as nested:
            written = self._put_marks(nested, marks)
            if failed is not None:
                conn.execute("UPDATE outbox SET last_error = ?, attempts = attempts + 1 WHERE key = ?",
                             [failed[1], failed[0]])
        del self._marks[:written]
        if self._owed is not None:
            if nested:   # the caller's transaction may still roll back
                self._owed = None
                return
            gone = set(map(_KEY_OF_MARK, marks))
            rows = [row for row in self._owed[1] if row["key"] not in gone]
            if failed is not None:
                rows = [{**row, "last_error": failed[1], "attempts": row["attempts"] + 1} if row["key"] == failed[0]
                        else row for row in rows]
            self._owed = (self._owed[0], rows)

    def delivered(self, marks: list[tuple[str, str, str]]) -> None:
        """Messages delivered, (time, platform id, key) each, in the order pending() gave them: recorded
        `later`, as record_delivery records them."""
        self._marks += marks
        owed = self._owed
        if owed is None:
            return
        rows = owed[1]
        count = len(marks)
        if list(map(_KEY_OF_ROW, rows[:count])) == list(map(_KEY_OF_MARK, marks)):   # the first ones owed
            self._owed = (owed[0], rows[count:])
        else:
            gone = set(map(_KEY_OF_MARK, marks))
            self._owed = (owed[0], [row for row in rows if row["key"] not in gone])

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

    # ---- platform health ------------------------------------------------------------------------
    def platform_ok(self, platform: str, at: datetime) -> None:
        with Transaction(self.db.conn) as nested:
            marks = self._put_marks(nested)
            self.db.conn.execute("INSERT INTO platform_status (platform, last_ok, failures, next_try) "
                                 "VALUES (?, ?, 0, NULL) ON CONFLICT(platform) DO UPDATE SET "
                                 "last_ok = excluded.last_ok, failures = 0, next_try = NULL",
                                 [platform, format_time(at)])
        del self._marks[:marks]

    def platform_failed(self, platform: str, at: datetime, error: str, failures: int, next_try: datetime) -> None:
        with Transaction(self.db.conn) as nested:
            marks = self._put_marks(nested)
            self.db.conn.execute("INSERT INTO platform_status (platform, last_error, last_error_at, failures, "
                                 "next_try) VALUES (?, ?, ?, ?, ?) ON CONFLICT(platform) DO UPDATE SET "
                                 "last_error = excluded.last_error, last_error_at = excluded.last_error_at, "
                                 "failures = excluded.failures, next_try = excluded.next_try",
                                 [platform, error, format_time(at), failures, format_time(next_try)])
        del self._marks[:marks]

    def platform_status(self) -> list[dict[str, Any]]:
        return list(self.db["platform_status"].rows_where(order_by="platform"))

    def cursors_starting(self, prefix: str) -> list[tuple[str, str, str]]:
        """(platform, name, value) of every cursor whose name starts with `prefix`, by platform and name."""
        return self.db.execute("SELECT platform, name, value FROM cursors WHERE substr(name, 1, ?) = ? "
                               "ORDER BY platform, name", [len(prefix), prefix]).fetchall()

    def set_cursor(self, platform: str, name: str, value: str) -> None:
        with Transaction(self.db.conn):
            self._put_cursor(platform, name, value)

    def _put_cursor(self, platform: str, name: str, value: str) -> None:
        """A cursor written within the caller's transaction."""
        self._wrote("cursors")
        self.db.conn.execute(_PUT_CURSOR_SQL, (platform, name, value))

    def outbox(self, game: str | None = None) -> list[dict[str, Any]]:
        self.write_deliveries()
        return list(self.db["outbox"].rows_where("game = ?" if game else None, [game] if game else [],
                                                 order_by="rowid"))

    def flags(self, game: str | None = None) -> Iterator[dict[str, Any]]:
        yield from self.db["flags"].rows_where("game = ?" if game else None, [game] if game else [],
                                               order_by="id")

    def has_open_flag(self, game: str, reason: str) -> bool:
        """Whether an open flag of the game already says `reason` (a failure that repeats every poll is
        flagged once)."""
        return self.db.conn.execute("SELECT 1 FROM flags WHERE game = ? AND reason = ? AND resolved IS NULL LIMIT 1",
                                    [game, reason]).fetchone() is not None

    def flag_list(self, game: str | None = None, *, include_resolved: bool = False,
                  limit: int | None = None) -> list[dict[str, Any]]:
        """Flags newest first, with a link to the post each is about (its url, when the platform gave one)."""
        where = ["1"]
        params: list[Any] = []
        if game:
            where.append("f.game = ?")
            params.append(game)
        if not include_resolved:
            where.append("f.resolved IS NULL")
        sql = (f"SELECT f.*, p.url AS url FROM flags f LEFT JOIN posts p ON p.id = f.post "
               f"WHERE {' AND '.join(where)} ORDER BY f.at DESC, f.id DESC" + (f" LIMIT {int(limit)}" if limit else ""))
        cursor = self.db.execute(sql, params)
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def resolve_flags(self, ids: Iterable[int], at: datetime) -> list[int]:
        """Mark flags resolved; returns the ids that were open (unknown or already resolved ids are left)."""
        done = []
        with self.db.atomic():
            for flag_id in ids:
                cursor = self.db.execute("UPDATE flags SET resolved = ? WHERE id = ? AND resolved IS NULL",
                                         [format_time(at), flag_id])
                if cursor.rowcount:
                    done.append(flag_id)
        return done

    def new_pm_authors(self, game: str) -> list[str]:
        """Who sent the private messages stored since the game last read (a cheap range of rowids)."""
        return [row[0] for row in self.db.conn.execute(
            f"SELECT DISTINCT author FROM posts WHERE rowid > {_MARK} AND pm = 1", [game]).fetchall()]

    def events(self, game: str) -> list[dict[str, Any]]:
        return list(self.db["events"].rows_where("game = ?", [game], order_by="seq"))

    # ---- the tournament ledger -----------------------------------------------------------------
    def record_ledger(self, tournament: str, game: str, entries: Iterable[Any], at: datetime | None = None) -> int:
        """A game's ledger entries (forumbot.tournament.Entry), once: recording them again changes nothing.
        Returns how many were new."""
        rows = [(tournament, game, seq, e.player, e.tol, e.garnets, e.ec, e.reason, format_time(at) if at else _now(),
                 getattr(e, "forum", ""), getattr(e, "penalty", 0)) for seq, e in enumerate(entries, start=1)]
        with self.db.atomic():
            before = self.db.execute("SELECT count(*) FROM ledger WHERE tournament = ? AND game = ?",
                                     [tournament, game]).fetchone()[0]
            self.db.conn.executemany("INSERT OR IGNORE INTO ledger (tournament, game, seq, player, tol, garnets, ec, "
                                     "reason, at, forum, penalty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return max(0, len(rows) - before)

    def ledger(self, tournament: str) -> list[dict[str, Any]]:
        """The tournament's entries, in the order they were recorded."""
        return list(self.db["ledger"].rows_where("tournament = ?", [tournament], order_by="rowid"))

    def tournaments(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT tournament FROM ledger ORDER BY tournament")]


    # ---- the host console (forumbot/corrections.py keeps the rules; here are its rows) ---------------
    def correction_rows(self, *, game: str | None = None, correction_id: int | None = None,
                        current: bool = False) -> list[tuple[Any, ...]]:
        """Corrections, oldest first: a game's (`current`: only those waiting to be applied or not undone),
        or one by id. Each row: id, game, post, kind, data, reason, by, at, undone, undone_by, applied,
        outcome."""
        if correction_id is not None:
            where, params = "id = ?", [correction_id]
        else:
            where = "game = ?" + (" AND (applied IS NULL OR undone IS NULL)" if current else "")
            params = [game]
        return self.db.execute(f"SELECT id, game, post, kind, data, reason, by, at, undone, undone_by, applied, "
                               f"outcome FROM corrections WHERE {where} ORDER BY id", params).fetchall()

    def add_correction(self, game: str, post: str, kind: str, data: str, reason: str, by: str, at: datetime,
                       applied: datetime | None) -> int:
        self._wrote("corrections")
        with self.db.atomic():
            cursor = self.db.execute("INSERT INTO corrections (game, post, kind, data, reason, by, at, applied) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                     [game, post, kind, data, reason, by, format_time(at),
                                      format_time(applied) if applied else None])
            return int(cursor.lastrowid or 0)

    def undo_correction(self, correction_id: int, by: str, at: datetime) -> bool:
        self._wrote("corrections")
        with self.db.atomic():
            cursor = self.db.execute("UPDATE corrections SET undone = ?, undone_by = ?, applied = NULL "
                                     "WHERE id = ? AND undone IS NULL", [format_time(at), by, correction_id])
            return bool(cursor.rowcount)

    def mark_corrections(self, ids: Iterable[int], at: datetime, outcome: str = "") -> None:
        """The corrections `ids` applied at `at`; an `outcome` ("not applied: …") is kept on those not undone."""
        self._wrote("corrections")
        with self.db.atomic():
            for correction_id in ids:
                if outcome:
                    self.db.execute("UPDATE corrections SET outcome = ? WHERE id = ? AND undone IS NULL",
                                    [outcome, correction_id])
                self.db.execute("UPDATE corrections SET applied = ? WHERE id = ?", [format_time(at), correction_id])

    def processed_posts(self, game: str) -> list[Post]:
        """The posts the game has read, in its order."""
        columns = ", ".join(f"posts.{column}" for column in _POST_COLUMNS.split(", "))
        rows = self.db.conn.execute(f"SELECT {columns} FROM posts WHERE id IN ({_READ_SQL}) "
                                    "ORDER BY posts.created, posts.rowid", [game, game]).fetchall()
        return [_post_from_row(row) for row in rows]

    def game_updated(self, game: str) -> str | None:
        """When the game's last step was written."""
        row = self.db.execute("SELECT updated FROM games WHERE name = ?", [game]).fetchone()
        return row[0] if row else None

    def edited_texts(self, game: str) -> dict[str, str]:
        """The edited text of the game's read posts that were edited after the bot first read them."""
        return {r[0]: r[1] for r in self.db.execute(
            f"SELECT id, edited_body FROM posts WHERE id IN ({_READ_SQL}) AND edited_body IS NOT NULL",
            [game, game]).fetchall()}

    def bot_post_ids(self, game: str) -> set[str]:
        """The platform ids of the bot's own delivered posts for the game."""
        self.write_deliveries()
        return {r[0] for r in self.db.execute(
            "SELECT platform_id FROM outbox WHERE game = ? AND platform_id IS NOT NULL", [game]).fetchall()}

    def intents_by_post(self, game: str) -> dict[str, list[dict[str, Any]]]:
        """The intents the parser read, by post, in order: {"kind", "data"}."""
        out: dict[str, list[dict[str, Any]]] = {}
        for post, kind, data in self.db.execute("SELECT post, kind, data FROM intents WHERE game = ? ORDER BY id",
                                                [game]).fetchall():
            out.setdefault(post, []).append({"kind": kind, "data": json.loads(data or "{}")})
        return out

    def add_host_link(self, digest: str, host: str, game: str, expires: datetime) -> None:
        with self.db.atomic():
            self.db.execute("INSERT INTO host_links (token, host, game, expires) VALUES (?, ?, ?, ?)",
                            [digest, host, game, format_time(expires)])

    def use_host_link(self, digest: str, now: datetime) -> tuple[str, str] | None:
        """(host, game) of a link neither used nor expired, marking it used; None otherwise."""
        with self.db.atomic():
            row = self.db.execute("SELECT host, game, expires FROM host_links WHERE token = ? AND used IS NULL",
                                  [digest]).fetchone()
            if row is None or row[2] < format_time(now):
                return None
            self.db.execute("UPDATE host_links SET used = ? WHERE token = ?", [format_time(now), digest])
            return row[0], row[1]
