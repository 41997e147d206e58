"""Every battle pairing of the rules' priority list, through real moves on the board."""

from __future__ import annotations

import pytest
from test_infiltration_support import A, B, kinds, mv, playing

from forumbot.games.infiltration.pieces import battle

MOVERS = ("MT", "S", "D", "M", "T")
# (attacker, defender) → who survives: attacker, defender, both (destroyed), bounce (Jewel), jewel (won)
TABLE = {
    ("MT", "J"): "jewel", ("MT", "MT"): "both", ("MT", "S"): "attacker", ("MT", "D"): "attacker",
    ("MT", "M"): "attacker", ("MT", "T"): "defender", ("MT", "DT"): "defender",
    ("S", "J"): "bounce", ("S", "MT"): "defender", ("S", "S"): "both", ("S", "D"): "defender",
    ("S", "M"): "both", ("S", "T"): "defender", ("S", "DT"): "defender",
    ("D", "J"): "bounce", ("D", "MT"): "defender", ("D", "S"): "attacker", ("D", "D"): "both",
    ("D", "M"): "attacker", ("D", "T"): "defender", ("D", "DT"): "attacker",
    ("M", "J"): "bounce", ("M", "MT"): "defender", ("M", "S"): "both", ("M", "D"): "defender",
    ("M", "M"): "both", ("M", "T"): "defender", ("M", "DT"): "defender",
    ("T", "J"): "bounce", ("T", "MT"): "attacker", ("T", "S"): "attacker", ("T", "D"): "attacker",
    ("T", "M"): "attacker", ("T", "T"): "both", ("T", "DT"): "defender",
}


def test_the_table_covers_every_pairing():
    assert set(TABLE) == {(a, d) for a in MOVERS for d in ("J", "MT", "S", "D", "M", "T", "DT")}


@pytest.mark.parametrize("attacker,defender", sorted(TABLE), ids=[f"{a}-{d}" for a, d in sorted(TABLE)])
def test_battle_pairing(attacker: str, defender: str):
    want = TABLE[(attacker, defender)]
    assert battle(attacker, defender) == want
    # Both sides keep a Master Thief elsewhere so that no battle but the Jewel's ends the game.
    state = playing({"C3": f"A:{attacker}", "C4": f"B:{defender}", "A1": "A:MT", "F6": "B:MT",
                     "A2": "A:J", "F5": "B:J"})
    state, events = mv(state, A, "C3", "C4")
    assert "rejected" not in kinds(events)
    board = state.board
    if want == "attacker":
        assert "C3" not in board and board["C4"].kind == attacker and board["C4"].owner == A
        assert state.captured(B) == [defender]
    elif want == "defender":
        moved = "C4" if defender in ("DT", "J") else "C3"      # a Deadly Trap never moves
        assert board[moved].kind == defender and board[moved].owner == B
        assert {"C3", "C4"} - {moved} <= set(SQUARES_EMPTY(board))
        assert state.captured(A) == [attacker]
    elif want == "both":
        assert "C3" not in board and "C4" not in board
        assert state.captured(A) == [attacker] and state.captured(B) == [defender]
    elif want == "bounce":
        assert board["C3"].kind == attacker and board["C4"].kind == "J"
        assert board["C3"].revealed and board["C4"].revealed and not state.kills
    else:
        assert state.winner == A and state.result == "jewel" and state.phase == "over"
    for piece in board.values():           # whoever fought is revealed; bystanders are not
        assert piece.revealed == (piece.kind in (attacker, defender) and piece in
                                  (board.get("C3"), board.get("C4")))


def SQUARES_EMPTY(board):   # noqa: N802 - reads like a set in the assertion above
    return [sq for sq in ("C3", "C4") if sq not in board]


def test_transformed_mimic_fights_as_what_it_became():
    state = playing({"C3": "A:M=T", "C4": "B:MT", "A1": "A:MT", "F6": "B:MT"})
    state, _ = mv(state, A, "C3", "C4")
    assert state.board["C4"].became == "T" and state.captured(B) == ["MT"]


def test_mimic_reborn_as_master_thief_takes_the_jewel():
    state = playing({"C3": "A:M=MT", "C4": "B:J", "F6": "B:MT"})
    state, _ = mv(state, A, "C3", "C4")
    assert state.winner == A and state.result == "jewel"
