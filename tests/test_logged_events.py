"""The events a step logs (runner._logged): a count's data shortened to its headline, the rest as they are."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from forumbot.engine import cycle as runner
from forumbot.model import Event

HEADLINE = runner.LOGGED_SHORT["vote_count"]


def _shortened_before(events: list[tuple[Event, str]]) -> list[tuple[Event, str]]:
    """Every pair looked at, a count shortened to a new Event of its headline."""
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
    assert events == [(Event(kind, _data(keys)), post) for kind, keys, post in plan]   # the step's own untouched

