"""Replay of a generated 12-player, 5,000-post day through the whole bot (local forum, store, parser,
game, renderer) on a virtual clock.

Run:  .venv/bin/python bench/bench_replay.py [--posts 5000] [--poll 0]
Target (issue 2): the 5,000-post day replays in under 2 s.
"""

from __future__ import annotations

import argparse
import random
import resource
import time
from datetime import timedelta

from forumbot.config import GameConfig, Scenario, ScenarioPost
from forumbot.model import PlayerRef, parse_time
from forumbot.replay import replay

PLAYERS = ["Том Хэнкс", "Мэрил Стрип", "Анджелина Джоли", "Джонни Депп", "Киану Ривз", "Брэд Питт",
           "Мерилин Монро", "Николь Кидман", "Хью Джекман", "Одри Хепбёрн", "Леонардо Ди Каприо",
           "Скарлетт Йоханссон"]
FORMS = {"Том Хэнкс": "Тома Хэнкса", "Мэрил Стрип": "Мэрил Стрип", "Анджелина Джоли": "Джоли",
         "Джонни Депп": "Деппа", "Киану Ривз": "Киану Ривза", "Брэд Питт": "Брэда Питта",
         "Мерилин Монро": "Монро", "Николь Кидман": "Кидман", "Хью Джекман": "Джекмана",
         "Одри Хепбёрн": "Одри Хепбёрн", "Леонардо Ди Каприо": "Ди Каприо", "Скарлетт Йоханссон": "Йоханссон"}


def generated_day(posts: int, seed: int = 7, poll: int = 0, vote_share: float = 0.8,
                  every: int = 1) -> Scenario:
    """A day where votes scatter (nobody reaches 7 of 12) so all posts are read; the rest is talk in the
    game thread. `vote_share` of the posts are votes."""
    rng = random.Random(seed)
    start = parse_time("2026-03-02T20:00:00Z")
    config = GameConfig(name="bench", game="mafia", lang="ru", start=start,
                        players=tuple(PlayerRef(n) for n in PLAYERS),
                        options={"day_hours": 48, "vote_count_every": every},
                        ruleset="bodysnatchers", phase="day1")
    # options of the ruleset are not loaded for a hand-built config: the defaults are the same rules
    items = []
    step = 47 * 3600 / posts
    votes = 0
    for index in range(posts):
        at = start + timedelta(seconds=int(index * step) + 1)
        if rng.random() >= vote_share:
            items.append(ScenarioPost(at, rng.choice(PLAYERS), "Обсуждаем газету, я думаю он не мирный.", "game"))
            continue
        # Voter i votes in round r for target (i + r) % 4: each target holds at most 6 of the 12 votes at
        # any moment (3 of the old round, 3 of the new), so nobody reaches 7 and every post is read.
        voter, round_ = votes % 12, votes // 12
        target = PLAYERS[4 + (voter + round_) % 4]
        text = rng.choice(["Голосую против {}", "Против {}", "> цитата\n\nПротив {}"]).format(FORMS[target])
        items.append(ScenarioPost(at, PLAYERS[voter], text, "votes"))
        votes += 1
    return Scenario(config, tuple(items), poll_seconds=poll)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--poll", type=int, default=0, help="virtual poll interval in seconds (0: every post)")
    parser.add_argument("--votes", type=float, default=0.8, help="share of the posts that are votes")
    parser.add_argument("--every", type=int, default=1, help="vote_count_every (0: no vote counts)")
    args = parser.parse_args()
    scenario = generated_day(args.posts, poll=args.poll, vote_share=args.votes, every=args.every)
    replay(generated_day(50))   # warm up: imports, pymorphy3, templates
    start = time.perf_counter()
    result = replay(scenario)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    counts = sum(1 for m in result.messages if m["kind"] == "vote_count")
    day = result.state["days"][0] if result.state["days"] else {}
    print(f"replayed {len(scenario.posts)} posts (12 players, {args.votes:.0%} votes, poll={args.poll}s, "
          f"vote_count_every={args.every}) in {elapsed:.2f} s "
          f"= {len(scenario.posts) / elapsed:.0f} posts/s; {len(result.messages)} bot messages "
          f"({counts} vote counts); day 1: {day.get('result')} ({day.get('ended')}); "
          f"peak RSS {peak / 1e6:.0f} MB")
    print("target: under 2 s:", "OK" if elapsed < 2 else "ABOVE TARGET")


if __name__ == "__main__":
    main()
