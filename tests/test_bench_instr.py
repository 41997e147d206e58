"""bench/bench_instr.py: what the measured process runs, and how it sorts a C function's library."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def bench_instr():
    spec = importlib.util.spec_from_file_location("bench_instr", BENCH / "bench_instr.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    sys.path[:] = [p for p in sys.path if p != str(BENCH)]


def test_the_measured_process_replays_the_first_posts_of_each_mode(bench_instr, monkeypatch):
    replayed = []
    import forumbot.replay
    real = forumbot.replay.replay
    monkeypatch.setattr(forumbot.replay, "replay", lambda scenario: replayed.append(real(scenario)))
    bench_instr.replay_first("pollnocount", 40)
    warm_up, measured = replayed
    assert len(measured.scenario.posts) == 40 and len(warm_up.scenario.posts) == 50
    assert not [m for m in measured.messages if m["kind"] == "vote_count"]   # vote_count_every = 0
    assert [m for m in warm_up.messages if m["kind"] == "vote_count"]   # (the warm-up counts)


def test_a_functions_library_is_named_by_its_file(bench_instr):
    assert bench_instr._library("libsqlite3.so.0.8.6") == "sqlite"
    assert bench_instr._library("libc.so.6") == "libc"
    assert bench_instr._library("_sqlite3.cpython-311-x86_64-linux-gnu.so") == "_sqlite3 module"
    assert bench_instr._library("libpython3.11.so.1.0") == "python"
