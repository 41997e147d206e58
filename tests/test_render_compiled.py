"""The renderer's compiled templates (issue 16, forumbot/render/codegen.py) print what jinja2's own sandbox
prints and fail as it fails (the same error, template and line), for reads of dicts, objects, missing keys,
unsafe attributes, includes, macros and loops. (A vote count's bytecodes: tests/test_render_format.py.)"""

from __future__ import annotations

import re
import tempfile
import traceback
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2.sandbox import ImmutableSandboxedEnvironment

from forumbot.render import Renderer
from forumbot.render.codegen import LeanContext, SandboxCodeGenerator, render
from forumbot.render.defuse import _BIDI as BIDI

_ADDRESS = re.compile(" at 0x[0-9a-f]+")
PHRASES = {"p": "{n} of {m}", "q": "{n.__class__}", "r": "{0}", "pct": "100% {n}", "plain": "no fields",
           "u": "{_loop_vars}{_x}"}
PIECES = [
    "text ", "100% ", "%s ", "\n", "{{ v.a }}", "{{ v.b.c }}", "{{ v['a'] }}", "{{ v[0] }}", "{{ v.items }}",
    "{{ v['items'] }}", "{{ v.missing }}", "{{ v.get('a') }}", "{{ v.get('zz', 3) }}", "{{ v.get() }}",
    "{{ v.keys() | list | length }}", "{{ v.items() | list | length }}", "{{ v.get(v.get('a')) }}",
    "{{ v.get(*v.l) }}", "{{ v.update }}", "{{ v.pop('a') }}", "{{ v.__class__ }}", "{{ v.__class__.__mro__ }}",
    "{{ v.s.mro }}", "{{ v.s.format_map }}", "{{ v.s.upper() }}", "{{ v | attr('__class__') }}",
    "{{ v | attr('a') }}", "{{ o.x }}", "{{ o.y.a }}", "{{ o.__class__ }}", "{{ o.missing }}", "{{ f.a }}",
    "{{ f.get('a') }}", "{{ l.0 }}", "{{ l[0].a }}", "{{ l[9] }}", "{{ v.n.real }}", "{{ t.p.format(n=v.a, m=2) }}",
    "{{ t.p.format(n=1) }}", "{{ t.q.format(n=v.a) }}", "{{ t.r.format(n=1) }}", "{{ t.pct.format(n=v.a) }}",
    "{{ t.plain.format() }}", "{{ t.u.format(_loop_vars=1, _x=2) }}", "{{ t.u.format(_block_vars=1, _x=2) }}",
    "{{ t.p.format(n=1, m=2, k=3) }}", "{{ t.missing.format(n=1) }}",
    "{{ v.s.format(x=1) }}", "{{ v.a }}{{ v.missing }}", "{{ v.a }}\n{{ v.missing }}\n{{ v.b }}",
    "{% for w in v.l %}[{{ w.a }}{{ v.get('a') }}{{ loop.index }}]{% endfor %}",
    "{% for w in v.l if w.a %}{{ w.a }}{% else %}none{% endfor %}",
    "{% include 'inc.j2' %}", "{% include 'inc.j2' without context %}", "{% include 'missing.j2' ignore missing %}",
    "{% include ['nope.j2', 'inc.j2'] %}",
    "{% macro m(x) %}<{{ x.a }}>{% endmacro %}{{ m(v) }}{{ m(o) }}",
    "{% macro k() %}[{{ caller() }}]{% endmacro %}{% call k() %}{{ v.a }}{% endcall %}",
    "{% set x = v.a %}{{ x }}", "{% set y %}{{ v.a }}|{{ v.b }}{% endset %}{{ y }}",
    "{% filter upper %}{{ v.s }} {{ v.a }}{% endfilter %}", "{% if v.a %}yes {{ v.a }}{% endif %}",
    "{% autoescape true %}{{ '<' ~ v.s }}{% endautoescape %}", "{{ v | xmlattr }}",
    "{% with z = v.l %}{{ z | length }}{% endwith %}", "{{ ns.n }}{% set ns.n = v.a %}{{ ns.n }}",
    # a loop reading names of the context (resolved once, before the loop: codegen's visit_For)
    "{% for w in v.l %}{{ t.p.format(n=w.a, m=1) }}{{ missing_name }}{% endfor %}",
    "{% for w in v.l %}{{ t.plain }}{% set t = w %}{{ t.a }}{% endfor %}{{ t.plain }}",
    "{% for w in v.l %}{% set o = w %}{{ o.a }}{% endfor %}{{ o.x }}",
    "{% for w in v.l %}{% for x in v.l %}{{ t.plain }}{{ ns.n }}{% set ns.n = ns.n + 1 %}{% endfor %}{% endfor %}",
    "{% for w in v.l %}{{ loop.index }}{{ t.plain }}{% else %}{{ t.pct.format(n=1) }}{% endfor %}",
    "{% for w in v.l if t.plain %}{{ t.plain }}{% endfor %}", "{% for w in v.l recursive %}{{ t.plain }}{% endfor %}",
    "{% macro m2() %}{{ t.plain }}{% for w in v.l %}{{ t.p }}{% endfor %}{% endmacro %}{% for w in v.l %}{{ m2() }}"
    "{% endfor %}",
    "{% for w in v.l %}{{ later }}{% endfor %}{% set later = 1 %}{{ later }}",
    "{% for w in v.l %}{% include 'inc.j2' %}{{ t.plain }}{% endfor %}",
]
INCLUDED = ["{{ v.a }}", "{{ v.missing }}", "{{ t.p.format(n=v.a, m=1) }}", "{% set top = v.a %}{{ top }}",
            "{% for w in v.l %}{{ w.a }}{% endfor %}", "{{ o.__class__ }}", "inc %"]
