"""CPU instructions a post (valgrind's callgrind): the deterministic measure behind issue 16's timings.

Timings on a shared machine move by ±10% from one run to the next; instructions do not (~0.3%). This replays
the first N1 and the first N2 posts of the 5,000-post generated day (bench_replay.generated_day, 12 players)
under callgrind, each in a process of its own, and prints the difference divided by N2 - N1: the cost of a
post past the warm-up, in total, by library (python, sqlite, libc, ...) and by C function. Instructions are
not time: work that walks memory the CPU caches do not hold (the cycle collector, say) costs more time than
its instructions say, so check a change with timings too (bench_replay.py --one, alternating runs).

Run:  .venv/bin/python bench/bench_instr.py poll          # the --poll 60 day, posts 300..800
      .venv/bin/python bench/bench_instr.py worst 500 1500 --top 40
Modes: worst (a step and a count after every post), poll (--poll 60), nocount, pollnocount (vote_count_every
= 0). Needs valgrind (Debian: apt-get install valgrind); one to three minutes.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MODES = ("worst", "poll", "nocount", "pollnocount")


def replay_first(mode: str, posts: int) -> None:
    """(In the measured process.) The warm-up replay, then the first `posts` posts of the mode's day."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_replay import generated_day

    from forumbot.replay import replay
    replay(generated_day(50, players=12))
    day = generated_day(5000, every=0 if "nocount" in mode else 1, players=12, poll=60 if "poll" in mode else 0)
    replay(dataclasses.replace(day, posts=day.posts[:posts]))


def _measured(mode: str, posts: int, folder: str) -> str:
    out = os.path.join(folder, f"callgrind.{posts}")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                    "--child", mode, str(posts)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={"PYTHONHASHSEED": "0", **os.environ})   # (str hashes seeded alike: the same dict probes)
    return out


def _by_function(path: str) -> collections.Counter[tuple[str, str]]:
    """Instructions by (C function, library) in a callgrind file, as callgrind_annotate totals them."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", path], capture_output=True, text=True,
                          check=True).stdout
    found: collections.Counter[tuple[str, str]] = collections.Counter()
    for line in text.splitlines():
        row = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)$", line)
        if not row or "PROGRAM TOTALS" in line:
            continue
        name = re.sub(r"'\d+", "", row.group(2))
        library = name.rsplit("[", 1)[-1].rstrip("]").split("/")[-1] if "[" in name else ""
        found[(name.split(" [")[0].split(":")[-1], library)] += int(row.group(1).replace(",", ""))
    return found


def _library(name: str) -> str:
    for part, label in (("sqlite3.so", "sqlite"), ("libc.so", "libc"), ("_sqlite", "_sqlite3 module"),
                        ("_json", "_json")):
        if part in name:
            return label
    return "python"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("first", nargs="?", type=int, default=300)
    parser.add_argument("last", nargs="?", type=int, default=800)
    parser.add_argument("--top", type=int, default=25, help="how many C functions to list")
    args = parser.parse_args()
    if args.last <= args.first:
        raise SystemExit("the second number of posts must be larger than the first")
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as folder, ThreadPoolExecutor(2) as pool:
        before, after = pool.map(lambda n: _by_function(_measured(args.mode, n, folder)), (args.first, args.last))
    posts = args.last - args.first
    diff = collections.Counter({key: after[key] - before.get(key, 0) for key in after})
    total = sum(diff.values())
    print(f"{args.mode}: {total / posts:,.0f} instructions a post (posts {args.first}..{args.last})")
    libraries: collections.Counter[str] = collections.Counter()
    for (_, library), value in diff.items():
        libraries[_library(library)] += value
    print("  " + ", ".join(f"{name} {value / posts:,.0f} ({100 * value / total:.1f}%)"
                           for name, value in libraries.most_common()))
    for (function, library), value in diff.most_common(args.top):
        print(f"  {value / posts:9,.0f} {100 * value / total:5.1f}% {function} [{library}]")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        replay_first(sys.argv[2], int(sys.argv[3]))
    else:
        main()
