"""The events a step logs (runner._logged, issue 16): a count's data shortened to its headline, the rest as they
are. A count ends the events of most steps that read votes: its pair is then replaced without a loop over the
others; the events are still those the pair-by-pair form logs."""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from forumbot import runner
from forumbot.model import Event

HEADLINE = runner._LOGGED_SHORT["vote_count"]


def _shortened_before(events: list[tuple[Event, str]]) -> list[tuple[Event, str]]:
    """The form before: every pair looked at, a shortened event made by Event's __init__."""
    out = []
    for event, post in events:
        if event.kind == "vote_count":
            event = Event(event.kind, {k: event.data[k] for k in HEADLINE if k in event.data})
        out.append((event, post))
    return out


def _data(keys: list[str]) -> dict[str, Any]:
    return {key: f"<{key}>" for key in keys}


EVENTS = st.lists(st.tuples(st.sampled_from(["vote_count", "vote", "day_end", "phase_start"]),
                            st.lists(st.sampled_from([*HEADLINE, "wagons", "not_voting"]), unique=True),
                            st.sampled_from(["", "local:7"])), max_size=6)


@given(EVENTS)
def test_the_logged_events_are_those_each_pair_shortened_gives(plan):
    events = [(Event(kind, _data(keys)), post) for kind, keys, post in plan]
    logged = runner._logged(events)
    assert logged == _shortened_before(events)
    assert all(type(event) is Event for event, _ in logged)
    if not any(kind == "vote_count" for kind, _, _ in plan):
        assert logged is events   # nothing to shorten: the list itself
    assert events == [(Event(kind, _data(keys)), post) for kind, keys, post in plan]   # the step's own untouched


def test_a_count_that_ends_the_events_is_shortened_without_a_loop_over_the_others():
    """(Fails on the code that rebuilt every pair in a comprehension.)"""
    votes = [(Event("vote", {"voter": f"p{n}"}), f"local:{n}") for n in range(5)]
    count = Event("vote_count", {**_data([*HEADLINE]), "wagons": []})
    comprehensions = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "<listcomp>" and frame.f_code.co_filename == runner.__file__:
            comprehensions.append(frame)

    sys.setprofile(profile)
    try:
        logged = runner._logged([*votes, (count, "")])
    finally:
        sys.setprofile(None)
    assert comprehensions == []
    assert logged == [*votes, (Event("vote_count", _data([*HEADLINE])), "")]
