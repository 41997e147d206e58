"""CPU and peak RSS in one table: by roster (12/50/200 players), by posts (1k/5k/20k), by games on one
forum (1/10/100, idle and after a 47-hour backlog), and `forumbot replay --json` of a 20k-post day; each
case in a fresh process (so its peak RSS is its own), with a target beside some figures and OK or ABOVE.

Run:  .venv/bin/python bench/bench_table.py                        # full size: tens of minutes
      .venv/bin/python bench/bench_table.py --scale 0.2 --runs 1   # a couple of minutes on 2 cores
`--scale` shrinks every post count (replays, the backlog) and CPU targets shrink
with it; the games stay 1/10/100. Memory targets stay as they are: memory that grows with the posts
shows fully only at `--scale 1`. `--runs`: the replay cases show the median of that many.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

WIDTH = 58


def _child(args: list[str], keep: bool = True, **extra: Any) -> tuple[str, float, float]:
    """Run a process to its end: its stdout, its own CPU seconds (user + system) and peak RSS (MB).
    Linux carries a parent's peak RSS into the children it starts (the peak survives exec), so this
    process imports no forumbot, builds no day and reads no long output (`keep` False: the output is
    dropped): each child's peak is its own."""
    child = subprocess.Popen(args, stdout=subprocess.PIPE if keep else subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, text=True, **extra)
    out = child.stdout.read() if child.stdout is not None else ""
    _, status, usage = os.wait4(child.pid, 0)   # the rusage of this child alone
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(args)} failed with {child.returncode}")
    return out, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _case(*args: str) -> dict[str, Any]:
    """One case of bench_run.py in a fresh process of this script (`--case`)."""
    out, _, _ = _child([sys.executable, __file__, "--case", *args])
    return json.loads(out.splitlines()[-1])


def _verdict(value: float, target: float) -> str:
    return "OK" if value < target else "ABOVE"


class Table:
    def __init__(self) -> None:
        print(f"{'case':<{WIDTH}} {'size':>7} {'CPU s':>7} {'ms/post':>8} {'peak MB':>8}  target")
        self.lines: list[str] = []

    def row(self, label: str, size: int | str, cpu: float, rss: float, per: float | None = None,
            target: str = "") -> None:
        per_text = f"{per:8.3f}" if per is not None else f"{'':>8}"
        print(f"{label:<{WIDTH}} {size!s:>7} {cpu:7.2f} {per_text} {rss:8.0f}  {target}", flush=True)

    @staticmethod
    def section(title: str) -> None:
        print(f"-- {title}", flush=True)


def _replay(posts: int, players: int, poll: int, every: int, runs: int) -> dict[str, float]:
    """bench_replay.py's case in `runs` fresh processes: the medians of their CPU and peak RSS."""
    found = []
    for _ in range(runs):
        out, _, _ = _child([sys.executable, str(BENCH / "bench_replay.py"), "--one", "--posts", str(posts),
                            "--players", str(players), "--poll", str(poll), "--every", str(every)])
        found.append(json.loads(out.splitlines()[-1]))
    return {"cpu": statistics.median(f["cpu"] for f in found), "rss": statistics.median(f["rss"] for f in found)}


