"""A step is one transaction on the store: what it fetched (posts, PMs, the cursor and the read
time) goes in with the first game's step, or at the step's end when no game writes. Until then it is held,
uncommitted: a crash there loses it with the cursor, so it is fetched again; the games of the step read it
from memory meanwhile, each post once; one game's failure keeps it for the others; a failed write rolls
all of it back and nothing of it is read from memory afterwards."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import forumbot.engine.cycle as runner_module
from forumbot.config.game import GameConfig
from forumbot.engine.crashpoints import POINTS
from forumbot.engine.cycle import GameRun, Runner
from forumbot.errors import PlatformError
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
LATER = START + timedelta(days=30)   # the forum's clock: every post is in its past
GAMES = ("g", "h")                   # two games on one platform, one store


def _runner(folder: Path) -> tuple[LocalForum, Store, Runner]:
    forum = LocalForum(folder / "forum.db", clock=lambda: LATER)
    store = Store(folder / "bot.db")
    runs = [GameRun.build(GameConfig(name=name, game="mafia", lang="en", start=START, phase="day1",
                                     players=tuple(PlayerRef(n) for n in PLAYERS), options={}))
            for name in GAMES]
    return forum, store, Runner(store, forum, runs)


def _transactions(statements: list[str]) -> list[str]:
    return [s for s in statements if s.split(" ")[0].upper() in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")]


def test_a_step_where_no_game_writes_stores_what_it_fetched_in_one_transaction(tmp_path):
    forum, store, runner = _runner(tmp_path)
    runner.start(START)
    runner.step(START + timedelta(minutes=1))
    forum.add_pm("Zed", forum.account, "hello", at=START + timedelta(minutes=2))   # a PM no game reads
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    runner.step(START + timedelta(minutes=3))
    store.db.conn.set_trace_callback(None)
    assert _transactions(statements) == ["BEGIN IMMEDIATE", "COMMIT"]
    assert forum.fetch_pms() == []                                   # stored (committed), then marked read
    assert Store(tmp_path / "bot.db").cursor("local", "read_until") is not None


def test_one_games_failure_keeps_the_fetched_posts_for_the_other_and_the_next_step(tmp_path, monkeypatch):
    forum, store, runner = _runner(tmp_path)
    runner.start(START)
    runner.step(START + timedelta(minutes=1))
    for minute, game in [(2, "g"), (3, "h"), (4, "g")]:
        forum.add_post(f"{game}/votes", "Alice", "vote Bob", at=START + timedelta(minutes=minute))
    forum.add_pm("Alice", forum.account, "a word to the host", at=START + timedelta(minutes=5))
    advance = runner._advance_once

    def failing(run: GameRun, *args: Any) -> None:
        if run.name == "g":
            raise RuntimeError("the game broke")
        advance(run, *args)

    monkeypatch.setattr(runner, "_advance_once", failing)
    result = runner.step(START + timedelta(minutes=6))
    assert result.failed_games == ["g"] and result.intents == 1    # h read its vote; g's wait
    other = Store(tmp_path / "bot.db")                             # (as another process sees the store)
    assert other.db["posts"].count == 4 and other.cursor("local") is not None
    assert forum.fetch_pms() == []                                 # read by h (committed), so marked read
    monkeypatch.setattr(runner, "_advance_once", advance)
    assert runner.step(START + timedelta(minutes=7)).intents == 2  # g reads its two votes, once
    assert runner.step(START + timedelta(minutes=8)).intents == 0
    for run in runner.runs:
        assert runner.state(run).current == {"Alice": "Bob"}


# A plan: per step, the posts that come before it ((game, voter, target) votes and PMs), and what goes
# wrong in it: nothing, a crash at a crash point (the n-th time it is passed), a statement that fails, or
# one game's failure.
posts = st.lists(st.tuples(st.sampled_from([*GAMES, "pm"]), st.sampled_from(PLAYERS), st.sampled_from(PLAYERS)),
                 max_size=3)
trouble = st.one_of(st.none(),
                    st.tuples(st.just("crash"), st.sampled_from(POINTS), st.integers(1, 2)),
                    st.tuples(st.just("fail"), st.sampled_from(["posts", "cursors", "processed", "events", "outbox"])),
                    st.tuples(st.just("game"), st.sampled_from(GAMES)))
plans = st.lists(st.tuples(posts, trouble), min_size=1, max_size=6)


class Killed(BaseException):
    """SIGKILL, in process: nothing more runs, and what was not committed is gone."""


def _killer(store: Store, point: str, count: int) -> Any:
    """A crashpoint that kills the step the `count`-th time `point` is passed."""
    passed = [0]

    def crash(name: str) -> None:
        if name == point:
            passed[0] += 1
            if passed[0] == count:
                store.write_held = lambda: None   # type: ignore[method-assign]  # nothing more runs
                raise Killed
    return crash


def _play(folder: Path, plan: list[tuple[list[tuple[str, str, str]], Any]], troubled: bool,
          monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Run the plan's steps (with its troubles if `troubled`; a killed step is done again by a new runner on
    the same files, as after a restart), then steps until nothing is left; what the forum and store say."""
    folder.mkdir()
    forum, store, runner = _runner(folder)
    runner.start(START)
    minute = 0
    for number, (arriving, problem) in enumerate(plan):
        for kind, author, target in arriving:
            minute += 1
            at = START + timedelta(minutes=minute)
            if kind == "pm":
                forum.add_pm(author, forum.account, f"I check {target}", at=at)
            else:
                forum.add_post(f"{kind}/votes", author, f"vote {target}", at=at)
        now = START + timedelta(minutes=minute, seconds=30 + number)
        problem = problem if troubled else None
        if problem is not None and problem[0] == "crash":
            monkeypatch.setattr(runner_module, "crashpoint", _killer(store, problem[1], problem[2]))
            try:
                runner.step(now)
            except Killed:
                store._marks.clear()          # deliveries recorded for later: never written
                store.db.conn.rollback()      # what was not committed is gone
                store.db.close()
                forum, store, runner = _runner(folder)   # restarted
                runner.start(START)
            monkeypatch.undo()
            runner.step(now)                  # (the step done again, or the next poll at the same time)
        elif problem is not None and problem[0] == "fail":
            store.db.execute(f"CREATE TRIGGER fail BEFORE INSERT ON {problem[1]} "
                             "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
            try:   # (fails when the step writes that table)
                runner.step(now)
            except sqlite3.IntegrityError:
                pass
            store.db.execute("DROP TRIGGER fail")
            runner.step(now)
        elif problem is not None:
            advance = runner._advance_once

            def failing(run: GameRun, *args: Any, name: str = problem[1], advance: Any = advance) -> None:
                if run.name == name:
                    raise RuntimeError("the game broke")
                advance(run, *args)

            monkeypatch.setattr(runner, "_advance_once", failing)
            runner.step(now)
            monkeypatch.undo()
            runner.step(now)
        else:
            runner.step(now)
    runner.step(START + timedelta(minutes=minute, seconds=59))
    store.db.close()
    store = Store(folder / "bot.db")
    # (a post is read by a row in `processed` or by its intents, never both)
    reads = store.db.execute("SELECT game, post, count(*) FROM (SELECT game, post FROM processed UNION ALL SELECT "
                             "DISTINCT game, post FROM intents) GROUP BY game, post").fetchall()
    return {   # (in each thread and to each player in order; a game that failed a step may post after the other)
        "bot": sorted([(p["thread"], p["body"]) for p in forum.db["forum_posts"].rows_where(
            "author = ?", [forum.account], order_by="id")], key=lambda p: p[0]),
        "pms": sorted([(p["recipient"], p["body"]) for p in forum.db["forum_pms"].rows_where(
            "sender = ?", [forum.account], order_by="id")], key=lambda p: p[0]),
        "unread": len(forum.fetch_pms()),
        "pending": store.pending(),
        "states": {name: store.game(name).state for name in GAMES},   # type: ignore[union-attr]
        "read": sorted(reads),
        "intents": store.db.execute("SELECT game, post, kind, data FROM intents ORDER BY game, post, id").fetchall(),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plans)
def test_whatever_goes_wrong_in_a_step_every_post_is_read_once_and_every_message_sent_once(
        tmp_path_factory, monkeypatch, plan):
    """Against the same steps with nothing going wrong: the same posts and PMs from the bot, the same states,
    each post read once by each game (its intents once), every PM read and marked read, nothing owed."""
    folder = tmp_path_factory.mktemp("steps")
    with monkeypatch.context() as patch:
        troubled = _play(folder / "troubled", plan, True, patch)
    assert troubled == _play(folder / "calm", plan, False, monkeypatch)
    assert troubled["unread"] == 0 and troubled["pending"] == []
    assert all(count == 1 for _, _, count in troubled["read"])


class DownForum(LocalForum):
    """A forum whose thread fetch fails while `down` (its PMs still come)."""

    down = False

    def fetch_posts(self, threads: Any, after: Any) -> Any:
        if self.down:
            raise PlatformError("503 from the forum", retryable=True)
        return super().fetch_posts(threads, after)


def test_pms_fetched_in_a_poll_whose_post_fetch_failed_are_not_marked_read(tmp_path):
    """They were not stored: marked read they would be lost (they were, before)."""
    forum = DownForum(tmp_path / "forum.db", clock=lambda: LATER)
    store = Store(tmp_path / "bot.db")
    runner = Runner(store, forum, [GameRun.build(GameConfig(name="g", game="mafia", lang="en", start=START,
                                                            phase="day1", options={},
                                                            players=tuple(PlayerRef(n) for n in PLAYERS)))])
    runner.start(START)
    runner.step(START + timedelta(minutes=1))
    forum.add_pm("Alice", forum.account, "a word to the host", at=START + timedelta(minutes=2))
    forum.down = True
    assert runner.step(START + timedelta(minutes=3)).errors
    assert len(forum.fetch_pms()) == 1 and store.db["posts"].count == 0
    forum.down = False
    runner.step(START + timedelta(minutes=4))
    assert forum.fetch_pms() == [] and [row["post"] for row in store.db["processed"].rows] == ["local-pm:1"]
