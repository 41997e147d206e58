"""The renderer's texts kept by value, round 13 (issue 16): the `esc` filter's escape of each text and the
`when` filter's deadline, each made once and found again. The same text as the function they keep, for any value,
made or found; the same error for a value that has none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_lines import text_or_error

from forumbot.model import format_time, parse_time
from forumbot.render import renderer
from forumbot.render.defuse import BIDI_CONTROLS, defuse
from forumbot.render.renderer import escape_bbcode, escape_markdown

# Names as players write them: markup, links, mentions, bidi controls, Cyrillic.
texts = st.lists(st.sampled_from([*"ab Я_*[]()#|>~^<`\\:/@.", "www", "https://", "u/", "@x.ru", *BIDI_CONTROLS,
                                  "\u200b"]), max_size=12).map("".join)
values = texts | st.integers(-3, 30) | st.booleans() | st.none() | st.floats(allow_nan=False)


def old_escape(value: Any, dialect: str) -> str:
    """What the filters were: lru_cache(_escaped)(str(value), dialect)."""
    defused = defuse(str(value), dialect)
    return escape_markdown(defused) if dialect == "markdown" else escape_bbcode(defused)


@settings(max_examples=400, deadline=None)
@given(st.lists(values, max_size=8))
def test_a_text_escaped_is_the_escape_of_its_str_made_or_found(seen):
    for value in [*seen, *seen]:       # each made, then found
        assert renderer._esc_markdown(value) == old_escape(value, "markdown")
        assert renderer._esc_bbcode(value) == old_escape(value, "bbcode")


@lru_cache(maxsize=256)
def old_when(value: str) -> str:
    """What the `when` filter was."""
    return parse_time(value).strftime("%Y-%m-%d %H:%M UTC")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10_000) | st.sampled_from(["2026-03-04T20:00:00Z", "нет", "", "2026-13-01"])
                | st.just([1]), max_size=6))
def test_a_deadline_is_the_text_of_its_time_made_or_found(seen):
    start = datetime(2026, 3, 2, 20, tzinfo=UTC)
    for value in [*seen, *seen]:
        if isinstance(value, int):
            value = format_time(start + timedelta(minutes=value))
        assert text_or_error(lambda v=value: renderer._when(v)) == text_or_error(lambda v=value: old_when(v))
