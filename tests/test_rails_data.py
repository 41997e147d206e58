"""Safety rails for data: one bot per store, steps that never commit over a state they did not
read, no post lost to a `replace` in the same poll, a truncated store refused, progress carried through
every schema migration, deadlines that wait for a read of the platform, crash tests that catch PMs marked
read too early, a clock stepped back, and `forumbot run`'s options. Each test is named after its item."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_crash import MARK_READ_ON_FETCH, outcome, prepare, run_bot

import forumbot.engine.cycle as runner_module
from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.config.game import GameConfig
from forumbot.engine.crashpoints import POINTS
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import Service
from forumbot.errors import PlatformError
from forumbot.model import PlayerRef
from forumbot.platforms import markers
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store, migrations

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
LATER = START + timedelta(days=60)


def hours(value: float) -> datetime:
    return START + timedelta(hours=value)


def game_config(**options) -> GameConfig:
    return GameConfig(name="g", game="mafia", lang="en", start=START, host="Host",
                      players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24, **options},
                      phase="day1")


def bot_config(folder: Path, start: datetime = START, day_hours: float = 24) -> Path:
    (folder / "g.toml").write_text(
        f'[game]\nname = "mafia"\nlang = "en"\nstart = "{start:%Y-%m-%dT%H:%M:%SZ}"\nhost = "Host"\n'
        f'[game.options]\nday_hours = {day_hours}\nvotes_only = true\n'
        + "".join(f'[[players]]\nname = "{n}"\n' for n in PLAYERS),
        encoding="utf-8")
    path = folder / "bot.toml"
    path.write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                    'poll_seconds = 0.3\n[[games]]\nconfig = "g.toml"\nname = "g"\n', encoding="utf-8")
    return path


def forumbot(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`forumbot ARGS` as a process of its own (a hang fails the test instead of stalling it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FORUMBOT_CRASH", None)
    return subprocess.run([sys.executable, "-m", "forumbot", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def bot_bodies(forum_path: Path) -> list[str]:
    if not forum_path.exists():
        return []
    connection = sqlite3.connect(f"file:{forum_path}?mode=ro", uri=True, timeout=10)
    try:
        return [row[0] for row in connection.execute(
            "SELECT body FROM forum_posts WHERE author = 'forumbot' ORDER BY id").fetchall()]
    except sqlite3.OperationalError:   # the bot has not created its tables yet
        return []
    finally:
        connection.close()


# ---- 1. two bots on one store ---------------------------------------------------------------------
def test_second_instance_refuses_to_start(tmp_path):
    config = bot_config(tmp_path, start=datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=1))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(config)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not bot_bodies(tmp_path / "forum.db") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert bot_bodies(tmp_path / "forum.db"), "the first bot never posted"
        second = forumbot("run", "--config", str(config), "--once")
        assert second.returncode == 2, second.stderr
        assert f"another forumbot (pid {first.pid}) is already running on the store" in second.stderr
        assert "Traceback" not in second.stderr
        first.send_signal(signal.SIGKILL)             # a crash: the kernel releases the lock with the process
        first.wait(timeout=10)
        posts = bot_bodies(tmp_path / "forum.db")
        again = forumbot("run", "--config", str(config), "--once")
        assert again.returncode == 0, again.stderr
        assert bot_bodies(tmp_path / "forum.db") == posts   # the restart posts nothing twice
    finally:
        if first.poll() is None:
            first.kill()


def _racing(first_at: datetime, second: Runner, forum: LocalForum, late: tuple[str, str, datetime] | None):
    """A crashpoint hook: once a runner has fetched, `second` (another writer on the same store) steps and
    commits; then, if `late` (author, target, time) is given, that vote comes in and is stored as another
    writer's fetch would store it. (The last moment another writer can commit: from the store of its fetch
    to its first commit, a step holds the store's write lock, so another writer waits for it.)"""
    real = runner_module.crashpoint
    done: list[bool] = []

    def hook(name: str) -> None:
        if name == "fetched" and not done:
            done.append(True)
            second.step(first_at)
            if late is not None:
                forum.add_post("g/votes", late[0], f"vote {late[1]}", at=late[2])
                posts, cursor = forum.fetch_posts(["g/votes"], second.store.cursor("local"))
                second.store.save_posts("local", posts, cursor)
        real(name)

    return hook


