"""Simplifying or speeding up the code must not change a byte of what the bot posts or reports: every sample's replay
JSON, and generated days of 12, 50 and 200 players, hash exactly as they did before it (the digests in
tests/replay_digests.json were taken from the code before the change; `python tests/test_replay_bytes.py`
rewrites them, for a change that means to alter the output)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay

HERE = Path(__file__).resolve().parent
DIGESTS = HERE / "replay_digests.json"
# (posts, players, poll, vote_count_every) of the generated days
DAYS = [(300, 12, 0, 1), (300, 12, 60, 1), (300, 50, 0, 0), (250, 200, 0, 1), (250, 200, 0, 3)]


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_replay", HERE.parent / "bench" / "bench_replay.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _digest(result: Any) -> str:
    # exactly what `forumbot replay --json` prints
    text = json.dumps(result.to_json(), ensure_ascii=False, indent=2)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cases() -> dict[str, Any]:
    found: dict[str, Any] = {path.name: path for path in sorted(data_dir("samples").glob("*.toml"))}
    for posts, players, poll, every in DAYS:
        found[f"generated-{posts}-{players}-poll{poll}-every{every}"] = (posts, players, poll, every)
    return found


def compute(name: str, source: Any) -> str:
    if isinstance(source, Path):
        return _digest(replay(source))
    posts, players, poll, every = source
    return _digest(replay(_bench().generated_day(posts, poll=poll, every=every, players=players)))


@pytest.mark.parametrize("name", sorted(cases()))
def test_replay_output_is_byte_identical(name: str) -> None:
    want = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert name in want, f"no recorded digest for {name}: run python tests/test_replay_bytes.py"
    assert compute(name, cases()[name]) == want[name]


@pytest.mark.parametrize("name", sorted(path.name for path in data_dir("samples").glob("*.toml")))
def test_the_cli_streams_the_same_json(name: str) -> None:
    """`forumbot replay --json` prints each message as it goes out (nothing held): the same bytes."""
    out = CliRunner().invoke(cli, ["replay", "--json", str(data_dir("samples") / name)])
    assert out.exit_code == 0, out.output
    assert out.output.endswith("}\n")
    text = out.output[:-1]
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == json.loads(DIGESTS.read_text(encoding="utf-8"))[name]


if __name__ == "__main__":
    digests = {name: compute(name, source) for name, source in cases().items()}
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(digests)} digests written to {DIGESTS}\n")
