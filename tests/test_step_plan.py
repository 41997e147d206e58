"""What a step still does when it leaves out the work it does not need: a recheck comes at the deadline, a
correction is read, a game whose start comes is started, and what a game reads held with its state is what
it reads afresh."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Eve")
LATER = START + timedelta(days=60)   # the forum's clock: every post is in its past


def at(minutes: float):
    return START + timedelta(minutes=minutes)


def config(name: str = "g", **fields: Any) -> GameConfig:
    return GameConfig(**{"name": name, "game": "mafia", "lang": "en", "start": START, "host": "Host", "phase": "day1",
                         "players": tuple(PlayerRef(n) for n in PLAYERS),
                         "options": {"day_hours": 24, "night_hours": 12}, **fields})


def make(*configs: GameConfig) -> tuple[LocalForum, list[GameRun], Runner]:
    forum = LocalForum(clock=lambda: LATER)
    runs = [GameRun.build(c) for c in (configs or (config(),))]
    runner = Runner(Store(), forum, runs)
    runner.start(START)
    return forum, runs, runner


def test_a_correction_is_read_and_the_days_posts_are_rechecked_at_its_end():
    forum, (run,), runner = make()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    carol = forum.add_post("g/votes", "Carol", "vote Dave", at=at(2))
    runner.step(at(2))
    forum.delete_post(carol)                  # seen at the day's end, when its posts are read again
    runner.step(at(60))
    assert runner.state(run).current == {"Alice": "Bob", "Carol": "Dave"}
    assert runner.store.flag_list("g") == []
    post = next(p for p in runner.store.processed_posts("g") if p.author == "Alice")
    corrections.add(runner.store, "g", post.platform_id, "not_a_vote", {}, "a joke", "Host", at(61))
    runner.step(at(62))
    assert runner.state(run).current == {"Carol": "Dave"}
    runner.step(START + timedelta(hours=25))   # day 1 ends (24 hours): its posts re-read first
    runner.step(START + timedelta(hours=26))
    flags = runner.store.flag_list("g")
    assert [f["post"] for f in flags] == [carol] and "was deleted" in flags[0]["reason"]


def test_a_game_yet_to_start_or_a_new_run_takes_the_whole_step_again():
    later = config("late", start=START + timedelta(hours=2))
    forum, (first, second), runner = make(config(), later)
    assert [r.name for r in runner.started()] == ["g"]
    runner.step(at(30))
    assert "late" not in runner._states
    runner.step(START + timedelta(hours=3))   # its start has come: started by the step
    assert "late" in runner._states and [r.name for r in runner.started()] == ["g", "late"]
    third = GameRun.build(config("third", start=START + timedelta(hours=4)))
    runner.runs.append(third)                 # (as a lobby adds the games it spawns)
    runner.step(START + timedelta(hours=5))
    assert "third" in runner._states
    runner.runs[1] = copy.copy(runner.runs[1])   # an equal run, another object: the plan is made again
    assert all(a is b for a, b in zip(runner.started(), runner.runs, strict=True))


def test_a_game_runs_name_follows_its_config():
    run = GameRun.build(config())
    assert run.name == "g"
    run.config = config("renamed")
    assert run.name == "renamed"


# Steps of one game (with its host): votes, the host's `replace` (the new account's PMs are read from then on),
# PMs from players and the new accounts, and time passing over the deadlines.
steps = st.lists(st.one_of(
    st.tuples(st.just("vote"), st.sampled_from(PLAYERS), st.sampled_from(PLAYERS)),
    st.tuples(st.just("replace"), st.sampled_from(PLAYERS), st.sampled_from(["sub1", "sub2"])),
    st.tuples(st.just("pm"), st.sampled_from([*PLAYERS, "sub1", "sub2", "Host"]), st.just("")),
    st.tuples(st.just("wait"), st.sampled_from(["", ""]), st.just(""))), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_what_a_game_reads_held_with_its_state_is_what_it_reads_afresh(plan):
    forum, (run,), runner = make()
    minute = 1.0
    for kind, who, other in plan:
        minute += 7 * 60 if kind == "wait" else 1
        if kind == "vote":
            forum.add_post("g/votes", who, f"vote {other}", at=at(minute))
        elif kind == "replace":
            forum.add_pm("Host", forum.account, f"replace {who} with {other}", at=at(minute))
        elif kind == "pm":
            forum.add_pm(who, forum.account, "hello", at=at(minute))
        runner.step(at(minute))
        version, state, host, _, held = runner._states["g"]
        fresh = runner._reading(run, state, host)
        if held is not None:   # (a reading holds no state: a state that reads the same keeps the reading before)
            assert (held.host, held.threads, held.by_role, held.authors) == \
                (host, fresh.threads, fresh.by_role, fresh.authors)
    # ... and the game read every post as a runner made afresh reads them
    again = Runner(runner.store, forum, [GameRun.build(config())])
    assert again.recount(again.runs[0], at(minute)) == runner.recount(run, at(minute))

