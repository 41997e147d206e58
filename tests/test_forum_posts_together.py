"""The posts due at one time put on the local forum together: a replay puts the posts due at a step by
LocalForum.add_posts. What the forum
holds and what fetch_posts gives must stay exactly what add_post, one post at a time, leaves."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from helpers import START
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_local_forum_trips import Clock, full_fetch, traced

from forumbot.engine.replay import _Grid, _grid
from forumbot.platforms.local import _MOST_POSTS, LocalForum

BENCH = Path(__file__).resolve().parent.parent / "bench"
THREADS = ("g/votes", "g/game", "h/votes")


def _one_by_one(forum: LocalForum, posts: list[tuple[str, str, str, object]]) -> None:
    for post in posts:
        forum.add_post(*post)


# What happens to the forum between two polls: posts by players (several at once, some not due yet, some in
# a thread not seen yet), the bot's own posts, edits, the clock; and the bot's polls.
OPS = st.one_of(
    st.tuples(st.just("posts"), st.lists(st.tuples(st.sampled_from(THREADS), st.sampled_from(["Alice", "forumbot"]),
                                                   st.integers(-3, 3)), max_size=5)),
    st.tuples(st.just("bot"), st.sampled_from(THREADS)),
    st.tuples(st.just("edit"), st.integers(1, 12)),
    st.tuples(st.just("clock"), st.integers(-2, 4)),
    st.tuples(st.just("fetch"), st.sampled_from(["kept", "kept", "restart", "behind", "ahead"]),
              st.sampled_from([("g/votes",), ("g/game", "g/votes"), ("h/votes",)])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(OPS, max_size=25), st.sampled_from([2, 3, 1000]))
@example([("posts", [("g/votes", "Alice", 0)]), ("fetch", "kept", ("g/votes",)),
          ("posts", [("g/votes", "Alice", 0), ("g/game", "Alice", 0)]), ("fetch", "kept", ("g/votes",))], 1000)
@example([("posts", [("g/votes", "Alice", 0)]), ("fetch", "kept", ("g/votes",)),
          ("posts", [("g/votes", "Alice", 0)] * 3), ("fetch", "kept", ("g/votes",))], 2)   # more than a batch
@example([("posts", [("g/votes", "Alice", 0)]), ("fetch", "ahead", ("g/votes",)),
          ("posts", [("g/votes", "Alice", 0)] * 3), ("fetch", "kept", ("g/votes",))], 1000)   # a cursor ahead
def test_posts_put_together_leave_the_forum_as_one_by_one(ops, batch):
    clock = Clock()
    together = LocalForum(clock=clock, batch=batch)
    alone = LocalForum(clock=clock, batch=batch)
    cursors: dict[int, str | None] = {id(together): None, id(alone): None}
    number = 0
    for op in ops:
        kind = op[0]
        if kind == "posts":
            posts = new_posts(op[1], number, clock)
            number += len(posts)
            together.add_posts(posts)
            _one_by_one(alone, posts)
        elif kind == "bot":
            for forum in (together, alone):
                forum.post(op[1], "count", "g:1")
        elif kind == "edit":
            edit_alike((together, alone), op[1], number, clock)
        elif kind == "clock":
            clock.now += timedelta(minutes=op[1])
        else:
            fetch_alike((together, alone), cursors, op)
    for thread in THREADS:
        assert together.thread_posts(thread) == alone.thread_posts(thread)


def new_posts(made: list[tuple[str, str, int]], number: int, clock: Clock) -> list[tuple[str, str, str, datetime]]:
    """An op's posts (thread, author, minutes from now), numbered on from `number`."""
    return [(thread, author, f"post {number + i}", clock.now + timedelta(minutes=minutes))
            for i, (thread, author, minutes) in enumerate(made, 1)]


def edit_alike(forums: tuple[LocalForum, ...], which: int, number: int, clock: Clock) -> None:
    """The same post edited on each forum (post `which`, at most the newest)."""
    for forum in forums:
        if forum.thread_posts("g/votes"):
            forum.edit_post(f"local:{min(which, number)}" if number else "local:1", "edited", at=clock.now)


