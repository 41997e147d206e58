"""The same days on another git revision and on this tree, run in turn: the ratio of their CPU times, which a
shared machine of moving speed blurs far less than it blurs seconds.

Each run is `python -m forumbot replay DAY --json` in a fresh process (start-up included), the revision's code
from a `git worktree` in a temporary folder, this tree's from this folder, revision and tree alternating so
that a change in the machine's speed falls on both. The days: a real MafiaScum day of
`../shared/real-threads` (beside the repository) and the generated 5,000-post day of `bench_replay.py`
(12 players, a vote count after every vote: the worst mix), written once and read by both sides. It prints
each run, then per day the median CPU seconds and peak RSS of each side, the ratio (this tree / revision)
of the medians and the median of the runs' own ratios, and whether both sides printed the same output.

Run:  .venv/bin/python bench/compare.py main
      .venv/bin/python bench/compare.py HEAD~3 --runs 5 --posts 2000
      .venv/bin/python bench/compare.py main --day ../shared/real-threads/ms1838_day2.toml --no-generated
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
REAL_DAY = ROOT.parent / "shared" / "real-threads" / "ms1703_day1.toml"


def run_once(tree: Path, day: Path) -> tuple[float, float, str]:
    """`tree`'s `forumbot replay DAY --json` in a fresh process: its CPU seconds (user + system), its peak RSS
    (MB) and a digest of what it printed."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    child = subprocess.Popen([sys.executable, "-m", "forumbot", "replay", str(day), "--json"], cwd=tree, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    digest = hashlib.sha256()
    while chunk := child.stdout.read(1 << 16):  # type: ignore[union-attr]
        digest.update(chunk)
    _, status, usage = os.wait4(child.pid, 0)   # the rusage of this child alone
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"forumbot replay {day} failed in {tree}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, digest.hexdigest()


def generated_day(path: Path, posts: int) -> None:
    """bench_replay.py's generated day (12 players, a count after every vote) written as a scenario file, in a
    process of its own (this one imports no forumbot: a child's peak RSS stays its own)."""
    code = (f"import sys; sys.path.insert(0, {str(BENCH)!r}); from bench_replay import scenario_toml; "
            f"open({str(path)!r}, 'w', encoding='utf-8').write(scenario_toml({posts}, 12, 1))")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def compare(rev: str, trees: dict[str, Path], day: Path, label: str, runs: int) -> None:
    found: dict[str, list[tuple[float, float, str]]] = {name: [] for name in trees}
    print(f"-- {label}", flush=True)
    for turn in range(runs):
        order = list(trees.items()) if turn % 2 == 0 else list(reversed(trees.items()))
        for name, tree in order:
            cpu, rss, digest = run_once(tree, day)
            found[name].append((cpu, rss, digest))
            print(f"   run {turn + 1}: {name:<10} {cpu:6.3f} s CPU, {rss:5.0f} MB", flush=True)
    old, new = (found[name] for name in trees)
    old_cpu, new_cpu = [c for c, _, _ in old], [c for c, _, _ in new]
    for name, results in found.items():
        print(f"   {name:<10} median {statistics.median(c for c, _, _ in results):.3f} s CPU, "
              f"peak {statistics.median(r for _, r, _ in results):.0f} MB")
    paired = statistics.median(b / a for a, b in zip(old_cpu, new_cpu, strict=True))
    same = len({d for results in found.values() for _, _, d in results}) == 1
    print(f"   this tree / {rev}: {statistics.median(new_cpu) / statistics.median(old_cpu):.3f} "
          f"(median of the runs' own ratios {paired:.3f}); output {'the same' if same else 'DIFFERS'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rev", help="the git revision to compare this tree with (main, HEAD~3, a commit)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side on each day, alternating")
    parser.add_argument("--day", type=Path, action="append",
                        help=f"a real day's scenario (repeatable; default {REAL_DAY.name} of ../shared/real-threads)")
    parser.add_argument("--posts", type=int, default=5000, help="posts of the generated day")
    parser.add_argument("--no-generated", action="store_true", help="the real days only")
    args = parser.parse_args()
    days = [day.resolve() for day in args.day or [REAL_DAY]]
    with tempfile.TemporaryDirectory(prefix="forumbot-compare-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), args.rev],
                       check=True)
        try:
            trees = {args.rev: tree, "this tree": ROOT}
            for day in days:
                if day.is_file():
                    compare(args.rev, trees, day, f"{day.name}: a real day", args.runs)
                else:
                    print(f"-- {day}: not found (the real threads go in ../shared/real-threads), skipped")
            if not args.no_generated:
                generated = Path(folder) / "generated.toml"
                generated_day(generated, args.posts)
                compare(args.rev, trees, generated, f"generated day: {args.posts} posts, 12 players, worst mix",
                        args.runs)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main()
