"""Invariants under any sequence of intents: apply never raises, a refused intent changes nothing, piece
counts never grow, pieces stay on the board's squares, state survives JSON."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from test_infiltration_support import HOST, SETUP_A, SETUP_B, START, A, B, new

from forumbot.games.infiltration import INFILTRATION
from forumbot.games.infiltration.board import SQUARES
from forumbot.model import Intent

squares = st.sampled_from([*SQUARES, "G7", "a", "", "C3 now"])
authors = st.sampled_from([A, B, HOST, "Carol"])
intents = st.one_of(
    st.builds(lambda a, s, d: Intent("move", {"src": s, "dst": d}, author=a), authors, squares, squares),
    st.builds(lambda a, s, d: Intent("spy", {"src": s, "dst": d}, author=a), authors, squares, squares),
    st.builds(lambda a, s, k: Intent("mimic", {"src": s, "kind": k}, author=a), authors, squares,
              st.sampled_from(["MT", "T", "D", "S", "DT", "J", "x"])),
    st.builds(lambda a, d: Intent("information", {"dst": d}, author=a), authors, squares),
    st.builds(lambda a, s, d: Intent("teleport", {"a": s, "b": d}, author=a), authors, squares, squares),
    st.builds(lambda a, s: Intent("claim", {"sq": s} if s else {}, author=a), authors, squares),
    st.builds(lambda a: Intent("protect", {}, author=a), authors),
    st.builds(lambda a, k: Intent(k, {"target": B}, author=a), authors,
              st.sampled_from(["stalemate_warning", "stalemate", "award", "forfeit", "board", "nonsense"])),
    st.builds(lambda a, c: Intent("setup", {"cells": c}, author=a), authors, st.sampled_from([SETUP_A, "J J"])),
)


def started():
    state = new(first=A)
    state = INFILTRATION.apply(state, Intent("setup", {"cells": SETUP_A}, author=A, at=START))[0]
    return INFILTRATION.apply(state, Intent("setup", {"cells": SETUP_B}, author=B, at=START))[0]


@settings(max_examples=150, deadline=None)
@given(st.lists(intents, max_size=60), st.lists(st.booleans(), max_size=60))
def test_invariants(sequence, deadlines):
    state = started()
    at = START
    counts = Counter(p.owner for p in state.board.values())
    for index, intent in enumerate(sequence):
        at += timedelta(hours=1)
        if index < len(deadlines) and deadlines[index] and INFILTRATION.next_deadline(state):
            state, _ = INFILTRATION.on_deadline(state, INFILTRATION.next_deadline(state) or at)
        intent = Intent(intent.kind, intent.data, author=intent.author, at=at)
        before = state
        state, events = INFILTRATION.apply(state, intent)
        if any(e.kind == "rejected" for e in events) or not events:
            assert state == before                            # refused or ignored: nothing changed
        now = Counter(p.owner for p in state.board.values())
        assert all(now[p] <= counts[p] for p in (A, B))       # pieces never grow
        counts = now
        assert set(state.board) <= set(SQUARES)               # one piece a square, on the board
        assert len(state.kills) + len(state.board) == 28
        assert all(len(state.hands[p]) + len(state.decks[p]) <= 7 for p in (A, B))
        assert (state.phase == "over") == (state.winner is not None or state.result in ("stalemate", "draw"))
    assert INFILTRATION.from_json(INFILTRATION.to_json(state)) == state
