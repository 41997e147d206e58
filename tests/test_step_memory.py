"""A step's reads that the store answers from memory: a game's new posts (Store.unprocessed_posts)
and the undelivered messages (Store.pending), with `looked`, are what asking SQLite gives, whatever this
connection and another one wrote in between; and a runner sharing its store with another writer reads
every post once."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta, timezone

from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline import Forum, bot_posts, build

from forumbot.model import Outgoing, Post
from forumbot.storage import Store

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
AUTHORS = ["Al", "Bo", "Cy"]
THREADS = ["t1", "t2", "t3"]


def by_c(author: str) -> bool:   # one lookalike test, the same object every read (as the runner's)
    return author.startswith("C")


@st.composite
def posts(draw: st.DrawFn) -> list[Post]:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        number = draw(st.integers(1, 30))   # ids repeat: a post seen again, or edited
        pm = draw(st.booleans())
        # a time in another zone or with microseconds is stored in UTC to the second
        zone = draw(st.sampled_from([UTC, timezone(timedelta(hours=3))]))
        created = (T0 + timedelta(seconds=draw(st.integers(0, 50)),
                                  microseconds=draw(st.sampled_from([0, 7])))).astimezone(zone)
        out.append(Post(platform_id=f"p{number}", thread="" if pm else draw(st.sampled_from(THREADS)),
                        author=draw(st.sampled_from(AUTHORS)), created=created, pm=pm,
                        body=draw(st.sampled_from(["vote Al", "vote Bo"])),
                        dialect=draw(st.sampled_from(["", "bbcode"])), url=draw(st.sampled_from(["", "u"]))))
    return out


reads = st.tuples(st.sets(st.sampled_from(THREADS)).map(sorted).map(tuple),
                  st.sets(st.sampled_from([*AUTHORS, "*"])).map(sorted).map(tuple),
                  st.sampled_from([None, by_c]))
# a step: our posts, another connection's (or none), a second read with other filters (or none), which of
# the posts handed out the game reads, whether another connection reads them instead, whether ours are held
# for the step's commit (a runner's fetch: Store.save_posts `hold`)
steps = st.lists(st.tuples(posts(), st.one_of(st.just([]), posts()), st.one_of(st.none(), reads),
                           st.integers(0, 7), st.integers(0, 4), st.booleans()), max_size=8)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reads, steps)
def test_a_games_new_posts_from_memory_are_those_sql_gives(tmp_path_factory, usual, plan):
    folder = tmp_path_factory.mktemp("store")
    mine, other = Store(folder / "bot.db"), Store(folder / "bot.db")
    version = 0
    for ours, theirs, then, keep, others_process, hold in plan:
        other.save_posts("other", theirs)                    # another connection, before the step's look
        mine.look()
        mine.save_posts("local", ours, hold=hold)            # the step's fetch
        for threads, authors, also in [usual] if then is None else [usual, then]:
            fast = mine.unprocessed_posts("g", threads, authors, also, looked=True)
            assert fast == mine.unprocessed_posts("g", threads, authors, also)   # (this one asks SQLite)
        # the game reads some of what it was handed (in its order), or another writer reads them
        done = [post.platform_id for i, post in enumerate(fast) if keep >> (i % 3) & 1]
        writer = other if others_process == 0 else mine
        if writer is other:
            mine.write_held()                                # (the step's end: no game of ours wrote)
        writer.commit_step("g", "mafia", {}, {}, processed=done, at=T0, expected_version=None if version else 0)
        assert not mine.db.conn.in_transaction               # a held fetch went in with our commit
        version += 1


outbox_steps = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.booleans(),
                                  st.booleans()), max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outbox_steps)
def test_the_undelivered_messages_from_memory_are_those_sql_gives(tmp_path_factory, plan):
    folder = tmp_path_factory.mktemp("store")
    mine, other = Store(folder / "bot.db"), Store(folder / "bot.db")
    seq = {"g": 0, "h": 0}
    started: set[str] = set()

    def queue(store: Store, game: str, count: int) -> None:
        out = [Outgoing(key=f"{game}:{seq[game] + i}", kind="vote_count", thread=f"{game}/votes", text=f"n{i}",
                        slot="count" if i % 2 else "") for i in range(1, count + 1)]
        store.commit_step(game, "mafia", {}, {}, outbox=out, at=T0, expected_version=None if game in started else 0)
        seq[game] += count
        started.add(game)

    for ours, theirs, send, fail, again in plan:
        queue(other, "h", theirs)
        mine.look()
        queue(mine, "g", ours)
        owed = mine.pending(looked=True)
        assert owed == mine.pending()
        assert mine.pending("g", looked=True) == mine.pending("g")
        sent = [(row["key"], f"id-{row['key']}") for row in owed[:send]]
        failed = (owed[send]["key"], "timed out") if fail and len(owed) > send else None
        mine.record_delivery(sent, T0, failed=failed)
        if again:   # queued and read again within the step
            queue(mine, "g", 1)
        assert mine.pending(looked=True) == mine.pending()


def test_a_runner_reads_each_post_once_when_another_writer_reads_some(tmp_path):
    """Two runners of the same game over one store file take turns (as after a restart while the old process
    still ran): every vote is counted once, and the counts are those of one runner alone."""
    alone_forum, _, _, alone = build(tmp_path / "alone")
    forum = Forum(tmp_path / "forum.db", clock=lambda: START + timedelta(days=30))
    _, store, run, first = build(tmp_path, forum=forum)
    _, _, _, second = build(tmp_path, forum=forum, store=Store(tmp_path / "bot.db"))
    votes = [("Alice", "vote Bob"), ("Bob", "vote Carol"), ("Carol", "vote Bob"), ("Dave", "unvote"),
             ("Eve", "vote Carol"), ("Dave", "vote Carol")]
    for runner in (alone, first):
        runner.start(START)
    for i, (author, text) in enumerate(votes, start=1):
        at = START + timedelta(minutes=i)
        now = START + timedelta(minutes=i, seconds=30)
        for place in (alone_forum, forum):
            place.add_post("g/votes", author, text, at=at)
        alone.step(now)
        (first if i % 3 else second).step(now)   # the second runner reads every third post
    first.step(START + timedelta(minutes=10))
    alone.step(START + timedelta(minutes=10))
    assert bot_posts(forum) == bot_posts(alone_forum)
    assert first.state(run).current == alone.state(alone.runs[0]).current
    assert store.pending() == []


def test_a_step_that_delivered_leaves_nothing_owed_once_the_store_is_dropped(tmp_path):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)
    runner.step(START + timedelta(minutes=1))            # the opening goes out
    forum.add_post("g/votes", "Alice", "vote Bob", at=START + timedelta(minutes=2))
    runner.step(START + timedelta(minutes=3))            # the count goes out
    assert len(bot_posts(forum)) == 2
    del runner, store
    gc.collect()
    assert Store(tmp_path / "bot.db").pending() == []    # a store opened afresh owes nothing: none goes out twice
