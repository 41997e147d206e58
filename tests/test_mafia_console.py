"""The host's warning from the console: `forumbot host` stores the command as the host's
PM, the bot reads it at its next poll, the ledger counts it and the player is told."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.games import get_game
from forumbot.storage import Store


def write_bot(tmp_path: Path) -> str:
    start = (datetime.now(UTC) - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    (tmp_path / "g.toml").write_text(
        f'[game]\nname = "mafia"\nruleset = "bodysnatchers"\nlang = "en"\nstart = "{start}"\nhost = "Host"\n'
        '[game.options]\nvotes_only = true\n'
        + "".join(f'[[players]]\nname = "{n}"\nforum = "{f}"\n'
                  for n, f in [("Alice", "MF"), ("Bob", "BB"), ("Carol", "MF"), ("Dave", "BB")]),
        encoding="utf-8")
    (tmp_path / "bot.toml").write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\n'
                                       'path = "local.db"\n[[games]]\nconfig = "g.toml"\nplatform = "local"\n',
                                       encoding="utf-8")
    return str(tmp_path / "bot.toml")


def test_8_1_a_warning_from_the_console_reaches_the_ledger_and_the_player(tmp_path: Path):
    bot = write_bot(tmp_path)
    assert CliRunner().invoke(cli, ["run", "--config", bot, "--once"]).exit_code == 0
    out = CliRunner().invoke(cli, ["host", "--config", bot, "--game", "g", "warn", "Alice", "rule", "8.2.4",
                                   "hinted", "at", "a", "check"])
    assert out.exit_code == 0, out.output
    assert CliRunner().invoke(cli, ["run", "--config", bot, "--once"]).exit_code == 0
    row = Store(str(tmp_path / "bot.db")).game("g")
    state = get_game("mafia").from_json(row.state)
    assert [(e["player"], e["forum"], e["rule"], e["points"], e["warning_points"]) for e in state.ledger] == \
        [("Alice", "MF", "8.2.4", 2, 1)]
    forum = sqlite3.connect(tmp_path / "local.db")
    tables = [r[0] for r in forum.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    pm_table = next(t for t in tables if "pm" in t)
    bodies = [str(r) for r in forum.execute(f"SELECT * FROM {pm_table}")]
    assert any("Alice" in b and "Warning 1" in b for b in bodies)
    assert any("Host" in b and "Ledger: Alice (MF)" in b for b in bodies)


def test_the_console_refuses_an_unknown_game(tmp_path: Path):
    out = CliRunner().invoke(cli, ["host", "--config", write_bot(tmp_path), "--game", "nope", "pause"])
    assert out.exit_code == 2 and "no game 'nope'" in out.output
