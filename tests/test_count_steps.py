"""A count after a step of several votes (a live bot polling each minute reads a few) finds its wagons from
the count before by the changes the votes recorded (state.made_from), as a count after every vote does: not
by comparing every entry of the day with each of the last entries counted (issue 16, round 10)."""

from __future__ import annotations

from typing import Any

from helpers import act, new_game
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.games.mafia import voting
from forumbot.games.mafia.state import MafiaState

PLAYERS = [f"P{n:02d}" for n in range(1, 10)]
# A step's votes: (voter, target or None for an unvote), one to five a step.
steps = st.lists(st.lists(st.tuples(st.sampled_from(PLAYERS), st.one_of(st.none(), st.sampled_from(PLAYERS[:4]))),
                          min_size=1, max_size=5), min_size=1, max_size=12)


class _NotLookedThrough(dict[int, Any]):
    """voting._RECENT that refuses to be looked through (the search of every wagons kept)."""

    def values(self) -> Any:
        if self:
            raise AssertionError("the wagons kept were looked through one by one")
        return super().values()


def _afresh(state: MafiaState) -> list[voting.Wagon]:
    return sorted(voting._made(state.entries).values(), key=voting._ORDER)


@settings(max_examples=60, deadline=None)
@given(steps)
def test_a_count_after_several_votes_is_made_from_the_count_before_by_their_changes(steps):
    state = new_game(9)
    state, _ = act(state, "P09", "vote", "P01")
    recent = _NotLookedThrough()
    voting._RECENT, saved = recent, voting._RECENT
    try:
        assert voting.wagons(state) == _afresh(state)     # (made afresh: a first count)
        for votes in steps:
            before = state.entries
            for voter, target in votes:
                state, _ = act(state, voter, "unvote" if target is None else "vote", target)
            if not state.is_day:     # a majority ended the day: its entries are gone
                return
            wagons = voting.wagons(state)
            assert wagons == _afresh(state)
            if state.entries is not before:
                assert [w.withdrawn for w in wagons] == [tuple(e for e in w.entries if e.withdrawn) for w in wagons]
    finally:
        voting._RECENT = saved


def test_a_wagon_picks_its_voters_from_its_entries():
    state = new_game(9)
    for voter, target in [("P01", "P02"), ("P03", "P02"), ("P01", "P04")]:
        state, _ = act(state, voter, "vote", target)
    wagon = next(w for w in voting.wagons(state) if w.target == "P02")
    assert [e.voter for e in wagon.voters] == ["P03"] and [e.voter for e in wagon.withdrawn] == ["P01"]
    assert wagon.entries == (*wagon.withdrawn, *wagon.voters) and wagon.count == 1
    untouched = next(w for w in voting.wagons(state) if w.target == "P04")
    assert untouched.voters == untouched.entries and untouched.withdrawn == ()


def test_a_voter_that_can_change_is_never_kept_though_only_new_voters_are_checked():
    """The renderer checks the type of a voter only when it makes its text (one kept is the very FrozenDict
    kept): a plain dict among a wagon's FrozenList of voters, new or beside kept ones, is read by what it
    says at every count, and nothing of its wagon is kept."""
    from forumbot.kept import FrozenDict, FrozenList
    from forumbot.render import Renderer

    renderer = Renderer("markdown", "en")
    kept = FrozenDict(name="P01", url="", post="p1", final=False, withdrawn=False, at="t")
    wagon = FrozenDict(target="P02", no_lynch=False, count=1, needed=5, l_minus=4, voters=FrozenList([kept]))
    assert renderer._with_voter_lists({"wagons": [wagon]})["wagons"][0]["voters_text"] == "P01"
    changing = {"name": "P03", "url": "", "post": "p2", "final": False, "withdrawn": False, "at": "t"}
    mixed = FrozenDict(wagon, voters=FrozenList([kept, changing]), count=2)
    assert renderer._with_voter_lists({"wagons": [mixed]})["wagons"][0]["voters_text"] == "P01, P03"
    changing["name"] = "P04"
    assert renderer._with_voter_lists({"wagons": [mixed]})["wagons"][0]["voters_text"] == "P01, P04"
    assert renderer._with_voter_lists({"wagons": [wagon]})["wagons"][0]["voters_text"] == "P01"
