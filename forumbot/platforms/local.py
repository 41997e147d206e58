"""The embedded default platform: a small forum that lives in SQLite (people use it through the web
forum, `forumbot/web/`, which keeps its accounts in the same file).

Threads have a key ("demo/votes"); posts and private messages get increasing ids. Scenario files and
the demo feed it with `add_post`/`add_pm`; the bot reads and writes it through the Platform Protocol
exactly as it does Reddit. The clock is injectable so a replay runs on virtual time.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.errors import ConfigError, PlatformError
from forumbot.model import Flag, Post, format_time, parse_time
from forumbot.platforms import markers
from forumbot.platforms.base import EDIT_POLICIES, Recheck
from forumbot.storage.sqlite import Transaction, open_database

forum_migrations = Migrations("localforum")


@forum_migrations()
def m001_forum(db: Database) -> None:
    db.table("forum_threads").create({"key": str, "title": str, "created": str}, pk="key")
    db.table("forum_posts").create({"id": int, "thread": str, "author": str, "body": str, "created": str,
                              "edited": str}, pk="id", foreign_keys=[("thread", "forum_threads", "key")])
    db.table("forum_posts").create_index(["thread", "id"])
    db.table("forum_pms").create({"id": int, "sender": str, "recipient": str, "subject": str, "body": str,
                            "created": str, "read": int}, pk="id")
    db.table("forum_pms").create_index(["recipient", "read"])


@forum_migrations()
def m002_edited_posts(db: Database) -> None:
    # The posts edited, deleted or removed (edit_post sets `edited`), by creation time: what changed_posts
    # reads, without walking every post of the window (no entry for a post never edited).
    db.execute("CREATE INDEX forum_posts_edited ON forum_posts (created) WHERE edited IS NOT NULL")


# How a post the bot removed starts (remove_post): the web forum refuses to edit it back.
REMOVED = "[removed by the bot"


def _utcnow() -> datetime:
    return datetime.now(UTC)


# The first post after the cursor that is not due yet, and the newest post (see fetch_posts).
_EDGES = "(SELECT min(id) FROM forum_posts WHERE id > ? AND created > ?), (SELECT max(id) FROM forum_posts)"


_INSERT_POST = "INSERT INTO forum_posts (thread, author, body, created) VALUES (?, ?, ?, ?)"
# The most posts add_posts puts by one statement (four variables a post; SQLite allows 32,766 variables).
_MOST_POSTS = 64


@functools.lru_cache(maxsize=_MOST_POSTS)
def _insert_posts_sql(count: int) -> str:
    """add_posts' statement for `count` posts (built once for each count)."""
    return _INSERT_POST + ", (?, ?, ?, ?)" * (count - 1)

# The bot's post: its text less its trailing newlines, then its marker, put together by SQLite, so the text
# is bound as the very string the outbox stored, whose UTF-8 form Python keeps from that insert (a 2 KB vote
# count is not copied into a new string by rstrip and + and encoded a second time).
_INSERT_MARKED_POST = ("INSERT INTO forum_posts (thread, author, body, created) "
                       "VALUES (?, ?, rtrim(?, char(10)) || ?, ?)")
# The same, for a text that ends in one line break before a marker that starts with one (a rendered post ends
# so, and every marker starts so): the text, then the marker less its line break, is that, without the copy
# rtrim makes of the whole text (about 5,000 instructions a 2 KB vote count).
_INSERT_JOINED_POST = "INSERT INTO forum_posts (thread, author, body, created) VALUES (?, ?, ? || ?, ?)"
# The bot's unread PMs that are due, and (the row without an id, first) when the first one not yet due is due.
_PMS = ("SELECT id, sender, body, created, subject FROM forum_pms WHERE recipient = ?1 AND read = 0 AND created <= ?2 "
        "UNION ALL SELECT NULL, NULL, NULL, min(created), NULL FROM forum_pms "
        "WHERE recipient = ?1 AND read = 0 AND created > ?2 ORDER BY id")


