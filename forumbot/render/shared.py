"""Compiled templates shared by every renderer of the process (issue 16: the web console replays a game per
page, and each new Renderer's environment compiled each template again: ~25 ms a replay).

The code jinja2 compiles a template to is a function of its source text, its name and file name, and the
environment that compiles it: the lexer's settings, the code generator (SandboxCodeGenerator, with the names
and filters it declares unchanging), the sandbox's class, and the filters and tests (which exist, what they
are passed, and what they give a constant: jinja2 folds `{{ "bullet" | markup }}` into the code). A code
object is kept by all of that, so another environment is served it only when it would have compiled the
same. A host who edits a template and makes a new renderer gets the new text compiled: the source text is
in the key, never a file name alone. Nothing else is shared: each environment makes its own Template (and
module namespace, with its own filters) from the code. Kept in memory only, for this process, bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from types import CodeType, MethodType
from typing import Any

import jinja2

# Every environment setting the lexer, parser, optimizer or code generator reads (jinja2 3.1 and codegen.py).
_SETTINGS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
             "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
             "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
             "autoescape", "finalize", "is_async", "auto_reload", "undefined", "sandboxed",
             "code_generator_class", "context_class", "intercepted_binops", "intercepted_unops", "kept_names",
             "kept_filters")

KEEP = 256      # code objects kept (the shipped templates in two dialects and a few languages, hosts' own)

_kept: OrderedDict[Hashable, CodeType] = OrderedDict()
_settings: dict[Hashable, Hashable] = {}     # each key's environment part, one copy of each
_lock = threading.Lock()


def token(function: Any) -> Hashable:
    """What a filter or test is to the code compiled with it: the object itself (held by the key, so its
    identity is never another's), or, for a method of an object that says what its methods give a constant
    (`compile_token`, the Renderer's `person` and `count`), the function and that."""
    if type(function) is MethodType:
        said = getattr(function.__self__, "compile_token", None)
        if said is not None:
            return (function.__func__, said)
    return function


def key(env: jinja2.Environment, source: str, name: str | None,
        filename: str | None) -> tuple[Hashable, str | None, str | None, str] | None:
    """Everything the code of `source` compiled by `env` depends on; None when it cannot be said (an
    extension, which may read anything)."""
    if env.extensions:
        return None
    settings = tuple(getattr(env, setting, None) for setting in _SETTINGS)
    filters = tuple(sorted(zip(env.filters, map(token, env.filters.values()), strict=True)))
    tests = tuple(sorted(zip(env.tests, map(token, env.tests.values()), strict=True)))
    return (type(env), settings, env.cache is None, filters, tests), name, filename, source


def compiled(env: jinja2.Environment, source: str, name: str | None, filename: str | None,
             compile_: Callable[[], CodeType]) -> CodeType:
    """The code of `source` as `env` compiles it (`compile_()`), compiled once for every environment that
    would compile it the same. A template that does not compile raises as ever, and nothing is kept."""
    found = key(env, source, name, filename)
    if found is None:
        return compile_()
    try:
        hash(found)
    except TypeError:      # a setting or filter that cannot be a key (a callable object without a hash)
        return compile_()
    with _lock:
        code = _kept.get(found)
        if code is not None:
            _kept.move_to_end(found)
            return code
    code = compile_()
    with _lock:
        # Every template of an environment has the same settings: one copy of them for all their keys.
        if len(_settings) > KEEP:
            _settings.clear()
        _kept[(_settings.setdefault(found[0], found[0]), *found[1:])] = code
        if len(_kept) > KEEP:
            _kept.popitem(last=False)
    return code


def clear() -> None:
    """Forget every kept code object (tests)."""
    with _lock:
        _kept.clear()
        _settings.clear()
