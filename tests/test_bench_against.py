"""bench/bench_against.py times an older revision's code beside this tree's: it must run that revision's own
code (not this tree's through the installed package) and refuse to compare two different days."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _has_history() -> bool:
    return shutil.which("git") is not None and subprocess.run(
        ["git", "-C", str(BENCH.parent), "rev-parse", "--verify", "-q", "HEAD"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _has_history(), reason="needs git and the repository's history")
def test_it_runs_the_older_tree_and_prints_the_ratio(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_against
    tree = bench_against.unpacked("HEAD", tmp_path)
    assert (tree / "forumbot" / "replay.py").read_bytes() == subprocess.run(
        ["git", "-C", str(BENCH.parent), "show", "HEAD:forumbot/replay.py"], capture_output=True).stdout
    # the older tree's own code runs: a marker in its copy shows in the run's output
    (tree / "forumbot" / "__init__.py").write_text(
        (tree / "forumbot" / "__init__.py").read_text(encoding="utf-8") + "\nprint('OLDER TREE')\n", encoding="utf-8")
    argv, env = bench_against.command(tree, 60, 0, 1)
    out = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert "OLDER TREE" in out.stdout
    monkeypatch.setattr(sys, "argv", ["bench_against.py", "--rev", "HEAD", "--posts", "80", "--runs", "1"])
    bench_against.main()
    printed = capsys.readouterr().out
    assert "this tree / HEAD: " in printed and "bot messages" in printed
    assert "issue 16's target" not in printed   # the target is for the filed revision's 5,000-post day only


def test_two_different_days_are_not_compared(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_against
    made = iter([10, 11])
    monkeypatch.setattr(bench_against, "unpacked", lambda rev, folder: folder)
    monkeypatch.setattr(bench_against, "run_once", lambda *a: {"cpu": 1.0, "messages": next(made)})
    monkeypatch.setattr(sys, "argv", ["bench_against.py", "--runs", "1"])
    with pytest.raises(SystemExit, match="different days"):
        bench_against.main()