_ANY_LIKE = "(body LIKE ? OR body LIKE ? OR body LIKE ?)"     # markers.like_patterns

# A post's permalink on a forum no web forum serves (post_url), and the invisible marker of a message by its
# key in each dialect (marker, see markers.py).
_LOCAL_URL = "local://{}#p{}".format
_MARKERS = {"bbcode": lambda key: f"\n[url=#{markers.token(key)}][/url]",
            "markdown": lambda key: f"\n[](#{markers.token(key)})"}


# A post as fetch_posts reads it: id, thread, author, body, created, edited.
_Row = tuple[int, str, str, str, str, str | None]


class _Tail:
    """The posts after `after`, all written through this connection since fetch_posts' mark was `mark`: the
    Posts fetch_posts gives for those not by the bot (ids ascending), the newest id (`after` when none), and
    the latest of their times (or later). `cursor` is the cursor fetch_posts gave (`after`); a post past
    `bound` is one too many to keep (ids come in turn while the mark holds: at most a batch is kept);
    `strays` says a post kept is in none of the threads last `asked` for."""

    __slots__ = ("mark", "after", "cursor", "posts", "newest", "latest", "bound", "asked", "strays")

    def __init__(self, mark: tuple[int, int], after: int, batch: int, asked: list[str]) -> None:
        self.mark = mark
        self.after = self.newest = after
        self.cursor = str(after)
        self.posts: list[Post] = []
        self.latest = ""
        self.bound = after + batch
        self.asked = asked
        self.strays = False


@functools.lru_cache(maxsize=64)
def _fetch_posts_sql(threads: int) -> str:
    """fetch_posts' statement for a number of threads (built once, not every poll)."""
    return (f"SELECT id, thread, author, body, created, edited, {_EDGES} FROM forum_posts "
            f"WHERE id > ? AND created <= ? AND +thread IN ({','.join('?' * threads)}) AND author != ? "
            "ORDER BY id LIMIT ?")


