"""Moves, abilities (Spy, Mimic), cards (Information, Teleport, Protection and its chain), information
points, turns and refusals."""

from __future__ import annotations

import pytest
from test_infiltration_support import A, B, act, kinds, mv, playing, reason

BASE = {"A1": "A:J", "B1": "A:MT", "F6": "B:J", "E6": "B:MT"}


def board(**extra: str) -> dict[str, str]:
    return {**BASE, **{k.upper(): v for k, v in extra.items()}}


# ---- moves ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("pieces,src,dst,why", [
    (board(c3="A:T"), "C3", "C5", "one square up, down, left or right"),
    (board(c3="A:T"), "C3", "D4", "one square up, down, left or right"),
    (board(c3="A:DT"), "C3", "C4", "never moves"),
    (board(), "A1", "A2", "never moves"),
    (board(c3="A:T", c4="A:S"), "C3", "C4", "your own Spy"),
    (board(c3="B:T"), "C3", "C4", "you have no piece on C3"),
    (board(c3="A:T"), "C3", "G3", "'G3' is not a square"),
    (board(c1="A:T"), "C1", "C0", "'C0' is not a square"),
])
def test_illegal_moves_are_refused_and_change_nothing(pieces, src, dst, why):
    state = playing(pieces)
    after, events = mv(state, A, src, dst)
    assert after is state and why in reason(events)
    assert kinds(events) == ["rejected", "refused"] and events[0].data["pm_to"] == A


def test_a_move_passes_the_turn_and_posts_the_boards():
    state = playing(board(c3="A:T"))
    state, events = mv(state, A, "c3", "c4")
    assert state.board["C4"].kind == "T" and state.turn == B and state.seq == 1
    assert kinds(events) == ["board", "private_board", "private_board"]
    assert [e.data["pm_to"] for e in events[1:]] == [A, B]


def test_out_of_turn_is_refused():
    state = playing(board(c4="B:T"))
    after, events = mv(state, B, "C4", "C3")
    assert after is state and reason(events) == "it is Alice's turn"


def test_talk_that_looks_like_a_move_is_ignored():
    state = playing(board())
    after, events = act(state, A, "move", src="good move", dst="really")
    assert after is state and events == []


# ---- Spy -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("target,ok", [("C4", True), ("D4", True), ("C5", True), ("D5", False), ("C6", False)])
def test_spy_sees_up_to_two_steps(target, ok):
    state = playing(board(c3="A:S", **{target.lower(): "B:T"}))
    after, events = act(state, A, "spy", src="C3", dst=target)
    if ok:
        assert after.board[target].revealed and after.board["C3"].revealed and after.board["C3"].used
        assert after.turn == B
    else:
        assert after is state and "too far" in reason(events)


def test_spy_reveal_is_used_once_and_needs_a_spy():
    state = playing(board(c3="A:S", c4="B:T", d3="B:D", c2="A:T"))
    state, _ = act(state, A, "spy", src="C3", dst="C4")
    state, _ = mv(state, B, "E6", "E5")
    after, events = act(state, A, "spy", src="C3", dst="D3")
    assert after is state and "already used" in reason(events)
    assert "not a Spy" in reason(act(state, A, "spy", src="C2", dst="D3")[1])


def test_private_spy_reveal_tells_only_the_owner():
    state = playing(board(c3="A:S", c4="B:T"), spy_reveal="private")
    state, events = act(state, A, "spy", src="C3", dst="C4")
    assert not state.board["C4"].revealed
    notes = {e.data["pm_to"]: e.data["notes"] for e in events if e.kind == "private_board"}
    assert notes[A] == [{"kind": "spied", "square": "C4", "piece": "T", "name": "Thug"}] and notes[B] == []


# ---- Mimic ---------------------------------------------------------------------------------------
def test_mimic_becomes_a_defeated_piece():
    state = playing(board(c3="A:M", c4="A:D"))
    state = state.with_(kills=(*state.kills, _kill(A, "MT")))
    state, _ = act(state, A, "mimic", src="C3", kind="master thief")
    assert state.board["C3"].became == "MT" and state.board["C3"].revealed


@pytest.mark.parametrize("kind,why", [("T", "none of your Thugs has been defeated"), ("jewel", "cannot become"),
                                      ("dragon", "is not a piece")])
def test_mimic_refusals(kind, why):
    state = playing(board(c3="A:M"))
    after, events = act(state, A, "mimic", src="C3", kind=kind)
    assert after is state and why in reason(events)


def test_one_mimic_per_defeated_piece_unless_any():
    pieces = board(c3="A:M", d3="A:M")
    for limit, second_ok in (("per_defeated", False), ("any", True)):
        state = playing(pieces, mimic_limit=limit).with_(kills=(_kill(A, "D"),))
        state, _ = act(state, A, "mimic", src="C3", kind="D")
        state, _ = mv(state, B, "E6", "E5")
        after, events = act(state, A, "mimic", src="D3", kind="D")
        assert (after.board["D3"].became == "D") is second_ok


def test_a_mimic_transforms_once():
    state = playing(board(c3="A:M=T")).with_(kills=(_kill(A, "D"),))
    assert "already become" in reason(act(state, A, "mimic", src="C3", kind="D")[1])


def _kill(owner, kind):
    from forumbot.games.infiltration.state import Kill
    return Kill(0, owner, kind, None, "A6")


# ---- cards ---------------------------------------------------------------------------------------
def test_information_card_reveals_for_good():
    state = playing(board(c4="B:T"), hands={A: ("information",)})
    state, events = act(state, A, "information", dst="C4")
    assert state.board["C4"].revealed and state.hands[A] == ()
    assert events[0].data["happened"][0]["target"]["piece"] == "T"


