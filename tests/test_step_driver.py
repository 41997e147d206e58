"""A step's own machinery and the replay's driver: each shortcut pinned against the work it replaces."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig, Scenario, ScenarioPost
from forumbot.engine import crashpoints
from forumbot.engine.cycle import GameRun, Runner, StepResult
from forumbot.engine.replay import _grid, replay
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Eve")


def config(name: str = "g", **fields: Any) -> GameConfig:
    return GameConfig(**{"name": name, "game": "mafia", "lang": "en", "start": START, "host": "Host", "phase": "day1",
                         "players": tuple(PlayerRef(n) for n in PLAYERS),
                         "options": {"day_hours": 48, "night_hours": 12}, **fields})


def _grid_in_seconds(start: datetime, at: datetime, poll: int) -> datetime:
    """The poll grid as the replay worked it out before (seconds as a float)."""
    if poll <= 0 or at <= start:
        return at
    steps = -(-(at - start).total_seconds() // poll)
    return start + timedelta(seconds=steps * poll)


@given(st.integers(-10**6, 10**9), st.integers(0, 999_999), st.sampled_from([-1, 0, 1, 7, 60, 90, 3600, 86400]))
def test_the_poll_grid_in_whole_ticks_is_the_grid_in_seconds(seconds, micro, poll):
    at = START + timedelta(seconds=seconds, microseconds=micro)
    assert _grid(START, at, poll) == _grid_in_seconds(START, at, poll)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 40 * 3600), min_size=1, max_size=12), st.sampled_from([1, 60, 90, 600]))
def test_a_replay_steps_at_the_grid_time_of_each_post(offsets, poll):
    # The replay takes the grid's next time without a division when the next post comes before it: the steps
    # are still those at each post's own grid time (the day's deadline is beyond every post).
    posts = tuple(ScenarioPost(START + timedelta(seconds=s), PLAYERS[i % 5], "hello all", "game")
                  for i, s in enumerate(sorted(offsets)))
    times: list[datetime] = []
    real = Runner.step

    def step(self: Runner, now: datetime) -> StepResult:
        times.append(now)
        return real(self, now)

    Runner.step = step   # type: ignore[method-assign]   (hypothesis: no function-scoped monkeypatch)
    try:
        replay(Scenario(config(), posts, poll_seconds=poll)).close()
    finally:
        Runner.step = real   # type: ignore[method-assign]
    grid = sorted({_grid_in_seconds(START, post.at, poll) for post in posts})
    assert times[1:len(grid) + 1] == grid
    assert times[len(grid) + 1:] == [START + timedelta(hours=48)]   # the day's end, once


def test_the_next_deadline_of_the_games_held_is_the_one_checked_against_the_store():
    forum = LocalForum(clock=lambda: START + timedelta(days=10))
    runs = [GameRun.build(config("a")), GameRun.build(config("b", options={"day_hours": 30}))]
    runner = Runner(Store(), forum, runs, settle=timedelta(minutes=3))
    runner.start(START)
    runner.step(START + timedelta(minutes=1))
    held = runner.next_deadline(held=True)
    assert held == runner.next_deadline() == START + timedelta(hours=30, minutes=3)
    forum.add_post("b/votes", "Alice", "vote Bob", at=START + timedelta(minutes=2))
    runner.step(START + timedelta(minutes=3))
    assert runner.next_deadline(held=True) == runner.next_deadline() == held
    runner.settle = timedelta(0)
    assert runner.next_deadline(held=True) == runner.next_deadline() == START + timedelta(hours=30)


def test_a_step_result_has_no_dict_to_make():
    assert not hasattr(StepResult(), "__dict__")
    assert StepResult(0, 0, [], [], [], []) == StepResult()


def test_crash_points_are_inert_unless_asked_for():
    # Without FORUMBOT_CRASH a crash point is a function that does nothing (not even compare the name); with
    # it set, the real one is in place.
    assert "FORUMBOT_CRASH" not in os.environ and crashpoints.crashpoint is crashpoints.inert
    armed = subprocess.run([sys.executable, "-c", "from forumbot.engine import crashpoints as c; "
                            "print(c.crashpoint is c.inert)"], capture_output=True, text=True, check=True,
                           env={**os.environ, "FORUMBOT_CRASH": "committed:2"})
    assert armed.stdout.strip() == "False"