class LocalForum:
    """A forum in SQLite implementing the Platform Protocol."""

    name = "local"

    def __init__(self, path: str | Path = ":memory:", *, account: str = "forumbot",
                 dialect: str = "markdown", clock: Callable[[], datetime] = _utcnow,
                 edit_policy: str = "first_seen", base_url: str = "", batch: int = 1000,
                 accounts: bool = False) -> None:
        """`batch`: the most posts one `fetch_posts` returns (a backlog is read in batches, so memory does not
        grow with it). `accounts`: the forum keeps people's accounts (the web forum's, in the same file):
        the bot makes masks' accounts there at the deal; without, every name is an account (a scenario's)."""
        try:
            self.db = open_database(path)
            # Safe under WAL (a power cut may lose the last commits, never corrupt the file): no fsync a post.
            self.db.execute("PRAGMA synchronous=NORMAL")
            forum_migrations.apply(self.db)
            # Autocommit: a single statement (a post, a PM, marking PMs read) is atomic on its own, so it
            # needs no BEGIN/COMMIT round trip; writes of several statements still open a transaction
            # (Transaction, atomic()). Setting it commits nothing: the migrations committed.
            self.db.conn.isolation_level = None
        except (sqlite3.Error, OSError) as err:
            raise PlatformError(f"cannot open the local forum {path}: {err}") from err
        if edit_policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit_policy '{edit_policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        self.account = account
        self.path = path
        self.makes_accounts = accounts   # (the runner makes masks' accounts at the deal: make_mask_account)
        self.dialect = dialect
        self.clock = clock
        self.edit_policy = edit_policy
        self.base_url = base_url.rstrip("/")   # the web forum's address: links in posts open its pages
        self._url = self._page_url if self.base_url else _LOCAL_URL   # (post_url)
        self._marker = _MARKERS.get(dialect, _MARKERS["markdown"])   # (marker)
        self.batch = batch
        # Threads known to exist (nothing deletes a thread): a post in one is then a single insert.
        self._threads: set[str] = set()
        # The changes this connection made to posts and to PMs (see _mark; none inside a caller's
        # transaction, which may still roll back).
        self._post_changes = 0
        self._pm_changes = 0
        # fetch_pms found no PM due at this mark (posts left out) and the first unread PM to come is
        # due at _pm_due (None: none): until the mark moves or that time comes, no PM can be due.
        self._pm_seen: tuple[int, int] | None = None
        self._pm_due: str | None = None
        # fetch_posts found no post after its cursor (nor one not due yet): the posts this connection writes
        # after that, kept here, are the next answer's, until anything else is written (see _Tail).
        self._tail: _Tail | None = None
        # A database in memory is this connection's alone: no other connection can write it.
        self._private = str(path) == ":memory:"
        # The cursor a post's insert runs on: one kept, not a new one per post (Connection.execute makes a
        # cursor and registers it with the connection each call). (A forum object is used by one thread.)
        self._conn = self.db.conn   # (one look-up, not two, on the paths of every post and poll)
        self._cur = self._conn.cursor()

    # ---- what players (and scenario files) do ---------------------------------------------------
    def ensure_thread(self, key: str, title: str = "") -> None:
        with self.db.atomic():
            self.db.execute("INSERT OR IGNORE INTO forum_threads (key, title, created) VALUES (?, ?, ?)",
                            [key, title or key, format_time(self.clock())])

    def add_post(self, thread: str, author: str, body: str, at: datetime | None = None, *, marker: str = "") -> str:
        """`marker`: put after `body` less its trailing newlines (post())."""
        when = at or self.clock()
        created = format_time(when)
        conn = self._conn
        if marker:
            if body.endswith("\n") and not body.endswith("\n\n") and marker[0] == "\n":   # (_INSERT_JOINED_POST)
                insert, row = _INSERT_JOINED_POST, (thread, author, body, marker[1:], created)
            else:
                insert, row = _INSERT_MARKED_POST, (thread, author, body, marker, created)
        else:
            insert, row = _INSERT_POST, (thread, author, body, created)
        if thread in self._threads:   # one statement: atomic in autocommit
            done = self._cur.execute(insert, row)
            changes = done.rowcount   # (0 when a trigger set the insert aside: no post, lastrowid not its)
        else:
            before = conn.total_changes
            with Transaction(conn):
                conn.execute("INSERT OR IGNORE INTO forum_threads (key, title, created) VALUES (?, ?, ?)",
                             [thread, thread, format_time(self.clock())])
                done = conn.execute(insert, row)
            changes = conn.total_changes - before
            if not conn.in_transaction:   # only once committed (a rolled-back insert made no thread)
                self._threads.add(thread)
        row_id = done.lastrowid
        if conn.in_transaction:   # (a post in a caller's transaction may still roll back)
            return f"local:{row_id}"
        self._post_changes += changes
        tail = self._tail
        if tail is not None and changes and row_id > tail.after:   # (a cursor past the newest post: not read)
            if row_id > tail.bound:   # a game put on the forum ahead of time is read from SQLite, not kept twice
                self._tail = None
                return f"local:{row_id}"
            tail.newest = row_id
            if created > tail.latest:
                tail.latest = created
            if author != self.account:   # (the bot's own posts are never returned: passed by the cursor)
                if when.tzinfo is not UTC or when.microsecond:   # the time as reading `created` back gives it
                    when = parse_time(created)
                if marker:   # (as the statement put it together)
                    body = body.rstrip("\n") + marker
                tail.posts.append(Post(platform_id=f"local:{row_id}", thread=thread, author=author,
                                       created=when, body=body, dialect=self.dialect, edited=None,
                                       url=self._url(thread, row_id), pm=False))
                if thread not in tail.asked:
                    tail.strays = True
        return f"local:{row_id}"

    def add_posts(self, posts: Sequence[tuple[str, str, str, datetime]]) -> None:
        """Posts (thread, author, body, time), each as add_post puts it, in turn: by one statement, one
        transaction for them all instead of one a post (a replay's posts due at one time), where every thread
        has a post already and no transaction is open (else one by one). By one statement, a post that fails
        (a trigger's ABORT) leaves none of them on the forum."""
        count = len(posts)
        if count < 2:   # (one post: its own statement, as add_post writes it)
            if count:
                self.add_post(*posts[0])
            return
        if count > _MOST_POSTS:   # (a statement's rows are bounded: SQLite limits its variables)
            for start in range(0, count, _MOST_POSTS):
                self.add_posts(posts[start:start + _MOST_POSTS])
            return
        known = self._threads
        values: list[str] = []
        for thread, author, body, at in posts:
            if thread not in known:   # (the first post of a thread makes the thread)
                values = []
                break
            values += (thread, author, body, format_time(at))
        if not values or self._conn.in_transaction:   # (in a caller's, a post may roll back)
            for post in posts:
                self.add_post(*post)
            return
        done = self._cur.execute(_insert_posts_sql(count), values)   # one statement: atomic in autocommit
        changes = done.rowcount
        self._post_changes += changes
        tail = self._tail
        if tail is None:
            return
        # The rows took ids in turn, each the largest yet plus one (SQLite's rowids, short of 2**63; a trigger
        # writing between them moves the mark: the tail is then not used).
        number = done.lastrowid - count
        if changes != count or number < tail.after or number + count > tail.bound:
            # (a trigger set some aside, or a cursor ahead of them, or more than a batch: as add_post drops it)
            self._tail = None
            return
        tail.newest = number + count
        account, dialect, url, kept, latest = self.account, self.dialect, self._url, tail.posts, tail.latest
        for (thread, author, body, at), created in zip(posts, values[3::4], strict=True):   # (the times as written)
            number += 1
            if created > latest:
                latest = created
            if author != account:   # (as add_post keeps each)
                if at.tzinfo is not UTC or at.microsecond:   # (as add_post makes it)
                    at = parse_time(created)
                kept.append(Post(platform_id=f"local:{number}", thread=thread, author=author, created=at,
                                 body=body, dialect=dialect, edited=None, url=url(thread, number), pm=False))
                if thread not in tail.asked:
                    tail.strays = True
        tail.latest = latest

    def edit_post(self, platform_id: str, body: str, at: datetime | None = None) -> None:
        number = self._number(platform_id)
        conn = self.db.conn
        before = conn.total_changes
        edited = format_time(at or self.clock())
        cursor = conn.execute("UPDATE forum_posts SET body = ?, edited = ? WHERE id = ?",
                              [body, edited, number])   # atomic in autocommit
        if cursor.rowcount == 0:
            raise PlatformError(f"no post {platform_id} on the local forum")
        if not conn.in_transaction:   # (the bot edits its slot posts in place: the tail holds them)
            self._post_changes += conn.total_changes - before
            tail = self._tail
            if tail is not None:
                tail.posts = [replace(post, body=body, edited=parse_time(edited))
                              if post.platform_id == f"local:{number}" else post for post in tail.posts]

    def delete_post(self, platform_id: str) -> None:
        """A player deletes a post: its text becomes "[deleted]", as Reddit shows it."""
        self.edit_post(platform_id, "[deleted]")

    def remove_post(self, platform_id: str, reason: str = "") -> None:
        """The bot, as moderator, removes a post it refused (Food Chain's location channels)."""
        self.edit_post(platform_id, f"{REMOVED}: {reason}]" if reason else f"{REMOVED}]")

    def add_pm(self, sender: str, recipient: str, body: str, subject: str = "",
               at: datetime | None = None) -> str:
        conn = self.db.conn
        before = conn.total_changes
        row_id = conn.execute("INSERT INTO forum_pms (sender, recipient, subject, body, created, read) "
                              "VALUES (?, ?, ?, ?, ?, 0)",   # one statement: atomic in autocommit
                              [sender, recipient, subject, body, format_time(at or self.clock())]).lastrowid
        self._wrote_pms(before)
        return self.pm_id(row_id)

    @staticmethod
    def pm_id(number: int) -> str:
        """The platform id of the private message numbered `number` (the bot's store knows it by that)."""
        return f"local-pm:{number}"

    # ---- accounts -------------------------------------------------------------------------------
    def _people(self) -> Any:
        from forumbot.web.accounts import Accounts  # the web forum's accounts table, in this file

        return Accounts(self.path)

    def account_exists(self, name: str) -> bool:
        """Whether the forum has an account of that name (without people's accounts: every name is one)."""
        return not self.makes_accounts or self._people().exists(name)

    def mask_refusal(self, mask: str, claimant: str) -> tuple[str, str] | None:
        """A sign-up's mask may not be, or look like, an account of the forum that is not the claimant's (the
        bot makes the mask's account at the deal; Platform.mask_refusal). Without people's accounts: none."""
        if not self.makes_accounts:
            return None
        holder = self._people().holder_of(mask, claimant)
        return ("name_account", holder) if holder else None

    def make_mask_account(self, mask: str, owner: str, previous: str | None = None) -> str | None:
        """The account of `owner`'s mask, made at the deal with a one-time password, which is returned (the
        same owner's mask made again, a step redone after a crash, gets a new one; "" once its player has set
        their own). None when the forum keeps no accounts, or the name is an account that is not `owner`'s
        mask (it is left as it is). `previous`: the account it was made for before the seat changed hands."""
        if not self.makes_accounts:
            return None
        return self._people().add_mask(mask, owner, previous)

    def thread_posts(self, thread: str) -> list[dict[str, str]]:
        """Every post of a thread, oldest first (for people and tests reading the forum)."""
        return list(self.db["forum_posts"].rows_where("thread = ?", [thread], order_by="id"))

    def pms_to(self, recipient: str) -> list[dict[str, str]]:
        return list(self.db["forum_pms"].rows_where("recipient = ?", [recipient], order_by="id"))

    def post_url(self, thread: str, number: int) -> str:
        """A post's permalink: the web forum's page when it is served, else a local:// reference."""
        return self._url(thread, number)

    def _page_url(self, thread: str, number: int) -> str:
        return f"{self.base_url}/t/{quote(thread)}#p{number}"

    # ---- the Platform Protocol ------------------------------------------------------------------
    def fetch_posts(self, threads: Sequence[str], cursor: str | None) -> tuple[list[Post], str | None]:
        if not threads:
            return [], cursor
        now = format_time(self.clock())
        # A post dated after the clock (a simulation puts a whole game on the forum ahead of time; or the
        # clock stepped back) waits until its time, and the cursor stays before it; the posts after it that
        # are due are read now (and again, harmlessly, until the cursor passes them), so a clock stepped
        # back never stalls the reading. One statement reads the posts, the first future post and the newest
        # post (posts of other threads move the cursor on too), so all three come from one snapshot.
        # "+thread": the posts after the cursor, in id order, are few (the cursor passes every thread's posts),
        # so SQLite walks them by id instead of each thread through its index and sorting. The bot's own posts
        # are not returned (the runner drops them: no game reads them), only passed by the cursor.
        # While nothing but this connection's own posts was written since a read that found nothing after its
        # cursor, and every one of them is due, those posts (_Tail: the Posts made when they were written) are
        # the whole answer, worked out as the statement would; else the statement answers.
        mark = self._mark(self._post_changes + self._pm_changes)
        tail = self._tail
        if tail is not None and tail.mark == mark and tail.cursor == cursor and tail.latest <= now:
            newest = tail.newest
            if newest == tail.after:
                return [], cursor
            posts = tail.posts
            if tail.strays or threads != tail.asked:
                posts = [post for post in posts if post.thread in threads]
                tail.asked = [*threads]
                tail.strays = False
            tail.posts = []
            tail.after = newest
            tail.bound = newest + self.batch
            tail.cursor = str(newest)
            return posts, tail.cursor
        self._tail = None
        conn = self.db.conn
        after = int(cursor) if cursor and cursor.isdigit() else 0
        rows = conn.execute(_fetch_posts_sql(len(threads)),
                            [after, now, after, now, *threads, self.account, self.batch]).fetchall()
        first_future, newest = rows[0][6:] if rows else conn.execute(f"SELECT {_EDGES}", [after, now]).fetchone()
        newest = newest or 0
        full = len(rows) >= self.batch
        if full:   # a full batch: the next call goes on after its last post
            newest = rows[-1][0]
        until = max(after, min(first_future - 1, newest) if first_future else newest)
        if not first_future and not full and not conn.in_transaction:   # no post after `until`
            self._tail = _Tail(mark, until, self.batch, [*threads])
        return self._posts(rows), str(until)

    def _posts(self, rows: list[_Row]) -> list[Post]:
        """The Posts of fetched rows."""
        return [Post(platform_id=f"local:{r[0]}", thread=r[1], author=r[2], created=parse_time(r[4]), body=r[3],
                     dialect=self.dialect, edited=parse_time(r[5]) if r[5] else None, url=self._url(r[1], r[0]),
                     pm=False) for r in rows]

    def _mark(self, mine: int) -> tuple[int, int]:
        """What has been written to the forum: by other connections (data_version moves when one commits;
        a database in memory has none) and by this one (total_changes), less `mine`, the changes this
        connection made that the caller has accounted for (fetch_pms: posts; fetch_posts: the posts it
        keeps, and PMs)."""
        conn = self._conn
        return (0 if self._private else conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes - mine

    def fetch_pms(self) -> list[Post]:
        mark = self._mark(self._post_changes)
        if mark != self._pm_seen:
            now = format_time(self.clock())
        else:   # nothing written since an empty read: no PM is due unless the first one waiting has come due
            due = self._pm_due
            if due is None:
                return []
            now = format_time(self.clock())
            if now < due:
                return []
        rows = self.db.conn.execute(_PMS, [self.account, now]).fetchall()
        self._pm_due = next(r[3] for r in rows if r[0] is None)
        self._pm_seen = mark if len(rows) == 1 else None   # kept only while the PMs due are none
        return [Post(platform_id=f"local-pm:{r[0]}", thread="", author=r[1], created=parse_time(r[3]),
                     body=r[2], dialect=self.dialect, pm=True) for r in rows if r[0] is not None]

    def _wrote_pms(self, before: int) -> None:
        """This connection wrote PMs (no post) since `before` changes: the posts kept still hold."""
        conn = self.db.conn
        if not conn.in_transaction:
            self._pm_changes += conn.total_changes - before

    def mark_read(self, platform_ids: Sequence[str]) -> None:
        numbers = [self._number(pid) for pid in platform_ids]
        conn = self.db.conn
        before = conn.total_changes
        conn.execute(f"UPDATE forum_pms SET read = 1 WHERE id IN ({','.join('?' * len(numbers))})",
                     numbers)   # one statement: atomic in autocommit
        self._wrote_pms(before)

    def marker(self, key: str) -> str:
        """An invisible marker: an empty link in markdown, an empty url tag in BBCode."""
        return self._marker(key) if key else ""

    def post(self, thread: str, text: str, key: str = "") -> str:
        if key:   # (a marker then: see marker)
            return self.add_post(thread, self.account, text, marker=self._marker(key))
        return self.add_post(thread, self.account, text.rstrip("\n"))

    def open_thread(self, title: str, text: str, key: str = "") -> str:
        """A new thread keyed by its title (made unique with a number), its first post by the bot."""
        base = "-".join(title.lower().split()) or "thread"
        with self.db.atomic():
            taken = {row[0] for row in self.db.execute("SELECT key FROM forum_threads WHERE key = ? OR key LIKE ?",
                                                       [base, f"{base}-%"]).fetchall()}
            thread = next(k for k in (base, *(f"{base}-{n}" for n in range(2, len(taken) + 3))) if k not in taken)
            self.db.execute("INSERT INTO forum_threads (key, title, created) VALUES (?, ?, ?)",
                            [thread, title, format_time(self.clock())])
        self.post(thread, text, key)
        return thread

    def send_pm(self, to: str, subject: str, text: str, key: str = "") -> str:
        return self.add_pm(self.account, to, text.rstrip("\n") + self.marker(key), subject)

    def find_sent(self, key: str, *, thread: str | None = None, to: str | None = None) -> str | None:
        """The bot's newest message carrying `key`'s marker, in the current form or the older `#fb:KEY`."""
        needles = markers.like_patterns(key)
        if to:
            row = self.db.execute(f"SELECT id FROM forum_pms WHERE sender = ? AND recipient = ? AND {_ANY_LIKE} "
                                  "ORDER BY id DESC LIMIT 1", [self.account, to, *needles]).fetchone()
            return f"local-pm:{row[0]}" if row else None
        row = self.db.execute(f"SELECT id FROM forum_posts WHERE thread = ? AND author = ? AND {_ANY_LIKE} "
                              "ORDER BY id DESC LIMIT 1", [thread, self.account, *needles]).fetchone()
        return f"local:{row[0]}" if row else None

    def find_thread(self, key: str, title: str = "") -> str | None:
        """The thread the bot opened with `key`'s marker on its first post, if any."""
        row = self.db.execute(f"SELECT thread FROM forum_posts WHERE author = ? AND {_ANY_LIKE} ORDER BY id LIMIT 1",
                              [self.account, *markers.like_patterns(key)]).fetchone()
        return row[0] if row else None

    def edit(self, platform_id: str, text: str) -> None:
        self.edit_post(platform_id, text)

    def changed_posts(self, since: datetime) -> set[str]:
        """The ids of the posts made since `since` that were edited, deleted or removed (edit_post, their only
        writer after add_post, sets `edited`): the only ones whose text can differ from what was read."""
        rows = self.db.conn.execute("SELECT id FROM forum_posts WHERE edited IS NOT NULL AND created >= ?",
                                    [format_time(since)]).fetchall()
        return {f"local:{number}" for number, in rows}

    def recheck(self, posts: Sequence[Post], policy: str | None = None) -> Recheck:
        """Re-read stored posts: edited ones (current versions), deleted ones, flags for the host. A post the
        "edited" policy read again as of its edit ("local:7@<time>", the runner's copy, which the runner does
        not hand here) is not on the forum: passed by, not an error."""
        policy = policy or self.edit_policy
        stored = {self._number(p.platform_id): p for p in posts
                  if p.platform_id.startswith("local:") and "@" not in p.platform_id}
        result = Recheck()
        if not stored:
            return result
        marks = ",".join("?" * len(stored))
        rows = self.db.execute(f"SELECT id, body, edited FROM forum_posts WHERE id IN ({marks})",
                               list(stored)).fetchall()
        now = self.clock()
        for number, body, edited in rows:
            old = stored[number]
            if body == old.body:
                continue
            if body == "[deleted]":
                result.deleted.append(old.platform_id)
                result.flags.append(Flag(reason="a post that carried a command was deleted; its first-seen text "
                                                "still counts", post_id=old.platform_id, author=old.author, at=now,
                                         code="flag_deleted_first_seen"))
                continue
            result.edited.append(Post(platform_id=old.platform_id, thread=old.thread, author=old.author,
                                      created=old.created, body=body, dialect=old.dialect,
                                      edited=parse_time(edited) if edited else now, url=old.url))
            if policy == "flag":
                result.flags.append(Flag(reason="a post that carried a command was edited; the first-seen text "
                                                "counts", post_id=old.platform_id, author=old.author, at=now,
                                         line=body[:200], code="flag_edited_first_seen"))
        return result

    @staticmethod
    def _number(platform_id: str) -> int:
        try:
            return int(platform_id.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            raise PlatformError(f"'{platform_id}' is not a local forum id") from None
