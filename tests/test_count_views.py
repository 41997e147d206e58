"""A count's view of the wagons votes remade is made from the view of the count before (issue 16, round 11):
voting._voted changes a wagon's entries and voters in place of picking them again, and says where; the
view's list of voters is the list before with those changes, every other voter's view carried, none looked
up by its entry's identity. Pinned here: over steps of several votes (a poll of a minute), final votes,
unvotes, no-lynch votes, a majority that comes and goes, the views are those made afresh, and a count after
a vote or several looks up no entry's view."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

from helpers import new_game
from helpers import votes as cast_votes
from hypothesis import given, settings
from hypothesis import strategies as st
from kept_tables import empty_kept_tables
from test_render_kept import ROSTER, new_day, view_afresh, vote

from forumbot.games.mafia import game as mafia
from forumbot.games.mafia import voting
from forumbot.games.mafia.state import NO_LYNCH, MafiaState
from forumbot.kept import FrozenDict

# A step's votes: (voter, target or "unvote" or NO_LYNCH, final), one to four a step (a count after each step).
steps = st.lists(st.lists(st.tuples(st.sampled_from(ROSTER), st.sampled_from([*ROSTER[:4], NO_LYNCH, "unvote"]),
                                    st.booleans()), min_size=1, max_size=4), min_size=1, max_size=14)


class _Looked(dict[int, Any]):
    """An entry's views kept, counting the look-ups of one."""

    looked = 0

    def __getitem__(self, key: int) -> Any:
        _Looked.looked += 1
        return super().__getitem__(key)

    def get(self, key: int, default: Any = None) -> Any:
        _Looked.looked += 1
        return super().get(key, default)


counted = voting.counted


def _telling(told: list[Any]) -> Any:
    """voting.counted, its answers put in `told`."""
    def telling(state: MafiaState) -> Any:
        told.append(counted(state))
        return told[-1]
    return telling


def _count(state: MafiaState) -> dict[str, Any]:
    return mafia.view(state, state.phase_started + timedelta(hours=1))


@settings(max_examples=80, deadline=None)
@given(steps, st.booleans())
def test_a_count_after_several_votes_is_the_count_before_changed_where_they_changed_it(steps, simple):
    # The views kept started afresh: a table that fills up (after other tests) starts afresh in the middle of
    # an example, and the count after it rightly makes its wagons' views from their entries.
    empty_kept_tables()
    state = new_day(3 if simple else 0)           # 3: the no-lynch limit used up, the simple rule (no need)
    state = vote(state, ROSTER[0], ROSTER[1], False, "")
    before = {w["target"]: w for w in _count(state)["wagons"]}
    for votes in steps:
        for voter, target, final in votes:
            state = vote(state, voter, target, final, f"u/{voter}")
        if not state.is_day:
            return
        old = mafia._ENTRY_VIEWS.dicts
        mafia._ENTRY_VIEWS.dicts = (_Looked(old[0]), old[1])
        _Looked.looked = 0
        told: list[Any] = []
        try:
            with mock.patch.object(voting, "counted", side_effect=_telling(told)):
                shown = _count(state)
        finally:        # plain dicts again, what they hold kept (other tests count bytecodes)
            now = mafia._ENTRY_VIEWS.dicts
            mafia._ENTRY_VIEWS.dicts = (dict(now[0]), now[1])
        assert shown == view_afresh(state, state.phase_started + timedelta(hours=1))
        if told[0][1] is not None:     # (None: the count before was too far back; made from the entries)
            assert _Looked.looked == 0
        now = {w["target"]: w for w in shown["wagons"]}
        for target, wagon in now.items():
            assert type(wagon) is FrozenDict
            # a voter's view the count before showed, and still shows, is the very same object (a vote's
            # entry is new and differs from the entry it replaced: withdrawn, or its seq's time)
            for shown_voter in wagon["voters"]:
                twins = [v for v in before.get(target, {"voters": []})["voters"] if v == shown_voter]
                assert not twins or twins[0] is shown_voter
        before = now


def test_a_vote_changes_only_its_wagons_voters_and_carries_the_others_views():
    state = new_day(0)
    for voter, target in [("P01", "P02"), ("P08", "P02"), ("Ева Жук", "P02"), ("P02", "P01")]:
        state = vote(state, voter, target, False, "")
    before = {w["target"]: w for w in _count(state)["wagons"]}
    state = vote(state, "P08", "P01", False, "")           # P08 leaves P02's wagon (struck) for P01's
    state = vote(state, "Bob_*bold*", "P01", False, "")    # and a second vote in the same step
    after = {w["target"]: w for w in _count(state)["wagons"]}
    left, joined = after["P02"]["voters"], after["P01"]["voters"]
    assert [v["withdrawn"] for v in left] == [False, True, False]
    assert left[0] is before["P02"]["voters"][0] and left[2] is before["P02"]["voters"][2]
    assert left[1] is not before["P02"]["voters"][1]
    assert joined[0] is before["P01"]["voters"][0] and [v["name"] for v in joined] == ["P02", "P08", "Bob_*bold*"]
    assert (after["P01"]["count"], after["P02"]["count"]) == (3, 2)


@settings(max_examples=60, deadline=None)
@given(count=st.integers(3, 15), dead=st.integers(0, 2), used=st.integers(0, 3), limit=st.integers(0, 3),
       nobody=st.booleans())
def test_a_counts_rule_need_and_those_not_voting_are_votings_own(count, dead, used, limit, nobody):
    """view() works the majority rule, the votes needed and those not voting out in place (a count after every
    vote, without three frames): they must be what voting.rule, voting.needed and voting.not_voting say."""
    state = new_game(count, dead=dead, no_lynch_used=used, no_lynch_limit=limit)
    if not nobody:
        state, _ = cast_votes(state, [("P01", "P02"), ("P02", "P01")])
    shown = mafia.view(state, state.phase_started)
    assert shown["rule"] == voting.rule(state)
    assert shown["needed"] == (voting.needed(state) if voting.rule(state) == "absolute" else None)
    assert list(shown["not_voting"]) == voting.not_voting(state)
