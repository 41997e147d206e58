"""A vote count's own cost: building its view from the state and rendering it, per count, by roster.

The states are those a generated day passes through (bench_replay's day, a count after every vote); each is
then counted again here, alone, so the figure is the count's cost and nothing else of the pipeline.

Run:  .venv/bin/python bench/bench_count.py [--players 12 50 200] [--posts 1000] [--runs 3]
It prints, per roster, µs a count for the view and for the rendering (median of the runs) and the
count's length in characters (a count's cost should grow only with the length of its text).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_replay import generated_day  # noqa: E402

from forumbot.engine.replay import replay  # noqa: E402
from forumbot.games.mafia import game as mafia  # noqa: E402
from forumbot.model import Event  # noqa: E402
from forumbot.render import Renderer  # noqa: E402


def day_states(posts: int, players: int, seed: int) -> list[tuple[Any, datetime]]:
    """(state, time) of every vote count a generated day posts. Each run counts another day (`seed`), so
    whatever a count keeps for the next one is not already warm from the run before."""
    seen: list[tuple[Any, datetime]] = []
    report = mafia.MafiaGame.report

    def recording(self: Any, state: Any, at: datetime) -> Any:
        out = report(self, state, at)
        if out[1]:
            seen.append((out[0], at))
        return out

    mafia.MafiaGame.report = recording  # type: ignore[method-assign]
    try:
        replay(generated_day(posts, seed=seed, every=1, players=players))
    finally:
        mafia.MafiaGame.report = report  # type: ignore[method-assign]
    return seen


def measure(states: list[tuple[Any, datetime]], dialect: str) -> tuple[float, float, int]:
    """CPU seconds for the views, for the renderings, and the total length of the texts. Each view is
    dropped once rendered, as the bot does (keeping them all would measure the garbage collector)."""
    renderer = Renderer(dialect, "ru")
    start = time.process_time()
    for state, at in states:
        mafia.view(state, at)
    views = time.process_time() - start
    renderer = Renderer(dialect, "ru")
    length = 0
    start = time.process_time()
    for state, at in states:
        length += len(renderer.text(Event("vote_count", mafia.view(state, at)), "mafia"))
    return views, time.process_time() - start - views, length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[12, 50, 200])
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dialect", default="markdown")
    args = parser.parse_args()
    for players in args.players:
        days = [day_states(args.posts, players, seed) for seed in range(7, 7 + args.runs)]
        runs = [measure(states, args.dialect) for states in days]
        states = days[0]
        view_s = statistics.median(r[0] for r in runs)
        render_s = statistics.median(r[1] for r in runs)
        chars = runs[0][2] / len(states)
        print(f"{players:4d} players  {len(states):5d} counts  view {view_s / len(states) * 1e6:7.1f} µs  "
              f"render {render_s / len(states) * 1e6:7.1f} µs  a count  ({chars:,.0f} characters, "
              f"{(view_s + render_s) / len(states) / chars * 1e9:.0f} ns a character)")


if __name__ == "__main__":
    main()
