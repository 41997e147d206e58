"""A replay's forum in memory holds its writes in one transaction (LocalForum.hold_writes, issue 16): a replay's
step wrote two statements to it, each a transaction of its own (about 10,000 instructions apiece). Whatever is
written and read meanwhile, the forum must answer exactly as one that writes each statement on its own, and
what it held is all there once written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st
from test_forum_posts_together import OPS, THREADS, edit_alike, fetch_alike, new_posts
from test_local_forum_trips import Clock, full_fetch, traced

from forumbot.platforms.local import LocalForum

# What a replay also does to its forum: a player's private message to the bot, the bot reading its PMs and
# marking them read, a thread the bot opens.
MORE = st.one_of(
    OPS,
    st.tuples(st.just("pm"), st.integers(-2, 2)),
    st.tuples(st.just("pms")),
    st.tuples(st.just("open"), st.sampled_from(["Day 2", "Night"])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(MORE, max_size=25), st.sampled_from([2, 1000]))
def test_a_forum_holding_its_writes_answers_as_one_writing_each(ops, batch):
    clock = Clock()
    held = LocalForum(clock=clock, batch=batch)
    held.hold_writes()
    alone = LocalForum(clock=clock, batch=batch)
    forums = (held, alone)
    cursors: dict[int, str | None] = {id(held): None, id(alone): None}
    number = 0
    for op in ops:
        kind = op[0]
        if kind == "posts":
            posts = new_posts(op[1], number, clock)
            number += len(posts)
            for forum in forums:
                forum.add_posts(posts)
        elif kind == "bot":
            assert held.post(op[1], "count", "g:1") == alone.post(op[1], "count", "g:1")
        elif kind == "edit":
            edit_alike(forums, op[1], number, clock)
        elif kind == "clock":
            clock.now += timedelta(minutes=op[1])
        elif kind == "pm":
            for forum in forums:
                forum.add_pm("Alice", forum.account, "hello", at=clock.now + timedelta(minutes=op[1]))
        elif kind == "pms":
            answers = [forum.fetch_pms() for forum in forums]
            assert answers[0] == answers[1]
            for forum, pms in zip(forums, answers, strict=True):
                if pms:
                    forum.mark_read([pm.platform_id for pm in pms])
        elif kind == "open":
            assert held.open_thread(op[1], "rules", "g:0") == alone.open_thread(op[1], "rules", "g:0")
        else:
            fetch_alike(forums, cursors, op)
        assert held.db.conn.in_transaction and not alone.db.conn.in_transaction   # (one transaction, held open)
    held.write_held()
    assert not held.db.conn.in_transaction
    for thread in (*THREADS, "day-2", "night"):
        assert held.thread_posts(thread) == alone.thread_posts(thread)
    assert held.pms_to(held.account) == alone.pms_to(alone.account)


def test_a_statement_that_fails_while_held_undoes_only_itself():
    forum = LocalForum(clock=lambda: START)
    forum.hold_writes()
    forum.add_post("g/votes", "Alice", "first")
    forum.db.conn.execute("CREATE TRIGGER no_bob BEFORE INSERT ON forum_posts WHEN new.author = 'Bob' "
                          "BEGIN SELECT RAISE(ABORT, 'no Bob'); END")
    with pytest.raises(Exception, match="no Bob"):   # sqlite3.IntegrityError
        forum.add_posts([("g/votes", "Carol", "vote Bob", START), ("g/votes", "Bob", "vote Alice", START)])
    forum.add_post("g/votes", "Dave", "last")
    assert forum.db.conn.in_transaction   # still held: as in autocommit, what went before stays
    forum.write_held()
    assert [p["author"] for p in forum.thread_posts("g/votes")] == ["Alice", "Dave"]
    assert forum.fetch_posts(["g/votes"], None) == full_fetch(forum, ["g/votes"], None)


def test_a_forum_in_a_file_writes_each_statement_as_it_comes(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    forum.hold_writes()   # (other connections read a file: the web forum shows each post as it comes)
    forum.add_post("g/votes", "Alice", "first")
    assert not forum.db.conn.in_transaction
    other = LocalForum(tmp_path / "forum.db", clock=lambda: START)
    assert [p["author"] for p in other.thread_posts("g/votes")] == ["Alice"]


def test_a_forum_holding_its_writes_hands_back_what_it_wrote_without_reading_it():
    forum = LocalForum(clock=lambda: START + timedelta(hours=1))
    forum.hold_writes()
    forum.add_post("g/votes", "Alice", "first")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    seen = traced(forum)
    forum.add_posts([("g/votes", "Bob", "vote Alice", START), ("g/votes", "Carol", "vote Bob", START)])
    forum.post("g/votes", "count", "g:1")
    forum.add_post("g/votes", "Dave", "vote Bob", START)
    got = forum.fetch_posts(["g/votes"], cursor)
    assert [p.author for p in got[0]] == ["Bob", "Carol", "Dave"]
    assert [s.split()[0] for s in seen] == ["INSERT"] * 3   # (the posts kept as written: nothing read back)
    assert got == full_fetch(forum, ["g/votes"], cursor)
