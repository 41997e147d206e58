"""`forumbot run` on the wall clock (APScheduler): replies, deadlines on time, SIGTERM; per-platform
backoff; `forumbot status`."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import Backoff, Service
from forumbot.errors import PlatformError
from forumbot.platforms.local import LocalForum

ROOT = Path(__file__).resolve().parent.parent


def write_game(folder: Path, name: str, start: datetime, day_hours: float) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'[game]\nname = "mafia"\nlang = "en"\nstart = "{start.strftime("%Y-%m-%dT%H:%M:%SZ")}"\n'
                    f'[game.options]\nvotes_only = true\nday_hours = {day_hours}\n'
                    + "".join(f'[[players]]\nname = "{n}"\n' for n in ["Alice", "Bob", "Carol", "Dave"]),
                    encoding="utf-8")
    return path


def write_bot(folder: Path, games: dict[str, str], poll: float = 30) -> Path:
    """games: game file → platform name; each platform is a local forum of its own."""
    text = '[bot]\nstore = "bot.db"\nretry_max_seconds = 600\n'
    for platform in sorted(set(games.values())):
        text += f'[platforms.{platform}]\nkind = "local"\npath = "{platform}.db"\npoll_seconds = {poll}\n'
    for game, platform in games.items():
        text += f'[[games]]\nconfig = "{game}"\nplatform = "{platform}"\n'
    path = folder / "bot.toml"
    path.write_text(text, encoding="utf-8")
    return path


def bot_posts(forum_path: Path) -> list[dict[str, str]]:
    """The bot's posts, read without writing (a reader must not race the bot's own schema set-up)."""
    if not forum_path.exists():
        return []
    connection = sqlite3.connect(f"file:{forum_path}?mode=ro", uri=True, timeout=10)
    try:
        rows = connection.execute("SELECT thread, body FROM forum_posts WHERE author = 'forumbot' ORDER BY id")
        return [{"thread": t, "body": b} for t, b in rows.fetchall()]
    except sqlite3.OperationalError:   # the bot has not created its tables yet
        return []
    finally:
        connection.close()


def wait_for(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_run_replies_ends_the_day_on_time_and_stops_on_sigterm(tmp_path):
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=1)
    write_game(tmp_path, "g", start, day_hours=6 / 3600)           # the day ends 6 s after it started
    config = write_bot(tmp_path, {"g.toml": "local"}, poll=0.3)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(config)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        forum_path = tmp_path / "local.db"
        if not wait_for(lambda: forum_path.exists() and len(bot_posts(forum_path)) >= 1, 20):
            process.kill()
            raise AssertionError("no day-start post:\n" + process.communicate()[0][-3000:])
        forum = LocalForum(forum_path)
        forum.add_post("g/votes", "Alice", "vote Bob")
        # (how fast the reply comes is bench/bench_run.py's business; here only that it comes)
        assert wait_for(lambda: any("Vote count" in p["body"] for p in bot_posts(forum_path)), 30)
        assert wait_for(lambda: any("Day 1 is over" in p["body"] for p in bot_posts(forum_path)), 30)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, output
    assert "forumbot stopped" in output and "polled" in output


class DownForum(LocalForum):
    def fetch_posts(self, threads, cursor):
        raise PlatformError("503 Service Unavailable", retryable=True)


def test_a_failing_platform_backs_off_alone(tmp_path, monkeypatch):
    start = datetime(2026, 3, 1, 20, tzinfo=UTC)
    write_game(tmp_path, "a", start, 24)
    write_game(tmp_path, "b", start, 24)
    config = load_bot_config(write_bot(tmp_path, {"a.toml": "up", "b.toml": "down"}, poll=60))
    clock = VirtualClock(start)
    service = Service(config, clock=clock)
    down = service.workers["down"]
    failing = DownForum(tmp_path / "down.db", clock=clock)
    down.runner.platform = failing
    service.start_games()
    LocalForum(tmp_path / "up.db").add_post("a/votes", "Alice", "vote Bob", at=start)
    results = service.poll_all(start)
    assert results["up"] is not None and not results["up"].errors and results["up"].intents == 1
    assert results["down"] is not None and results["down"].errors
    first_retry = down.backoff.next_try
    assert first_retry is not None and start + timedelta(seconds=30) <= first_retry <= start + timedelta(seconds=60)
    assert service.poll_all(start + timedelta(seconds=10))["down"] is None            # still backing off
    service.poll_all(first_retry)                                                      # fails again: longer
    assert down.backoff.failures == 2 and down.backoff.next_try - first_retry >= timedelta(seconds=60)
    status = {row["platform"]: row for row in down.runner.store.platform_status()}
    assert status["up"]["last_ok"] and not status["up"]["failures"]
    assert status["down"]["failures"] == 2 and "503" in status["down"]["last_error"]
    # the platform comes back: the game catches up and the backoff resets
    down.runner.platform = LocalForum(tmp_path / "down.db", clock=clock)
    assert service.poll_all(down.backoff.next_try)["down"].errors == []
    assert down.backoff.failures == 0
    out = CliRunner().invoke(cli, ["status", "--config", str(tmp_path / "bot.toml")])
    assert out.exit_code == 0, out.output
    assert "a (mafia): day1" in out.output and "down: last good poll" in out.output


def test_backoff_grows_caps_and_jitters():
    backoff = Backoff(base=10, cap=100)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    delays = []
    for _ in range(6):
        delays.append((backoff.failed(now) - now).total_seconds())
    assert all(5 <= d <= 100 for d in delays) and delays[-1] >= 50 and backoff.failures == 6
    backoff.succeeded()
    assert backoff.ready(now) and backoff.failures == 0


def test_missed_deadlines_fire_in_order_on_start(tmp_path):
    """A bot that was down for days fires every missed deadline at its first poll, in order."""
    start = datetime(2026, 3, 1, 20, tzinfo=UTC)
    write_game(tmp_path, "g", start, day_hours=1)
    config = load_bot_config(write_bot(tmp_path, {"g.toml": "local"}))
    clock = VirtualClock(start + timedelta(days=3))
    service = Service(config, clock=clock)
    service.start_games()
    service.poll_all(clock.now)
    bodies = [p["body"] for p in bot_posts(tmp_path / "local.db")]
    days_over = [b for b in bodies if b.startswith("**Day") and "is over" in b]
    assert [b.split("**")[1] for b in days_over][:3] == ["Day 1 is over", "Day 2 is over", "Day 3 is over"]


def test_bad_bot_configs_name_the_line(tmp_path):
    (tmp_path / "bot.toml").write_text('[bot]\nstore = "x.db"\n[platforms.local]\nkind = "reddit2"\n')
    out = CliRunner().invoke(cli, ["run", "--config", str(tmp_path / "bot.toml"), "--once"])
    assert out.exit_code == 2 and f"{tmp_path / 'bot.toml'}:3:" in out.output and "kinds: local" in out.output


def test_live_games_get_a_secret_seed_and_simulations_stay_reproducible(tmp_path):
    (tmp_path / "duel.toml").write_text('[game]\nname = "infiltration"\nlang = "en"\nstart = "2026-06-01T12:00:00Z"\n'
                                        '[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n', encoding="utf-8")
    config = load_bot_config(write_bot(tmp_path, {"duel.toml": "local"}))
    live = Service(config)
    live.start_games()                                   # Infiltration refuses to start without a seed
    seeds = {run.config.options["seed"] for w in live.workers.values() for run in w.runner.runs}
    assert len(seeds) == 1 and isinstance(next(iter(seeds)), int)
    simulated = Service(config, clock=VirtualClock(datetime(2026, 6, 1, 12, tzinfo=UTC)))
    assert all("seed" not in run.config.options for w in simulated.workers.values() for run in w.runner.runs)
