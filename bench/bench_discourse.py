"""Requests and time of forumbot's Discourse polling vs. a bot that re-reads each topic every poll, on the fake
Discourse site (tests/fakediscourse, 127.0.0.1).

1. An idle poll of a bot with three game topics and its private messages: forumbot asks for its notifications
   (one request); the naive bot reads each topic's post stream and its PM list.
2. A Day 1 topic grows to 2,000 posts over a simulated day polled every 5 minutes: the requests of forumbot
   (notifications, then only the topic named and only its new posts, 20 a request) against the naive bot
   (every post of the topic every poll: 1 + posts/20 requests, measured on a few polls).
3. Catching up a 2,000-post topic: forumbot's first read (once), then a poll with one new post, against the
   naive bot's every poll (a whole re-read).
4. Requests per vote count posted: a 12-player votes-only day on the runner, one vote every 5-minute poll.

    .venv/bin/python bench/bench_discourse.py [--hours 24] [--posts 2000] [--poll 300]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fakediscourse import DiscourseState, FakeDiscourse  # noqa: E402

from forumbot.config.game import GameConfig  # noqa: E402
from forumbot.engine.cycle import GameRun, Runner  # noqa: E402
from forumbot.engine.replay import VirtualClock  # noqa: E402
from forumbot.engine.service import attach_store  # noqa: E402
from forumbot.model import PlayerRef  # noqa: E402
from forumbot.platforms.discourse import POST_IDS, DiscoursePlatform  # noqa: E402
from forumbot.storage import Store  # noqa: E402

START = 1_772_395_200.0     # 2026-03-01T20:00:00Z
KEY = "bench-key"


def new_site(clock: list[float]) -> tuple[DiscourseState, int]:
    state = DiscourseState(clock=lambda: clock[0])
    state.add_user("forumbot", admin=True, key=KEY)
    for n in range(30):
        state.add_user(f"player{n}")
    return state, state.add_category("Mafia").id


def bot(url: str) -> DiscoursePlatform:
    return DiscoursePlatform(url, "forumbot", lambda: KEY, requests_per_minute=0)


def naive_poll(platform: DiscoursePlatform, topics: list[int]) -> int:
    """Every post of every topic and the PM list, as a bot without a cursor reads them; returns the requests."""
    before = platform.http.requests
    for topic in topics:
        stream = platform._stream(topic) or {}          # (the bench measures the same calls the platform makes)
        platform._posts(topic, stream.get("post_stream", {}).get("stream", []))
    platform.http.get("topics/private-messages/forumbot.json", what="reading the PM list")
    return platform.http.requests - before


def idle(args: argparse.Namespace) -> None:
    clock = [START]
    state, category = new_site(clock)
    topics = [state.add_topic("player0", f"Mafia {n}: day one votes", "Vote here, in bold.", category=category).id
              for n in range(3)]
    for topic in topics:
        for n in range(40):
            state.add_post(topic, f"player{n % 30}", f"**vote player{(n + 1) % 30}**")
    with FakeDiscourse(state) as fake:
        platform = bot(fake.url)
        platform.fetch_pms()
        _, cursor = platform.fetch_posts([str(t) for t in topics], None)
        before = platform.http.requests
        platform.fetch_pms()
        platform.fetch_posts([str(t) for t in topics], cursor)
        forumbot = platform.http.requests - before
        naive = naive_poll(bot(fake.url), topics)
    print(f"1. idle poll, 3 game topics of 41 posts and the PMs: forumbot {forumbot} request; "
          f"naive {naive} requests")


def day(args: argparse.Namespace) -> None:
    clock = [START]
    state, category = new_site(clock)
    topic = state.add_topic("player0", "Day 1 votes", "Vote here, in bold.", category=category, at=START).id
    rng = random.Random(4)
    polls = int(args.hours * 3600 / args.poll)
    arrivals = sorted(rng.uniform(0, (polls - 1) * args.poll) for _ in range(args.posts - 1))
    samples = {polls // 8, polls // 4}
    with FakeDiscourse(state) as fake:
        platform = bot(fake.url)
        naive_bot = bot(fake.url)
        cursor = None
        forumbot_requests = naive_total = 0
        checked = []
        spent = 0.0
        for poll in range(polls):
            clock[0] = START + poll * args.poll
            while arrivals and arrivals[0] <= poll * args.poll:
                state.add_post(topic, f"player{rng.randrange(30)}", "**vote someone**", at=START + arrivals.pop(0))
            before, started = platform.http.requests, time.perf_counter()
            platform.fetch_pms()
            _, cursor = platform.fetch_posts([str(topic)], cursor)
            spent += time.perf_counter() - started
            forumbot_requests += platform.http.requests - before
            count = 1 + math.ceil(len(state.topics[topic].posts) / POST_IDS) + 1
            naive_total += count
            if poll in samples:
                checked.append((poll, naive_poll(naive_bot, [topic]), count))
    print(f"2. a day: {len(state.topics[topic].posts)} posts, {polls} polls ({args.hours:g} h every {args.poll} s)")
    print(f"   forumbot: {forumbot_requests} requests ({forumbot_requests / polls:.2f} a poll), its polls took "
          f"{spent:.1f}s in all")
    print(f"   naive (every post every poll): {naive_total} requests ({naive_total / polls:.1f} a poll); measured "
          f"polls {[(p, m) for p, m, _ in checked]} match: {all(m == c for _, m, c in checked)}")
    print(f"   ratio: {naive_total / max(1, forumbot_requests):.0f}x fewer requests")


def catch_up(args: argparse.Namespace) -> None:
    clock = [START]
    state, category = new_site(clock)
    topic = state.add_topic("player0", "Day 1 votes", "Vote here, in bold.", category=category).id
    for n in range(args.posts - 1):
        state.add_post(topic, f"player{n % 30}", f"**vote player{(n * 7) % 30}** and some words of discussion")
    with FakeDiscourse(state) as fake:
        platform = bot(fake.url)
        platform.batch = args.posts + 10
        started, before = time.perf_counter(), platform.http.requests
        posts, cursor = platform.fetch_posts([str(topic)], None)
        first = time.perf_counter() - started
        first_requests = platform.http.requests - before
        state.add_post(topic, "player1", "**vote player2**")
        started, before = time.perf_counter(), platform.http.requests
        platform.fetch_pms()
        platform.fetch_posts([str(topic)], cursor)
        then = time.perf_counter() - started
        then_requests = platform.http.requests - before
        naive_bot = bot(fake.url)
        started = time.perf_counter()
        naive_requests = naive_poll(naive_bot, [topic])
        naive = time.perf_counter() - started
    print(f"3. catching up a {len(posts)}-post topic: forumbot's first read {first:.2f}s ({first_requests} requests), "
          f"then a poll with one new post {then * 1000:.0f} ms ({then_requests} requests); the naive bot pays "
          f"{naive:.2f}s ({naive_requests} requests) at every poll")


def vote_counts(args: argparse.Namespace) -> None:
    clock = VirtualClock(datetime.fromtimestamp(START, UTC))
    state = DiscourseState(clock=lambda: clock.now.timestamp())
    state.add_user("forumbot", admin=True, key=KEY)
    players = [f"player{n}" for n in range(12)]
    for name in players:
        state.add_user(name)
    category = state.add_category("Mafia").id
    votes = state.add_topic(players[0], "Day 1 votes", "Vote here, in bold.", category=category,
                            at=clock.now.timestamp()).id
    config = GameConfig(name="g", game="mafia", lang="en", start=clock.now, host="host",
                        players=tuple(PlayerRef(p) for p in players), options={"votes_only": True, "day_hours": 48})
    store = Store(Path(args.store) if args.store else ":memory:")
    with FakeDiscourse(state) as fake:
        platform = bot(fake.url)
        attach_store(platform, store, platform.name)
        run = GameRun.build(config, dialect="markdown", thread_ids={"votes": str(votes), "game": str(votes)})
        runner = Runner(store, platform, [run])
        runner.start(clock.now)
        runner.step(clock.now)
        before = platform.http.requests
        rng = random.Random(7)
        for _ in range(20):
            clock.now += timedelta(minutes=5)
            voter, target = rng.sample(players, 2)
            state.add_post(votes, voter, f"**vote {target}**", at=clock.now.timestamp())
            runner.step(clock.now)
        made = platform.http.requests - before
        counts = sum(1 for p in state.topic_posts(votes, "forumbot") if "Vote count" in p.raw)
    print(f"4. a day of 20 votes, one a poll: {made} requests, {counts} vote counts posted: "
          f"{made / max(1, counts):.1f} requests per vote count (reading the vote included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--posts", type=int, default=2000)
    parser.add_argument("--poll", type=int, default=300, help="seconds between polls")
    parser.add_argument("--store", default="", help="a SQLite file for part 4 (default: in memory)")
    args = parser.parse_args()
    idle(args)
    day(args)
    catch_up(args)
    vote_counts(args)


if __name__ == "__main__":
    main()
