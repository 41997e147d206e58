"""Seed 002's ledger rules as a tournament sees them: a violation charged with or without a warning (8.1,
8.2.5), the modkilled member's deduction in the best-player vote computed as documented (section 9,
`best_player_modkill_votes`), and the best-player places in the tournament's table."""

from __future__ import annotations

from test_mafia_signup import BS, ballot, mafia, over, refused, say, town, with_forums

from forumbot.games.mafia import MAFIA, bestplayer, ledger
from forumbot.games.mafia.state import Death
from forumbot.games.tournament import standings, standings_event
from forumbot.render import Renderer
from forumbot.storage import Store


def test_8_2_5_a_violation_charged_without_a_warning_costs_its_points_and_counts_no_warning():
    state, events = say(with_forums(), "Host", "penalty", target="Tom Hanks", rule="8.2.5", text="leaned on the host")
    entry = state.ledger[-1]
    assert (entry["rule"], entry["points"], entry["warning"], entry["warning_points"], entry["excluded"]) == \
        ("8.2.5", 1, 0, 0, False)
    notice = next(e for e in events if e.data.get("pm_to") == "Tom Hanks")
    assert notice.data["total"] == 1                                     # the player is told the points
    assert ledger.forum_totals(state) == {state.forums["Tom Hanks"]: 1}
    # the next warning is still the first: 1 warning point, not 6
    state, _ = say(state, "Host", "warn", target="Tom Hanks", rule="8.2.4")
    assert (state.ledger[-1]["warning"], state.ledger[-1]["warning_points"]) == (1, 1)
    assert refused(say(state, "Brad Pitt", "penalty", target="Tom Hanks", rule="8.2.5")[1]) == ["host_only"]


def test_three_penalties_without_warnings_exclude_nobody():
    state = with_forums()
    for rule in ("8.2.5", "8.2.5", "8.2.10"):
        state, _ = say(state, "Host", "penalty", target="Tom Hanks", rule=rule)
    assert "Tom Hanks" in state.alive and ledger.player_totals(state) == {"Tom Hanks": 3}


def test_the_tournament_table_counts_warnings_apart_from_penalties():
    state, _ = say(with_forums(), "Host", "penalty", target="Tom Hanks", rule="8.2.5")
    state, _ = say(state, "Host", "warn", target="Tom Hanks", rule="8.2.4")
    entries = MAFIA.ledger_entries(state)
    assert [(e.penalty, e.warning) for e in entries] == [(1, 0), (3, 1)]
    assert standings_event("cup", [{**e.to_json(), "game": "g"} for e in entries]).data["warnings"] == {"Tom Hanks": 1}


def _modkilled_game(votes: int):
    state = over(forums={})
    t = town(state)
    gone = t[5]
    options = state.options.__class__.from_dict({**BS, "best_player_modkill_votes": votes})
    state = state.with_(dead=(*state.dead, Death(gone, "day1", "modkill")), forums={t[0]: "MF", gone: "MF"},
                        options=options)
    for voter in state.players:
        if voter != gone:
            state, _ = ballot(state, voter, *[p for p in t if p != voter][:2])
    return state, t


def test_9_the_modkilled_members_deduction_is_the_option_the_ruleset_documents():
    assert BS["best_player_modkill_votes"] == 1        # our reading, written in the ruleset file
    for votes in (1, 2):
        state, t = _modkilled_game(votes)
        result = bestplayer.totals(state)
        assert result["deductions"]["MF"] == votes
        assert result["totals"][t[0]] == max(result["raw"][t[0]] - votes, 0)


def test_9_best_player_places_go_into_the_tournaments_table():
    state = over(forums={})
    t, m = town(state), mafia(state)
    state = state.with_(forums={t[0]: "MF", t[1]: "BB", m[0]: "KF"})
    for voter in state.players:
        others = [p for p in (t[0], t[1], t[2]) if p != voter][:2]
        loser = [m[0]] if voter != m[0] else []
        state, events = ballot(state, voter, *others, *loser)
        assert events[0].kind == "ballot_ack", events
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    places = [(e.player, e.place, e.forum) for e in MAFIA.ledger_entries(state) if e.place]
    result = state.best["result"]
    assert [p["player"] for p in result["places"]][:1] == [places[0][0]]
    assert [p for _, p, _ in places] == bestplayer.place_numbers(result["places"])
    assert (m[0], 3, "KF") in places and places[0][1] == 1
    table = {s.player: s.places for s in standings(MAFIA.ledger_entries(state))}
    assert table[m[0]] == (3,)
    store = Store()
    store.record_ledger("cup", "mafia-1", MAFIA.ledger_entries(state))
    event = standings_event("cup", store.ledger("cup"))
    assert {"forum": "KF", "first": 0, "second": 0, "third": 1} in event.data["places"]
    assert "best-player places: 3" in Renderer("markdown").text(event)


def test_place_numbers_share_a_sides_last_place_on_a_tie():
    sides = [{"side": "win"}, {"side": "win"}, {"side": "win"}, {"side": "lose"}]
    assert bestplayer.place_numbers(sides) == [1, 2, 2, 3]
    assert bestplayer.place_numbers([{"side": "auto"}, {"side": "lose"}, {"side": "lose"}]) == [1, 2, 3]
    assert bestplayer.place_numbers([{"side": "lose"}]) == [3]
