"""A step's state change read off the fields with_ was given on the way (state._MADE) is the change the
comparison of every field finds: the same parts to write, whatever the votes, the steps' lengths, and whether
the states came from with_, from a reload or from elsewhere."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from helpers import act, move, names, new_game, reloaded
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.games.mafia import MAFIA
from forumbot.games.mafia import state as mafia_state

PLAYERS = names(7)
moves = st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(["vote", "unvote", "no_lynch", "modkill"]),
                           st.sampled_from(PLAYERS), st.booleans(), st.sampled_from(["on", "reload", "forget",
                                                                                      "replace", "step"])),
                 max_size=40)


def _compared(old: Any, new: Any) -> tuple[set[tuple[str, str, str]], list[tuple[str, int]]]:
    """state_change as it finds the change by comparing every field (nothing kept of with_'s)."""
    kept = dict(mafia_state._MADE)
    mafia_state._MADE.clear()
    try:
        change = mafia_state.state_change(old, new)
    finally:
        mafia_state._MADE.update(kept)
    return set(change.put), change.cut



@settings(max_examples=150, deadline=None)
@given(moves, st.booleans())
def test_the_change_read_off_with_is_the_change_found_by_comparing(plan, final_votes):
    state = new_game(7, final_votes="always" if final_votes else "never")
    stored = state   # what the store holds: the state at the last step's end
    for voter, kind, target, final, then in plan:
        state, _ = move(state, voter, kind, target, final)
        if then == "replace":   # a state made without with_ on the way: compared
            state = replace(state, reminded=(*state.reminded, "x"))
        if then == "forget":
            mafia_state._MADE.clear()
        if then == "on":   # the step goes on with the next post
            continue
        change = MAFIA.state_change(stored, state)
        assert (set(change.put), change.cut) == _compared(stored, state)
        assert change.whole is False
        stored = reloaded(state) if then == "reload" else state
        if stored is not state:
            state = stored
        if state.phase != "day1":
            break


def test_a_step_of_one_vote_does_not_compare_every_field():
    """The fields a vote changed are the few with_ was given: the state's 40 fields are not walked (a walk in C
    of both states' fields cost ~17,000 instructions a step)."""
    state = new_game(12)
    state, _ = act(state, "P01", "vote", "P02")
    after, _ = act(state, "P03", "vote", "P02")
    called: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            called.append(getattr(arg, "__name__", ""))

    sys.setprofile(profile)
    try:
        change = MAFIA.state_change(state, after)
    finally:
        sys.setprofile(None)
    assert "compress" not in called and "values" not in called, called
    assert {name for name, _, _ in change.put} == {"entries", "seq", "changes"}
    assert (set(change.put), change.cut) == _compared(state, after)


def test_a_state_made_by_with_keeps_what_it_was_given_for_a_while_only():
    state = new_game(5)
    for number in range(3 * mafia_state._MADE_KEPT):
        state = state.with_(seq=number)
    assert len(mafia_state._MADE) <= mafia_state._MADE_KEPT
