"""A vote count's view and text do not remake what they already hold (issue 16): the deadline's text of a
day is one string in every count, and a post's text already as posted is not copied to be the same."""

from __future__ import annotations

import re

from helpers import new_game, votes
from hypothesis import given
from hypothesis import strategies as st

from forumbot.games.mafia.game import view
from forumbot.model import format_time
from forumbot.render import Renderer
from forumbot.render.defuse import strip_bidi


def test_the_deadline_text_is_kept_for_the_day():
    state = new_game(6)
    first = view(state, state.phase_started)["deadline"]
    state, _ = votes(state, [("P01", "P02")])
    again = view(state, state.phase_started)["deadline"]
    assert again == format_time(state.phase_ends) and again is first


@given(st.text(st.sampled_from(["\n", "a", " ", "\u202e", "\u00a0"]), min_size=1).map(lambda t: t + "\n"))
def test_a_text_already_clean_is_posted_as_it_is(body):
    cleaned = Renderer._clean(body)
    assert cleaned == strip_bidi(re.sub(r"\n{3,}", "\n\n", body)).strip() + "\n"
    if cleaned == body:
        assert cleaned is body       # not copied by strip() and + "\n"
