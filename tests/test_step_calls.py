"""What the runner and the store themselves cost a step that reads a vote and posts a count (issue 16): Python
calls in their own code, counted (the same on every machine, unlike time), the game's rules, the parser and
the renderer left out."""

from __future__ import annotations

import sys
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

from helpers import START
from test_pipeline import NOW, PLAYERS, build

import forumbot

# The runner's and the store's own code (a GameRun's accessors are asked by the runner only).
OWN = tuple(str(Path(forumbot.__file__).parent / name)
            for name in ("runner.py", "store.py", "corrections.py", "sqlite.py", "gamerun.py"))


def _calls(work: Any) -> int:
    """Python calls (and generator resumptions) in OWN's code while `work` runs."""
    done = [0]

    def profiler(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename in OWN:
            done[0] += 1

    sys.setprofile(profiler)
    try:
        work()
    finally:
        sys.setprofile(None)
    return done[0]


def _vote_steps(tmp_path: Path, votes: int) -> list[int]:
    """The calls of each of `votes` steps that read one vote and post a count."""
    forum, _, _, runner = build(tmp_path)
    runner.start(START)
    runner.step(NOW)
    counts = []
    for number in range(votes):
        voter, target = PLAYERS[number % 3], PLAYERS[3 + number % 2]
        forum.add_post("g/votes", voter, f"vote {target}", at=START + timedelta(minutes=number + 1))
        results: list[Any] = []
        counts.append(_calls(partial(lambda done: done.append(runner.step(NOW)), results)))
        assert results[0].intents == 1 and [m["kind"] for m in results[0].delivered] == ["vote_count"]
    return counts


def test_a_vote_and_count_step_stays_under_its_budget_of_python_calls_in_the_runner_and_the_store(tmp_path):
    counts = _vote_steps(tmp_path, 6)
    # 180 calls a step here before this budget (173 in the replay's worst mix): each game's parts of a step
    # behind a lambda, the game's name asked again and again, its thread ids and PM authors worked out
    # afresh, the game's row built as a dict and filtered by generators, a new read record per read (125;
    # 116 measured, 112 with the step's fetch in its one transaction: no Transaction of its own, no empty
    # rows walked; 90 once the store made its rows and statements as they are written, with a step's writes in
    # one function, the posts a game reads next put into its read, and tokens looked up in a dict; 73 once a
    # common step skips the lobbies, the starts, the rechecks not due and the corrections read at the same token,
    # runs each game's parts without a call around them, and asks GameRun.name as an attribute; 42 with both)
    assert max(counts[1:]) <= 50, counts
