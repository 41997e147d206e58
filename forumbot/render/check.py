"""`check-config`'s look at a host's templates: each must parse, must not reach for Python's insides, and
must render the events of the shipped sample games inside the sandbox.

Two looks, because a sandbox refuses only what a template actually runs: every attribute, item or
`attr` filter spelled in the file is read from its syntax tree (a name starting with "_" or one the
sandbox forbids, in any branch), then the template is rendered against real events (replays of the
shipped samples of the game) and once against no data, where anything missing is empty.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.sandbox import UNSAFE_ASYNC_GENERATOR_ATTRIBUTES, UNSAFE_COROUTINE_ATTRIBUTES, UNSAFE_GENERATOR_ATTRIBUTES

from forumbot.errors import ConfigError
from forumbot.model import Event
from forumbot.render.renderer import SANDBOX_FIX, Renderer, host_templates, template_error

UNSAFE_NAMES = {"mro", "format_map", *UNSAFE_GENERATOR_ATTRIBUTES, *UNSAFE_COROUTINE_ATTRIBUTES,
                *UNSAFE_ASYNC_GENERATOR_ATTRIBUTES}
FORMATS = ("format", "format_map")


class _Probe(jinja2.ChainableUndefined):
    """Missing data is empty, but what the sandbox refused raises at once (a plain Undefined would
    swallow the refusal and print nothing)."""

    def __init__(self, hint: str | None = None, obj: Any = jinja2.utils.missing, name: str | None = None,
                 exc: type[Exception] = jinja2.UndefinedError) -> None:
        if exc is SecurityError:
            raise SecurityError(hint or f"access to {name!r} is unsafe")
        super().__init__(hint, obj, name, exc)


def _unsafe(name: object) -> bool:
    return isinstance(name, str) and (name.startswith("_") or name in UNSAFE_NAMES)


def _reached(tree: nodes.Template) -> Iterator[tuple[str, int]]:
    """Each unsafe attribute or item name spelled in a template, with its line: a name of Python's insides,
    or anything read off a string's `format` method (which a template may only call)."""
    for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter)):
        if isinstance(node, nodes.Getattr):
            name: object = node.attr
        elif isinstance(node, nodes.Getitem):
            name = node.arg.value if isinstance(node.arg, nodes.Const) else None
        elif node.name == "attr":
            name = node.args[0].value if node.args and isinstance(node.args[0], nodes.Const) else "?"
        else:
            continue
        target = node.node
        if isinstance(target, nodes.Getattr) and target.attr in FORMATS:
            yield f"{target.attr}.{name}", node.lineno
        elif isinstance(target, nodes.Filter) and target.name == "attr" and target.args and isinstance(
                target.args[0], nodes.Const) and target.args[0].value in FORMATS:
            yield f"{target.args[0].value}.{name}", node.lineno
        elif _unsafe(name):
            yield str(name), node.lineno


def check_templates(renderer: Renderer, game: str, samples: tuple[tuple[str, str], ...]) -> list[ConfigError]:
    """What is wrong with the host's templates of `renderer` (none when it has none), for a `game`, rendered
    against `samples` (kind, data as JSON: the shipped samples' events, engine/samples.py): those
    in its folder for the renderer's dialect and its dialect-neutral ones. Each is rendered as the renderer
    would find it: its own folder first, then the ones after it (a neutral template a dialect's one of the
    same name hides is still checked)."""
    problems: list[ConfigError] = []
    loader = renderer.env.loader
    chain = list(loader.loaders) if isinstance(loader, jinja2.ChoiceLoader) else [loader]
    for index, (folder, neutral) in enumerate(renderer.host_folders):
        strict = renderer.env if index == 0 else renderer.environment(jinja2.ChoiceLoader(chain[index:]))
        probe = renderer.environment(jinja2.ChoiceLoader(chain[index:]), undefined=_Probe)
        for path in host_templates(folder, neutral):
            name = path.relative_to(folder).as_posix()
            source = path.read_text(encoding="utf-8", errors="replace")
            try:
                tree = strict.parse(source, name, str(path))
            except jinja2.TemplateSyntaxError as err:
                problems.append(ConfigError(f"template {name} does not parse: {err.message}", path=str(path),
                                            line=err.lineno, fix="check the template against the shipped one"))
                continue
            problems += [ConfigError(f"template {name} reaches for '{attr}', which no template may read",
                                     path=str(path), line=line,
                                     fix=SANDBOX_FIX)
                         for attr, line in _reached(tree)]
            problems += _render_problems(renderer, strict, probe, name, game, samples)
    # One problem a line: the syntax tree and the sandbox often see the same one.
    first: dict[tuple[str | None, int | None], ConfigError] = {}
    for problem in problems:
        first.setdefault((problem.path, problem.line), problem)
    return list(first.values())


def _render_problems(renderer: Renderer, strict: jinja2.Environment, probe: jinja2.Environment, name: str,
                     game: str, samples: tuple[tuple[str, str], ...]) -> list[ConfigError]:
    """Render one template against the sample events it would post, then against no data."""
    kind = Path(name).stem
    if "/" in name and not name.startswith(f"{game}/"):
        mine: list[str] = []                         # another game's template: no samples of its events
    else:
        mine = [data for sample_kind, data in samples if sample_kind == kind]
    problems = []
    for data in mine:
        try:
            renderer.body(strict.get_template(name), Event(kind, json.loads(data)))
        except ConfigError as err:        # it names the template's file and line
            problems.append(err)
            break
        except jinja2.TemplateError as err:      # an include that does not parse
            problems.append(template_error(err, kind))
            break
    try:
        probe.get_template(name).render(e={}, v={}, t=renderer.phrases)
    except SecurityError as err:
        problems.append(template_error(err, kind))
    except Exception:   # noqa: BLE001 - with no data any template may fail; only a refusal counts here
        pass
    return problems
