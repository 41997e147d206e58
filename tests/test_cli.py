"""The command line as a host uses it: every command, its --help, and errors that name file, line, fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.paths import data_dir

SAMPLE = data_dir("samples") / "mafia-day-ru.toml"

MINI = """\
[game]
name = "mafia"
lang = "en"
start = "2026-05-01T18:00:00Z"

[game.options]
day_hours = 24

[[players]]
name = "Alice"
[[players]]
name = "Bob"
[[players]]
name = "Carol"

[[posts]]
at = "2026-05-01T18:05:00Z"
author = "Alice"
thread = "votes"
text = "##vote Bob"

[run]
until = "2026-05-01T20:00:00Z"
"""


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin)


@pytest.mark.parametrize("command", ["demo", "replay", "parse", "tally", "check-config"])
def test_every_command_has_help(command):
    out = invoke(command, "--help")
    assert out.exit_code == 0 and "Usage:" in out.output


def roster(tmp_path: Path, text: str) -> str:
    path = tmp_path / "roster.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_parse_russian_post(tmp_path):
    path = roster(tmp_path, "Том Хэнкс | Томми\nМэрил Стрип\n# a comment\n\nДжонни Депп\n")
    out = invoke("parse", "--game", "mafia", "--lang", "ru", "--roster", path, "--dialect", "markdown",
                 stdin="> Против Деппа\n\nГолосую против Тома Хэнкса\nОкончательно против Стрип")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [(i["kind"], i["target"], i.get("final", False)) for i in data["intents"]] == [
        ("vote", "Том Хэнкс", False), ("vote", "Мэрил Стрип", True)]
    assert data["flags"] == []


def test_parse_flags_an_ambiguous_name(tmp_path):
    path = roster(tmp_path, "Joanna\nJoe\nAlice\n")
    out = invoke("parse", "--roster", path, stdin="##vote Jo")
    data = json.loads(out.output)
    assert data["intents"][0]["target"] is None
    assert data["flags"][0]["reason"] == "'Jo' matches Joanna and Joe"
    assert data["flags"][0]["candidates"] == ["Joanna", "Joe"]


def test_parse_bad_roster_names_the_line(tmp_path):
    path = roster(tmp_path, "Alice\nBob | | Bobby\n")
    out = invoke("parse", "--roster", path, stdin="vote Alice")
    assert out.exit_code == 2
    assert f"{path}:2:" in out.output and "fix:" in out.output


def test_parse_unknown_language_says_which_exist(tmp_path):
    out = invoke("parse", "--lang", "de", "--roster", roster(tmp_path, "Alice\n"), stdin="vote Alice")
    assert out.exit_code == 2 and "mafia.en.toml" in out.output and "mafia.ru.toml" in out.output


def test_replay_check_passes_on_a_sample():
    out = invoke("replay", "--check", str(SAMPLE))
    assert out.exit_code == 0, out.output
    assert "Подсчёт голосов #1" in out.output


def test_replay_check_fails_when_expectations_differ(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(MINI + '\n[expect]\nphase = "night1"\n', encoding="utf-8")
    out = invoke("replay", "--check", str(path))
    assert out.exit_code == 1 and "expect: phase: expected 'night1', got 'day1'" in out.output


@pytest.mark.parametrize("broken,line,needle", [
    (MINI.replace('text = "##vote Bob"', 'txt = "##vote Bob"'), 20, "unknown key 'txt'"),
    (MINI.replace('start = "2026-05-01T18:00:00Z"', 'start = "tomorrow"'), 4, "is not a time"),
    (MINI.replace("day_hours = 24", "day_hour = 24"), 7, "unknown Mafia option 'day_hour'"),
    (MINI.replace('lang = "en"', 'lang = "en'), 3, "not valid TOML"),
    (MINI.replace('thread = "votes"\n', ""), 16, "needs thread"),
])
def test_broken_scenarios_name_file_line_and_fix(tmp_path, broken, line, needle):
    path = tmp_path / "broken.toml"
    path.write_text(broken, encoding="utf-8")
    for command in (["replay"], ["check-config"]):
        out = invoke(*command, str(path))
        assert out.exit_code == 2, out.output
        assert f"{path}:{line}:" in out.output and needle in out.output and "Traceback" not in out.output
        assert "fix:" in out.output or "did you mean" in out.output


def test_check_config_accepts_every_sample():
    out = invoke("check-config", *map(str, sorted(data_dir("samples").glob("*.toml"))))
    assert out.exit_code == 0, out.output
    assert out.output.count("ok:") == len(list(data_dir("samples").glob("*.toml")))


def test_demo_then_tally(tmp_path):
    scenario = tmp_path / "mini.toml"
    scenario.write_text(MINI, encoding="utf-8")
    folder = tmp_path / "demo"
    out = invoke("demo", "--scenario", str(scenario), "--dir", str(folder))
    assert out.exit_code == 0, out.output
    assert "Alice in #votes" in out.output and "forumbot in #votes (vote_count)" in out.output
    out = invoke("tally", "--db", str(folder / "forumbot.db"))
    assert out.exit_code == 0, out.output
    assert "**Bob** (1/2, L-1)" in out.output and "Not voting (2): Bob, Carol" in out.output
    out = invoke("tally", "--db", str(folder / "forumbot.db"), "--json")
    assert json.loads(out.output)["votes"] == {"Bob": ["Alice"]}


def test_tally_after_the_sample_day_shows_how_the_day_ended(tmp_path):
    folder = tmp_path / "demo"
    assert invoke("demo", "--dir", str(folder)).exit_code == 0
    out = invoke("tally", "--db", str(folder / "forumbot.db"))   # the demo ends in night 1: no count running
    assert out.exit_code == 0, out.output
    assert "no day is running (night1); the last day ended with" in out.output
    assert "Повешен: Том Хэнкс" in out.output and "Итоговые голоса" in out.output


def test_tally_without_a_store_says_what_to_do(tmp_path):
    out = invoke("tally", "--db", str(tmp_path / "none.db"))
    assert out.exit_code == 2 and "no store here" in out.output and "fix:" in out.output


def test_demo_plays_the_sample_day(tmp_path):
    out = invoke("demo", "--dir", str(tmp_path / "d"))
    assert out.exit_code == 0, out.output
    assert "День 1 окончен" in out.output and "Повешен: Том Хэнкс" in out.output
    assert "flag: Скарлетт Йоханссон: «Джокера» — нет такого игрока" in out.output
