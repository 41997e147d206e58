"""A template is compiled once for every renderer that would compile it the same (forumbot/render/shared.py),
and only for those: a new renderer of a game (a replay, a page of the host console) reuses the code, a host's
edited template or another setting gets its own."""

from __future__ import annotations

import jinja2
import pytest
from helpers import act, new_game
from jinja2.environment import Environment

from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event
from forumbot.render import Renderer, shared
from forumbot.render.renderer import _HERE as RENDER_DIR
from forumbot.render.renderer import _Sandbox


def count_event():
    state = new_game(6)
    state, _ = act(state, "P01", "vote", "P02")
    return Event("vote_count", view(state, state.phase_started))


@pytest.fixture
def parses(monkeypatch):
    """The templates jinja2 parses from here on (each compile of a text parses it first)."""
    seen: list[str | None] = []
    parse = Environment._parse

    def counted(self, source, name, filename):
        seen.append(name)
        return parse(self, source, name, filename)

    monkeypatch.setattr(Environment, "_parse", counted)
    return seen


def test_a_second_renderer_of_the_same_settings_compiles_nothing(parses):
    event = count_event()
    first = Renderer("markdown", "en", genders={"P01": "f"}).text(event, "mafia")
    parses.clear()
    second = Renderer("markdown", "en").text(event, "mafia")     # (genders are read at render, not compiled)
    assert second == first and parses == []


def test_another_dialect_or_language_compiles_its_own():
    event = count_event()
    texts = {(d, lang): Renderer(d, lang).text(event, "mafia") for d in ("markdown", "bbcode") for lang in ("en", "ru")}
    shared.clear()
    for (dialect, lang), text in texts.items():    # each alone, with nothing kept: the same text
        assert Renderer(dialect, lang).text(event, "mafia") == text
        shared.clear()
    assert len(set(texts.values())) == 4


def test_a_host_who_edits_a_template_gets_the_new_text_in_a_new_renderer(tmp_path, parses):
    (tmp_path / "markdown").mkdir()
    template = tmp_path / "markdown" / "vote_count.j2"
    template.write_text("FIRST {{ v.alive }}\n", encoding="utf-8")
    event = count_event()
    old = Renderer("markdown", "en", template_dir=tmp_path)
    assert old.text(event) == "FIRST 6\n"
    template.write_text("SECOND {{ v.alive }}\n", encoding="utf-8")       # the same file name, a new text
    parses.clear()
    assert Renderer("markdown", "en", template_dir=tmp_path).text(event) == "SECOND 6\n"
    assert parses == ["vote_count.j2"]
    assert old.text(event) == "FIRST 6\n"      # a running renderer keeps what it loaded, as before
    template.write_text("FIRST {{ v.alive }}\n", encoding="utf-8")         # back: that text's code again
    parses.clear()
    assert Renderer("markdown", "en", template_dir=tmp_path).text(event) == "FIRST 6\n" and parses == []


def test_a_constant_folded_by_a_renderers_filter_is_its_dialects(tmp_path):
    # jinja2 computes a filter of a constant when it compiles: `markup` and `person` differ by dialect.
    (tmp_path / "vote_count.j2").write_text('{{ "bold" | markup }}{{ "a_b[c]" | person }}\n', encoding="utf-8")
    event = count_event()
    assert Renderer("markdown", "en", template_dir=tmp_path).text(event) == "**a\\_b\\[c\\]\n"
    assert Renderer("bbcode", "en", template_dir=tmp_path).text(event) == "[b]a_b[\u200bc\u200b]\n"
    assert Renderer("markdown", "en", template_dir=tmp_path).text(event) == "**a\\_b\\[c\\]\n"


def test_a_renderers_own_filter_is_kept_by_what_it_gives_a_constant():
    source = '{{ "a_b[c]" | person }} {{ 2 | count }}'
    texts, keys = [], []
    for dialect in ("markdown", "bbcode", "markdown"):
        env, renderer = sandbox(), Renderer(dialect, "en")
        env.filters.update(person=renderer.person, count=renderer.count)
        texts.append(env.from_string(source).render())
        keys.append(shared.key(env, source, None, None))
    assert texts == ["a\\_b\\[c\\] 2", "a_b[\u200bc\u200b] 2", "a\\_b\\[c\\] 2"]
    assert keys[0] == keys[2] != keys[1]    # another renderer's method object, of the same token: shared


