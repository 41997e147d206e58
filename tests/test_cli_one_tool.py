"""The command line as one tool: every command that reads a store takes --config or --db, success says so,
unknown names get "did you mean", hints print commands that run, the README lists every command, `status`
says deadlines as people read them, and add-user warns of a name no game seats."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import COMMANDS, cli
from forumbot.cli.common import command
from forumbot.config.paths import data_dir

README = Path(__file__).resolve().parents[1] / "README.md"
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin)


@pytest.fixture()
def bot(tmp_path):
    """A bot config with one game, run once: its store exists."""
    (tmp_path / "g.toml").write_text(
        '[game]\nname = "mafia"\nruleset = "classic"\nstart = "2026-03-01T20:00:00Z"\nhost = "Host"\n'
        '[game.options]\nday_hours = 1.5\n'
        + "".join(f'[[players]]\nname = "{p}"\nrole = "{r}"\n' for p, r in
                  zip(PLAYERS, ["mafia", "townsfolk", "townsfolk", "townsfolk", "doctor"], strict=True)),
        encoding="utf-8")
    (tmp_path / "bot.toml").write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\n'
                                       'path = "forum.db"\n[[games]]\nconfig = "g.toml"\n', encoding="utf-8")
    ran = invoke("run", "--config", str(tmp_path / "bot.toml"), "--simulate-from", "2026-03-01T20:00:00Z",
                 "--until", "2026-03-01T20:10:00Z", "--in-place")
    assert ran.exit_code == 0, ran.output + ran.stderr
    return tmp_path


@pytest.mark.parametrize("name", ["status", "flags", "tally", "tournament"])
def test_every_command_that_reads_a_store_takes_config_or_db(name):
    out = invoke(name, "--help")
    assert "--config" in out.output and "--db" in out.output


def test_tally_takes_the_bot_config_as_status_does(bot):
    by_config = invoke("tally", "--config", str(bot / "bot.toml"))
    by_db = invoke("tally", "--db", str(bot / "bot.db"))
    assert by_config.exit_code == 0, by_config.stderr
    assert by_config.stdout == by_db.stdout and "Alice" in by_config.stdout
    both = invoke("tally", "--config", str(bot / "bot.toml"), "--db", str(bot / "bot.db"))
    assert both.exit_code == 2 and "pass one of them" in both.stderr


def test_status_says_the_deadline_and_the_time_to_go(bot):
    out = invoke("status", "--config", str(bot / "bot.toml"))
    # day_hours = 1.5: the day ends at 21:30 (the simulation's clock is not the wall clock: "due now")
    assert re.search(r"g \(mafia\): day1, ends 2026-03-01T21:30:00Z \((due now|in [^)]+)\)", out.output), out.output
    assert "ends -" not in out.output


def test_status_says_a_finished_game_is_over_and_who_won(bot):
    from datetime import UTC, datetime

    from forumbot.platforms.local import LocalForum

    forum = LocalForum(bot / "forum.db")
    for voter in ("Bob", "Carol", "Dave"):
        forum.add_post("g/votes", voter, "vote Alice", at=datetime(2026, 3, 1, 20, 12, tzinfo=UTC))
    ran = invoke("run", "--config", str(bot / "bot.toml"), "--simulate-from", "2026-03-01T20:10:00Z",
                 "--until", "2026-03-01T20:20:00Z", "--in-place")
    assert ran.exit_code == 0
    out = invoke("status", "--db", str(bot / "bot.db"))
    assert "g (mafia): over (won by town);" in out.output and "over, ends" not in out.output


def test_replay_check_says_so_on_success():
    out = invoke("replay", str(data_dir("samples") / "mafia-day-en.toml"), "--check")
    assert out.exit_code == 0 and "ok: " in out.output and "reached its [expect]" in out.output


@pytest.mark.parametrize(("args", "said"), [
    (["parse", "--game", "mafai"], "did you mean 'mafia'?"),
])
def test_unknown_names_get_did_you_mean(tmp_path, args, said):
    (tmp_path / "roster.txt").write_text("Bob\n", encoding="utf-8")
    out = invoke(*args, "--roster", str(tmp_path / "roster.txt"), stdin="vote Bob")
    assert out.exit_code == 2 and said in out.stderr


def test_an_unknown_game_in_the_store_gets_did_you_mean(bot):
    out = invoke("tally", "--db", str(bot / "bot.db"), "--game", "gg")
    assert out.exit_code == 2 and "did you mean --game g?" in out.stderr


def test_hints_name_a_forumbot_that_runs():
    hint = command()
    assert hint == "forumbot" and shutil.which("forumbot") or Path(hint).exists()


def test_the_readme_lists_every_command():
    table = README.read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `forumbot ([a-z-]+)", table, flags=re.M))
    assert listed == set(COMMANDS), set(COMMANDS) ^ listed


def test_an_account_in_no_roster_is_made_with_a_warning(bot):
    config = bot / "bot.toml"
    config.write_text(config.read_text(encoding="utf-8") + '[web]\nlisten = "127.0.0.1:8098"\n', encoding="utf-8")
    out = invoke("forum", "add-user", "--config", str(config), "Alice", "Alcie")
    assert out.exit_code == 0
    assert [line.split("\t")[0] for line in out.stdout.splitlines()[:2]] == ["Alice", "Alcie"]
    assert "warning: Alcie is in no game's roster" in out.stderr and "Alice is" not in out.stderr


@pytest.mark.parametrize(("options", "page"), [
    ("forumbot.games.mafia.options:MafiaOptions", "mafia"),
    ("forumbot.games.infiltration.options:InfiltrationOptions", "infiltration"),
    ("forumbot.games.foodchain.options:FoodChainOptions", "foodchain"),
    ("forumbot.games.rankedvote.options:RankedVoteOptions", "foodchain"),
    ("forumbot.games.nisemonogatari.options:NisemonoOptions", "nisemonogatari"),
])
def test_every_option_the_code_accepts_is_documented(options, page):
    import dataclasses
    import importlib

    module, name = options.split(":")
    fields = [f.name for f in dataclasses.fields(getattr(importlib.import_module(module), name))]
    doc = (README.parent / "docs" / "games" / f"{page}.md").read_text(encoding="utf-8")
    assert [f for f in fields if f"`{f}`" not in doc] == []


def test_fractional_day_hours_are_documented():
    doc = (README.parent / "docs" / "games" / "mafia.md").read_text(encoding="utf-8")
    assert "`day_hours`, `night_hours` | 48, 24 | phase lengths in hours; fractions too" in doc
