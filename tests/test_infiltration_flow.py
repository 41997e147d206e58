"""Setup by PM, the turn clock, the end of the game, money, tiers, storage, grammar and posts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_infiltration_support import HOST, SETUP_A, SETUP_B, START, A, B, act, kinds, mv, new, playing, reason

from forumbot.errors import ConfigError
from forumbot.games.infiltration import INFILTRATION
from forumbot.games.infiltration.board import half_squares
from forumbot.games.infiltration.pieces import COUNTS
from forumbot.games.infiltration.setup import seed_hash
from forumbot.games.infiltration.state import Kill
from forumbot.model import Intent
from forumbot.render import Renderer
from forumbot.text.grammar import load_grammar


# ---- setup -----------------------------------------------------------------------------------------
def test_information_points_five_per_half_from_the_seed():
    state = new()
    for seat in (0, 1):
        assert len(set(state.ips) & set(half_squares(seat))) == 5
    assert new().ips == state.ips and new(seed="other").ips != state.ips
    assert sorted(state.decks[A]) == sorted(["protection"] * 3 + ["information"] * 3 + ["teleport"])


def test_both_setups_start_the_game_with_the_hash_posted():
    state = new(first=B)
    assert INFILTRATION.start_events(state)[0].data["seed_hash"] == seed_hash("test-seed")
    state, events = act(state, A, "setup", cells=SETUP_A)
    assert kinds(events) == ["setup_reply"] and events[0].data["accepted"] and state.phase == "setup"
    state, events = act(state, B, "setup", cells=SETUP_B)
    assert kinds(events) == ["setup_reply", "game_start", "private_board", "private_board"]
    assert state.phase == "play" and state.turn == B and len(state.board) == 28
    assert state.board["A1"].kind == "J" and state.board["F6"].kind == "J" and state.board["E4"].kind == "DT"


@pytest.mark.parametrize("cells,why", [
    ("J MT S S D D / M M T T T DT / DT DT DT . . .", "too many pieces: 4 Deadly Traps"),
    ("J MT S S D D / M M T T T DT", "3 rows of 6 cells"),
    ("J MT S S D / M M T T T DT / DT DT . . . .", "a row has 6 cells"),
    ("J MT S S D Q / M M T T T DT / DT DT . . . .", "'Q' is not a piece code"),
])
def test_bad_setups_get_a_reply_naming_what_is_wrong(cells, why):
    state = new()
    after, events = act(state, A, "setup", cells=cells)
    assert after is state and why in reason(events) and events[0].data["pm_to"] == A


def test_rows_one_by_one_with_one_reply_for_the_draft():
    state = new()
    state, events = act(state, B, "setup_row", row="4", cells=". . . . DT DT")
    state, more = act(state, B, "setup_row", row="2", cells="DT T T T M M")    # rows 1-3 count as 4-6
    assert events == more == [] and state.feedback == (B,)
    state, replies = INFILTRATION.report(state, START)
    assert kinds(replies) == ["setup_reply"] and replies[0].data["missing"][:1] == ["row 6"]
    assert "1 Jewel" in replies[0].data["missing"] and state.feedback == ()
    assert "not yours" in reason(act(state, A, "setup_row", row="5", cells=". . . . . .")[1])


def test_pieces_not_placed_by_the_deadline_are_placed_at_random():
    state = new()
    state, _ = act(state, A, "setup_row", row="1", cells="J MT S S D D")
    assert INFILTRATION.next_deadline(state) == START + timedelta(hours=72)
    state, events = INFILTRATION.on_deadline(state, START + timedelta(hours=80))
    assert state.phase == "play" and kinds(events)[0] == "game_start"
    assert [h["player"] for h in events[0].data["happened"]] == [A, B]
    for seat, player in enumerate((A, B)):
        mine = {sq: p.kind for sq, p in state.board.items() if p.owner == player}
        assert set(mine) <= set(half_squares(seat))
        assert {k: list(mine.values()).count(k) for k in COUNTS} == COUNTS
    assert [state.board[f"{c}1"].kind for c in "ABCDEF"] == ["J", "MT", "S", "S", "D", "D"]
    again, _ = INFILTRATION.on_deadline(new(), START)
    assert INFILTRATION.on_deadline(new(), START)[0].board == again.board     # the seed decides


def test_actions_before_the_start_are_refused():
    assert "has not started" in reason(mv(new(), A, "C3", "C4")[1])


# ---- the clock -------------------------------------------------------------------------------------
def test_turn_deadline_makes_a_free_for_all_and_the_late_player_may_still_move():
    state = playing({"A1": "A:J", "B1": "A:MT", "C3": "A:T", "F6": "B:J", "E6": "B:MT"})
    assert INFILTRATION.next_deadline(state) == START + timedelta(hours=24)
    state, events = INFILTRATION.on_deadline(state, START + timedelta(hours=30))
    assert kinds(events) == ["turn_overdue"] and state.overdue and INFILTRATION.next_deadline(state) is None
    state, events = mv(state, A, "C3", "C4")
    assert state.turn == B and not state.overdue and "skipped" not in str(events[0].data["happened"])


def test_the_opponent_moving_first_skips_the_late_turn():
    state = playing({"A1": "A:J", "B1": "A:MT", "C3": "A:T", "F6": "B:J", "E6": "B:MT"})
    state, _ = INFILTRATION.on_deadline(state, START + timedelta(hours=24))
    state, events = mv(state, B, "E6", "E5")
    assert events[0].data["happened"][0] == {"kind": "skipped", "player": A}
    assert state.turn == A and state.seq == 1


# ---- the end ---------------------------------------------------------------------------------------
def ended(pieces, kills=(), **kw):
    """A state where Alice's move C3->C4 kills Bob's last Master Thief (kills: earlier losses)."""
    state = playing(pieces, **kw).with_(seq=10, kills=tuple(kills))
    return mv(state, A, "C3", "C4")


def test_most_surviving_pieces_wins_when_nobody_can_steal():
    state, events = ended({"C3": "A:T", "C4": "B:MT", "A1": "A:J", "F6": "B:J", "A2": "A:S"},
                          kills=[Kill(3, A, "MT", None, "B2")])
    assert (state.winner, state.result) == (A, "pieces") and kinds(events)[-1] == "game_end"
    assert state.ledger == {A: {"money": 25, "wins": 1}, B: {"money": -25, "wins": 0}}


def test_tied_pieces_the_longer_living_master_thief_wins():
    state, _ = ended({"C3": "A:T", "C4": "B:MT", "A1": "A:J", "F6": "B:J", "F5": "B:S"},
                     kills=[Kill(3, A, "MT", None, "B2")])
    assert (state.winner, state.result) == (B, "mt_survived")


def test_master_thieves_dying_together_the_last_single_loss_decides():
    state = playing({"C3": "A:MT", "C4": "B:MT", "A1": "A:J", "F6": "B:J"}).with_(
        seq=10, kills=(Kill(4, B, "S", None, "E5"), Kill(7, A, "T", None, "C2")))
    state, _ = mv(state, A, "C3", "C4")
    assert (state.winner, state.result) == (A, "last_kill")     # Alice lost a piece last: she had led


def test_a_mimic_keeps_the_game_going():
    state, events = ended({"C3": "A:T", "C4": "B:MT", "A1": "A:J", "F6": "B:J", "F5": "B:M"},
                          kills=[Kill(3, A, "MT", None, "B2")])
    assert state.phase == "play" and state.winner is None


def test_forfeit_pays_the_opponent():
    state, events = act(playing({"A1": "A:J", "F6": "B:J"}, wins={A: 1, B: 1}), B, "forfeit")
    assert (state.winner, state.result, state.prize) == (A, "forfeit", 10)
    assert state.ledger == {A: {"money": 10, "wins": 2}, B: {"money": -10, "wins": 1}}


def test_stalemate_needs_a_warning_and_grace_turns_and_costs_both():
    state = playing({"A1": "A:J", "B1": "A:MT", "C3": "A:T", "F6": "B:J", "E6": "B:MT"})
    assert "warn the players first" in reason(act(state, HOST, "stalemate")[1])
    assert "only the host" in reason(act(state, A, "stalemate_warning")[1])
    state, events = act(state, HOST, "stalemate_warning")
    assert kinds(events) == ["stalemate_warning"] and state.warned_at == 0
    assert "2 turns" in reason(act(state, HOST, "stalemate")[1])
    state, _ = mv(state, A, "C3", "C4")
    state, _ = mv(state, B, "E6", "E5")
    state, events = act(state, HOST, "stalemate")
    assert (state.winner, state.result) == (None, "stalemate")
    assert state.ledger == {A: {"money": -30, "wins": 0}, B: {"money": -30, "wins": 0}}


def test_a_battle_lifts_the_stalemate_warning():
    state = playing({"A1": "A:J", "B1": "A:MT", "C3": "A:T", "C4": "B:S", "F6": "B:J", "E6": "B:MT"})
    state, _ = act(state, HOST, "stalemate_warning")
    state, _ = mv(state, A, "C3", "C4")
    assert state.warned_at is None


def test_host_may_end_the_game_for_a_player():
    state, _ = act(playing({"A1": "A:J", "F6": "B:J"}), HOST, "award", target=B)
    assert (state.winner, state.result) == (B, "host")
    assert "game is over" in reason(mv(state, A, "A1", "A2")[1])


# ---- config, tiers, storage ------------------------------------------------------------------------
@pytest.mark.parametrize("options,why", [
    ({"seed": ""}, "needs a secret seed"), ({"wins": {A: 1}}, "only players with as many wins"),
    ({"first": "Carol"}, "is not 'random' or a player"), ({"turn_hour": 3}, "unknown Infiltration option"),
    ({"spy_reveal": "loud"}, "not allowed"), ({"prize": "lots"}, "wrong type"),
])
def test_bad_configs(options, why):
    with pytest.raises(ConfigError, match=why):
        new(**options)


def test_json_round_trip_mid_game():
    state = playing({"C3": "B:T", "C4": "A:S!", "A1": "A:J", "B1": "A:M=MT", "F6": "B:J", "E6": "B:MT"},
                    turn=B, hands={A: ("protection",)})
    state, _ = mv(state, B, "C3", "C4")
    data = INFILTRATION.to_json(state)
    assert INFILTRATION.from_json(data) == state and INFILTRATION.to_json(INFILTRATION.from_json(data)) == data


def test_summary_hides_the_seed_until_the_end():
    state = playing({"A1": "A:J", "F6": "B:J"})
    assert INFILTRATION.summary(state)["seed"] is None
    state, _ = act(state, A, "forfeit")
    summary = INFILTRATION.summary(state)
    assert summary["seed"] == "test-seed" and {"turn", "board", "hands", "captured", "winner", "ledger"} <= set(summary)


# ---- grammar and posts -----------------------------------------------------------------------------
@pytest.mark.parametrize("line,kind,data", [
    ("A1->B1", "move", {"src": "A1", "dst": "B1"}), ("A1-B1", "move", {"src": "A1", "dst": "B1"}),
    ("a1 to b1", "move", {"src": "a1", "dst": "b1"}), ("A1→B1", "move", {"src": "A1", "dst": "B1"}),
    ("spy C3 reveals C5", "spy", {"src": "C3", "dst": "C5"}),
    ("mimic B2 into MT", "mimic", {"src": "B2", "kind": "MT"}),
    ("information D4", "information", {"dst": "D4"}), ("teleport A1 and B2", "teleport", {"a": "A1", "b": "B2"}),
    ("use protection", "protect", {}), ("claim C3", "claim", {"sq": "C3"}), ("claim", "claim", {}),
    ("I forfeit", "forfeit", {}),
])
def test_grammar(line, kind, data):
    found = load_grammar("infiltration", "en").match(line)
    assert found is not None and found.command.kind == kind and found.slots == data


@pytest.mark.parametrize("line,kind,data", [
    ("A1->B1", "move", {"src": "A1", "dst": "B1"}), ("ход a1 на b1", "move", {"src": "a1", "dst": "b1"}),
    ("шпион C3 открывает C5", "spy", {"src": "C3", "dst": "C5"}),
    ("мимик B2 в громилу", "mimic", {"src": "B2", "kind": "громилу"}),
    ("информация D4", "information", {"dst": "D4"}), ("телепорт A1 и B2", "teleport", {"a": "A1", "b": "B2"}),
    ("защита", "protect", {}), ("занять C3", "claim", {"sq": "C3"}), ("Сдаюсь", "forfeit", {}),
    ("расстановка: J MT S S D D", "setup", {"cells": "J MT S S D D"}),
    ("ряд 2: M M T T T DT", "setup_row", {"row": "2", "cells": "M M T T T DT"}),
])
def test_grammar_in_russian(line, kind, data):
    found = load_grammar("infiltration", "ru").match(line, "pm" if kind.startswith("setup") else "thread")
    assert found is not None and found.command.kind == kind and found.slots == data


@pytest.mark.parametrize(("line", "kind"), [("вызов Боб", "challenge"), ("принимаю Алиса", "accept"),
                                            ("отказ Алиса", "decline"), ("отзываю вызов", "withdraw")])
def test_lobby_grammar_in_russian(line, kind):
    found = load_grammar("infiltration-lobby", "ru").match(line)
    assert found is not None and found.command.kind == kind


def test_a_mimic_may_be_told_its_new_piece_in_russian():
    from forumbot.games.infiltration.pieces import kind_of
    assert [kind_of(w) for w in ("громилу", "Мастер-вора", "шпиона", "сапёра", "ловушку")] == [
        "T", "MT", "S", "D", "DT"]


@pytest.mark.parametrize("dialect", ["markdown", "bbcode"])
def test_every_post_renders_in_both_dialects(dialect):
    renderer = Renderer(dialect)
    state = new()
    events = INFILTRATION.start_events(state)
    for author, cells in ((A, SETUP_A), (B, SETUP_B)):
        state, more = act(state, author, "setup", cells=cells)
        events += more
    state, more = INFILTRATION.on_deadline(state, START + timedelta(days=9))
    events += more
    events += act(state, "Carol", "move", src="A1", dst="A2")[1] + act(state, state.turn or A, "protect")[1]
    state, more = act(state, state.turn or A, "forfeit")
    events += more
    texts = {e.kind: renderer.text(e, "infiltration") for e in events}
    assert set(texts) >= {"setup_open", "setup_reply", "game_start", "private_board", "turn_overdue",
                          "rejected", "refused", "game_end"}
    assert "test-seed" in texts["game_end"] and seed_hash("test-seed") in texts["setup_open"]
    grid_line = "   A    B    C    D    E    F"
    assert grid_line in texts["game_start"] and ("[code]" in texts["game_start"]) == (dialect == "bbcode")


def test_apply_never_raises_on_unknown_or_empty_intents():
    state = playing({"A1": "A:J", "F6": "B:J"})
    for intent in (Intent("dance", {}, author=A), Intent("move", {}, author=A), Intent("spy", {}, author=A),
                   Intent("setup", {}, author=A), Intent("award", {"target": None}, author=HOST)):
        after, events = INFILTRATION.apply(state, intent)
        assert after == state and (events == [] or events[0].kind == "rejected")
