"""Flags per 1,000 posts on the real MafiaScum days: what reading costs the host in things to look at.

Each day of `../shared/real-threads` (beside the repository) is replayed whole with `forumbot replay --json`;
the flags it raises are counted, with the posts of the day, and grouped by kind (a name not read, a vote not
bold, chat not counted, ...). A reader that buys agreement with the hosts by flagging more shows here.

Run:  .venv/bin/python bench/bench_flags.py [--days DIR] [--show]
      --show prints every flag's reason too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAYS = ROOT.parent / "shared" / "real-threads"

# A flag's kind, by the start of its reason (the first that fits).
KINDS = [("not bold", re.compile(r"not bold")), ("not counted", re.compile(r"^not counted")),
         ("name ambiguous", re.compile(r"matches .* and ")), ("name unknown", re.compile(r"is not a player|"
                                                                                      r"did you mean|no player")),
         ("check", re.compile(r"^check:")), ("other", re.compile(""))]


def kind_of(reason: str) -> str:
    for kind, pattern in KINDS:
        if pattern.search(reason):
            return "not bold" if kind == "not counted" and "not bold" in reason else kind
    return "other"


def one_day(path: Path) -> tuple[str, int, list[str]]:
    """(day, posts, flag reasons) of one scenario replayed whole."""
    with path.open("rb") as f:
        posts = len(tomllib.load(f).get("posts", []))
    run = subprocess.run([sys.executable, "-m", "forumbot", "replay", str(path), "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    if run.returncode:
        return path.stem, posts, [f"replay failed: {run.stderr.strip()[-200:]}"]
    flags = json.loads(run.stdout).get("flags") or []
    return path.stem, posts, [str(flag.get("reason", "")) for flag in flags]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=Path, default=DAYS)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    days = sorted(args.days.glob("*_day*.toml"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one_day, days))
    total_posts = total_flags = 0
    kinds: Counter[str] = Counter()
    for day, posts, reasons in results:
        total_posts += posts
        total_flags += len(reasons)
        kinds.update(kind_of(reason) for reason in reasons)
        print(f"{day:14} {posts:5} posts {len(reasons):4} flags")
        if args.show:
            for reason in reasons:
                print(f"    {reason[:150]}")
    print("by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    print(f"{total_flags} flags on {total_posts} posts: {1000 * total_flags / max(total_posts, 1):.1f} "
          f"flags per 1,000 posts")


if __name__ == "__main__":
    main()
