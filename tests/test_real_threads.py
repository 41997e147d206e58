"""A real MafiaScum day replayed end to end: `forumbot replay FILE --json` on ms1703 day 1 of the shared corpus
(`../shared/real-threads` beside the repository), stopped at each of the host's official counts as its
`score.py` stops it, and forumbot's wagons compared with the host's voter by voter, as `score.py` scores them.
The two known disagreements are the host's mistake: Ranmaru left on xCoco after `[b]Vote: Catboi[/b]` (#51)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REAL_THREADS = Path(__file__).resolve().parents[2] / "shared" / "real-threads"
UNTIL = re.compile(r'^until = "[^"]*"$', re.M)

pytestmark = pytest.mark.skipif(not (REAL_THREADS / "host_counts.json").is_file(),
                                reason=f"the real-threads corpus is not beside the repository ({REAL_THREADS})")


def _votes_at(scenario: str, until: str, folder: Path, number: int) -> dict[str, str]:
    """forumbot's votes (voter -> target) after replaying `scenario` up to `until`."""
    path = folder / f"count{number}.toml"
    path.write_text(UNTIL.sub(f'until = "{until}"', scenario, count=1), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "forumbot", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)["state"]
    return {voter: target for target, voters in state["votes"].items() for voter in voters}


def test_ms1703_day_1_agrees_with_the_hosts_counts_but_for_the_hosts_mistake(tmp_path):
    day = json.loads((REAL_THREADS / "host_counts.json").read_text(encoding="utf-8"))["games"]["ms1703"]["days"]["1"]
    scenario = (REAL_THREADS / day["scenario"]).read_text(encoding="utf-8")
    assert day["scenario"] == "ms1703_day1.toml" and UNTIL.search(scenario)
    counts = day["counts"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        replayed = list(pool.map(lambda item: _votes_at(scenario, item[1]["until"], tmp_path, item[0]),
                                 enumerate(counts)))
    scored = agreed = 0
    disagreements = []
    for count, bot in zip(counts, replayed, strict=True):
        host = {voter: target for target, voters in count["wagons"].items() for voter in voters}
        wrong = [v for v in host if bot.get(v) != host[v]] + [v for v in bot if v not in host]
        scored += len(host) + sum(1 for v in bot if v not in host)
        agreed += len(host) + sum(1 for v in bot if v not in host) - len(wrong)
        disagreements += [(count["post"], v, host.get(v), bot.get(v)) for v in wrong]
    assert [c["post"] for c in counts] == [31, 53, 76, 128, 221, 301, 335]
    assert disagreements == [(53, "Ranmaru", "xCoco", "catboi"), (76, "Ranmaru", "xCoco", "catboi")]
    assert (agreed, scored) == (51, 53)
