"""Every sample scenario replays to its [expect]; the replay JSON has the documented shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay

SAMPLES = sorted(data_dir("samples").glob("*.toml"))


def test_there_are_samples():
    assert len(SAMPLES) >= 5


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_replays_to_its_expected_result(path: Path):
    result = replay(path)
    assert result.scenario.expect, f"{path.name} has no [expect]"
    assert result.differences() == []


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_replay_is_deterministic(path: Path):
    assert replay(path).to_json() == replay(path).to_json()


def test_replay_json_shape():
    out = CliRunner().invoke(cli, ["replay", "--json", str(data_dir("samples") / "mafia-day-ru.toml")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) >= {"messages", "flags", "state"}
    kinds = [m["kind"] for m in data["messages"]]
    assert kinds[0] == "phase_start" and "vote_count" in kinds and "day_end" in kinds
    for message in data["messages"]:
        assert {"at", "text"} <= set(message) and ("thread" in message or "pm" in message)
    assert data["flags"] == [  # the vote posted in the game thread is not counted, but the host hears of it
        {"post": data["flags"][0]["post"], "author": "Николь Кидман",
         "reason": "голос в теме «game» не считается; голоса считаются в: votes", "at": "2026-03-02T21:30:00Z"},
        {"post": data["flags"][1]["post"], "author": "Скарлетт Йоханссон",
         "reason": "«Джокера» — нет такого игрока", "at": "2026-03-03T10:00:00Z"}]
    state = data["state"]
    assert state["phase"] == "night1" and "Том Хэнкс" not in state["alive"]
    assert state["dead"] == [{"name": "Том Хэнкс", "phase": "day1", "cause": "lynch"}]
    day = state["days"][0]
    assert day["tally"]["Том Хэнкс"] == 7 and day["ended"] == "early"
    assert {"votes", "not_voting", "no_lynch_used"} <= set(state)


def test_vote_counts_follow_the_votes():
    result = replay(data_dir("samples") / "mafia-day-ru.toml")
    counts = [m for m in result.messages if m["kind"] == "vote_count"]
    assert counts[0]["text"].count("Мэрил Стрип") == 1 and "(1/7, L-6)" in counts[0]["text"]
    numbers = [int(m["text"].split("#")[1].split("*")[0]) for m in counts]
    assert numbers == list(range(1, len(counts) + 1))
    end = [m for m in result.messages if m["kind"] == "day_end"][0]
    assert "Том Хэнкс" in end["text"] and "(7 / 7)" in end["text"]


def test_bbcode_game_posts_bbcode():
    result = replay(data_dir("samples") / "mafia-day-en.toml")
    count = next(m for m in result.messages if m["kind"] == "vote_count")
    assert "[b]" in count["text"] and "[list]" in count["text"] and "**" not in count["text"]
    assert any("'Jo' matches Joanna, Joe" in f["reason"] for f in result.flags)
    assert any("after the day's deadline" in f["reason"] or "votes count only during the day" in f["reason"]
               for f in result.flags)
