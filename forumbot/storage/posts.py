"""Posts and cursors: stored once by platform id, before anything reads them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from operator import attrgetter, itemgetter
from typing import Any

from forumbot.model import Post, format_time, parse_time
from forumbot.storage.base import StoreBase, dumps, now
from forumbot.storage.sqlite import Transaction

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
class Read:
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


class Posts(StoreBase):
    """The posts fetched, what each game has not read yet, and the platforms' cursors and health."""

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
                fetched = now()
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
            self._reads[game] = Read(self._data_version, key, rows)
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
                "ORDER BY created, rowid", [dumps(sorted(among)), format_time(since), game]).fetchall()
        else:
            return []
        return [_post_from_row(row) for row in rows]

    def processed_posts(self, game: str) -> list[Post]:
        """The posts the game has read, in its order."""
        columns = ", ".join(f"posts.{column}" for column in _POST_COLUMNS.split(", "))
        rows = self.db.conn.execute(f"SELECT {columns} FROM posts WHERE id IN ({_READ_SQL}) "
                                    "ORDER BY posts.created, posts.rowid", [game, game]).fetchall()
        return [_post_from_row(row) for row in rows]

    def edited_texts(self, game: str) -> dict[str, str]:
        """The edited text of the game's read posts that were edited after the bot first read them."""
        return {r[0]: r[1] for r in self.db.execute(
            f"SELECT id, edited_body FROM posts WHERE id IN ({_READ_SQL}) AND edited_body IS NOT NULL",
            [game, game]).fetchall()}

    def accounts_before(self, at: datetime) -> list[str]:
        """Every account that had posted or sent a private message before `at`."""
        return [row[0] for row in self.db.conn.execute(
            "SELECT DISTINCT author FROM posts WHERE created < ?", [format_time(at)]).fetchall()]

    def new_pm_authors(self, game: str) -> list[str]:
        """Who sent the private messages stored since the game last read (a cheap range of rowids)."""
        return [row[0] for row in self.db.conn.execute(
            f"SELECT DISTINCT author FROM posts WHERE rowid > {_MARK} AND pm = 1", [game]).fetchall()]

    def cursor(self, platform: str, name: str = "posts") -> str | None:
        row = self.db.conn.execute("SELECT value FROM cursors WHERE platform = ? AND name = ?",
                                   [platform, name]).fetchone()
        return row[0] if row else None

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