def fetch_alike(forums: tuple[LocalForum, ...], cursors: dict[int, str | None], op: tuple) -> None:
    """A fetch op on each forum from its own cursor: each answers as a full read would, and all alike."""
    answers = []
    for forum in forums:
        cursor = cursors[id(forum)]
        asked = {"kept": cursor, "restart": None, "behind": str(max(0, int(cursor or 0) - 1)),
                 "ahead": str(int(cursor or 0) + 2)}[op[1]]
        want = full_fetch(forum, list(op[2]), asked)
        got = forum.fetch_posts(list(op[2]), asked)
        assert got == want
        cursors[id(forum)] = got[1]
        answers.append(got)
    assert answers[0] == answers[1]


def test_a_post_a_trigger_sets_aside_leaves_the_others_and_the_next_fetch_right():
    clock = Clock()
    forum = LocalForum(clock=clock)
    forum.add_post("g/votes", "Alice", "first")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    forum.db.conn.execute("CREATE TRIGGER no_bob BEFORE INSERT ON forum_posts WHEN new.author = 'Bob' "
                          "BEGIN SELECT RAISE(IGNORE); END")
    forum.add_posts([("g/votes", "Bob", "vote Alice", START), ("g/votes", "Carol", "vote Bob", START)])
    got = forum.fetch_posts(["g/votes"], cursor)
    assert [(p.author, p.body) for p in got[0]] == [("Carol", "vote Bob")]
    assert got == full_fetch(forum, ["g/votes"], cursor)


def test_posts_put_together_go_on_all_or_none():
    forum = LocalForum(clock=lambda: START)
    forum.add_post("g/votes", "Alice", "first")
    forum.db.conn.execute("CREATE TRIGGER no_bob BEFORE INSERT ON forum_posts WHEN new.author = 'Bob' "
                          "BEGIN SELECT RAISE(ABORT, 'no Bob'); END")
    with pytest.raises(Exception, match="no Bob"):   # sqlite3.IntegrityError
        forum.add_posts([("g/votes", "Carol", "vote Bob", START), ("g/votes", "Bob", "vote Alice", START)])
    assert not forum.db.conn.in_transaction
    assert [p["author"] for p in forum.thread_posts("g/votes")] == ["Alice"]


def test_many_posts_put_together_go_on_in_turn_a_statement_a_bounded_number():
    forum = LocalForum(clock=lambda: START + timedelta(hours=1))
    forum.add_post("g/votes", "Alice", "first")
    assert forum.fetch_posts(["g/votes"], None)[1] == "1"
    seen = traced(forum)
    count = 2 * _MOST_POSTS + 1
    forum.add_posts([("g/votes", f"P{n}", f"post {n}", START + timedelta(seconds=n)) for n in range(count)])
    assert len(seen) == 3   # (SQLite takes at most 32,766 variables in one statement)
    posts, cursor = forum.fetch_posts(["g/votes"], "1")
    assert [p.body for p in posts] == [f"post {n}" for n in range(count)] and cursor == str(count + 1)
    assert [p.platform_id for p in posts] == [f"local:{n + 2}" for n in range(count)]
    assert (posts, cursor) == full_fetch(forum, ["g/votes"], "1")


@given(st.lists(st.integers(-5000, 50000), max_size=40), st.sampled_from([1, 7, 60, 3600]))
@example([0, 30, 60, 61, 90, 150, 179, 180, 181, 3601, 10, -3, 0, 1], 60)   # in turn, then back
def test_the_replays_poll_grid_keeps_to_grid(seconds, poll):
    """The replay's grid (the last time kept, the next one an addition away) gives _grid's time for every
    post's, whatever order they come in."""
    grid = _Grid(START, poll)
    for second in seconds:
        at = START + timedelta(seconds=second, microseconds=second % 3)
        assert grid.time(at) == _grid(START, at, poll)