@pytest.mark.parametrize("hand,dst,why", [((), "F6", "no Information card"), (("information",), "B1", "no opponent's"),
                                          (("information",), "C4", "no opponent's")])
def test_information_refusals(hand, dst, why):
    state = playing(board(), hands={A: hand})
    assert why in reason(act(state, A, "information", dst=dst)[1])


def test_teleport_swaps_two_own_pieces_and_keeps_revealed():
    state = playing(board(c3="A:T!", d2="A:S"), hands={A: ("teleport",)})
    state, _ = act(state, A, "teleport", a="C3", b="D2")
    assert state.board["D2"].kind == "T" and state.board["D2"].revealed
    assert state.board["C3"].kind == "S" and not state.board["C3"].revealed and state.hands[A] == ()


@pytest.mark.parametrize("pieces,a,b,why", [
    (board(c3="A:T"), "C3", "A1", "never moves, not even by Teleport"),
    (board(c3="A:T", c4="B:T"), "C3", "C4", "no piece on C4"),
    (board(c3="A:T"), "C3", "C3", "two different squares"),
])
def test_teleport_refusals(pieces, a, b, why):
    state = playing(pieces, hands={A: ("teleport",)})
    assert why in reason(act(state, A, "teleport", a=a, b=b)[1])


def test_teleport_of_fixed_pieces_as_an_option():
    state = playing(board(c3="A:T"), hands={A: ("teleport",)}, teleport_fixed=True)
    state, _ = act(state, A, "teleport", a="C3", b="A1")
    assert state.board["C3"].kind == "J"


def test_protection_on_the_defenders_turn_reverses_the_battle():
    state = playing(board(c3="B:T", c4="A:S"), turn=B, hands={A: ("protection",)})
    state, events = mv(state, B, "C3", "C4")                 # Bob's Thug kills Alice's Spy
    assert state.captured(A) == ["S"]
    assert [e.data["may_protect"] for e in events if e.kind == "private_board"] == [True, False]
    state, events = act(state, A, "protect")                # Alice's turn, spent on the answer
    assert state.captured(A) == [] and state.captured(B) == ["T"]
    # The saved defender wins the battle, so it takes the attacker's square, as a winning defender does.
    assert state.board["C3"].kind == "S" and "C4" not in state.board and state.turn == B


def test_protection_chain():
    state = playing(board(c3="B:T", c4="A:S"), turn=B, hands={A: ("protection",), B: ("protection",)})
    state, _ = mv(state, B, "C3", "C4")
    state, _ = act(state, A, "protect")
    state, _ = act(state, B, "protect")                     # Bob answers Alice's Protection
    assert state.board["C4"].kind == "T" and "C3" not in state.board
    assert state.captured(A) == ["S"] and state.captured(B) == []
    assert state.turn == A and state.hands == {A: (), B: ()}


def test_protection_out_of_turn_takes_the_next_turn():
    state = playing(board(c3="A:S", c4="B:T"), hands={A: ("protection",)})
    state, _ = mv(state, A, "C3", "C4")                     # Alice's Spy dies attacking; Bob's turn
    assert state.turn == B and state.board["C3"].owner == B
    state, _ = act(state, A, "protect")                     # Alice answers at once, out of turn
    assert state.board["C4"].kind == "S" and state.captured(B) == ["T"] and state.turn == B
    state, events = mv(state, B, "E6", "E5")
    assert state.turn == B and events[0].data["happened"][-1] == {"kind": "owed", "player": A}


@pytest.mark.parametrize("setup_moves,hand,why", [
    ((), ("protection",), "no battle to answer"),
    ((("C3", "C4"),), (), "no Protection card"),
])
def test_protection_refusals(setup_moves, hand, why):
    state = playing(board(c3="B:T", c4="A:S", d4="A:T"), turn=B, hands={A: hand})
    for src, dst in setup_moves:
        state, _ = mv(state, B, src, dst)
    assert why in reason(act(state, A, "protect")[1])


def test_protection_window_closes_after_another_action():
    state = playing(board(c3="B:T", c4="A:S", d2="A:T"), turn=B, hands={A: ("protection",)})
    state, _ = mv(state, B, "C3", "C4")
    state, _ = mv(state, A, "D2", "D3")
    state, _ = mv(state, B, "E6", "E5")
    assert "no battle to answer" in reason(act(state, A, "protect")[1])


# ---- information points ---------------------------------------------------------------------------
def test_claiming_draws_the_top_card():
    state = playing(board(c3="A:S"), ips=("C3", "D4"))
    top = state.decks[A][0]
    state, events = act(state, A, "claim")
    assert state.hands[A] == (top,) and state.ips == ("D4",) and len(state.decks[A]) == 6
    assert events[1].data["notes"][0]["card"] == top and events[0].data["happened"][0]["kind"] == "claim"


@pytest.mark.parametrize("piece", ["T", "DT", "J", "M=T"])
def test_pieces_that_cannot_claim(piece):
    state = playing(board(c3=f"A:{piece}"), ips=("C3",))
    assert "cannot use an information point" in reason(act(state, A, "claim", sq="C3")[1])


def test_claim_refusals():
    state = playing(board(c3="A:S", d3="A:D"), ips=("C3", "D3", "E4"))
    assert "name one" in reason(act(state, A, "claim")[1])
    assert "no information point on B1" in reason(act(state, A, "claim", sq="B1")[1])
    assert "no piece on E4" in reason(act(state, A, "claim", sq="E4")[1])
    empty = state.with_(decks={A: (), B: ()})
    assert "deck is empty" in reason(act(empty, A, "claim", sq="C3")[1])
