"""The archive: finished games (roles, the days' results and final counts, the log) and each player's
record across games (games, wins by side, replacements, warnings), by `forumbot archive` and the web
forum's /archive pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
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


def test_the_log_gives_each_events_message_in_the_games_language(store):
    log = arch.game_log(Store(store), "full-with-sub")
    assert log and all(e["text"] for e in log) and not any(e["kind"] == "vote" for e in log)
    start = log[0]
    assert start["kind"] == "phase_start" and start["thread"] == "full-with-sub/game"
    assert start["text"].startswith("**Наступает Ночь 0**")        # as it went out, in the platform's markup
    # an acknowledgement gathered into one reply: rendered again, in Russian, to whom it went
    ack = next(e for e in log if e["kind"] == "note_ack" and e["pm_to"] == "Ведущий")
    assert ack["text"].startswith("Записка №1 Ночи 0 от Анджелины Джоли")
    english = arch.game_log(Store(store), "mafia-day-en")
    assert english[0]["text"].startswith("[b]Day 1 begins[/b]")
    flags = [e for e in arch.game_log(Store(store), "bodysnatchers-ledger") if e["flag"]]
    assert flags and flags[0]["text"].startswith("8.2.1? Киану Ривз")


def test_forumbot_archive_lists_games_a_game_and_a_player(store):
    runner = CliRunner()
    listing = runner.invoke(cli, ["archive", "--db", str(store)])
    assert listing.exit_code == 0, listing.output
    assert "full-with-sub (mafia): won by town; 12 players, 4 days" in listing.output
    game = runner.invoke(cli, ["archive", "--db", str(store), "full-with-sub", "--log"])
    assert "Николь Кидман: Массажист (town), alive, won; played by Николь Кидман → kidman_sub" in game.output
    assert "day 2: lynch (Том Хэнкс)" in game.output and "game_over" in game.output
    # the log: each event's message as it went out, in the game's language, and where it went
    assert "phase_start → full-with-sub/game" in game.output and "Наступает Ночь 0" in game.output
    assert "action_ack → PM to Джонни Депп" in game.output and "Принято НД на Ночь 0: убийство — Мэрил Стрип" \
        in game.output
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
    assert "Принято НД на Ночь 0: убийство — Мэрил Стрип" in page and "PM to Джонни Депп" in page
    assert ">action_ack<" not in page
    assert client.get("/archive/game/mafia-day-en").status_code == 404
    person = client.get("/archive/player/kidman_sub").get_data(as_text=True)
    assert "Came in as a replacement: 1" in person
    assert client.get("/archive/player/nobody-at-all").status_code == 404


@pytest.mark.parametrize(("lang", "said", "never"), [
    ("en", ["Won by: town", "hanged, Day 2", "killed at night, Night 0", "ended at its deadline",
            "ended early, by a majority"], []),
    ("ru", ["Победа: город", "казнь, День 2", "ночное убийство, Ночь 0", "окончен в срок",
            "окончен досрочно, большинством"], ["town", "lynch", "deadline", "early"]),
])
def test_the_archive_names_sides_fates_and_day_ends_in_words(store, tmp_path, lang, said, never):
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(lang=lang), store=str(store)))
    page = app.test_client().get("/archive/game/full-with-sub").get_data(as_text=True)
    shown = " ".join(BeautifulSoup(page, "html.parser").select_one("main, body").get_text(" ").split())
    for words in said:
        assert words in shown, words
    for word in never:
        assert f" {word} " not in f" {shown} " and f"{word}," not in shown, word


# ---- tournaments --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """The liar-cup tournament sample played to its end (masks revealed with the host's approval)."""
    from forumbot.engine.tournament_replay import replay_tournament

    path = tmp_path_factory.mktemp("cup") / "bot.db"
    done = replay_tournament(data_dir("samples") / "tournaments" / "liar-cup.toml", store_path=path)
    done.store.close()
    return path


def test_a_players_record_includes_their_tournaments(cup):
    cups = arch.tournaments(Store(cup))
    [liar] = cups
    assert liar.finished and liar.revealed and liar.games == ["cyoa", "main-1", "main-2"]
    # the table worked by hand in tests/test_tournament_run.py: Dee, Ben and Cal (equal), Eve, Ana
    assert [(r["mask"], r["place"]) for r in liar.table] == [("Dee", 1), ("Ben", 2), ("Cal", 2), ("Eve", 4),
                                                              ("Ana", 5)]
    dee = arch.player([], "deedee", cups).to_json()
    assert dee["tournament_wins"] == 1
    [entry] = dee["tournaments"]
    assert (entry["mask"], entry["place"], entry["of"], entry["tol"], entry["ec"]) == ("Dee", 1, 5, 2, 1)
    eve = arch.player([], "evelyn", cups).to_json()
    assert eve["tournaments"][0]["garnets"] == 1 and eve["tournament_wins"] == 0
    assert arch.player([], "Dee", cups) is None          # once revealed, a mask's record is its player's


def test_before_the_reveal_a_tournament_counts_for_the_mask(cup, tmp_path):
    import shutil

    store = Store(shutil.copy(cup, tmp_path / "bot.db"))
    with store.db.conn:
        store.db.conn.execute("DELETE FROM tournament_log WHERE kind = 'reveal_approved'")
    cups = arch.tournaments(store)
    assert not cups[0].revealed and all(r["player"] == "" for r in cups[0].table)
    assert arch.player([], "deedee", cups) is None
    assert arch.player([], "Dee", cups).to_json()["tournaments"][0]["place"] == 1


def test_forumbot_archive_and_the_player_page_show_tournaments(cup, tmp_path):
    runner = CliRunner()
    listing = runner.invoke(cli, ["archive", "--db", str(cup)])
    assert "liar-cup: finished; 3 games, 5 players; first place: deedee" in listing.output, listing.output
    person = runner.invoke(cli, ["archive", "--db", str(cup), "--player", "deedee"])
    assert person.exit_code == 0, person.output
    assert "Tournaments: 1; won 1" in person.output
    assert "liar-cup (as Dee): place 1 of 5; Tokens of Life 2, garnets 0, Elimination Candidate 1" in person.output
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(), store=str(cup)))
    page = app.test_client().get("/archive/player/calla").get_data(as_text=True)
    assert 'data-tournament="liar-cup"' in page and "2 of 5" in page and "Tokens of Life" in page
    russian = create_app(WebSettings(str(tmp_path / "forum-ru.db"), WebConfig(lang="ru"), store=str(cup)))
    page = russian.test_client().get("/archive/player/calla").get_data(as_text=True)
    assert "Турниры" in page and "2 из 5" in page and "Жетоны Жизни" in page
    assert "deedee" in app.test_client().get("/archive/").get_data(as_text=True)


def test_a_finished_games_console_shows_its_log_as_it_was_said(store, tmp_path):
    """The console's "whole log" of a finished game is the messages as they went out, like the archive's."""
    import re

    from forumbot.web.accounts import hash_password
    from forumbot.web.config import WebGame

    game = WebGame("full-with-sub", {"votes": "full-with-sub/votes", "game": "full-with-sub/game"}, "Ведущий",
                   lang="ru")
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(hosts={"Ведущий": hash_password("x" * 12)}),
                                 games=(game,), store=str(store), game_hosts={"full-with-sub": "Ведущий"}))
    client = app.test_client()
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/signin").get_data(as_text=True)).group(1)
    signed = client.post("/console/signin", data={"name": "Ведущий", "password": "x" * 12, "csrf": token})
    assert signed.status_code == 302
    page = BeautifulSoup(client.get("/console/g/full-with-sub").get_data(as_text=True), "html.parser")
    log = page.select_one("#history")
    assert log is not None
    said = log.get_text(" ")
    assert "Принято НД на Ночь 0: убийство — Мэрил Стрип" in said
    assert "action_ack" not in said and '{"' not in said