def replays(table: Table, scale: float, runs: int) -> None:
    table.section("replay() of a generated day (80% votes, nobody reaches a majority), in-process after a warm-up")
    per_post: dict[tuple[int, int], float] = {}
    cases = [  # (label, posts, players, poll, every, target CPU for the full day or 0)
        ("worst mix: 12 players, a count after every vote", 5000, 12, 0, 1, 1.5),
        ("worst mix, 50 players", 5000, 50, 0, 1, 0),
        ("worst mix, 200 players", 5000, 200, 0, 1, 0),
        ("no counts, 12 players", 5000, 12, 0, 0, 0),
        ("no counts, 200 players", 5000, 200, 0, 0, 0),
        ("worst mix, 12 players, 1k posts", 1000, 12, 0, 1, 0),
        ("worst mix, 12 players, 20k posts", 20000, 12, 0, 1, 0),
        ("whole day, --poll 60, 12 players", 5000, 12, 60, 1, 1.0),
    ]
    for label, posts, players, poll, every, target in cases:
        n = max(100, int(posts * scale))
        found = _replay(n, players, poll, every, runs)
        per_post[(players, every)] = found["cpu"] / n * 1000
        note = ""
        if target:
            limit = target * n / posts
            note = f"< {limit:.2f} s ({target:g} s for {posts}): {_verdict(found['cpu'], limit)}"
        table.row(label, n, found["cpu"], found["rss"], found["cpu"] / n * 1000, note)
    ratio = per_post[(200, 0)] / per_post[(12, 0)]
    print(f"{'no counts, 200 vs 12 players, CPU a post':<{WIDTH}} {'':>7} {'':>7} {'x' + format(ratio, '.2f'):>8} "
          f"{'':>8}  within x1.3: {_verdict(ratio, 1.3)}")


def cli(table: Table, scale: float) -> None:
    table.section("forumbot replay --json (a process of its own, start-up included)")
    n = max(100, int(20000 * scale))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "day.toml"
        _child([sys.executable, __file__, "--case", "toml", str(n), str(path)])
        _, cpu, rss = _child([sys.executable, "-m", "forumbot", "replay", "--json", str(path)], False,
                             cwd=folder)
    table.row("20k-post day, 12 players, worst mix", n, cpu, rss, cpu / n * 1000,
              f"< 150 MB: {_verdict(rss, 150)}")


def games(table: Table, scale: float) -> None:
    table.section("forumbot run over one local forum (Service, LocalForum, virtual clock; 12 players a game)")
    for count in (1, 10, 100):
        found = _case("idle", str(count))
        target = f"< 60 MB: {_verdict(found['rss'], 60)}" if count == 100 else ""
        table.row(f"idle, {count} games, an hour of polls every 60 s", f"{found['polls']} p", found["cpu"],
                  found["rss"], None, target)
    posts = max(10, int(500 * scale))
    for count in (1, 10, 100):
        found = _case("backlog", str(count), str(posts))
        target = f"< 150 MB: {_verdict(found['rss'], 150)}" if count == 100 else ""
        table.row(f"47-hour backlog, {count} games x {posts} posts, one poll", count * posts, found["cpu"],
                  found["rss"], found["cpu"] / (count * posts) * 1000, target)


def child(args: list[str]) -> None:
    """A case run in this fresh process: one line of JSON."""
    kind = args[0]
    if kind == "toml":
        from bench_replay import scenario_toml
        Path(args[2]).write_text(scenario_toml(int(args[1]), 12, 1), encoding="utf-8")
        return
    if kind == "idle":
        from bench_run import idle
        found = idle(int(args[1]), 1.0, 60.0)
    else:
        from bench_run import backlog
        found = backlog(int(args[1]), int(args[2]))
    print(json.dumps(found))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="shrink every post count (0.2: a fifth)")
    parser.add_argument("--runs", type=int, default=3, help="replay cases: the median of this many")
    parser.add_argument("--only", choices=["replay", "cli", "games"], action="append",
                        help="some sections only (repeatable)")
    parser.add_argument("--case", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        child(args.case)
        return
    # every child reads this tree's forumbot, whatever the venv has installed
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    table = Table()
    sections: dict[str, Callable[[], None]] = {
        "replay": lambda: replays(table, args.scale, args.runs),
        "cli": lambda: cli(table, args.scale),
        "games": lambda: games(table, args.scale),
    }
    for name, section in sections.items():
        if not args.only or name in args.only:
            section()
    print(f"(scale {args.scale:g}, median of {args.runs}; CPU targets scaled with the posts, memory targets not)")


if __name__ == "__main__":
    main()
