"""A vote count's template code, round 12 (issue 16, render/codegen.py): a kept loop's body of one template
line is first one expression that reads its dicts by key alone (a key missing: the body as before); a
phrase of bare names is filled in by its `%` form; a context's attributes are read without __getattr__ and
its names resolved by resolve_or_missing's own lines. Each prints and fails as before (and as jinja2's own
sandbox: tests/test_render_loops.py, test_render_compiled.py); here what each relies on."""

from __future__ import annotations

from typing import Any

import jinja2
from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_compiled import outcome
from test_render_loops import environments

from forumbot.render import Renderer
from forumbot.render.codegen import LeanContext, filled, formats_by_name, phrase_form, render
from forumbot.render.renderer import Count, Person

pieces = st.sampled_from(["a", " ", "%", "%s", "{{", "}}", "{alive}", "{needed}", "{x}", "{alive!r}", "{alive!s}",
                          "{needed:>3}", "{needed:a/b}", "{alive.real}", "{0}", "{}", "Я", "{ alive}"])
values = (st.integers(-3, 30) | st.text(max_size=3) | st.none() | st.booleans() | st.floats(allow_nan=False)
          | st.integers(0, 30).map(lambda n: Count(n, "ru"))
          | st.sampled_from(["Том", "Ann"]).map(lambda n: Person(n, n, "ru", "m", str)))
names = st.lists(st.sampled_from(["alive", "needed", "x"]), min_size=1, max_size=3, unique=True)


def text_or_error(do: Any) -> Any:
    try:
        return do()
    except Exception as err:  # noqa: BLE001 - the same failure is the same behaviour
        return ("error", type(err), str(err))


@settings(max_examples=500, deadline=None)
@given(st.lists(pieces, max_size=7).map("".join), names, st.data())
def test_a_phrase_is_filled_in_as_str_format_fills_it(phrase, keys, data):
    """Whatever the phrase, the names given (in any order) and the values: the form kept for the call is
    str.format's text (or error) when it says str.format may fill it in, and says so exactly when
    formats_by_name does."""
    given_ = tuple(keys)
    found = data.draw(st.tuples(*[values] * len(given_)))
    forms: dict[str, Any] = {}
    form = phrase_form(forms, phrase, given_)
    assert bool(form) == formats_by_name(phrase, tuple(sorted(given_))) and forms[phrase] == form
    if form:
        expected = text_or_error(lambda: phrase.format(**dict(zip(given_, found, strict=True))))
        assert text_or_error(lambda: filled(form, found)) == expected


def test_a_phrase_of_bare_names_is_its_percent_form_in_the_phrases_order():
    form = phrase_form({}, "{needed} of {alive}, 100% {{x}}", ("alive", "needed"))
    assert form[2:] == ("%s of %s, 100%% {x}", (1, 0))
    assert filled(form, (12, 7)) == "7 of 12, 100% {x}"
    assert phrase_form({}, "{alive} {needed}", ("alive", "needed"))[3] is None     # the order given: as it is
    assert phrase_form({}, "{alive:>3}", ("alive",))[2] is None                    # a spec: str.format's own
    assert phrase_form({}, "{alive.real}", ("alive",)) is False                    # not by name: the sandbox's


def test_a_counts_template_fills_its_phrases_by_their_form_and_reads_its_wagons_by_key():
    """What the count's compiled code relies on (it fails on the code before this round): a phrase filled in
    by `filled`, each wagon's line one expression reading the wagon by key alone before the body as jinja2
    writes it, and no call of resolve for a name of the context."""
    env = Renderer("markdown", "ru").env
    count = env.compile(env.loader.get_source(env, "vote_count.j2")[0], raw=True)
    wagons = env.compile(env.loader.get_source(env, "_wagons.j2")[0], raw=True)
    assert "_filled(" in count and "_formats_by_name(" not in count
    assert "resolve(" not in count and "resolve(" not in wagons
    line = next(n for n in wagons.splitlines() if n.strip().startswith("return ('* **"))
    assert "l_1_w['count']" in line and " in l_1_w" not in line


ONE_LINE = ["{% for w in items %}{% if w.s %}{{ w.a }}{% elif w.c %}[{{ w.c | esc }}]{% else %}-{% endif %}{{ w.a }}"
            "{% endfor %}",
            "{% for w in items %}{{ t.plain }}{% if not w.a %}{{ t.no }}{% if w.s %}!{% endif %}{% endif %}{{ w.a }}"
            "{{ w['a'] }}{% endfor %}",
            "{% for w in items %}{{ w[0] }}{{ w.a }}{% endfor %}",
            "{% for w in items %}{{ w.a ~ '%' }}{{ w.c | length }}{{ t.missing }}{% endfor %}"]
item = st.fixed_dictionaries({}, optional={
    "a": st.none() | st.integers(-2, 9) | st.sampled_from(["x", "%s", "Я"]), "c": st.sampled_from(["y", "", "<b>", 3]),
    "s": st.booleans(), 0: st.just(1)})


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ONE_LINE), st.lists(item, max_size=4),
       st.sampled_from([{"plain": "P", "no": "N"}, {"plain": "P"}, "not a dict"]))
def test_a_one_line_loop_body_prints_and_fails_as_jinja2_writes_it(main, items, phrases):
    """Keys present or missing (the body as before runs instead), the phrases a dict or not: the text or
    error (its line) of the stock sandbox."""
    mine, theirs, _ = environments(main)
    assert "except KeyError:" in mine.compile(main, raw=True)
    made = [dict(i) for i in items]
    data = {"items": made, "t": phrases}
    assert outcome(lambda: [render(mine.get_template("main.j2"), data)] * 2) == \
        outcome(lambda: [theirs.get_template("main.j2").render(data)] * 2)


def test_a_context_makes_its_evaluation_context_when_first_read_and_keeps_it():
    env = Renderer("markdown", "en").env
    context = LeanContext(env, {"a": 1}, "x.j2", {}, globals={"g": 1})
    assert "__getattr__" not in vars(LeanContext)
    made = context.eval_ctx
    assert isinstance(made, jinja2.nodes.EvalContext) and context.eval_ctx is made
    context.eval_ctx = other = jinja2.nodes.EvalContext(env, "y")       # as Context.derived sets it
    assert context.eval_ctx is other and context.globals_keys == {"g"}
