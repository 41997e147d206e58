"""The local forum's round trips: a post is one statement, fetch_pms reads the PMs only when
one may be due (something was written, by this connection or another, or a PM's time has come), and
fetch_posts reads the posts only when something but this connection's own posts was written since a read
that found none after its cursor. What both return must stay what the full query returns, whoever writes
the file."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import START
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.errors import PlatformError
from forumbot.model import Post, format_time
from forumbot.platforms.local import LocalForum

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self):
        return self.now


def traced(forum: LocalForum) -> list[str]:
    seen: list[str] = []
    forum.db.conn.set_trace_callback(seen.append)
    return seen


def truth(forum: LocalForum) -> list[str]:
    """The bot's unread PMs that are due, read with no shortcut."""
    rows = forum.db.conn.execute("SELECT id FROM forum_pms WHERE recipient = ? AND read = 0 AND created <= ? "
                                 "ORDER BY id", [forum.account, format_time(forum.clock())]).fetchall()
    return [f"local-pm:{r[0]}" for r in rows]


def test_a_post_in_a_known_thread_is_one_statement():
    forum = LocalForum(clock=lambda: START)
    forum.add_post("g/votes", "Alice", "first")   # makes the thread: a transaction of two
    seen = traced(forum)
    assert forum.add_post("g/votes", "Bob", "vote Alice") == "local:2"
    forum.post("g/votes", "count", "g:1")
    assert [s.split()[0] for s in seen] == ["INSERT", "INSERT"]
    assert [p["author"] for p in forum.thread_posts("g/votes")] == ["Alice", "Bob", "forumbot"]


def test_fetch_pms_reads_nothing_while_nothing_can_be_due(tmp_path):
    for path in (":memory:", tmp_path / "forum.db"):
        clock = Clock()
        forum = LocalForum(path, clock=clock)
        forum.add_post("g/votes", "Alice", "vote Bob")
        assert forum.fetch_pms() == []
        seen = traced(forum)
        forum.add_post("g/votes", "Bob", "vote Alice")   # posts are no PMs
        forum.post("g/votes", "count")
        clock.now += timedelta(minutes=5)
        assert forum.fetch_pms() == [] and forum.fetch_pms() == []
        # a file may be written by another process (the web forum): one look at its data version, no read
        reads = [s for s in seen if not s.startswith("INSERT")]
        assert reads == ([] if path == ":memory:" else ["PRAGMA data_version"] * 2)


def test_a_pm_due_later_is_read_when_its_time_comes():
    clock = Clock()
    forum = LocalForum(clock=clock)
    forum.add_pm("Alice", forum.account, "check Bob", at=START + timedelta(hours=1))
    assert forum.fetch_pms() == []
    clock.now += timedelta(minutes=59, seconds=59)
    assert forum.fetch_pms() == []
    clock.now += timedelta(seconds=1)
    assert [p.body for p in forum.fetch_pms()] == ["check Bob"]


def test_a_pm_another_connection_writes_is_read(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    web = LocalForum(tmp_path / "forum.db", clock=lambda: START)   # the web forum, in this process
    assert forum.fetch_pms() == []
    pm = web.add_pm("Alice", forum.account, "check Bob")
    assert [p.platform_id for p in forum.fetch_pms()] == [pm]
    web.mark_read([pm])   # read elsewhere: gone here too
    assert forum.fetch_pms() == []


def test_a_pm_another_process_writes_is_read(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    forum.add_post("g/votes", "Alice", "vote Bob")
    assert forum.fetch_pms() == []
    code = ("import sys; from forumbot.model import parse_time; from forumbot.platforms.local import LocalForum; "
            "LocalForum(sys.argv[1]).add_pm('Alice', 'forumbot', 'check Bob', at=parse_time(sys.argv[2]))")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "forum.db"), format_time(START)], check=True, cwd=ROOT,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert [p.body for p in forum.fetch_pms()] == ["check Bob"]


def test_a_failed_insert_leaves_no_post_and_no_transaction():
    forum = LocalForum(clock=lambda: START)
    forum.add_post("g/votes", "Alice", "first")
    forum.db.conn.execute("CREATE TRIGGER no_bob BEFORE INSERT ON forum_posts WHEN new.author = 'Bob' "
                          "BEGIN SELECT RAISE(ABORT, 'no Bob'); END")
    try:
        forum.add_post("g/votes", "Bob", "vote Alice")
    except Exception as err:   # sqlite3.IntegrityError
        assert "no Bob" in str(err)
    assert not forum.db.conn.in_transaction
    assert [p["author"] for p in forum.thread_posts("g/votes")] == ["Alice"]


