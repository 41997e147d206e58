"""A count's views remade by the game's edits (kept.REMADE): over steps of several votes (a poll of a
minute), final votes, unvotes, no-lynch votes, URLs and names that need escaping, the text a running renderer
makes is the text a fresh renderer makes of the same count read back as plain JSON."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_kept import ROSTER, URLS, new_day, vote

from forumbot.games.mafia import game as mafia
from forumbot.games.mafia.state import NO_LYNCH, MafiaState
from forumbot.kept import edited
from forumbot.model import Event
from forumbot.render import Renderer

# A step's votes: (voter, target or "unvote" or NO_LYNCH, final, url), one to four a step, a count after each.
steps = st.lists(st.lists(st.tuples(st.sampled_from(ROSTER), st.sampled_from([*ROSTER[:4], NO_LYNCH, "unvote"]),
                                    st.booleans(), st.sampled_from(URLS)), min_size=1, max_size=4),
                 min_size=1, max_size=12)


def _count(state: MafiaState) -> dict[str, Any]:
    return mafia.view(state, state.phase_started + timedelta(hours=1))


@settings(max_examples=60, deadline=None)
@given(steps, st.sampled_from(["markdown", "bbcode"]), st.sampled_from(["en", "ru"]), st.booleans())
def test_a_count_s_carried_texts_are_the_texts_made_afresh(steps, dialect, lang, simple):
    state = new_day(3 if simple else 0)
    live = Renderer(dialect, lang)          # one renderer for the whole day, as a running game has
    live.text(Event("vote_count", _count(state)))
    for votes in steps:
        for voter, target, final, url in votes:
            state = vote(state, voter, target, final, url)
        if not state.is_day:
            return
        shown = _count(state)
        finished = live._with_voter_lists(shown)["wagons"]
        plain = json.loads(json.dumps(shown))       # plain dicts: nothing carried, nothing found by identity
        assert finished == Renderer(dialect, lang)._with_voter_lists(plain)["wagons"]
        assert live.text(Event("vote_count", shown)) == Renderer(dialect, lang).text(Event("vote_count", plain))


@given(st.lists(st.integers(0, 9), max_size=8),
       st.lists(st.tuples(st.integers(0, 12), st.booleans(), st.integers(100, 120) | st.none()), max_size=6))
def test_edited_is_the_list_edited_then_made(items, changes):
    """kept.edited: the values of a list's items with the list's edits applied are the values of the list
    those edits make, each made once."""
    edits = []
    after = [*items]
    for place, put, item in changes:
        place = min(place, len(after))
        out = 1 if place < len(after) and (put or item is None) else 0
        if item is None and not out:
            continue
        edits.append((place, out, item))
        after[place:place + out] = () if item is None else (item,)
    made: list[int] = []
    assert edited([str(i) for i in items], edits, lambda i: made.append(i) or str(i)) == [str(i) for i in after]
    assert made == [item for _, _, item in edits if item is not None]
