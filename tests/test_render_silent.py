"""A step renders only the events that owe a message: a single vote's event has no template and
no address, and the runner no longer makes its key and calls the renderer for it (Renderer.silent)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.engine.replay import replay
from forumbot.errors import ConfigError
from forumbot.model import Event
from forumbot.render import Renderer
from forumbot.render.renderer import EVENT_THREADS

BENCH = Path(__file__).resolve().parent.parent / "bench"
START = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)

_VALUES = st.one_of(st.none(), st.just(""), st.just("game"), st.just("votes"), st.just("Alice"), st.integers(0, 2),
                    st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([*EVENT_THREADS, "vote", "unvote", "board", "whatever"]),
       st.dictionaries(st.sampled_from(["pm_to", "thread", "subject", "slot", "player"]), _VALUES))
def test_an_event_said_silent_is_one_render_owes_nothing(kind: str, data: dict[str, Any]) -> None:
    renderer = Renderer("markdown", "en")
    event = Event(kind, data)
    if not renderer.silent(event):
        return
    try:
        made = renderer.render(event, key="k", threads={"game": "g", "votes": "v"}, at=START)
    except ConfigError:      # (a template missing for a kind nothing posts: never reached when silent)
        pytest.fail("render looked for a template of a silent event")
    assert made == []


def test_a_vote_is_silent_and_a_count_or_a_pm_is_not() -> None:
    silent = Renderer.silent
    assert silent(Event("vote", {"voter": "Alice", "target": "Bob"}))
    assert not silent(Event("vote_count", {}))
    assert not silent(Event("vote", {"pm_to": "Alice"}))
    assert not silent(Event("vote", {"thread": "game"}))


def test_a_step_of_votes_renders_only_its_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails on the code before: every vote's event went through Renderer.render (a key made, [] back)."""
    monkeypatch.syspath_prepend(str(BENCH))
    from bench_replay import generated_day

    kinds: list[str] = []
    render = Renderer.render

    def recorded(self: Renderer, event: Event, **kwargs: Any) -> Any:
        kinds.append(event.kind)
        return render(self, event, **kwargs)

    monkeypatch.setattr(Renderer, "render", recorded)
    result = replay(generated_day(120, players=12, every=1, poll=1800))
    assert "vote" not in kinds
    assert kinds.count("vote_count") == sum(1 for m in result.messages if m["kind"] == "vote_count") > 10
