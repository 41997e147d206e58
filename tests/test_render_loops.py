"""A template loop keeps each item's text by the item's identity (issue 16, render/codegen.py's kept loops): a
vote count after one vote makes the lines of the two wagons it changed, not of every wagon. Pinned here: a kept
loop prints and fails as jinja2's own sandbox for any items, kept or replaced between renders; only the items
not seen before are made; another phrase table or a changed plain dict is never answered from what was kept;
which loops are kept; the other compiled shortcuts of this round (a dict's type asked once, filters looked up
once, an include in the including context) print as the sandbox does."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_compiled import outcome, stock

from forumbot.games.mafia import MAFIA
from forumbot.model import Outgoing
from forumbot.render import Renderer
from forumbot.render.codegen import render

PHRASES = {"p": "{n} of {m}", "plain": "no fields", "no": "none"}
# Bodies a kept loop may have (only the item, `t`, constants and pure filters) and bodies it may not.
KEPT = ["{% for w in items %}[{{ w.a }}|{{ w.c | esc }}{% if w.s %}{{ t.plain }}{% else %}-{% endif %}]{% endfor %}",
        "{% for w in items %}{{ w['a'] }}{{ w.missing }}{% endfor %}",
        "{% for w in items %}{% if w.a and not w.s %}{{ w.a | esc | bold }}{{ t.no }}{% endif %}{{ w.c }}\n"
        "{% endfor %}",
        "{% for w in items %}{{ w.__class__ }}{% endfor %}",
        "{% for w in items %}{{ w.a ~ w.c }}{{ w.a == w.c }}{{ t.missing.x }}{% endfor %}"]
NOT_KEPT = ["{% for w in items %}{{ loop.index }}{{ w.a }}{% endfor %}",
            "{% for w in items %}{{ w.a }}{% else %}none{% endfor %}",
            "{% for w in items if w.a %}{{ w.a }}{% endfor %}",
            "{% for w in items %}{{ v.a }}{{ w.a }}{% endfor %}",
            "{% for w in items %}{{ t.p.format(n=w.a, m=1) }}{% endfor %}",
            "{% for w in items %}{% set x = w.a %}{{ x }}{% endfor %}",
            "{% for w in items %}{{ w.c | person }}{% endfor %}",
            "{% for a, b in items %}{{ a }}{% endfor %}",
            "{% set t = v %}{% for w in items %}{{ t.a }}{% endfor %}"]
values = st.none() | st.integers(-2, 9) | st.sampled_from(["x", "%s", "<b>", "Я", "*y*"])
item = st.fixed_dictionaries({}, optional={"a": values, "c": values, "s": st.booleans()})


def environments(main: str) -> tuple[jinja2.Environment, jinja2.Environment, Any]:
    renderer = Renderer("markdown", "en")
    folder = tempfile.mkdtemp()
    Path(folder, "main.j2").write_text(main, encoding="utf-8")
    loader = jinja2.FileSystemLoader(folder)
    return renderer.environment(loader), stock(loader, renderer), renderer


def both(mine: jinja2.Environment, theirs: jinja2.Environment, data: dict[str, Any]) -> bool:
    """Whether main.j2 prints (or fails) alike in both environments."""
    return outcome(lambda: [render(mine.get_template("main.j2"), data)]) == \
        outcome(lambda: [theirs.get_template("main.j2").render(data)])


@pytest.mark.parametrize("main", KEPT)
def test_a_loop_of_the_item_and_the_phrases_is_kept(main):
    mine = environments(main)[0]
    assert "_loop_text(" in mine.compile(main, raw=True)


@pytest.mark.parametrize("main", NOT_KEPT)
def test_a_loop_that_reads_more_is_not_kept(main):
    mine = environments(main)[0]
    assert "_loop_text(" not in mine.compile(main, raw=True)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(KEPT + NOT_KEPT), st.lists(st.lists(st.tuples(item, st.booleans()), max_size=5),
                                                 min_size=1, max_size=5))
def test_a_kept_loop_prints_and_fails_as_the_stock_sandbox(main, renders):
    """Render after render, some items the very same objects as before and some new: the text (or the
    error, its template and line) is the stock sandbox's each time."""
    mine, theirs, _ = environments(main)
    kept: list[Any] = []
    for items in renders:
        made: list[Any] = []
        for index, (data, again) in enumerate(items):
            if again and index < len(kept):
                made.append(kept[index])           # the very object of the render before
            else:
                made.append(dict(data))
        kept = made
        data = {"items": made, "v": {"a": 1}, "t": dict(PHRASES)}
        assert both(mine, theirs, data)


INCLUDED = ["{{ v.a }}{{ t.plain }}", "{% for w in v.l %}{{ w.a | esc }}{% endfor %}", "{{ v.missing }}",
            "{% set x = v.a %}{{ x }}", "{{ self }}", "{{ v.a | person }}", "{% macro m() %}1{% endmacro %}{{ m() }}",
            "{% include 'leaf.j2' %}"]
MAIN = ["{% include 'inc.j2' %}", "{% set v = {'a': 3} %}{% include 'inc.j2' %}{{ v.a }}",
        "{% for w in v.l %}{% include 'inc.j2' %}{% endfor %}", "{{ v.a }}{% include 'inc.j2' %}{{ v.a }}",
        "{% include 'inc.j2' without context %}", "{% import 'inc.j2' as v %}{{ v.a }}",
        "{% if v.a %}{% set v = v.l %}{% endif %}{{ v.a }}{{ v.a }}"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(MAIN), st.sampled_from(INCLUDED), st.fixed_dictionaries({}, optional={
    "a": values, "l": st.lists(st.fixed_dictionaries({}, optional={"a": values}), max_size=3)}))
def test_includes_and_names_kept_by_their_type_print_as_the_stock_sandbox(main, included, v):
    renderer = Renderer("markdown", "en")
    loader = jinja2.DictLoader({"main.j2": main, "inc.j2": included, "leaf.j2": "{{ v.a }}{{ v.a }}"})
    mine, theirs = renderer.environment(loader), stock(loader, renderer)
    data = {"v": v, "t": dict(PHRASES)}
    assert outcome(lambda: [render(mine.get_template("main.j2"), data) for _ in range(2)]) == \
        outcome(lambda: [theirs.get_template("main.j2").render(data) for _ in range(2)])


def test_a_missing_filter_fails_where_it_is_used_as_before():
    renderer = Renderer("markdown", "en")
    loader = jinja2.DictLoader({"main.j2": "a{% if v.a %}{{ v.a | nosuch }}{% endif %}"})
    mine, theirs = renderer.environment(loader), stock(loader, renderer)
    for v in ({}, {"a": 1}):
        assert both(mine, theirs, {"v": v})


def test_a_count_is_posted_as_an_outgoing_made_by_its_constructor():
    from helpers import act, new_game

    state = new_game(6, vote_count_every=1)
    state, _ = act(state, "P01", "vote", "P02")
    state, events = MAFIA.report(state, state.phase_started)
    renderer = Renderer("markdown", "en")
    at = state.phase_started
    [made] = renderer.render(events[0], key="k", threads={"votes": "thread"}, at=at)
    assert made == Outgoing(key="k", text=renderer.text(events[0]), thread="thread", at=at, kind="vote_count")
    assert vars(made) == vars(Outgoing(key="k", text=made.text, thread="thread", at=at, kind="vote_count"))
