"""The tournament ledger: Tokens of Life, garnets and Elimination Candidates kept across games in the
store; games award through it when they end; a charge below zero is refused; `forumbot tournament`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay
from forumbot.errors import IllegalIntent
from forumbot.games.tournament import Entry, charge, standings, standings_event
from forumbot.render import Renderer
from forumbot.storage import Store

SAMPLE = data_dir("samples") / "foodchain-game.toml"


def test_standings_add_up_every_game_most_tokens_then_most_garnets_first():
    entries = [Entry("Lou", tol=1, garnets=3), Entry("Max", tol=1, garnets=3), Entry("Fay", garnets=2),
               Entry("Cal", ec=1), Entry("Fay", tol=2, garnets=1), Entry("Max", garnets=-2)]
    assert [s.to_json() for s in standings(entries)] == [
        {"player": "Fay", "tol": 2, "garnets": 3, "ec": 0}, {"player": "Lou", "tol": 1, "garnets": 3, "ec": 0},
        {"player": "Max", "tol": 1, "garnets": 1, "ec": 0}, {"player": "Cal", "tol": 0, "garnets": 0, "ec": 1}]


def test_a_charge_that_would_go_below_zero_is_refused_with_the_reason():
    entries = [Entry("Lou", tol=1, garnets=3)]
    assert charge(entries, "Lou", garnets=3, reason="Nisemonogatari") == Entry("Lou", garnets=-3,
                                                                               reason="Nisemonogatari")
    with pytest.raises(IllegalIntent, match="Lou has 3 garnets and cannot pay 4"):
        charge(entries, "Lou", garnets=4)
    with pytest.raises(IllegalIntent, match="Nobody has 0 Token"):
        charge(entries, "Nobody", tol=1)


def test_the_store_records_a_games_entries_once():
    store = Store()
    entries = [Entry("Lou", tol=1, garnets=3), Entry("Cal", ec=1)]
    assert store.record_ledger("t", "fc-1", entries) == 2
    assert store.record_ledger("t", "fc-1", entries) == 0
    store.record_ledger("t", "other", [Entry("Lou", garnets=1)])
    store.record_ledger("elsewhere", "x", [Entry("Lou", garnets=100)])
    assert [(r["game"], r["player"], r["garnets"]) for r in store.ledger("t")] == [
        ("fc-1", "Lou", 3), ("fc-1", "Cal", 0), ("other", "Lou", 1)]
    assert store.tournaments() == ["elsewhere", "t"]


def test_a_finished_food_chain_game_awards_through_its_tournament(tmp_path):
    db = tmp_path / "bot.db"
    result = replay(SAMPLE, store_path=db)
    rows = result.store.ledger("liar-game")
    assert [(r["player"], r["tol"], r["garnets"], r["ec"]) for r in rows] == [
        ("Cal", 0, 0, 1), ("Fay", 0, 2, 0), ("Lou", 1, 3, 0), ("Max", 1, 3, 0)]
    result.store.close()
    out = CliRunner().invoke(cli, ["tournament", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "1. Lou: 1 Token of Life, 3 garnets" in out.output and "Cal: 0 Tokens of Life, 0 garnets, Elimination" \
        in out.output and "After 1 game: foodchain-game." in out.output
    data = json.loads(CliRunner().invoke(cli, ["tournament", "liar-game", "--db", str(db), "--json"]).output)
    assert data["standings"][0] == {"player": "Lou", "tol": 1, "garnets": 3, "ec": 0}
    missing = CliRunner().invoke(cli, ["tournament", "nope", "--db", str(db)])
    assert missing.exit_code == 2 and "liar-game" in missing.output


def test_the_standings_post_in_bbcode():
    event = standings_event("t", [{"game": "g", "player": "A[b]", "tol": 2, "garnets": 1, "ec": 0}])
    text = Renderer("bbcode").text(event)
    assert text.startswith("[b]Standings: t[/b]") and "A[\u200bb\u200b]: 2 Tokens of Life, 1 garnet" in text


def test_games_belong_to_a_tournament_named_in_the_bot_config_or_the_game_file(tmp_path):
    from forumbot.config.bot import load_bot_config

    game = tmp_path / "fc.toml"
    game.write_text(SAMPLE.read_text(encoding="utf-8").split("# ---- selection")[0], encoding="utf-8")
    (tmp_path / "bot.toml").write_text(
        '[platforms.local]\nkind = "local"\npath = "forum.db"\n'
        '[[games]]\nconfig = "fc.toml"\nplatform = "local"\n'
        '[[games]]\nconfig = "fc.toml"\nplatform = "local"\nname = "fc-2"\ntournament = "other"\n', encoding="utf-8")
    first, second = load_bot_config(tmp_path / "bot.toml").games
    assert first.config.tournament == "liar-game" and second.config.tournament == "other"


def test_tally_shows_a_games_own_template_for_the_host(tmp_path):
    db = tmp_path / "bot.db"
    replay(data_dir("samples") / "cyoa-vote.toml", store_path=db).store.close()
    out = CliRunner().invoke(cli, ["tally", "--db", str(db), "--dialect", "bbcode"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("[b]The result: Food Chain[/b]") and "(no vote sent: default order)" in out.output
