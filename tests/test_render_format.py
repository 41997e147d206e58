"""`phrase.format(...)` in a template (issue 16): a phrase whose fields are bare names is filled in by
str.format in C; it prints what the sandbox's formatter prints, fails as it fails, and any other phrase
(an attribute, an index, a nested field) still goes through the sandbox."""

from __future__ import annotations

from typing import Any

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2.sandbox import SandboxedFormatter

from forumbot.errors import ConfigError
from forumbot.model import Event
from forumbot.render import Renderer
from forumbot.render.renderer import Count, _named_fields


def outcome(do: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return do(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - the same failure is part of the same behaviour
        return ("error", type(err), str(err))


pieces = st.sampled_from(["a", " ", "{", "}", "{{", "}}", "{alive}", "{needed}", "{x}", "{0}", "{}", "{alive!r}",
                          "{alive!s}", "{alive!x}", "{alive:>4}", "{alive:{needed}}", "{alive.__class__}",
                          "{alive.real}", "{alive[0]}", "{needed:a/b}", "{name:gent}", "{name:ходил/ходила}",
                          "{ alive}", "{alive:", "Я"])
values = st.none() | st.integers(-3, 30) | st.text(max_size=3) | st.integers(0, 30).map(lambda n: Count(n, "ru"))


@settings(max_examples=400, deadline=None)
@given(st.lists(pieces, max_size=6).map("".join),
       st.dictionaries(st.sampled_from(["alive", "needed", "x", "name"]), values),
       st.lists(values, max_size=1))
def test_a_phrase_formats_as_the_sandboxs_formatter_formats_it(phrase, kwargs, args):
    env = Renderer("markdown", "ru").env
    kwargs = {k: env.filters["person"](v) if k == "name" and isinstance(v, str) else v for k, v in kwargs.items()}
    expected = outcome(SandboxedFormatter(env).vformat, phrase, tuple(args), kwargs)
    assert outcome(lambda: env.getattr(phrase, "format")(*args, **kwargs)) == expected


@pytest.mark.parametrize("phrase", ["{alive.__class__.__mro__}", "{alive.__class__}", "{0.__globals__}",
                                    "{alive[__class__]}", "{needed:{alive.__class__}}"])
def test_a_hostile_phrase_still_meets_the_sandbox(phrase):
    assert _named_fields(phrase) is None
    view = {"day": 1, "count": 1, "wagons": [], "not_voting": [], "rule": "absolute", "alive": 5, "needed": 3,
            "no_lynch_used": 0, "no_lynch_limit": 1, "errors": [], "error_total": 0,
            "deadline": "2026-03-04T20:00:00Z"}
    renderer = Renderer("markdown", "en", overrides={"absolute": phrase})
    with pytest.raises(ConfigError) as err:    # refused by the sandbox, or no such argument: never printed
        renderer.text(Event("vote_count", view), "mafia")
    assert "<class" not in str(err.value) and "function" not in str(err.value)


def test_a_phrase_with_a_players_text_formats_that_text_only():
    env = Renderer("markdown", "en").env
    hostile = "{alive.__class__.__mro__} {0.__globals__}"
    assert env.getattr("{x} of {alive}", "format")(x=hostile, alive=3) == f"{hostile} of 3"


def test_a_template_sees_the_renderers_globals_as_a_plain_dict():
    renderer = Renderer("bbcode", "en")
    template = renderer.env.get_template("vote_count.j2")
    assert type(template.globals) is dict
    assert template.globals["reason"] == renderer._reason and "range" in template.globals


@pytest.mark.parametrize("name", ["get", "items", "keys", "values", "update", "pop", "clear", "setdefault",
                                  "__class__", "copy", "fromkeys"])
def test_a_dicts_method_is_what_the_sandbox_gives(name):
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = Renderer("markdown", "en").env
    data = {"a": 1, "get": 2}
    mine, sandbox = env.getattr(data, name), ImmutableSandboxedEnvironment.getattr(env, data, name)
    assert type(mine) is type(sandbox)
    if name in ("update", "pop", "clear", "setdefault", "__class__"):    # refused: an undefined, as before
        assert isinstance(mine, jinja2.Undefined)
    else:
        assert mine == sandbox
