"""`forumbot run` costs: CPU and memory of idling over 100 local games, and the delay from a post to the
bot's reply on the wall clock.

Run:  .venv/bin/python bench/bench_run.py [--games 100] [--hours 1] [--poll 60] [--backlog 100] [--only backlog]
The backlog case: the bot was down 47 hours while every game got `--backlog` posts; one poll reads them.
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

from forumbot.config.bot import load_bot_config
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import Service
from forumbot.platforms.local import LocalForum

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


def idle(games: int, hours: float, poll: float) -> dict[str, float]:
    """`games` games idling `hours` on the virtual clock, a poll every `poll` seconds: CPU, peak RSS (MB)."""
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
    return {"games": games, "poll": poll, "hours": hours, "polls": polls, "cpu": cpu, "wall": wall,
            "rss": rss / 1024, "rss_before": rss_before / 1024}


def backlog(games: int, posts: int, hours: float = 47) -> dict[str, float]:
    """The bot was down while `games` games got `posts` posts each over `hours`: CPU and peak RSS of the one
    poll that reads them all (votes that never reach a majority, so every post is read)."""
    start = datetime(2026, 3, 1, 20, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        config = load_bot_config(write_games(Path(folder), games, start, 60))
        clock = VirtualClock(start)
        service = Service(config, clock=clock)
        service.start_games()
        service.poll_all(start)
        forum = LocalForum(Path(folder) / "forum.db", clock=clock)
        rows = []
        for number in range(games):
            for index in range(posts):
                voter, round_ = index % 12, index // 12
                at = start + timedelta(seconds=int((index + 1) * hours * 3600 / (posts + 1)))
                rows.append((f"g{number:03d}/votes", PLAYERS[voter], f"vote {PLAYERS[4 + (voter + round_) % 4]}",
                             at.strftime("%Y-%m-%dT%H:%M:%SZ")))
        with forum.db.atomic():
            forum.db.conn.executemany("INSERT INTO forum_posts (thread, author, body, created) VALUES (?, ?, ?, ?)",
                                      rows)
        del rows
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cpu = time.process_time()
        clock.now = start + timedelta(hours=hours)
        results = service.poll_all(clock.now)
        cpu = time.process_time() - cpu
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        read = sum(r.intents for r in results.values() if r is not None)
    return {"games": games, "posts": posts, "hours": hours, "read": read, "cpu": cpu, "rss": rss / 1024,
            "rss_before": rss_before / 1024}


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
    parser.add_argument("--backlog", type=int, default=100, help="posts a game in the backlog case (0: skip)")
    parser.add_argument("--only", choices=["idle", "backlog", "delay"], help="one case only")
    args = parser.parse_args()
    if args.only in (None, "idle"):
        found = idle(args.games, args.hours, args.poll)
        print(f"idle: {args.games} games, poll every {args.poll:g}s, {args.hours:g} simulated hours = "
              f"{found['polls']} polls: {found['cpu'] / args.hours:.2f} CPU s per hour "
              f"({found['cpu'] / found['polls'] * 1000:.1f} ms a poll, wall {found['wall']:.1f} s); peak RSS "
              f"{found['rss']:.0f} MB (before idling {found['rss_before']:.0f} MB; target with 100 games: under 60 MB)")
    if args.only in (None, "backlog") and args.backlog:
        found = backlog(args.games, args.backlog)
        print(f"backlog: {args.games} games x {args.backlog} posts over {found['hours']:g} h, one poll read "
              f"{found['read']} votes: {found['cpu']:.1f} CPU s; peak RSS {found['rss_before']:.0f} -> "
              f"{found['rss']:.0f} MB (target with 100 games x 500 posts: under 150 MB)")
    if args.only in (None, "delay"):
        reply_delay(args.reply_poll, args.posts)


if __name__ == "__main__":
    main()