def _two_runners(folder: Path) -> tuple[LocalForum, list[Runner]]:
    forum = LocalForum(folder / "forum.db", clock=lambda: LATER)
    runners = [Runner(Store(folder / "bot.db"), LocalForum(folder / "forum.db", clock=lambda: LATER),
                      [GameRun.build(game_config())]) for _ in range(2)]
    runners[0].start(START)
    return forum, runners


def test_step_never_commits_over_a_state_it_did_not_read(tmp_path, monkeypatch):
    """Runner A holds the game's state; runner B (another writer on the same store) reads Alice's vote and
    commits while A is fetching; then Carol's vote is stored. A must not commit Carol's vote over the state
    without Alice's: it reads the game again and both votes count, each vote count posted once."""
    forum, (a, b) = _two_runners(tmp_path)
    a.step(hours(0.5))                                  # A now holds the state of version 1
    forum.add_post("g/votes", "Alice", "vote Bob", at=hours(1))
    monkeypatch.setattr(runner_module, "crashpoint", _racing(hours(2), b, forum, ("Carol", "Bob", hours(2.5))))
    a.step(hours(3))
    a.step(hours(3))   # (Carol's vote, stored by B after A's step began, is read at A's next poll)
    run = a.runs[0]
    assert a.state(run).current == {"Alice": "Bob", "Carol": "Bob"}
    assert Runner(Store(tmp_path / "bot.db"), forum, [GameRun.build(game_config())]).state(run).current == \
        {"Alice": "Bob", "Carol": "Bob"}
    counts = [p["body"] for p in forum.thread_posts("g/votes") if p["author"] == forum.account]
    assert len(counts) == 2 and len(set(counts)) == 2 and "Carol" in counts[-1] and "Alice" in counts[-1]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(PLAYERS), st.booleans(), st.booleans(),
                          st.booleans()), min_size=1, max_size=6))
def test_step_never_commits_over_a_state_it_did_not_read_in_any_interleaving(plan):
    """Two runners on one store, steps interleaved at random, some racing (the other runner commits while
    one is fetching, and a vote may come in): the game's state always equals a recount of every stored
    post, and no vote count is posted twice."""
    with tempfile.TemporaryDirectory() as folder:
        forum, runners = _two_runners(Path(folder))
        for number, (voter, target, which, race, late) in enumerate(plan):
            at = hours(1) + timedelta(minutes=10 * number)
            forum.add_post("g/votes", voter, f"vote {target}", at=at)
            first, second = runners if which else runners[::-1]
            real = runner_module.crashpoint
            if race:
                runner_module.crashpoint = _racing(at + timedelta(minutes=5), second, forum,
                                                   (target, voter, at + timedelta(minutes=2)) if late else None)
            try:
                first.step(at + timedelta(minutes=5))
            finally:
                runner_module.crashpoint = real
        check = Runner(Store(Path(folder) / "bot.db"), forum, [GameRun.build(game_config())])
        run = check.runs[0]
        end = hours(1) + timedelta(minutes=10 * len(plan))
        check.step(end)
        assert check.state(run).current == check.recount(run, end).current
        counts = [p["body"] for p in forum.thread_posts("g/votes") if p["author"] == forum.account]
        keys = [markers.keys_in(b)[-1] for b in counts]
        assert len(keys) == len(set(keys))


# ---- 2. a substitute's PM in the same poll as the host's `replace` --------------------------------------
def test_substitute_pm_in_the_same_poll_as_replace_is_processed():
    forum = LocalForum(clock=lambda: LATER)
    run = GameRun.build(game_config())
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    forum.add_pm("Host", forum.account, "replace Bob with bob_sub", at=hours(1))
    forum.add_pm("bob_sub", forum.account, "check Alice", at=hours(1.5))   # a night action by day: refused
    forum.add_post("g/votes", "Carol", "vote Alice", at=hours(1.7))
    runner.step(hours(2))
    answers = [p["body"] for p in forum.pms_to("bob_sub")]
    assert len(answers) == 1 and "night actions are sent at night" in answers[0]
    assert any(f["author"] == "Bob" and "night" in f["reason"] for f in runner.store.flags("g"))
    unread = forum.db.execute("SELECT count(*) FROM forum_pms WHERE recipient = ? AND read = 0",
                              [forum.account]).fetchone()[0]
    assert unread == 0
    runner.step(hours(3))                                # read once: no second answer
    assert len(forum.pms_to("bob_sub")) == 1


