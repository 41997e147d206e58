"""What the local forum's round trip and the delivery cost a step that reads a vote and posts a count (issue
16): Python bytecodes in that code (the same on every machine, unlike time), counted over the player's post
going on the forum and the bot's step. The local forum keeps the Post it will hand back when the post is
written (its time as given: no text to parse back), answers a fetch with what it kept, and the runner hands
the store the delivery marks in the form they are written in, the messages owed dropped from the front."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

from helpers import START, bytecodes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_local_forum_trips import full_fetch
from test_pipeline import NOW, PLAYERS, build

import forumbot
from forumbot.model import Outgoing
from forumbot.platforms.local import LocalForum
from forumbot.store import Store

ROOT = Path(forumbot.__file__).parent
T0 = START

# The code this budget holds: the local forum, delivery in the runner, the store's outbox and its marks.
AREA = {
    str(ROOT / "platforms" / "local.py"): None,   # every function
    str(ROOT / "runner.py"): {"deliver", "_send_once"},
    str(ROOT / "store.py"): {"pending", "delivered", "record_delivery", "_put_marks",
                             "write_deliveries", "_outbox_row", "newer_in_slot", "slot_holder"},
}


def _in_area(code: Any) -> bool:
    names = AREA.get(code.co_filename, ())
    return names is None or code.co_name in names


def _bytecodes(work: Any) -> int:
    """Python bytecodes executed in AREA's code while `work` runs."""
    return bytecodes(work, _in_area)


def _vote_and_step(forum: Any, runner: Any, voter: str, target: str, number: int, results: list[Any]) -> None:
    """A player's vote goes on the forum, and the bot steps (reads it, posts the count)."""
    forum.add_post("g/votes", voter, f"vote {target}", at=START + timedelta(minutes=number + 1))
    results.append(runner.step(NOW))


def test_a_vote_and_its_count_cost_the_forum_and_the_delivery_few_bytecodes(tmp_path):
    forum, _, _, runner = build(tmp_path)
    runner.start(START)
    runner.step(NOW)
    counts = []
    for number in range(8):
        voter, target = PLAYERS[number % 3], PLAYERS[3 + number % 2]
        results: list[Any] = []
        counts.append(_bytecodes(partial(_vote_and_step, forum, runner, voter, target, number, results)))
        assert results[0].intents == 1 and [m["kind"] for m in results[0].delivered] == ["vote_count"]
    # 845 here before (the fetched rows made into Posts and their times parsed at every fetch, the tail
    # walked row by row, the outbox's rows filtered by sets at every delivery); 687 when this was written;
    # 720 before the forum kept its connection and the polls took it only to read (708); 710 before the bot's
    # post chose the statement that joins its marker without a trim and the markers and links were made by a
    # C call (703)
    assert max(counts[2:]) <= 705, counts


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
