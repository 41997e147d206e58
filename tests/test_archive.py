"""The archive: finished games (roles, the days' results and final counts, the log) and each player's
record across games (games, wins by side, replacements, warnings), by `forumbot archive` and the web
forum's /archive pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.engine import archive as arch
from forumbot.engine.replay import replay
from forumbot.storage import Store
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebSettings

REPLACE = '''
[[posts]]
at = "2026-03-11T13:25:00Z"
author = "Ведущий"
pm = true
text = "замена Николь Кидман на kidman_sub"
'''


def played(folder: Path) -> Path:
    """The full Body Snatchers game, with its host replacing Николь Кидман by kidman_sub on the last day,
    and the ledger game, replayed into one store."""
    full = (data_dir("samples") / "bodysnatchers-full.toml").read_text(encoding="utf-8")
    at = full.index('[[posts]]\nat = "2026-03-11T14:00:00Z"')   # day 4, after Николь Кидман's final vote
    scenario = folder / "full-with-sub.toml"
    scenario.write_text(full[:at] + REPLACE.lstrip() + "\n" + full[at:], encoding="utf-8")
    # The ledger game a year later: one store reads the platform's posts and PMs in time order, once.
    ledger = folder / "bodysnatchers-ledger.toml"
    ledger.write_text((data_dir("samples") / "bodysnatchers-ledger.toml").read_text(encoding="utf-8")
                      .replace('"2026-', '"2027-'), encoding="utf-8")
    day = folder / "mafia-day-en.toml"
    day.write_text((data_dir("samples") / "mafia-day-en.toml").read_text(encoding="utf-8")
                   .replace('"2026-', '"2028-'), encoding="utf-8")
    store = folder / "bot.db"
    for source in (scenario, ledger, day):
        result = replay(source, store_path=store, forum_path=folder / "forum.db")   # one forum, one store
        assert result.differences() == [], (source, result.differences())
        result.close()
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return played(tmp_path_factory.mktemp("archive"))


def test_finished_games_only_with_roles_days_and_counts(store):
    records = {r.name: r for r in arch.finished(Store(store))}
    assert sorted(records) == ["bodysnatchers-ledger", "full-with-sub"]        # the day-only game is not over
    full = records["full-with-sub"]
    assert full.winner == "town" and len(full.players) == 12 and [d["day"] for d in full.days] == [1, 2, 3, 4]
    kidman = next(p for p in full.players if p["name"] == "Николь Кидман")
    assert [h["account"] for h in kidman["accounts"]] == ["Николь Кидман", "kidman_sub"] and kidman["won"]
    assert full.counts[2]["wagons"][0]["target"] == "Том Хэнкс"                 # day 2's final count


def test_a_players_record_across_games(store):
    records = arch.finished(Store(store))
    keanu = arch.player(records, "Киану Ривз").to_json()
    assert len(keanu["games"]) == 2 and keanu["played"] == {"town": 2} and keanu["wins"] == {"town": 2}
    sub = arch.player(records, "kidman_sub").to_json()
    assert sub["replacements"] == 1 and sub["wins"] == {"town": 1}
    kidman = arch.player(records, "николь кидман").to_json()          # names compared as a reader sees them
    assert kidman["replaced"] == 1 and kidman["wins"] == {"town": 1}      # won only the ledger game
    assert keanu["warnings"] == 1                                        # the ledger game's 8.2.7
    hanks = arch.player(records, "Том Хэнкс").to_json()
    assert hanks["played"] == {"mafia": 2} and hanks["wins"] == {} and hanks["warnings"] == 0


def test_forumbot_archive_lists_games_a_game_and_a_player(store):
    runner = CliRunner()
    listing = runner.invoke(cli, ["archive", "--db", str(store)])
    assert listing.exit_code == 0, listing.output
    assert "full-with-sub (mafia): won by town; 12 players, 4 days" in listing.output
    game = runner.invoke(cli, ["archive", "--db", str(store), "full-with-sub", "--log"])
    assert "Николь Кидман: Массажист (town), alive, won; played by Николь Кидман → kidman_sub" in game.output
    assert "day 2: lynch (Том Хэнкс)" in game.output and "game_over" in game.output
    person = runner.invoke(cli, ["archive", "--db", str(store), "--player", "kidman_sub", "--json"])
    assert json.loads(person.output)["replacements"] == 1
    missing = runner.invoke(cli, ["archive", "--db", str(store), "no-such-game"])
    assert missing.exit_code == 2 and "finished games: " in missing.output


def test_the_archive_pages(store, tmp_path):
    forum = tmp_path / "forum.db"
    app = create_app(WebSettings(str(forum), WebConfig(), store=str(store)))
    client = app.test_client()
    index = client.get("/archive/").get_data(as_text=True)
    assert "full-with-sub" in index and "bodysnatchers-ledger" in index and "mafia-day-en" not in index
    page = client.get("/archive/game/full-with-sub").get_data(as_text=True)
    assert "Массажист" in page and "kidman_sub" in page and "Day 4" in page and "The log" in page
    assert client.get("/archive/game/mafia-day-en").status_code == 404
    person = client.get("/archive/player/kidman_sub").get_data(as_text=True)
    assert "Came in as a replacement: 1" in person
    assert client.get("/archive/player/nobody-at-all").status_code == 404