# ---- 3. a store truncated to 0 bytes ------------------------------------------------------------------
def test_store_truncated_to_zero_bytes_is_refused(tmp_path):
    config = bot_config(tmp_path, start=datetime.now(UTC) - timedelta(hours=1))
    assert forumbot("run", "--config", str(config), "--once").returncode == 0
    posts = bot_bodies(tmp_path / "forum.db")
    assert any("Day 1" in body for body in posts)
    (tmp_path / "bot.db").write_bytes(b"")
    done = forumbot("run", "--config", str(config), "--once")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is empty (0 bytes)" in done.stderr and "restore it from a backup" in done.stderr
    assert bot_bodies(tmp_path / "forum.db") == posts                      # nothing posted again
    status = forumbot("status", "--config", str(config))
    assert status.returncode == 2 and "is empty (0 bytes)" in status.stderr
    (tmp_path / "bot.db").unlink()                     # deleting it is how a host starts over on purpose
    assert forumbot("run", "--config", str(config), "--once").returncode == 0


# ---- 4. a store from every past schema version ----------------------------------------------------------
def _played_store(folder: Path) -> tuple[Path, Path]:
    """A real store: a day with votes, a vote count, a host's extension by PM, a refused night action."""
    forum = LocalForum(folder / "forum.db", clock=lambda: LATER)
    runner = Runner(Store(folder / "bot.db"), forum, [GameRun.build(game_config())])
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob", at=hours(1))
    forum.add_pm("Host", forum.account, "extend 12", at=hours(1.5))
    runner.step(hours(2))
    forum.add_pm("Carol", forum.account, "check Alice", at=hours(2.5))
    forum.add_post("g/votes", "Dave", "vote Alice", at=hours(3))
    runner.step(hours(4))
    runner.store.close()
    forum.db.close()
    return folder / "bot.db", folder / "forum.db"


def _old_store(source: Path, target: Path, version: int) -> None:
    """The store as the bot of schema `version` (migrations up to it) kept it: the real rows, in the columns
    that schema had."""
    names = [m.name for m in migrations._migrations]
    old = sqlite3.connect(target)
    from sqlite_utils import Database

    migrations.apply(Database(old), stop_before=names[version:])
    old.execute("ATTACH DATABASE ? AS real", [str(source)])
    tables = old.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                         "'\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name IN "
                         "(SELECT name FROM real.sqlite_master)").fetchall()   # (state_parts: empty, as in m011-m013)
    for (table,) in tables:
        columns = ", ".join(r[1] for r in old.execute(f"PRAGMA main.table_info({table})").fetchall())
        old.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM real.{table} ORDER BY rowid")
    old.commit()
    old.execute("DETACH DATABASE real")
    old.close()


@pytest.mark.parametrize("version", range(1, len(migrations._migrations)))
def test_store_from_every_past_schema_version_keeps_its_progress(tmp_path, version):
    real_store, real_forum = _played_store(tmp_path / "real")
    folder = tmp_path / f"v{version}"
    folder.mkdir()
    _old_store(real_store, folder / "bot.db", version)
    (folder / "forum.db").write_bytes(real_forum.read_bytes())
    before = Store(real_store)
    store = Store(folder / "bot.db")                     # migrates to today's schema
    assert {m.name for m in migrations.applied(store.db)} == {m.name for m in migrations._migrations}
    forum = LocalForum(folder / "forum.db", clock=lambda: LATER)
    run = GameRun.build(game_config())
    runner = Runner(store, forum, [run])
    runner.start(START)
    runner.step(hours(5))                                # nothing new on the forum: nothing to do
    assert store.game("g").state == before.game("g").state                  # the extension applied once
    assert len(list(store.db["intents"].rows)) == len(list(before.db["intents"].rows))
    assert [r["key"] for r in store.outbox()] == [r["key"] for r in before.outbox()]
    assert store.pending() == []
    posts = LocalForum(real_forum, clock=lambda: LATER)
    assert forum.thread_posts("g/game") == posts.thread_posts("g/game")      # no notice posted twice
    assert forum.pms_to("Carol") == posts.pms_to("Carol")                    # no answer sent twice
    forum.add_post("g/votes", "Eve", "vote Bob", at=hours(6))               # and the game goes on
    runner.step(hours(7))
    assert runner.state(run).current == {"Alice": "Bob", "Dave": "Alice", "Eve": "Bob"}