values = st.none() | st.integers(-2, 9) | st.sampled_from(["x", "%s", "{n}", "<b>", "Я"])
entries = st.dictionaries(st.sampled_from(["a", "c", "s"]), values, max_size=3)
data = st.fixed_dictionaries({}, optional={
    "a": values, "b": entries, "s": st.sampled_from(["x", "{x}", "%", "{x.__class__}"]), "n": st.integers(0, 9),
    "items": values, "get": values, 0: values, "l": st.lists(entries, max_size=3)})


def stock(loader: jinja2.BaseLoader, renderer: Renderer) -> jinja2.Environment:
    """jinja2's own sandbox, set up as the renderer sets up its own, with the same filters and globals."""
    env = ImmutableSandboxedEnvironment(loader=loader, trim_blocks=True, lstrip_blocks=True,
                                        keep_trailing_newline=False, undefined=jinja2.StrictUndefined,
                                        autoescape=False, auto_reload=False)
    env.filters.update(renderer.env.filters)
    env.globals.update({k: v for k, v in renderer.env.globals.items() if k not in env.globals})
    return env


def outcome(do: Any) -> Any:
    try:
        return ("text", [_ADDRESS.sub("", text) for text in do()])    # a function prints where it is
    except Exception as err:  # noqa: BLE001 - the same failure, at the same place, is the same behaviour
        where = [(Path(f.filename).name, f.lineno) for f in traceback.extract_tb(err.__traceback__)
                 if f.filename.endswith(".j2")]
        return ("error", type(err), _ADDRESS.sub("", str(err)), where[-1:])


def both(main: str, included: str, v: dict[Any, Any]) -> tuple[Any, Any]:
    renderer = Renderer("markdown", "en")
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.j2").write_text(main, encoding="utf-8")
        Path(folder, "inc.j2").write_text(included, encoding="utf-8")
        loader = jinja2.FileSystemLoader(folder)
        mine, theirs = renderer.environment(loader), stock(loader, renderer)
        assert mine.code_generator_class is SandboxCodeGenerator and mine.context_class is LeanContext
        first = outcome(lambda: [render(mine.get_template("main.j2"), variables_of(v)) for _ in range(2)])
        second = outcome(lambda: [theirs.get_template("main.j2").render(variables_of(v)) for _ in range(2)])
    return first, second


def variables_of(v: dict[Any, Any]) -> dict[str, Any]:
    """What a template reads, made afresh for each render (a namespace changes)."""
    return {"v": v, "e": v, "t": dict(PHRASES), "o": SimpleNamespace(x=v.get("a"), y=v.get("b", {})),
            "f": dict(a=v.get("a")), "l": list(v.get("l", [])), "ns": jinja2.runtime.Namespace(n=0)}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join), st.sampled_from(INCLUDED), data)
def test_a_compiled_template_prints_and_fails_as_the_stock_sandbox(main, included, v):
    mine, theirs = both(main, included, v)
    assert mine == theirs


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("v", [{}, {"a": 1, "b": {"c": "%s"}, "s": "{x}", "n": 3, "items": 2, "get": 5, 0: "z",
                                    "l": [{"a": 1}, {"a": None}]}])
def test_each_piece_prints_and_fails_as_the_stock_sandbox(piece, v):
    for included in INCLUDED:
        mine, theirs = both(piece, included, v)
        assert mine == theirs


def test_an_unsafe_read_is_refused_on_its_template_line():
    mine, theirs = both("a\n{{ v.a }} {{ v.__class__.__mro__ }}\n", "", {"a": 1})
    assert mine == theirs and mine[:2] == ("error", jinja2.exceptions.SecurityError) and mine[3] == [("main.j2", 2)]


def test_a_loop_resolves_a_name_of_the_context_once_not_at_each_pass():
    """`t` read in a loop's body is resolved before the loop (jinja2 resolves it at each pass); a name the body
    assigns is still resolved at each pass (each pass starts from the context's value)."""
    env = Renderer("markdown", "en").env
    code = env.compile("{% for w in v.l %}{{ t.plain }}{{ u }}{% set u = 1 %}{% endfor %}", raw=True)
    lines = [line.strip() for line in code.splitlines()]
    loop = next(n for n, line in enumerate(lines) if line.startswith("for l_1_w in"))
    t = f"l_1_t = {_RESOLVED.format(name='t')}"    # (resolve_or_missing's lines, written out: codegen._resolved)
    u = f"l_1_u = {_RESOLVED.format(name='u')}"
    assert t in lines[:loop] and t not in lines[loop:]
    assert u in lines[loop:] and u not in lines[:loop]


_RESOLVED = ("(context.vars['{name}'] if '{name}' in context.vars else context.parent['{name}'] if '{name}' in"
             " context.parent else missing)")


def test_a_name_is_resolved_as_the_contexts_resolve_or_missing_resolves_it():
    """The written-out resolve (no call) is Context.resolve_or_missing's: a name in the context's vars first,
    then in its parent, else missing (`is defined` false)."""
    env = Renderer("markdown", "en").env
    source = "{{ a }}{{ b }}{{ c is defined }}"
    assert "resolve(" not in env.compile(source, raw=True)
    context = env.context_class(env, {"a": 1, "b": 2}, None, {})
    context.vars["a"] = 3
    assert "".join(env.from_string(source).root_render_func(context)) == "32False"
    assert context.resolve_or_missing("a") == 3 and context.resolve_or_missing("c") is jinja2.utils.missing


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\n", "a", " ", "\u202a", "\u200f", "Я"]), max_size=14).map("".join))
def test_a_text_is_cleaned_as_the_regex_cleans_it(text):
    expected = BIDI.sub("", re.sub(r"\n{3,}", "\n\n", text)).strip() + "\n"
    assert Renderer._clean(text) == expected
