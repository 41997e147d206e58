"""A post's text already as posted is not copied to be the same."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from forumbot.render import Renderer
from forumbot.render.defuse import strip_bidi


@given(st.text(st.sampled_from(["\n", "a", " ", "\u202e", "\u00a0"]), min_size=1).map(lambda t: t + "\n"))
def test_a_text_already_clean_is_posted_as_it_is(body):
    cleaned = Renderer._clean(body)
    assert cleaned == strip_bidi(re.sub(r"\n{3,}", "\n\n", body)).strip() + "\n"
    if cleaned == body:
        assert cleaned is body       # not copied by strip() and + "\n"