# ---- 5. a vote made before the deadline but seen after it -----------------------------------------------
class FailingForum(LocalForum):
    """A local forum whose reads fail while `down` is set."""

    down = False

    def fetch_posts(self, threads, cursor):
        if self.down:
            raise PlatformError("503 Service Unavailable", retryable=True)
        return super().fetch_posts(threads, cursor)


def test_vote_posted_before_the_deadline_but_seen_after_it_counts(tmp_path):
    # (a) the fetch at the deadline's poll fails: the deadline waits for a successful read
    forum = FailingForum(tmp_path / "forum.db", clock=lambda: LATER)
    run = GameRun.build(game_config())
    runner = Runner(Store(tmp_path / "bot.db"), forum, [run])
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob", at=hours(1))
    forum.add_post("g/votes", "Carol", "vote Bob", at=hours(2))
    runner.step(hours(3))
    forum.add_post("g/votes", "Dave", "vote Bob", at=hours(24) - timedelta(seconds=2))
    forum.down = True
    assert runner.step(hours(24)).errors
    assert runner.state(run).phase == "day1"             # not read up to the deadline: it waits
    forum.down = False
    runner.step(hours(24.1))
    day = runner.state(run).days[0]
    assert day.result == "lynch" and day.lynched == ("Bob",) and day.tally == {"Bob": 3}


def test_vote_dated_before_the_deadline_but_shown_after_its_poll_counts(tmp_path):
    # (b) the post carries 17:59:58 but shows on the forum only after the poll at the deadline
    config = bot_config(tmp_path)
    clock = VirtualClock(START)
    service = Service(load_bot_config(config), clock=clock)
    service.start_games()
    forum = LocalForum(tmp_path / "forum.db", clock=clock)
    for hour, voter in [(1, "Alice"), (2, "Carol")]:
        forum.add_post("g/votes", voter, "vote Bob", at=hours(hour))
    clock.now = hours(3)
    service.poll_all(clock.now)
    clock.now = hours(24)
    service.poll_all(clock.now)                          # the poll at the deadline sees no third vote
    forum.add_post("g/votes", "Dave", "vote Bob", at=hours(24) - timedelta(seconds=2))
    worker = service.workers["local"]
    assert service.next_deadline(worker) == hours(24) + timedelta(seconds=2)   # local settle_seconds: 2
    clock.now = hours(24) + timedelta(seconds=5)
    service.poll_all(clock.now)
    day = worker.runner.state(worker.runner.runs[0]).days[0]
    assert day.result == "lynch" and day.lynched == ("Bob",) and day.tally == {"Bob": 3}


# ---- 6. PMs marked read before the commit: the crash test must notice ------------------------------------
def test_crash_test_catches_pms_marked_read_right_after_fetching(tmp_path):
    """The crash test kills the bot right after a poll that fetched PMs ("pms_fetched"). The mutant that
    marks PMs read as soon as it fetches them loses the PM killed there, and the outcome differs from an
    uninterrupted run's; today's bot, killed at the same point, gives the same outcome."""
    assert "pms_fetched" in POINTS
    config = prepare(tmp_path / "reference")
    assert run_bot(config) == 0
    reference = outcome(tmp_path / "reference")
    for name, mutant in [("bot", None), ("mutant", MARK_READ_ON_FETCH)]:
        config = prepare(tmp_path / name)
        assert run_bot(config, "pms_fetched:1", mutant=mutant) == -signal.SIGKILL
        assert run_bot(config, mutant=mutant) == 0
        if mutant is None:
            assert outcome(tmp_path / name) == reference
        else:
            lost = outcome(tmp_path / name)
            assert lost != reference and len(lost["pms"]) < len(reference["pms"])   # type: ignore[arg-type]


