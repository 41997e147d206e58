"""The deadline's recheck asks the local forum which posts changed: only those stored are built and
re-read, and what it finds (edits, deletions, flags, posts read again, the mark) is what re-reading every
post that carried a command found."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef, Post
from forumbot.platforms.base import Recheck
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
LATER = START + timedelta(days=30)   # the forum's clock: every test post is in its past
TEXTS = ["vote Bob", "vote Carol", "unvote", "nice weather", "vote Dave"]


class EveryPost(LocalForum):
    """The local forum as a platform that cannot say which posts changed: the recheck re-reads them all."""

    changed_posts = None


def at(minutes: int):
    return START + timedelta(minutes=minutes)


def config(name: str) -> GameConfig:
    return GameConfig(name=name, game="mafia", lang="en", start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                      options={"day_hours": 4, "night_hours": 2}, phase="day1")


def play(forum_class: type[LocalForum], actions: list[tuple[Any, ...]], policy: str) -> tuple[Store, LocalForum,
                                                                                               Runner]:
    store = Store()
    forum = forum_class(clock=lambda: LATER, edit_policy=policy)
    runner = Runner(store, forum, [GameRun.build(config("g")), GameRun.build(config("h"))])
    runner.start(START)
    made: list[str] = []
    for kind, *args in actions:
        if kind == "post":
            game, thread, author, text, minute = args
            made.append(forum.add_post(f"{game}/{thread}", author, text, at=at(minute)))
        elif kind == "pm":
            author, text, minute = args
            forum.add_pm(author, forum.account, text, at=at(minute))
        elif kind == "edit" and made:
            index, text, minute = args
            forum.edit_post(made[index % len(made)], text, at=at(minute))
        elif kind == "delete" and made:
            forum.delete_post(made[args[0] % len(made)])
        elif kind == "step":
            runner.step(at(args[0]))
    return store, forum, runner


def _stored(store: Store) -> dict[str, Any]:
    conn = store.db.conn
    return {"posts": conn.execute("SELECT id, thread, author, created, edited, body, edited_body, dialect, url, pm "
                                  "FROM posts ORDER BY id").fetchall(),   # (not `fetched`: the wall clock's)
            "flags": conn.execute("SELECT game, post, author, reason, line, at FROM flags ORDER BY id").fetchall(),
            "marks": conn.execute("SELECT * FROM cursors WHERE name LIKE 'recheck:%' ORDER BY name").fetchall(),
            "intents": conn.execute("SELECT game, post, kind, data FROM intents ORDER BY id").fetchall(),
            "outbox": conn.execute("SELECT key, text FROM outbox ORDER BY rowid").fetchall()}


minutes = st.integers(min_value=0, max_value=15)   # after the action before
post = st.tuples(st.just("post"), st.sampled_from("gh"), st.sampled_from(["votes", "votes", "game"]),
                 st.sampled_from(PLAYERS), st.sampled_from(TEXTS), minutes)
change = st.one_of(st.tuples(st.just("edit"), st.integers(0, 40), st.sampled_from(TEXTS), minutes),
                   st.tuples(st.just("delete"), st.integers(0, 40)))
action = st.one_of(post, post, change, st.tuples(st.just("pm"), st.sampled_from(PLAYERS), st.sampled_from(TEXTS),
                                                 minutes), st.tuples(st.just("step"), minutes))
# Posts and the rest, a step, then more (edits of posts the bot has read among them), then the deadlines.
script = st.tuples(st.lists(action, min_size=2, max_size=15),
                   st.lists(st.one_of(action, change, change, change), min_size=1, max_size=12))


def _in_time(first: list[tuple[Any, ...]], then: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The actions at their times: each its minutes after the one before."""
    out, now = [], 0
    for item in [*first, ("step", 1), *then]:
        if item[0] != "delete":
            now += item[-1]
            item = (*item[:-1], now)
        out.append(item)
    return [*out, *(("step", now + hours * 60) for hours in (1, 3, 5, 7, 9))]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script, st.sampled_from(["first_seen", "flag", "edited"]))
def test_a_recheck_of_the_changed_posts_finds_what_rereading_every_post_found(actions, policy):
    """Two games on one forum, votes and talk, PMs, edits and deletions before and after the bot read the posts,
    deadlines passing: the store ends the same whether the forum names the changed posts or not."""
    actions = _in_time(*actions)
    new, _, _ = play(LocalForum, actions, policy)
    old, _, _ = play(EveryPost, actions, policy)
    assert _stored(new) == _stored(old)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script, st.sampled_from(["first_seen", "flag", "edited"]),
       st.integers(min_value=-60, max_value=12 * 60))
def test_the_changed_posts_among_a_windows_command_posts_are_the_ones_that_differ(actions, policy, since):
    """For any window and either game: the posts built from the changed ones re-read as every post does."""
    store, forum, _ = play(LocalForum, _in_time(*actions), policy)
    for game in "gh":
        every = store.command_posts(game, at(since))
        changed = forum.changed_posts(at(since))
        some = store.command_posts(game, at(since), changed)
        assert some == [post for post in every if post.platform_id in changed]
        assert forum.recheck(some, policy) == forum.recheck(every, policy)