# One step of the bot's world: who writes what, and the clock.
OPS = st.one_of(
    st.tuples(st.just("post"), st.sampled_from(["Alice", "forumbot"])),
    st.tuples(st.just("pm"), st.sampled_from(["here", "other"]), st.integers(-30, 30),
              st.sampled_from(["forumbot", "Alice"])),
    st.tuples(st.just("read"), st.sampled_from(["here", "other"])),
    st.tuples(st.just("edit"), st.just(0)),
    st.tuples(st.just("clock"), st.integers(-20, 40)),
    st.tuples(st.just("fetch"), st.just(0)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(OPS, max_size=30))
@example([("fetch", 0), ("pm", "here", 0, "forumbot"), ("post", "forumbot"), ("fetch", 0)])   # a PM, then a post
@example([("fetch", 0), ("pm", "other", 0, "forumbot"), ("post", "Alice"), ("fetch", 0)])
@example([("pm", "here", 0, "forumbot"), ("fetch", 0), ("read", "other"), ("post", "Alice"), ("fetch", 0)])
def test_fetch_pms_is_the_full_query_whoever_writes(tmp_path_factory, ops):
    path = tmp_path_factory.mktemp("forum") / "forum.db"
    clock = Clock()
    forum = LocalForum(path, clock=clock)
    other = LocalForum(path, clock=clock)   # another connection to the file (the web forum)
    for op in ops:
        kind = op[0]
        if kind == "post":
            (forum.post("g/votes", "count") if op[1] == "forumbot" else forum.add_post("g/votes", "Alice", "hi"))
        elif kind == "pm":
            writer = forum if op[1] == "here" else other
            writer.add_pm("Alice", op[3], "check Bob", at=clock.now + timedelta(minutes=op[2]))
        elif kind == "read":
            due = truth(forum)
            if due:
                (forum if op[1] == "here" else other).mark_read(due[:1])
        elif kind == "edit":
            if forum.thread_posts("g/votes"):
                forum.edit_post("local:1", "edited")
        elif kind == "clock":
            clock.now += timedelta(minutes=op[1])
        else:   # the bot polls (not after every write: writes pile up between polls)
            assert [p.platform_id for p in forum.fetch_pms()] == truth(forum)
    assert [p.platform_id for p in forum.fetch_pms()] == truth(forum)


def full_fetch(forum: LocalForum, threads: list[str], cursor: str | None) -> tuple[list[Post], str | None]:
    """fetch_posts read with no shortcut: the statement, whatever the forum keeps (and keeps on keeping)."""
    kept, forum._tail = getattr(forum, "_tail", None), None
    try:
        return forum.fetch_posts(threads, cursor)
    finally:
        forum._tail = kept


@pytest.mark.parametrize("file", [False, True])
def test_fetch_posts_reads_nothing_while_only_this_connection_wrote_posts(tmp_path, file):
    clock = Clock()
    forum = LocalForum(tmp_path / "forum.db" if file else ":memory:", clock=clock)
    forum.add_post("g/votes", "Alice", "vote Bob")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    assert posts == [Post(platform_id="local:1", thread="g/votes", author="Alice", created=START, body="vote Bob",
                          dialect="markdown", url="local://g/votes#p1")] and cursor == "1"   # as __init__ makes it
    seen = traced(forum)
    forum.post("g/votes", "count 1")   # the bot's count, then a player's post: what a replay does
    forum.add_post("g/votes", "Bob", "vote Alice")
    forum.add_pm("Bob", forum.account, "hi", at=START + timedelta(hours=1))   # a PM is no post
    posts, cursor = forum.fetch_posts(["g/votes"], cursor)
    assert posts == [Post(platform_id="local:3", thread="g/votes", author="Bob", created=START, body="vote Alice",
                          dialect="markdown", url="local://g/votes#p3")] and cursor == "3"
    assert forum.fetch_posts(["g/votes"], cursor) == ([], "3")
    # no read of the posts: a file may be written by another process, so one look at its data version
    assert [s for s in seen if not s.startswith("INSERT")] == ([] if not file else ["PRAGMA data_version"] * 2)
    assert (posts, cursor) == full_fetch(forum, ["g/votes"], "2")


def test_a_post_another_connection_writes_is_fetched(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    web = LocalForum(tmp_path / "forum.db", clock=lambda: START)   # the web forum, in this process
    forum.add_post("g/votes", "Alice", "vote Bob")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    forum.post("g/votes", "count 1")
    web.add_post("g/votes", "Bob", "vote Alice")
    forum.add_post("g/votes", "Carol", "vote Bob")
    posts, cursor = forum.fetch_posts(["g/votes"], cursor)
    assert [p.author for p in posts] == ["Bob", "Carol"] and cursor == "4"
    web.edit_post("local:4", "vote Alice")   # before the cursor: no new post, nothing to fetch
    assert forum.fetch_posts(["g/votes"], cursor) == ([], "4")


def test_a_post_another_process_writes_is_fetched(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    forum.add_post("g/votes", "Alice", "vote Bob")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    code = ("import sys; from forumbot.model import parse_time; from forumbot.platforms.local import LocalForum; "
            "LocalForum(sys.argv[1]).add_post('g/votes', 'Bob', 'vote Alice', at=parse_time(sys.argv[2]))")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "forum.db"), format_time(START)], check=True, cwd=ROOT,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert [p.body for p in forum.fetch_posts(["g/votes"], cursor)[0]] == ["vote Alice"]


def test_a_post_rolled_back_with_its_callers_transaction_is_not_fetched():
    forum = LocalForum(clock=lambda: START)
    forum.add_post("g/votes", "Alice", "vote Bob")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    try:
        with forum.db.atomic():
            forum.add_post("g/votes", "Bob", "vote Alice")
            raise RuntimeError("the caller fails")
    except RuntimeError:
        pass
    assert forum.fetch_posts(["g/votes"], cursor) == ([], "1")


# Who writes the forum's posts between two polls, and how the bot polls.
POST_OPS = st.one_of(
    st.tuples(st.just("post"), st.sampled_from(["here", "other"]), st.sampled_from(["Alice", "forumbot"]),
              st.sampled_from(["g/votes", "g/game", "h/votes"]), st.integers(-3, 3)),
    st.tuples(st.just("edit"), st.sampled_from(["here", "other"]), st.integers(1, 12)),
    st.tuples(st.just("pm"), st.sampled_from(["here", "other"])),
    st.tuples(st.just("read"), st.sampled_from(["here", "other"])),
    st.tuples(st.just("clock"), st.integers(-2, 4)),
    st.tuples(st.just("fetch"), st.sampled_from(["kept", "kept", "restart", "behind", "ahead"]),
              st.sampled_from([("g/votes",), ("g/game", "g/votes"), ("h/votes",)])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(POST_OPS, max_size=30), st.sampled_from([2, 3, 1000]), st.booleans())
@example([("fetch", "kept", ("g/votes",)), ("post", "here", "Alice", "g/votes", 2), ("fetch", "kept", ("g/votes",)),
          ("clock", 2), ("fetch", "kept", ("g/votes",))], 1000, True)   # a post not due yet, then due
@example([("fetch", "kept", ("g/votes",)), ("post", "here", "Alice", "g/votes", 0), ("edit", "here", 1),
          ("fetch", "kept", ("g/votes",))], 1000, True)   # edited before it was fetched
@example([("fetch", "kept", ("g/votes",)), ("post", "here", "Alice", "g/votes", 0),
          ("post", "other", "Alice", "g/votes", 0), ("fetch", "kept", ("g/votes",))], 1000, True)
@example([("fetch", "kept", ("g/votes",)), *[("post", "here", "Alice", "g/votes", 0)] * 3,
          ("fetch", "kept", ("g/votes",)), ("fetch", "kept", ("g/votes",))], 2, False)   # a batch at a time
@example([("post", "here", "Alice", "g/votes", 0), ("fetch", "ahead", ("g/votes",)),
          ("post", "here", "Alice", "g/votes", 0), ("fetch", "kept", ("g/votes",))], 1000, False)   # a cursor ahead
@example([("fetch", "kept", ("g/votes",)), ("post", "here", "Alice", "g/votes", 0), ("fetch", "kept", ("g/votes",)),
          ("fetch", "behind", ("g/votes",))], 1000, False)   # asked again from an older cursor
def test_fetch_posts_is_the_full_query_whoever_writes(tmp_path_factory, ops, batch, file):
    path = tmp_path_factory.mktemp("forum") / "forum.db" if file else ":memory:"
    clock = Clock()
    forum = LocalForum(path, clock=clock, batch=batch)
    other = LocalForum(path, clock=clock) if file else forum   # another connection to the file (the web forum)
    cursor: str | None = None
    for op in ops:
        kind = op[0]
        writer = forum if op[1] == "here" else other
        if kind == "post":
            writer.add_post(op[3], op[2], "hi", at=clock.now + timedelta(minutes=op[4]))
        elif kind == "edit":
            try:
                writer.edit_post(f"local:{op[2]}", "edited", at=clock.now)
            except PlatformError:
                pass
        elif kind == "pm":
            writer.add_pm("Alice", forum.account, "check Bob", at=clock.now)
        elif kind == "read":
            writer.mark_read(["local-pm:1"])
        elif kind == "clock":
            clock.now += timedelta(minutes=op[1])
        else:
            asked = {"kept": cursor, "restart": None, "behind": str(max(0, int(cursor or 0) - 1)),
                     "ahead": str(int(cursor or 0) + 2)}[op[1]]
            want = full_fetch(forum, list(op[2]), asked)
            got = forum.fetch_posts(list(op[2]), asked)
            assert got == want
            cursor = got[1]
    assert forum.fetch_posts(["g/votes", "g/game"], cursor) == full_fetch(forum, ["g/votes", "g/game"], cursor)


def test_the_posts_kept_for_the_next_fetch_are_at_most_a_batch():
    forum = LocalForum(clock=lambda: START, batch=3)
    assert forum.fetch_posts(["g/votes"], None) == ([], "0")
    for number in range(5):   # more than a batch written before the next poll
        forum.add_post("g/votes", "Alice", f"post {number}")
    assert forum._tail is None
    posts, cursor = forum.fetch_posts(["g/votes"], "0")
    assert [p.body for p in posts] == ["post 0", "post 1", "post 2"] and cursor == "3"