def sandbox(**settings):
    env = _Sandbox(loader=jinja2.DictLoader({}), **settings)
    env.kept_names, env.kept_filters = frozenset({"t"}), frozenset()
    return env


@pytest.mark.parametrize("change", [
    lambda env: setattr(env, "trim_blocks", True),
    lambda env: setattr(env, "kept_names", frozenset()),
    lambda env: setattr(env, "kept_filters", frozenset({"upper"})),
    lambda env: setattr(env, "auto_reload", False),
    lambda env: env.filters.update(upper=str.lower),
    lambda env: env.filters.update(shout=str.upper),
    lambda env: env.tests.update(odd=lambda n: True),
])
def test_an_environment_of_other_settings_is_not_served_anothers_code(parses, change):
    source = "{% for x in v %}{{ x | upper }}{% if 3 is odd %}!{% endif %}\n{% endfor %}"
    expected = sandbox().from_string(source).render(v=["a", "b"])
    other = sandbox()
    change(other)
    parses.clear()
    text = other.from_string(source).render(v=["a", "b"])
    assert parses == [None]                   # compiled for its own settings
    shared.clear()
    alone = sandbox()
    change(alone)
    assert text == alone.from_string(source).render(v=["a", "b"])    # as it compiles with nothing kept
    assert sandbox().from_string(source).render(v=["a", "b"]) == expected


def test_a_key_holds_the_source_settings_and_filters():
    env, other = sandbox(), sandbox(lstrip_blocks=True)
    assert shared.key(env, "x", "a.j2", "/a.j2") == shared.key(sandbox(), "x", "a.j2", "/a.j2")
    assert len({shared.key(env, "x", "a.j2", "/a.j2"), shared.key(env, "y", "a.j2", "/a.j2"),
                shared.key(env, "x", "b.j2", "/a.j2"), shared.key(env, "x", "a.j2", "/b.j2"),
                shared.key(other, "x", "a.j2", "/a.j2")}) == 5
    env.add_extension("jinja2.ext.loopcontrols")
    assert shared.key(env, "x", "a.j2", "/a.j2") is None       # an extension may read anything: not kept


@pytest.mark.parametrize("template", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ v | attr('__class__') }}",
    "{% set _ = t.update({'day': 'owned'}) %}{{ t.day }}",
])
def test_host_templates_stay_sandboxed_in_every_renderer(tmp_path, template):
    (tmp_path / "vote_count.j2").write_text(f"Votes\n{template}\n", encoding="utf-8")
    for _ in range(2):      # the second renderer runs the first one's code: refused the same
        renderer = Renderer("markdown", "en", template_dir=tmp_path)
        with pytest.raises(ConfigError, match="breaks out of the sandbox") as err:
            renderer.text(count_event())
        assert err.value.line == 2 and renderer.phrases["day"] != "owned"


def test_a_template_that_does_not_compile_is_refused_each_time(tmp_path):
    (tmp_path / "vote_count.j2").write_text("{% if %}\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(ConfigError):
            Renderer("markdown", "en", template_dir=tmp_path).text(count_event())


def test_the_kept_code_is_bounded(monkeypatch):
    monkeypatch.setattr(shared, "KEEP", 8)
    env = sandbox()
    for number in range(20):
        assert env.from_string(f"{number}{{{{ x }}}}").render(x="!") == f"{number}!"
    assert len(shared._kept) == 8 and len(shared._settings) <= 9


def test_every_shipped_template_gets_the_code_it_would_compile_alone():
    folder = RENDER_DIR / "templates"
    names = [path.relative_to(folder).as_posix() for path in sorted(folder.rglob("*.j2"))]
    combinations = (("bbcode", "ru"), ("markdown", "en"), ("bbcode", "en"), ("markdown", "ru"))
    served = {}
    for dialect, lang in combinations:     # every combination's code kept: each must be served its own
        served[dialect, lang] = {name: Renderer(dialect, lang).env.get_template(name) for name in names}
    for dialect, lang in combinations[:2]:
        for name in names:
            shared.clear()
            alone = Renderer(dialect, lang).env.get_template(name)      # compiled with nothing kept
            assert served[dialect, lang][name].root_render_func.__code__ == alone.root_render_func.__code__
            assert served[dialect, lang][name].debug_info == alone.debug_info, (dialect, lang, name)