# ---- 15. a clock stepped back ---------------------------------------------------------------------
def test_backwards_clock_step_does_not_stall_reading():
    now = [hours(5)]
    forum = LocalForum(clock=lambda: now[0])
    run = GameRun.build(game_config())
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob")           # dated 5:00, just before the clock steps back
    now[0] = hours(4)                                          # the clock steps back an hour
    forum.add_post("g/votes", "Carol", "vote Dave")
    now[0] = hours(4) + timedelta(minutes=1)
    runner.step(now[0])
    assert runner.state(run).current == {"Carol": "Dave"}      # read at once, not an hour later
    now[0] = hours(5) + timedelta(minutes=1)
    runner.step(now[0])
    assert runner.state(run).current == {"Carol": "Dave", "Alice": "Bob"}   # and the earlier post in its time


def test_backwards_clock_step_does_not_stall_polls(tmp_path):
    """`forumbot run` on the wall clock: APScheduler would hold every poll until the clock caught up, and a
    failing platform's retry too. A clock set back is noticed; every poll runs at once; no retry waits."""
    from apscheduler.schedulers.background import BackgroundScheduler

    from forumbot.engine.service import Backoff, ClockWatch

    wall, mono = [hours(5)], [100.0]
    watch = ClockWatch(lambda: wall[0], monotonic=lambda: mono[0])
    assert not watch.stepped_back()
    wall[0], mono[0] = hours(5) + timedelta(seconds=30), 130.0
    assert not watch.stepped_back()                        # the clock runs on
    wall[0], mono[0] = hours(4) + timedelta(seconds=31), 131.0
    assert watch.stepped_back()                            # set back an hour
    assert not watch.stepped_back()
    service = Service(load_bot_config(bot_config(tmp_path)), clock=lambda: wall[0])
    scheduler = BackgroundScheduler(timezone=UTC)
    scheduler.add_job(print, "interval", seconds=30, id="poll:local", next_run_time=hours(5) + timedelta(seconds=60))
    service.poll_now(scheduler)
    assert scheduler.get_job("poll:local").next_run_time == wall[0]
    backoff = Backoff(base=30, cap=600)
    backoff.failed(hours(5))
    assert not backoff.ready(hours(5)) and backoff.ready(hours(4))


# ---- 16. `forumbot run`'s options ---------------------------------------------------------------------
@pytest.mark.parametrize("args,message", [
    (["--simulate-from", "2026-03-01T20:00:00Z", "--until", "2026-03-02T20:00:00Z", "--step", "-5"],
     "step must be a positive number of seconds, not -5"),
    (["--simulate-from", "2026-03-01T20:00:00Z", "--until", "2026-03-02T20:00:00Z", "--step", "0"],
     "step must be a positive number of seconds, not 0"),
    (["--simulate-from", "2026-03-01T20:00:00Z", "--until", "2026-03-02T20:00:00Z", "--step", "inf"],
     "step must be a positive number of seconds, not inf"),
    (["--simulate-from", "2026-03-02T20:00:00Z", "--until", "2026-03-01T20:00:00Z"],
     "ends (2026-03-01T20:00:00Z) before it starts"),
    (["--until", "2026-03-02T20:00:00Z"], "--until and --step only go with --simulate-from"),
    (["--step", "60"], "--until and --step only go with --simulate-from"),
])
def test_run_options_that_cannot_work_are_refused(tmp_path, args, message):
    config = bot_config(tmp_path)
    done = forumbot("run", "--config", str(config), *args, timeout=30)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "forum.db").exists()                 # refused before anything ran


def test_run_once_exits_1_when_every_platform_failed(tmp_path, monkeypatch):
    config = bot_config(tmp_path, start=datetime.now(UTC) - timedelta(hours=1))

    def down(self, threads, cursor):
        raise PlatformError("503 Service Unavailable", retryable=True)

    monkeypatch.setattr(LocalForum, "fetch_posts", down)
    out = CliRunner().invoke(cli, ["run", "--config", str(config), "--once"])
    assert out.exit_code == 1, out.output
    assert "local: 1 failure, last: 503 Service Unavailable" in out.output
    monkeypatch.undo()
    assert CliRunner().invoke(cli, ["run", "--config", str(config), "--once"]).exit_code == 0
