"""Activity: posts and words per player per phase, prods after a silence, the day's post minimum, and the
"Not voting" line with activity, in English and Russian."""

from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner
from helpers import act, kinds, names, new_game

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay
from forumbot.games.mafia import MAFIA
from forumbot.render.renderer import Renderer

P = names(5)


def game(**options):
    return new_game(5, votes_only=True, day_hours=24, **options).with_(host="Host")


def post(state, player, words, minutes):
    return MAFIA.note_post(state, player, words, state.phase_started + timedelta(minutes=minutes))


def test_posts_and_words_are_kept_per_phase():
    state = game()
    state = post(post(state, P[0], 12, 5), P[0], 3, 30)
    rows = {r["name"]: r for r in MAFIA.activity(state, state.phase_started + timedelta(hours=2))}
    assert rows[P[0]]["phases"] == {"day1": {"posts": 2, "words": 15}}
    assert rows[P[0]]["hours_since"] == 1.5 and rows[P[1]]["hours_since"] is None
    stored = MAFIA.from_json(MAFIA.to_json(state))
    assert stored.activity == state.activity


def test_prod_after_n_hours_without_a_post_once_per_silence():
    state = post(game(prod_hours=6), P[0], 5, 60)
    first = MAFIA.next_deadline(state)
    assert first == state.phase_started + timedelta(hours=6)          # the silent ones: from the day's start
    state, events = MAFIA.on_deadline(state, first)
    assert kinds(events) == ["prod"] * 4 and {e.data["pm_to"] for e in events} == set(P[1:])
    assert all(e.data["never"] for e in events)
    assert MAFIA.next_deadline(state) == state.phase_started + timedelta(hours=7)   # P01: 6 h after the post
    state, events = MAFIA.on_deadline(state, MAFIA.next_deadline(state))
    assert [e.data["pm_to"] for e in events] == [P[0]] and not events[0].data["never"]
    state = post(state, P[1], 2, 8 * 60)                               # P02 posts again: a new clock
    assert MAFIA.next_deadline(state) == state.phase_started + timedelta(hours=14)
    text = Renderer("markdown", "en").text(events[0])
    assert "You have not posted in the game for 6 hours" in text
    ru = Renderer("markdown", "ru").text(events[0])
    assert "Вы не писали в игре уже 6 ч." in ru


def test_no_prods_without_the_option():
    state = game()
    assert MAFIA.next_deadline(state) == state.phase_ends


def test_post_minimum_warns_and_flags_at_the_deadline():
    state = post(post(game(post_minimum=2), P[0], 5, 10), P[0], 5, 20)
    state = post(state, P[1], 5, 30)
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    short = [e.data for e in events if e.kind == "post_minimum"]
    assert [(d["name"], d["posts"]) for d in short] == [(P[1], 1), (P[2], 0), (P[3], 0), (P[4], 0)]
    assert "replace" in short[0]["flag"]
    assert [e["player"] for e in state.ledger] == P[1:] and all(e["rule"] == "post_minimum" for e in state.ledger)
    assert state.days[-1].result == "no_lynch" and state.phase == "night1"
    warned = [e for e in events if e.kind == "warning_pm" and e.data["pm_to"] == P[1]]
    assert warned and "1 of 2 posts on day 1" in Renderer("markdown", "en").text(warned[0])


def test_post_minimum_not_checked_on_an_early_end():
    state = game(post_minimum=3)
    for voter in P[:3]:
        state, events = act(state, voter, "vote", P[4])
    assert state.phase == "night1" and state.ledger == ()


def test_not_voting_line_with_activity_in_english_and_russian():
    state = post(game(activity_in_count=True), P[0], 40, 0)
    state = post(state, P[0], 4, 60)
    at = state.phase_started + timedelta(hours=4)
    event = MAFIA.tally(state, at)
    en = Renderer("markdown", "en").text(event)
    assert "Not voting (5): P01 (2 posts today, last 3 h ago), P02 (never posted)" in en
    ru = Renderer("markdown", "ru").text(event)
    assert "P01 (сегодня 2 сообщения, последнее 3 ч назад), P02 (сообщений ещё нет)" in ru
    plain = Renderer("markdown", "en").text(MAFIA.tally(game(), at))
    assert "Not voting (5): P01, P02, P03, P04, P05" in plain


def test_the_activity_sample_counts_words_without_quotes_and_status_shows_it(tmp_path):
    store = tmp_path / "store.db"
    result = replay(data_dir("samples") / "mafia-activity-en.toml", store_path=store)
    assert result.differences() == []
    rows = {r["name"]: r for r in result.state["activity"]}
    assert rows["Bob"]["phases"]["day1"] == {"posts": 1, "words": 2}   # the quote is Alice's words
    assert rows["Alice"]["phases"]["day1"]["posts"] == 2 and rows["Carol"]["last"] is None
    flags = [f["reason"] for f in result.flags]
    assert sum("replace them?" in f for f in flags) == 3
    result.close()
    status = CliRunner().invoke(cli, ["status", "--db", str(store)])
    assert status.exit_code == 0, status.output
    assert "activity (night1" in status.output and "Carol: 0/0; 0/0; never posted" in status.output


def test_the_console_game_page_shows_each_players_activity(tmp_path):
    from test_console import Bed, host_client, page

    bed = Bed(tmp_path)
    soup = page(host_client(bed))
    rows = {row["data-player"]: [td.get_text() for td in row.select("td")]
            for row in soup.select("#activity tr[data-player]")}
    assert rows["Alice"][:5] == ["Alice", "1", "2", "1", "2"]           # "vote Bob": one post, two words
    assert rows["Bob"][5] == "never posted"


@pytest.mark.parametrize(("lang", "flagged", "noted"), [
    ("ru", "написал 1 из 2 обязательных сообщений за День 1: предупреждение",
     "1 из 2 обязательных сообщений за День 1"),
    ("en", "made 1 of the 2 posts required on day 1: warned", "1 of 2 posts on day 1"),
])
def test_a_missed_post_minimum_is_flagged_and_noted_in_the_games_language(lang, flagged, noted):
    from forumbot.model import Flag

    state = post(post(game(post_minimum=2), P[0], 5, 10), P[0], 5, 20).with_(lang=lang)
    state = post(state, P[1], 5, 30)
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    short = next(e for e in events if e.kind == "post_minimum")
    flag = Flag(reason=short.data["flag"], code="flag_post_minimum",
                params=tuple((k, v) for k, v in short.data.items() if k != "flag"))
    assert flagged in Renderer("markdown", lang).flag(flag).reason
    assert state.ledger[0]["text"] == noted
