"""The essential parts of a day alone, beside the whole pipeline (issue 16, item 2: "say how close to the
sum of the essential parts you got").

The parts, each with the project's own code and none of the runner, the local forum or the store's
round trips: parse the day's votes (the game's PostParser), apply each to the game and build its vote
count (MafiaGame.apply, then report, which builds the count's view), render every count (the game's
Renderer), and write the rows a day leaves (posts, processed marks, intents, events as the runner logs
them, outbox, the final state) with the store's own writers in ONE transaction. The pipeline is `replay()`
of the same generated day (bench_replay.generated_day), in the same process after the same warm-up.
With `--poll N` the day is read on an N-second grid, as `replay --poll N` steps: a count is made once a
step (after all of that step's votes), at the step's time.

Run:  .venv/bin/python bench/bench_parts.py [--posts 5000] [--players 12] [--every 1] [--poll 0] [--runs 3]
      [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import generated_day  # noqa: E402

from forumbot.gamerun import GameRun, setup_of  # noqa: E402
from forumbot.model import Event, Outgoing, Post  # noqa: E402
from forumbot.platforms.local import LocalForum  # noqa: E402
from forumbot.replay import _grid, replay  # noqa: E402
from forumbot.runner import _for_log  # noqa: E402  (the event log keeps a count's headline only)
from forumbot.storage import Store  # noqa: E402


def _posts(run: GameRun, scenario: Any) -> list[Post]:
    """The day's posts as the local forum hands them to the bot (ids, threads, dialect, links)."""
    forum = LocalForum(":memory:", dialect=run.config.dialect)
    return [Post(platform_id=f"local:{n}", thread=run.thread_id(p.thread), author=p.author, created=p.at,
                 body=p.text, dialect=run.config.dialect, url=forum.post_url(run.thread_id(p.thread), n))
            for n, p in enumerate(scenario.posts, start=1)]


def parts(posts: int, players: int, every: int, poll: int = 0) -> dict[str, Any]:
    """CPU seconds of each essential part of the generated day, done once (`poll`: read on that grid)."""
    scenario = generated_day(posts, every=every, players=players, poll=poll)
    run = GameRun.build(scenario.config, dialect=scenario.config.dialect)
    game = run.game
    day = _posts(run, scenario)
    votes = [p for p in day if p.thread == run.thread_id("votes")]
    timing: dict[str, float] = {}

    cpu = time.process_time()
    parsed = [run.parser.parse(post) for post in votes]
    timing["parse"] = time.process_time() - cpu

    state = game.new(setup_of(run.config))
    events: list[tuple[Event, str]] = []
    times = []   # the time of the post each event came from: a count says when it was made
    intents = []
    # the time of the step that reads each vote (its own time without a poll grid)
    steps = [_grid(scenario.config.start, post.created, poll) for post in votes]
    cpu = time.process_time()
    for index, (post, reading) in enumerate(zip(votes, parsed, strict=True)):
        for intent in reading.intents:
            intents.append(intent)
            state, happened = game.apply(state, intent)
            events += [(e, post.platform_id) for e in happened]
        if index + 1 == len(votes) or steps[index + 1] != steps[index]:   # the step's last vote
            state, reported = game.report(state, steps[index])   # the count's view is built here
            events += [(e, "") for e in reported]
        times += [steps[index]] * (len(events) - len(times))
    timing["apply + view"] = time.process_time() - cpu

    roles = {role: run.thread_id(name) for role, name in game.threads(state).items()}
    outbox: list[Outgoing] = []
    cpu = time.process_time()
    for seq, ((event, _), at) in enumerate(zip(events, times, strict=True), start=1):
        outbox += run.renderer.render(event, key=f"{run.name}:{seq}", threads=roles, at=at, game=game.name)
    timing["render"] = time.process_time() - cpu

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "parts.db")
        cpu = time.process_time()
        logs = [_for_log(e) for e, _ in events]   # a count's headline, as the runner logs it
        with store.transaction():   # one transaction: the writers' own nest in it as savepoints
            store.save_posts("local", day, str(len(day)), read_at=day[-1].created)
            store.commit_step(run.name, game.name, run.config.to_json(), game.to_json(state),
                              processed=[p.platform_id for p in day], intents=intents,
                              events=[(logged, post) for logged, (_, post) in zip(logs, events, strict=True)],
                              outbox=outbox, at=day[-1].created, expected_seq=0, expected_version=0)
        timing["write rows (one transaction)"] = time.process_time() - cpu
        store.close()
    counts = sum(1 for o in outbox if o.kind == "vote_count")
    rows = 2 * len(day) + len(intents) + len(events) + len(outbox) + 1
    return {"timing": timing, "votes": len(votes), "counts": counts, "rows": rows, "outbox": outbox, "logged": logs}


def pipeline(posts: int, players: int, every: int, poll: int = 0) -> float:
    """CPU seconds of `replay()` of the same day."""
    scenario = generated_day(posts, every=every, players=players, poll=poll)
    cpu = time.process_time()
    replay(scenario)
    return time.process_time() - cpu


def measure(posts: int, players: int, every: int, runs: int, poll: int = 0) -> dict[str, Any]:
    """Medians of `runs` rounds of the parts and the pipeline, alternated (a load from others falls on both)."""
    replay(generated_day(50, players=players, every=every, poll=poll))   # warm up: imports, dictionaries, templates
    parts(50, players, every, poll)
    found, whole = [], []
    for _ in range(runs):
        found.append(parts(posts, players, every, poll))
        whole.append(pipeline(posts, players, every, poll))
    timing = {k: statistics.median(f["timing"][k] for f in found) for k in found[0]["timing"]}
    total = sum(timing.values())
    figures = {k: v for k, v in found[0].items() if k not in ("outbox", "logged")}   # JSON-ready
    return {**figures, "timing": timing, "parts": total, "pipeline": statistics.median(whole),
            "ratio": statistics.median(whole) / total if total else 0.0}


def report(found: dict[str, Any], posts: int, players: int, poll: int = 0) -> None:
    grid = f", --poll {poll}" if poll else ""
    print(f"essential parts of a {posts}-post day{grid}, {players} players: {found['votes']} votes, "
          f"{found['counts']} counts, {found['rows']} rows")
    for name, seconds in found["timing"].items():
        print(f"  {name:<30} {seconds:7.3f} s CPU")
    print(f"  {'sum of the parts':<30} {found['parts']:7.3f} s CPU")
    print(f"  {'pipeline (replay)':<30} {found['pipeline']:7.3f} s CPU = x{found['ratio']:.2f} the parts")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--every", type=int, default=1, help="vote_count_every (0: no vote counts)")
    parser.add_argument("--poll", type=int, default=0, help="read the day on this grid (seconds; 0: every post)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one line of JSON (for bench_table.py)")
    args = parser.parse_args()
    found = measure(args.posts, args.players, args.every, args.runs, args.poll)
    if args.json:
        print(json.dumps(found))
    else:
        report(found, args.posts, args.players, args.poll)


if __name__ == "__main__":
    main()
