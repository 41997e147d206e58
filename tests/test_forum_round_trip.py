"""The local forum's round trip and the delivery: the messages owed that the store keeps in memory are
those SQLite gives, and the Post the forum keeps for its next fetch is the one reading its row back makes."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_local_forum_trips import full_fetch

from forumbot.model import Outgoing
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

T0 = START


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.lists(st.booleans(), max_size=6), st.booleans()),
                max_size=8))
def test_deliveries_recorded_later_leave_owed_what_sql_gives(tmp_path_factory, plan):
    """Store.delivered (the runner's record of what went out, written with the next write): the messages still
    owed, kept in memory, are those SQLite gives, whichever of them went out (the first ones, or any)."""
    folder = tmp_path_factory.mktemp("store")
    mine, other = Store(folder / "bot.db"), Store(folder / "bot.db")
    seq = {"g": 0, "h": 0}
    started: set[str] = set()

    def queue(store: Store, game: str, count: int) -> None:
        out = [Outgoing(key=f"{game}:{seq[game] + i}", kind="vote_count", thread=f"{game}/votes", text=f"n{i}")
               for i in range(1, count + 1)]
        store.commit_step(game, "mafia", {}, {}, outbox=out, at=T0, expected_version=None if game in started else 0)
        seq[game] += count
        started.add(game)

    for ours, theirs, picks, write in plan:
        queue(other, "h", theirs)
        mine.look()
        queue(mine, "g", ours)
        owed = mine.pending(looked=True)
        gone = [row for row, pick in zip(owed, picks, strict=False) if pick]   # (in the outbox's order)
        mine.delivered([("2026-03-01T20:00:00Z", f"id-{row['key']}", row["key"]) for row in gone])
        assert mine.pending(looked=True) == [row for row in owed if row not in gone]
        if write:   # the next write takes the marks along
            mine.platform_ok("local", T0)
        assert mine.pending(looked=True) == mine.pending()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Alice", "forumbot"]), st.integers(-90, 90), st.integers(0, 999_999),
                          st.sampled_from([0, 3, -5])), min_size=1, max_size=6))
def test_a_post_kept_in_memory_is_the_post_the_query_reads(times):
    """Whatever time a post is written with (a zone other than UTC, microseconds, the clock's own), the Post
    the local forum keeps for its next fetch is the one reading the row back makes."""
    forum = LocalForum(clock=lambda: START + timedelta(hours=3))
    assert forum.fetch_posts(["g/votes"], None) == ([], "0")
    for author, minutes, micro, hours in times:
        at = (START + timedelta(minutes=minutes, microseconds=micro)).astimezone(timezone(timedelta(hours=hours)))
        forum.add_post("g/votes", author, "vote Bob", at=None if author == "forumbot" else at)
    want = full_fetch(forum, ["g/votes"], "0")
    assert forum.fetch_posts(["g/votes"], "0") == want
    assert [p.created.tzinfo for p in want[0]] == [UTC] * len(want[0])
