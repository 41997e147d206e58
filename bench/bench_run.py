"""`forumbot run` costs: CPU and memory of idling over 100 local games, and the delay from a post to the
bot's reply on the wall clock.

Run:  .venv/bin/python bench/bench_run.py [--games 100] [--hours 1] [--poll 60]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from forumbot.botconfig import load_bot_config
from forumbot.platforms.local import LocalForum
from forumbot.replay import VirtualClock
from forumbot.service import Service

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = [f"Player{i:02d}" for i in range(1, 13)]


def write_games(folder: Path, games: int, start: datetime, poll: float, day_hours: float = 48) -> Path:
    text = f'[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\npoll_seconds = {poll}\n'
    for number in range(games):
        game = folder / f"g{number:03d}.toml"
        game.write_text(f'[game]\nname = "mafia"\nlang = "en"\nstart = "{start:%Y-%m-%dT%H:%M:%SZ}"\n'
                        f'[game.options]\nvotes_only = true\nday_hours = {day_hours}\n'
                        + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS), encoding="utf-8")
        text += f'[[games]]\nconfig = "{game.name}"\n'
    config = folder / "bot.toml"
    config.write_text(text, encoding="utf-8")
    return config


def idle(games: int, hours: float, poll: float) -> None:
    start = datetime(2026, 3, 1, 20, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        config = load_bot_config(write_games(Path(folder), games, start, poll))
        clock = VirtualClock(start)
        service = Service(config, clock=clock)
        service.start_games()
        service.poll_all(start)   # the opening posts go out first; then only idling is measured
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cpu = time.process_time()
        wall = time.perf_counter()
        polls = 0
        now = start
        while now < start + timedelta(hours=hours):
            now += timedelta(seconds=poll)
            clock.now = now
            service.poll_all(now)
            polls += 1
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"idle: {games} games, poll every {poll:g}s, {hours:g} simulated hour(s) = {polls} polls: "
              f"{cpu / hours:.2f} CPU s per hour ({cpu / polls * 1000:.1f} ms a poll, wall {wall:.1f} s); "
              f"peak RSS {rss / 1024:.0f} MB (before idling {rss_before / 1024:.0f} MB)")


def reply_delay(poll: float, posts: int) -> None:
    start = datetime.now(UTC).replace(microsecond=0)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        config = write_games(folder, 1, start, poll)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        bot = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(config)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not (folder / "forum.db").exists():
                time.sleep(0.05)
            time.sleep(1.0)
            forum = LocalForum(folder / "forum.db")
            delays = []
            rng = random.Random(1)
            for number in range(posts):
                time.sleep(rng.uniform(0, poll))   # players post at any moment, not just after a poll
                before = forum.db.execute("SELECT count(*) FROM forum_posts WHERE author = 'forumbot'").fetchone()[0]
                sent = time.perf_counter()
                forum.add_post("g000/votes", PLAYERS[number % 12], f"vote {PLAYERS[(number + 1) % 12]}")
                while forum.db.execute("SELECT count(*) FROM forum_posts WHERE author = 'forumbot'").fetchone()[0] \
                        == before:
                    time.sleep(0.005)
                delays.append(time.perf_counter() - sent)
        finally:
            bot.terminate()
            bot.wait(timeout=30)
        print(f"post → reply on the wall clock, poll every {poll:g}s, {posts} votes: median "
              f"{statistics.median(delays) * 1000:.0f} ms, max {max(delays) * 1000:.0f} ms "
              f"(a post waits for the next poll: about half the interval on average, the whole of it at most)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--poll", type=float, default=60.0)
    parser.add_argument("--reply-poll", type=float, default=1.0)
    parser.add_argument("--posts", type=int, default=10)
    args = parser.parse_args()
    idle(args.games, args.hours, args.poll)
    reply_delay(args.reply_poll, args.posts)


if __name__ == "__main__":
    main()
