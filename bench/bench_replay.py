"""Replay of a generated day through the whole bot (local forum, store, parser, game, renderer) on a
virtual clock: CPU time and peak RSS by roster and number of posts.

Run:  .venv/bin/python bench/bench_replay.py                  # one case: 12 players, 5,000 posts, worst mix
      .venv/bin/python bench/bench_replay.py --players 200 --every 0
      .venv/bin/python bench/bench_replay.py --table [--scale 0.4] [--runs 3]
`--table` prints a table by roster (roster 12/50/200, posts 1k/5k/20k, with and without counts), each
case in a fresh process (so its peak RSS is its own), the median of `--runs` runs; `--scale` shrinks
every post count (the machine is shared: keep a run short) and the figures say ms a post.
Targets: the worst mix of a 5,000-post 12-player day under 1.5 s CPU; 200 players with no
counts within 1.3x the CPU a post of 12 players; a 20,000-post day under 150 MB.
A wider table (with the games, the idle bot and the backlog) is bench/bench_table.py; bench/compare.py REV
compares a real day and this day with another revision.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from forumbot.config.game import GameConfig, Scenario, ScenarioPost
from forumbot.engine.replay import replay
from forumbot.model import PlayerRef, format_time, parse_time

PLAYERS = ["Том Хэнкс", "Мэрил Стрип", "Анджелина Джоли", "Джонни Депп", "Киану Ривз", "Брэд Питт",
           "Мерилин Монро", "Николь Кидман", "Хью Джекман", "Одри Хепбёрн", "Леонардо Ди Каприо",
           "Скарлетт Йоханссон"]
FORMS = {"Том Хэнкс": "Тома Хэнкса", "Мэрил Стрип": "Мэрил Стрип", "Анджелина Джоли": "Джоли",
         "Джонни Депп": "Деппа", "Киану Ривз": "Киану Ривза", "Брэд Питт": "Брэда Питта",
         "Мерилин Монро": "Монро", "Николь Кидман": "Кидман", "Хью Джекман": "Джекмана",
         "Одри Хепбёрн": "Одри Хепбёрн", "Леонардо Ди Каприо": "Ди Каприо", "Скарлетт Йоханссон": "Йоханссон"}


def roster(size: int) -> list[str]:
    """The 12 named players, then numbered ones (they only vote: every vote is for one of four named)."""
    return PLAYERS[:size] + [f"Участник{n:03d}" for n in range(13, size + 1)]


def generated_day(posts: int, seed: int = 7, poll: int = 0, vote_share: float = 0.8,
                  every: int = 1, players: int = 12) -> Scenario:
    """A day where votes scatter (nobody reaches a majority) so all posts are read; the rest is talk in the
    game thread. `vote_share` of the posts are votes."""
    rng = random.Random(seed)
    names = roster(players)
    start = parse_time("2026-03-02T20:00:00Z")
    config = GameConfig(name="bench", game="mafia", lang="ru", start=start,
                        players=tuple(PlayerRef(n) for n in names),
                        options={"day_hours": 48, "vote_count_every": every},
                        ruleset="bodysnatchers", phase="day1")
    # options of the ruleset are not loaded for a hand-built config: the defaults are the same rules
    items = []
    step = 47 * 3600 / posts
    votes = 0
    for index in range(posts):
        at = start + timedelta(seconds=int(index * step) + 1)
        if rng.random() >= vote_share:
            items.append(ScenarioPost(at, rng.choice(names), "Обсуждаем газету, я думаю он не мирный.", "game"))
            continue
        # Voter i votes in round r for target (i + r) % 4: each target holds about a quarter of the old
        # round's votes and a quarter of the new one's, so nobody reaches a majority and every post is read.
        voter, round_ = votes % players, votes // players
        target = PLAYERS[4 + (voter + round_) % 4]
        text = rng.choice(["Голосую против {}", "Против {}", "> цитата\n\nПротив {}"]).format(FORMS[target])
        items.append(ScenarioPost(at, names[voter], text, "votes"))
        votes += 1
    return Scenario(config, tuple(items), poll_seconds=poll)


def scenario_toml(posts: int, players: int, every: int, poll: int = 0) -> str:
    """The generated day as a scenario file, for `forumbot replay`."""
    day = generated_day(posts, every=every, players=players, poll=poll)
    config = day.config
    text = (f'[game]\nname = "mafia"\nruleset = "bodysnatchers"\nlang = "ru"\nstart = "{format_time(config.start)}"\n'
            f'phase = "day1"\n[game.options]\nday_hours = 48\nvote_count_every = {every}\n[run]\n'
            f'poll_seconds = {poll}\n')
    text += "".join(f"[[players]]\nname = {json.dumps(p.name, ensure_ascii=False)}\n" for p in config.players)
    text += "".join(f"[[posts]]\nat = \"{format_time(p.at)}\"\nauthor = {json.dumps(p.author, ensure_ascii=False)}\n"
                    f"thread = \"{p.thread}\"\ntext = {json.dumps(p.text, ensure_ascii=False)}\n" for p in day.posts)
    return text


def cli_case(posts: int, players: int, every: int) -> dict[str, float]:
    """`forumbot replay --json` of the generated day in a process of its own: its CPU (with start-up) and
    peak RSS."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.toml"
        path.write_text(scenario_toml(posts, players, every), encoding="utf-8")
        subprocess.run([sys.executable, "-m", "forumbot", "replay", "--json", str(path)], check=True,
                       stdout=subprocess.DEVNULL)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024}


