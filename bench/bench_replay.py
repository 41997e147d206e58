"""Replay of a generated 12-player, 5,000-post day through the whole bot (local forum, store, parser,
game, renderer) on a virtual clock.

Run:  .venv/bin/python bench/bench_replay.py [--posts 5000] [--poll 0]
Target (issue 2): the 5,000-post day replays in under 2 s.
"""

from __future__ import annotations

import argparse
import random
import time
import resource
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


def generated_day(posts: int, seed: int = 7, poll: int = 0) -> Scenario:
    """A day where votes scatter (nobody reaches 7 of 12) so all posts are read, plus chat."""
    rng = random.Random(seed)
    start = parse_time("2026-03-02T20:00:00Z")
    config = GameConfig(name="bench", game="mafia", lang="ru", start=start,
                        players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 48},
                        ruleset="bodysnatchers", phase="day1")
    # options of the ruleset are not loaded for a hand-built config: the defaults are the same rules
    items = []
    step = 47 * 3600 / posts
    for index in range(posts):
        at = start + timedelta(seconds=int(index * step) + 1)
        author = PLAYERS[index % 12]
        if index % 5 == 4:
            text, thread = "Обсуждаем газету, я думаю он не мирный.", "game"
        else:
            # keep every wagon below 7: vote among four targets, never more than 6 on one
            target = PLAYERS[(index // 12 + index) % 4 + 4]
            text, thread = rng.choice(["Голосую против {}", "Против {}", "> цитата\n\nПротив {}"]).format(
                FORMS[target]), "votes"
        items.append(ScenarioPost(at, author, text, thread))
    return Scenario(config, tuple(items), poll_seconds=poll)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--poll", type=int, default=0, help="virtual poll interval in seconds (0: every post)")
    args = parser.parse_args()
    scenario = generated_day(args.posts, poll=args.poll)
    replay(generated_day(50))   # warm up: imports, pymorphy3, templates
    start = time.perf_counter()
    result = replay(scenario)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    counts = sum(1 for m in result.messages if m["kind"] == "vote_count")
    day = result.state["days"][0] if result.state["days"] else {}
    print(f"replayed {len(scenario.posts)} posts (12 players, poll={args.poll}s) in {elapsed:.2f} s "
          f"= {len(scenario.posts) / elapsed:.0f} posts/s; {len(result.messages)} bot messages "
          f"({counts} vote counts); day 1: {day.get('result')} ({day.get('ended')}); "
          f"peak RSS {peak / 1e6:.0f} MB")
    print("target: under 2 s:", "OK" if elapsed < 2 else "ABOVE TARGET")


if __name__ == "__main__":
    main()
