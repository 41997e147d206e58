"""API requests of forumbot's Reddit polling vs. the naive approach, on the local Reddit server.

A voting thread grows from 1,500 to 2,000 comments (a fifth of them nested replies) over a simulated day
polled every 60 s. forumbot reads the subreddit's new-comments listing down to its cursor; the naive bot
re-reads the whole submission with replace_more(limit=None) every poll. Both run the real praw code
against tests/fakereddit (which, like Reddit, returns at most 500 comments per /comments page and 100 per
/api/morechildren call). The naive approach's cost per poll depends only on the thread's size, so by
default it is measured on every 30th poll and scaled to the day (--full measures every poll: minutes).
Then: one idle poll for 50 games in one subreddit. The inbox (one request per poll for both) is not counted.

    .venv/bin/python bench/bench_reddit.py [--full] [--hours 24]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import praw  # noqa: E402
from fakereddit import FakeReddit, RedditState  # noqa: E402

from forumbot.platforms.reddit import RedditPlatform  # noqa: E402
from forumbot.text.decline import counted  # noqa: E402

START = 1_772_395_200.0     # 2026-03-01T20:00:00Z


def grow(state: RedditState, sid: str, made: list[str], rng: random.Random, at: float) -> None:
    if made and rng.random() < 0.2:
        state.add_comment(f"t1_{rng.choice(made)}", f"p{rng.randrange(30)}", "vote someone", at=at)
    else:
        made.append(state.add_comment(sid, f"p{rng.randrange(30)}", "vote someone", at=at))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="measure the naive approach on every poll")
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--sample", type=int, default=30, help="naive: measure every Nth poll")
    args = parser.parse_args()
    now = [START]
    state = RedditState(clock=lambda: now[0])
    rng = random.Random(4)
    polls = int(args.hours * 60)
    with FakeReddit(state) as fake:
        state.add_user("forumbot", "pw")
        state.add_user("naive", "pw")
        sid = state.add_submission("mafia", "Day 1 votes", at=START)
        made: list[str] = []
        for _ in range(1500):
            grow(state, sid, made, rng, START)
        arrivals = sorted(rng.uniform(0, polls * 60) for _ in range(500))
        bot = RedditPlatform(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        naive = praw.Reddit(**fake.praw_settings("naive", "pw"))
        cursor = None
        forumbot_requests = naive_requests = naive_measured = 0
        started = time.perf_counter()
        naive_seconds = 0.0
        read = 0
        for poll in range(polls):
            now[0] = START + poll * 60
            while arrivals and START + arrivals[0] <= now[0]:
                grow(state, sid, made, rng, START + arrivals.pop(0))
            before = state.count(user="forumbot")
            posts, cursor = bot.fetch_posts([sid], cursor)
            read += len(posts)
            forumbot_requests += state.count(user="forumbot") - before
            if args.full or poll % args.sample == 0:
                t0 = time.perf_counter()
                before = state.count(user="naive")
                submission = naive.submission(sid)
                submission.comments.replace_more(limit=None)
                if len(submission.comments.list()) != len(state.comments):
                    sys.exit("the naive bot did not read the whole thread: its requests do not compare")
                naive_requests += state.count(user="naive") - before
                naive_measured += 1
                naive_seconds += time.perf_counter() - t0
        per_poll = naive_requests / naive_measured
        naive_day = naive_requests if args.full else round(per_poll * polls)
        print(f"thread: 1,500 → {len(state.comments):,} comments over {args.hours:g} h, poll 60 s ({polls} polls)")
        print(f"forumbot: {forumbot_requests:,} requests ({forumbot_requests / polls:.3f} per poll, the first "
              f"sync included); read {read:,} comments, each once")
        how = "measured on every poll" if args.full else f"{per_poll:.1f} per poll, measured on {naive_measured} polls"
        print(f"naive replace_more(limit=None): {naive_day:,} requests ({how})")
        print(f"ratio: {naive_day / forumbot_requests:.1f}x fewer requests")
        print(f"(wall time {time.perf_counter() - started:.1f}s, of which naive {naive_seconds:.1f}s)")

        threads = [state.add_submission("mafia", f"game {i}") for i in range(50)]
        for i, thread in enumerate(threads):
            state.add_comment(thread, "p1", f"vote {i}")
        games = RedditPlatform(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        _, cursor = games.fetch_posts(threads, None)
        before = state.count(user="forumbot")
        games.fetch_posts(threads, cursor)
        asked = state.count(user="forumbot") - before
        print(f"idle poll, 50 games in one subreddit: {counted(asked, 'request/requests')}")


if __name__ == "__main__":
    main()