def one(posts: int, players: int, poll: int, votes: float, every: int) -> dict[str, float]:
    """One case in this process: CPU seconds of the replay, peak RSS (MB), and what it produced."""
    scenario = generated_day(posts, poll=poll, vote_share=votes, every=every, players=players)
    replay(generated_day(50, players=players))   # warm up: imports, pymorphy3, templates
    cpu = time.process_time()
    result = replay(scenario)
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    day = result.state["days"][0] if result.state["days"] else {}
    return {"cpu": cpu, "rss": peak, "messages": len(result.messages),
            "counts": sum(1 for m in result.messages if m["kind"] == "vote_count"),
            "result": f"{day.get('result')} ({day.get('ended')})"}


def measured(posts: int, players: int, poll: int, votes: float, every: int, runs: int) -> dict[str, float]:
    """The median of `runs` fresh processes (CPU and peak RSS each their own median)."""
    found = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--one", "--posts", str(posts), "--players", str(players),
                              "--poll", str(poll), "--votes", str(votes), "--every", str(every)],
                             check=True, capture_output=True, text=True).stdout
        found.append(json.loads(out.splitlines()[-1]))
    return {**found[0], "cpu": statistics.median(f["cpu"] for f in found),
            "rss": statistics.median(f["rss"] for f in found)}


CASES = [  # (label, posts, players, poll, every)
    ("5k posts, 12 players, count after every vote (worst mix)", 5000, 12, 0, 1),
    ("5k posts, 50 players, worst mix", 5000, 50, 0, 1),
    ("5k posts, 200 players, worst mix", 5000, 200, 0, 1),
    ("5k posts, 12 players, no counts", 5000, 12, 0, 0),
    ("5k posts, 200 players, no counts", 5000, 200, 0, 0),
    ("1k posts, 12 players, worst mix", 1000, 12, 0, 1),
    ("20k posts, 12 players, worst mix", 20000, 12, 0, 1),
    ("5k posts, 12 players, poll 60 s (whole day)", 5000, 12, 60, 1),
]


def table(scale: float, runs: int) -> None:
    print(f"{'case':<52} {'posts':>6} {'CPU s':>7} {'ms/post':>8} {'peak MB':>8}")
    per_post = {}
    for label, posts, players, poll, every in CASES:
        n = max(100, int(posts * scale))
        found = measured(n, players, poll, 0.8, every, runs)
        per_post[label] = found["cpu"] / n * 1000
        print(f"{label:<52} {n:>6} {found['cpu']:>7.2f} {per_post[label]:>8.3f} {found['rss']:>8.0f}", flush=True)
    ratio = per_post[CASES[4][0]] / per_post[CASES[3][0]]
    print(f"200 vs 12 players, no counts, CPU a post: x{ratio:.2f} (target: within x1.3)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--poll", type=int, default=0, help="virtual poll interval in seconds (0: every post)")
    parser.add_argument("--votes", type=float, default=0.8, help="share of the posts that are votes")
    parser.add_argument("--every", type=int, default=1, help="vote_count_every (0: no vote counts)")
    parser.add_argument("--runs", type=int, default=3, help="runs a case (the median is shown)")
    parser.add_argument("--table", action="store_true", help="every case of the table above")
    parser.add_argument("--scale", type=float, default=1.0, help="with --table: shrink every post count")
    parser.add_argument("--cli", action="store_true", help="measure `forumbot replay --json` of the day instead")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cli:
        found = cli_case(args.posts, args.players, args.every)
        print(f"forumbot replay --json of {args.posts} posts ({args.players} players, vote_count_every={args.every}): "
              f"{found['cpu']:.2f} s CPU with start-up, peak RSS {found['rss']:.0f} MB (target: under 150 MB)")
        return
    if args.one:
        print(json.dumps(one(args.posts, args.players, args.poll, args.votes, args.every)))
        return
    if args.table:
        table(args.scale, args.runs)
        return
    found = measured(args.posts, args.players, args.poll, args.votes, args.every, args.runs)
    print(f"replayed {args.posts} posts ({args.players} players, {args.votes:.0%} votes, poll={args.poll}s, "
          f"vote_count_every={args.every}): median of {args.runs}: {found['cpu']:.2f} s CPU "
          f"= {found['cpu'] / args.posts * 1000:.3f} ms a post; {found['messages']} bot messages "
          f"({found['counts']} vote counts); day 1: {found['result']}; peak RSS {found['rss']:.0f} MB")
    if args.players == 12 and args.every == 1 and args.poll == 0:
        print("target (12 players, worst mix): under 1.5 s for 5,000 posts:",
              "OK" if found["cpu"] < 1.5 * args.posts / 5000 else "ABOVE TARGET")


if __name__ == "__main__":
    main()
