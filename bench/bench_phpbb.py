"""Requests of forumbot's phpBB polling vs. re-reading every page, on the fake phpBB board; parsing speed.

A Day 1 topic grows to 2,000 posts (10 a page) over a simulated day polled every 5 minutes (--poll 60: every
minute, about four times slower to run). forumbot reads the
forum's topic list (one request: each topic's last post id) and only the pages after its cursor; the naive
bot reads every page of the topic every poll. The naive cost of a poll is the topic's page count; it is
measured for real on a few polls (checked against that count) and summed over the day. Then: the cost of
one idle poll, and how many posts a second the page parser reads (recorded pages of the real board).

    .venv/bin/python bench/bench_phpbb.py [--hours 24] [--posts 2000] [--poll 300]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import requests  # noqa: E402
from fakephpbb import Board, FakePhpbb  # noqa: E402
from fakephpbb.recorded import SHARED, recorded_page  # noqa: E402

from forumbot.platforms import phpbb_html  # noqa: E402
from forumbot.platforms.phpbb import PhpbbPlatform  # noqa: E402

START = 1_772_395_200.0     # 2026-03-01T20:00:00Z


def naive_poll(url: str, topic: int, http: requests.Session) -> int:
    """Read every page of the topic; returns the requests made."""
    start, made = 0, 0
    while True:
        page = phpbb_html.topic_page(phpbb_html.parse(http.get(f"{url}/viewtopic.php?t={topic}&start={start}").text))
        made += 1
        if page.next_start is None:
            return made
        start = page.next_start


def parse_speed(seconds: float = 2.0) -> float:
    pages = [recorded_page(n) for n in ("bot_topic_start0", "bot_topic_start10", "bot_topic_start20")]
    posts, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for text in pages:
            posts += len(phpbb_html.topic_page(phpbb_html.parse(text)).posts)
    return posts / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--posts", type=int, default=2000)
    parser.add_argument("--poll", type=int, default=300, help="seconds between polls")
    args = parser.parse_args()
    now = [START]
    board = Board(clock=lambda: now[0], form_min_age=0)
    board.add_user(62, "forumbot", "pw")
    for n in range(30):
        board.add_user(100 + n, f"player{n}")
    board.add_forum(3, "Mafia")
    topic = board.new_topic(3, 62, "Day 1 votes", "Vote here.", at=START)
    rng = random.Random(4)
    polls = int(args.hours * 3600 / args.poll)
    arrivals = sorted(rng.uniform(0, (polls - 1) * args.poll) for _ in range(args.posts - 1))
    samples = {polls // 8, polls // 4}           # naive polls read for real (a few: they are slow)
    with FakePhpbb(board) as fake:
        bot = PhpbbPlatform(fake.url, "forumbot", lambda: "pw", min_interval=0, form_wait=0)
        naive = requests.Session()
        cursor = None
        forumbot_requests = naive_total = 0
        checked = []
        spent = 0.0
        for poll in range(polls):
            now[0] = START + poll * args.poll
            while arrivals and arrivals[0] <= poll * args.poll:
                board.add_post(topic.id, 100 + rng.randrange(30), "[b]vote someone[/b]", at=START + arrivals.pop(0))
            before, started = len(board.requests), time.perf_counter()
            _, cursor = bot.fetch_posts([str(topic.id)], cursor)
            bot.fetch_pms()
            spent += time.perf_counter() - started
            forumbot_requests += len(board.requests) - before
            pages = max(1, math.ceil(len(board.topics[topic.id].posts) / board.posts_per_page))
            naive_total += pages
            if poll in samples:
                measured = naive_poll(fake.url, topic.id, naive)
                checked.append((poll, measured, pages))
        before = len(board.requests)
        bot.fetch_posts([str(topic.id)], cursor)
        bot.fetch_pms()
        idle = len(board.requests) - before
    total = len(board.topics[topic.id].posts)
    print(f"topic: {total} posts at the end, {polls} polls ({args.hours:g} h every {args.poll} s)")
    print(f"forumbot: {forumbot_requests} requests for the day ({forumbot_requests / polls:.2f} a poll, the sign-in "
          f"included); an idle poll: {idle} request")
    print(f"naive (every page every poll): {naive_total} requests ({naive_total / polls:.1f} a poll); "
          f"measured polls {[(p, m) for p, m, _ in checked]} match the page count: "
          f"{all(m == c for _, m, c in checked)}")
    print(f"ratio: {naive_total / max(1, forumbot_requests):.0f}x fewer requests; "
          f"forumbot's polls took {spent:.1f}s in all")
    if SHARED.exists():
        print(f"parsing: {parse_speed():,.0f} posts/s (recorded pages of the real board)")


if __name__ == "__main__":
    main()