def test_the_changed_posts_are_those_made_since_and_edited_deleted_or_removed():
    forum = LocalForum(clock=lambda: LATER)
    early = forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    kept = forum.add_post("g/votes", "Bob", "vote Carol", at=at(10))
    edited = forum.add_post("g/votes", "Carol", "vote Bob", at=at(11))
    deleted = forum.add_post("h/votes", "Dave", "vote Eve", at=at(12))
    removed = forum.add_post("g/game", "Eve", "hello", at=at(13))
    forum.add_pm("Alice", forum.account, "vote Bob", at=at(14))
    forum.edit_post(early, "vote Dave", at=at(20))   # made before the window
    forum.edit_post(edited, "vote Dave", at=at(5))   # (a time given before the post's own)
    forum.delete_post(deleted)
    forum.remove_post(removed, "not here")
    assert forum.changed_posts(at(10)) == {edited, deleted, removed}
    assert forum.changed_posts(at(0)) == {early, edited, deleted, removed}
    assert forum.changed_posts(at(14)) == set() and kept not in forum.changed_posts(at(0))


def test_a_deadline_builds_and_rereads_only_the_changed_posts(monkeypatch):
    """Fifty votes, one edited: the recheck is given that one post (it was given all fifty)."""
    store, forum, runner = play(LocalForum, [], "flag")
    votes = [forum.add_post("g/votes", PLAYERS[i % 5], f"vote {PLAYERS[(i + 1) % 5]}", at=at(i)) for i in range(50)]
    runner.step(at(60))
    forum.edit_post(votes[7], "vote Eve", at=at(70))
    given: list[list[Post]] = []
    recheck = forum.recheck

    def counted(posts, policy=None) -> Recheck:
        given.append(list(posts))
        return recheck(posts, policy)

    monkeypatch.setattr(forum, "recheck", counted)
    runner.step(at(5 * 60))   # past day 1's deadline
    assert [[p.platform_id for p in posts] for posts in given] == [[votes[7]], []]   # games g, then h
    assert [f["post"] for f in store.flags("g") if "edited" in f["reason"]] == [votes[7]]


def test_a_post_read_again_as_of_its_edit_does_not_stop_the_next_deadline():
    """Under "edited" the new text is stored as a post of its own ("local:1@<time>"); the next deadline's
    recheck passes it by (its original is re-read) instead of failing on an id the forum does not have."""
    for forum_class in (LocalForum, EveryPost):
        store, forum, runner = play(forum_class, [("post", "g", "votes", "Alice", "vote Bob", 10), ("step", 30),
                                                  ("edit", 0, "vote Dave", 60), ("step", 5 * 60)], "edited")
        assert runner.state(runner.runs[0]).phase == "night1"
        result = runner.step(at(8 * 60))   # past night 1's deadline
        assert result.errors == [] and runner.state(runner.runs[0]).phase == "day2", forum_class
    reread = Post(platform_id="local:1@2026-03-01T21:00:00Z", thread="g/votes", author="Alice", created=at(60),
                  body="vote Dave", dialect="markdown")
    assert forum.recheck([reread]) == Recheck()


def test_a_forum_made_before_the_index_is_given_it_and_changed_posts_reads_only_the_index(tmp_path):
    """A forum file of an earlier version gets the index of edited posts when opened; changed_posts' statement
    searches it (a forum's months of posts are not walked at each deadline)."""
    path = tmp_path / "forum.db"
    forum = LocalForum(path, clock=lambda: LATER)
    post = forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    forum.edit_post(post, "vote Carol", at=at(2))
    forum.db.conn.execute("DROP INDEX forum_posts_edited")   # as m001 alone left it
    forum.db.conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm002_edited_posts'")
    forum.db.conn.close()
    again = LocalForum(path, clock=lambda: LATER)
    statements: list[str] = []
    again.db.conn.set_trace_callback(statements.append)
    assert again.changed_posts(at(0)) == {post}
    again.db.conn.set_trace_callback(None)
    (statement,) = statements
    plan = again.db.conn.execute(f"EXPLAIN QUERY PLAN {statement}").fetchall()
    assert [row[3] for row in plan] == ["SEARCH forum_posts USING INDEX forum_posts_edited (created>?)"], plan


def test_a_deadline_re_reads_only_the_phase_it_ends_and_never_the_runners_copy(monkeypatch):
    """Before a phase ends, only that phase's command posts are re-read: a night's deadline does not re-read
    the day before it (that day is settled), day 2's end re-reads day 2's votes only. The copy the "edited"
    policy stores ("local:1@<time>") is the runner's, not the platform's: it is never handed to a recheck
    (Reddit would otherwise ask /api/info for "t1_x@<time>")."""
    for forum_class in (LocalForum, EveryPost):
        store, forum, runner = play(forum_class, [("post", "g", "votes", "Alice", "vote Bob", 10), ("step", 30),
                                                  ("edit", 0, "vote Dave", 60), ("step", 5 * 60)], "edited")
        assert any("@" in row[0] for row in store.db.conn.execute("SELECT id FROM posts"))   # the copy is stored
        given: list[list[str]] = []
        recheck = forum.recheck

        def recorded(posts, policy=None, recheck=recheck, given=given) -> Recheck:
            given.append([p.platform_id for p in posts])
            return recheck(posts, policy)

        monkeypatch.setattr(forum, "recheck", recorded)
        runner.step(at(6 * 60 + 1))   # past night 1's deadline
        assert runner.state(runner.runs[0]).phase == "day2"
        assert all(ids == [] for ids in given), (forum_class, given)
        day2 = forum.add_post("g/votes", "Bob", "vote Carol", at=at(7 * 60))
        runner.step(at(7 * 60 + 5))
        forum.edit_post(day2, "vote Alice", at=at(8 * 60))
        given.clear()
        runner.step(at(11 * 60))   # past day 2's end
        handed = [i for ids in given for i in ids]
        assert day2 in handed and "local:1" not in handed, (forum_class, given)
        assert not [i for i in handed if "@" in i], forum_class
