"""The renderer's jinja2 code generator: a template compiled for the sandbox, with its commonest reads
written as Python instead of calls into the sandbox (issue 16: a vote count after every vote).

Each shortcut is taken only where the answer is known to be the sandbox's own, and is checked at run time
before it is used; anything else is compiled as jinja2 compiles it and meets the sandbox:
- `x.name` where `x` is a plain dict holding "name" and dict has no attribute "name": `x["name"]` (the
  sandbox finds no such attribute and returns the item);
- `x[k]` with a constant string or number `k` that a plain dict `x` holds: `x[k]` (the sandbox tries the
  item first);
- `x.get(...)`, `x.items()`, `x.keys()`, `x.values()` on a plain dict: the dict's own method, called
  directly (the sandbox allows these and calls them as they are);
- `p.format(a=..., b=...)` on a str `p` whose fields are all bare names among those passed: str.format
  (see `named_fields`);
- output: the text and values of one template line joined by one `%` (each value `str()`-ed as before),
  one yield instead of one a value;
- `{% include "name" %}` of a constant name: the template is looked up once per compiled template, not
  at each render (the environment does not reload templates);
- a name a `{% for %}` body reads from the context (`t` in a wagon's line) is resolved once before the
  loop, not at each pass (see `visit_For`);
- a `{% for %}` loop whose body reads only its item, names the environment declares unchanging (`t`),
  constants and pure filters keeps each item's text by the item's identity when the item cannot change (a
  FrozenDict): a vote count after one vote makes the lines of the two wagons it changed (see `_kept_loop`).
A FrozenDict is read as a plain dict is (the sandbox's answer for both: it has no attribute of its own but
underscored ones, which keep their way).
A `%` format or a value read fails on the same template line as before: a line's values stay on one line.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from io import StringIO
from keyword import iskeyword
from operator import is_
from typing import Any

from jinja2 import Template, nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.idtracking import VAR_LOAD_RESOLVE
from jinja2.runtime import Context
from jinja2.utils import internalcode

from forumbot.kept import ByIdentity, FrozenDict, FrozenList

# Every attribute a plain dict has (a dict instance has no __dict__ of its own: its attributes are its
# class's), so `v.day` on a plain dict, which has no attribute `day`, can only be its item. A FrozenDict
# (no __dict__ either: __slots__) has these and a few underscored ones of its own.
DICT_ATTRIBUTES = frozenset(dir(dict))
FROZEN_ATTRIBUTES = frozenset(dir(FrozenDict))
PLAIN_DICTS = frozenset((dict, FrozenDict))     # read by item where the sandbox finds no attribute
# What a template may read of a plain dict's methods: the sandbox allows these (it refuses only those that
# change the dict) and returns the bound method itself.
DICT_READERS = {"get": dict.get, "items": dict.items, "keys": dict.keys, "values": dict.values}


@lru_cache(maxsize=1024)   # the phrases of a few languages and a host's overrides
def named_fields(phrase: str) -> frozenset[str] | None:
    """The fields of a phrase when each is a bare name (`{alive}`, `{count:vote/votes}`, `{x!r}`) and no
    format spec holds a field of its own; None for any other phrase (`{x.y}`, `{0[1]}`, `{}`, `{a:{b}}`) or
    one that does not parse. str.format of such a phrase reads nothing but the arguments it is given."""
    names = set()
    try:
        for _text, field, spec, _conversion in string.Formatter().parse(phrase):
            if field is None:
                continue
            if not field.isidentifier() or "{" in spec:
                return None
            names.add(field)
    except ValueError:
        return None
    return frozenset(names)


@lru_cache(maxsize=1024)
def formats_by_name(phrase: str, given: tuple[str, ...]) -> bool:
    """Whether `phrase.format(**kwargs)` with keywords `given` can be str.format's: every field a bare name
    among those given."""
    fields = named_fields(phrase)
    return fields is not None and fields <= frozenset(given)


_PERCENT_SAFE = frozenset((str, int))    # values `%s` prints as format(value, "") does: str(value)
_FORMS = 64        # phrases kept at one `format` call of a template (a language's, a host's), then afresh


def phrase_form(forms: dict[str, Any], phrase: str, given: tuple[str, ...]) -> Any:
    """How `phrase.format(**dict(zip(given, values)))` is filled in at one call of a template, kept in `forms` by
    the phrase: False when str.format may not (a field not a bare name among `given`: the sandbox's way);
    else (phrase, given, its `%` form, the order of the values in it), the form None where a field has a
    format spec or conversion, the order None when it is `given`'s own."""
    if len(forms) >= _FORMS:
        forms.clear()
    if not formats_by_name(phrase, tuple(sorted(given))):
        form = forms[phrase] = False
        return form
    pieces, order = [], []
    percent: str | None = None
    for text, field, spec, conversion in string.Formatter().parse(phrase):
        pieces.append(text.replace("%", "%%"))
        if field is not None:
            if spec or conversion:
                break
            pieces.append("%s")
            order.append(given.index(field))
    else:
        percent = "".join(pieces)
    kept = forms[phrase] = (phrase, given, percent, None if order == list(range(len(given))) else tuple(order))
    return kept


def filled(form: tuple[str, tuple[str, ...], str | None, tuple[int, ...] | None], values: tuple[Any, ...]) -> str:
    """str.format of the phrase of `form` (phrase_form) with `values` by the names given: by its `%` form when
    each value is a str or int, whose `%s` is the same text as their format(value, "") (a third of the work
    in C); else by str.format."""
    phrase, given, percent, order = form
    if percent is not None and _PERCENT_SAFE.issuperset(map(type, values)):
        return percent % (values if order is None else tuple(map(values.__getitem__, order)))
    return phrase.format(**dict(zip(given, values, strict=True)))


# What jinja2 writes for a template variable: its local name, or the name checked for `missing` first.
_VARIABLE = re.compile(r"\(undefined\(name='\w+'\) if (?P<a>l_\d+_\w+) is missing else (?P=a)\)|(?P<b>l_\d+_\w+)")


def _variable(code: str) -> str | None:
    """The local that `code` reads, when `code` is only the read of a template variable."""
    found = _VARIABLE.fullmatch(code)
    return None if found is None else found.group("a") or found.group("b")


class _Made:
    """An attribute made when first read, then the instance's own (as functools.cached_property, without its
    lock: a context is one render's, read by one thread)."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.make, self.name = make, make.__name__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        made = self.make(obj)
        setattr(obj, self.name, made)      # (the class's descriptor has no __set__: the instance's value wins)
        return made


class LeanContext(Context):
    """jinja2's Context, made without the parts a render of these templates rarely reads: the evaluation
    context and the set of the globals' names are made when first asked for (filters that take the one,
    `{% autoescape %}`; an imported template's module the other), and a template without
    blocks gets an empty block table without a comprehension. No __getattr__ (what made those two before):
    the class's own, which every other read of a context's attribute (`vars`, `parent`) went through first."""

    def __init__(self, environment: Any, parent: dict[str, Any], name: str | None, blocks: dict[str, Any],
                 globals: Any = None) -> None:    # noqa: A002 - jinja2's own parameter name
        self.parent = parent
        self.vars = {}
        self.environment = environment
        self.exported_vars = set()
        self.name = name
        self._globals = globals
        self.blocks = {k: [v] for k, v in blocks.items()} if blocks else {}

    @_Made
    def eval_ctx(self) -> nodes.EvalContext:      # what Context.__init__ made at once
        return nodes.EvalContext(self.environment, self.name)

    @_Made
    def globals_keys(self) -> set[str]:           # read only by an imported template's module (`{% import %}`)
        return set() if self._globals is None else set(self._globals)


_new, _lean_init = object.__new__, LeanContext.__init__


def render(template: Template, data: dict[str, Any]) -> str:
    """`template.render(**data)` for a synchronous environment, without its two layers of new_context: the
    same context (the template's globals, then `data`), the same text, the same traceback rewriting."""
    env = template.environment
    cls = env.context_class
    if cls is LeanContext:      # made and filled directly: a class with __init__ called with a keyword costs more
        context = _new(cls)
        _lean_init(context, env, {**template.globals, **data}, template.name, template.blocks, template.globals)
    else:
        context = cls(env, {**template.globals, **data}, template.name, template.blocks, globals=template.globals)
    try:
        return env.concat(template.root_render_func(context))  # type: ignore[attr-defined]
    except Exception:   # noqa: BLE001 - as Template.render: re-raised with the template's lines
        env.handle_exception()


# What a kept loop's body may hold (SandboxCodeGenerator._keepable): nothing that calls, assigns, loops,
# includes or reads `loop`; a filter only if the environment declares it pure.
_PURE_NODES = frozenset((nodes.Output, nodes.TemplateData, nodes.If, nodes.Const, nodes.Name, nodes.Getattr,
                         nodes.Getitem, nodes.Filter, nodes.Keyword, nodes.And, nodes.Or, nodes.Not,
                         nodes.Compare, nodes.Operand, nodes.CondExpr, nodes.Concat))
# What an included template that only reads its context may hold (`_reads_context_only`).
_CONTEXT_READERS = _PURE_NODES | {nodes.For, nodes.Include}
_KEEP_TEXTS = 512     # a loop's texts kept (a vote count's wagons), then started afresh
_ONLY_FROZEN = frozenset((FrozenDict,))
_RESOLVE = Context.resolve_or_missing    # what `_resolved` writes out
_LISTS = frozenset((list, tuple, FrozenList))    # read whole before the loop's text is made


@internalcode
def loop_text(loops: dict[str, tuple[tuple[Any, ...], ByIdentity[str]]], key: str, items: Any,
              held: tuple[Any, ...], body: Callable[[Any], str]) -> str:
    """The text of a kept loop (`_kept_loop`): each item's text by `body`, or, for an item that cannot change
    (a FrozenDict), as kept from a render before with the same `held` values (found by identity, in C). A
    lazy iterable is read item by item as the loop reads it, and nothing of it kept."""
    if type(items) not in _LISTS or not _ONLY_FROZEN.issuperset(map(type, items)):
        return "".join(map(body, items))
    kept = loops.get(key)
    if kept is None or not all(map(is_, kept[0], held)):
        kept = loops[key] = (held, ByIdentity(_KEEP_TEXTS))
    return "".join(kept[1].made(items, body))


class SandboxCodeGenerator(CodeGenerator):
    """jinja2's code generator with the shortcuts above; see the module's note."""

    # The context names the next loop frame entered (visit_For's) no longer resolves: read before the loop.
    _hoisted: dict[str, str] | None = None
    # Variables that hold one value all through the function being written, each with the name of the flag
    # that says whether the value is a plain dict (or FrozenDict): read once, not at each of its reads.
    _dict_flags: dict[str, str]
    _template: nodes.Template | None = None
    _forms: list[str]      # the names of each `format` call's kept phrase forms (phrase_form)

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self._template, self._dict_flags = node, {}
        self._forms = []
        self.writeline("from forumbot.render.codegen import filled as _filled, phrase_form as _phrase_form")
        self.writeline("from forumbot.render.codegen import PLAIN_DICTS as _plain_dicts, loop_text as _loop_text")
        self.writeline("_included = {}")
        self.writeline("_loops = {}")
        if self._plain():
            self._module_dependencies(node)
            self.writeline(f"_reads_context_only = {self._reads_context_only(node)!r}")
        super().visit_Template(node, frame)
        for forms in self._forms:      # (each `format` call's phrases: read when a render runs, after these)
            self.writeline(f"{forms} = {{}}")

    def _reads_context_only(self, node: nodes.Template) -> bool:
        """Whether the template, included, only reads its context: no assignment, import, macro, block, call,
        `self`, autoescape change or filter but those the environment declares pure (none of which sees the
        context), so an include of it with no local variables may render it in the including template's
        context (whose names it would find the same) rather than a copy of it."""
        pure = getattr(self.environment, "kept_filters", frozenset())
        if callable(self.environment.autoescape):     # (an evaluation context names its template)
            return False
        for part in node.find_all(nodes.Node):
            if type(part) not in _CONTEXT_READERS or (type(part) is nodes.Name and part.name == "self") or (
                    type(part) is nodes.Filter and part.name not in pure):
                return False
        return True

    def _module_dependencies(self, node: nodes.Template) -> None:
        """The template's filters and tests, each looked up once when its module is made, not at each render
        (and in each block or macro) as jinja2 writes it: the environment's filters are set before it loads a
        template and never after (as jinja2 asks). One the environment lacks fails where it is used, as ever."""
        self.writeline("from jinja2.runtime import TemplateRuntimeError as _TemplateRuntimeError")
        self.writeline("from jinja2.utils import internalcode as _internalcode")
        for id_map, kind, dependency in ((self.filters, nodes.Filter, "filters"), (self.tests, nodes.Test, "tests")):
            for name in sorted({found.name for found in node.find_all(kind)}):
                ref = id_map[name] = self.temporary_identifier()
                self.writeline("try:")
                self.indent()
                self.writeline(f"{ref} = environment.{dependency}[{name!r}]")
                self.outdent()
                self.writeline("except KeyError:")
                self.indent()
                self.writeline("@_internalcode")
                self.writeline(f"def {ref}(*unused):")
                self.indent()
                self.writeline(f'raise _TemplateRuntimeError("No {dependency[:-1]} named {name!r} found.")')
                self.outdent(2)
        self._module_level = True

    _module_level = False

    def pull_dependencies(self, nodes: Any) -> None:
        if not self._module_level:     # (all are looked up once, at the module's level: see above)
            super().pull_dependencies(nodes)

    def _plain(self) -> bool:
        return not self.environment.is_async

    def _code(self, node: nodes.Expr, frame: Frame) -> str:
        """The Python expression jinja2 writes for `node` (an expression is written on one line)."""
        self.write("")     # a pending new line (and its line number) goes before the expression, as ever
        stream, self.stream = self.stream, StringIO()
        try:
            self.visit(node, frame)
            return self.stream.getvalue()
        finally:
            self.stream = stream

    def _dict_or(self, frame: Frame, target: nodes.Expr, key: str, fallback: str) -> None:
        """`(T[key] if type(T := target) in PLAIN_DICTS and key in T else environment.<fallback>(T, key))`;
        a variable is read as it is (a dict is never jinja2's `missing`, which its undefined check is for)."""
        code = self._code(target, frame)
        name = _variable(code)
        if name is not None and name in self._dict_keys:
            self.write(self._read_once.get((name, key)) or f"{name}[{key}]")
            return
        if name is not None:
            flag = getattr(self, "_dict_flags", {}).get(name)
            test = f"type({name}) in _plain_dicts" if flag is None else flag
            self.write(f"({name}[{key}] if {test} and {key} in {name} else environment.{fallback}({code}, {key}))")
            return
        held = self.temporary_identifier()
        self.write(f"({held}[{key}] if type({held} := {code}) in _plain_dicts and {key} in {held}"
                   f" else environment.{fallback}({held}, {key}))")

    @optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        if not self._plain() or node.attr in FROZEN_ATTRIBUTES:
            return super().visit_Getattr(node, frame)
        self._dict_or(frame, node.node, repr(node.attr), "getattr")

    @optimizeconst
    def visit_Getitem(self, node: nodes.Getitem, frame: Frame) -> None:
        if not self._plain() or not isinstance(node.arg, nodes.Const) or type(node.arg.value) not in (str, int):
            return super().visit_Getitem(node, frame)
        self._dict_or(frame, node.node, repr(node.arg.value), "getitem")

    @optimizeconst
    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
        method = node.node
        # Arguments are written twice (one branch runs): only when none holds a call, which would again.
        if (not self._plain() or forward_caller or not isinstance(method, nodes.Getattr) or node.dyn_args
                or node.dyn_kwargs or any(arg.find(nodes.Call) for arg in (*node.args, *node.kwargs))):
            return super().visit_Call(node, frame, forward_caller=forward_caller)
        if method.attr in DICT_READERS and not node.kwargs:
            test = ") is dict else "
        elif (method.attr == "format" and not node.args and node.kwargs
              and not any(iskeyword(kw.key) or kw.key.startswith("_") for kw in node.kwargs)):
            # (Context.call drops a `_loop_vars` or `_block_vars` keyword: such a call keeps its way.)
            given = tuple(kw.key for kw in node.kwargs)
            if len(set(given)) < len(given):
                return super().visit_Call(node, frame, forward_caller=forward_caller)
            return self._format_call(node, frame, given)
        else:
            return super().visit_Call(node, frame, forward_caller=forward_caller)
        # (T.m(args) if type(T := x) is dict else environment.call(context, environment.getattr(T, "m"), args))
        # runs x, then (the sandbox's getattr,) the arguments and the call, in jinja2's order.
        held = self.temporary_identifier()
        self.write(f"({held}.{method.attr}(")
        self._arguments(node, frame)
        self.write(f") if type({held} := ")
        self.visit(method.node, frame)
        self.write(test.format(held=held))
        self._sandbox_call(node, frame, held, method.attr)
        return None

    def _sandbox_call(self, node: nodes.Call, frame: Frame, held: str, attr: str) -> None:
        """The call as jinja2's sandbox makes it, of `held`'s method `attr` (the branch that is not a plain
        dict's or a phrase's), with the loop's and block's variables as jinja2 passes them; then the `))`
        that closes the conditional expression begun by the caller."""
        self.write(f"environment.call(context, environment.getattr({held}, {attr!r})")
        extra = {"_loop_vars": "_loop_vars"} if frame.loop_frame else {}
        if frame.block_frame:
            extra["_block_vars"] = "_block_vars"
        self.signature(node, frame, extra or None)
        self.write("))")

    def _format_call(self, node: nodes.Call, frame: Frame, given: tuple[str, ...]) -> None:
        """`p.format(a=..., b=...)`: (filled(F, (a, b)) if type(p) is str and (F := p's form at this call, kept by
        the phrase) else environment.call(context, environment.getattr(p, "format"), a=..., b=...)): the phrase,
        then (the sandbox's getattr,) the arguments once and the call, in jinja2's order (see `phrase_form`)."""
        held, form, forms = (self.temporary_identifier() for _ in range(3))
        self._forms.append(forms)
        self.write(f"(_filled({form}, (")
        for keyword in node.kwargs:
            self.visit(keyword.value, frame)
            self.write(", ")
        self.write(f")) if type({held} := ")
        self.visit(node.node.node, frame)     # type: ignore[attr-defined]
        self.write(f") is str and ({form} := {forms}.get({held}) or _phrase_form({forms}, {held}, {given!r}))"
                   " else ")
        self._sandbox_call(node, frame, held, "format")

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        """A loop whose body reads a name from the context (no local of the template holds it) resolves it
        at every pass, as jinja2 writes it: here once, just before the loop. The same value: nothing in a
        loop body writes the context (a `{% set %}` there is the loop's own; only a top-level one writes
        context.vars) and a render's context has no other writer (no global or filter of the renderer takes
        the context). A name the body also assigns keeps its read at each pass (each pass starts from the
        context's value again), and so does a recursive loop (its body is a function of its own)."""
        if not self._plain() or node.recursive:
            return super().visit_For(node, frame)
        probe = frame.inner()     # what visit_For's loop frame will load, under the same local names
        probe.loop_frame = True
        probe.symbols.analyze_node(node, for_branch="body")
        hoisted = {target: name for target, (action, name) in probe.symbols.loads.items()
                   if action == VAR_LOAD_RESOLVE and name != "loop" and name not in probe.symbols.stores}
        for target, name in hoisted.items():
            self.writeline(f"{target} = {self._resolved(name)}", node)
        self._hoisted = hoisted
        try:
            if self._keepable(node, hoisted):
                return self._kept_loop(node, frame, hoisted)
            return super().visit_For(node, frame)
        finally:
            self._hoisted = None

    def _keepable(self, node: nodes.For, hoisted: dict[str, str]) -> bool:
        """Whether each pass's text is a function of the item alone, for this environment: a loop without
        `else`, filter or `loop`, of one name, whose body holds only output, `if`, constants, reads of the item
        and of the names the environment declares unchanging (`kept_names`, resolved from the context: no
        local of the template holds them), operators and the filters it declares pure (`kept_filters`)."""
        names = getattr(self.environment, "kept_names", frozenset())
        pure = getattr(self.environment, "kept_filters", frozenset())
        if node.else_ or node.test is not None or not isinstance(node.target, nodes.Name) or not names:
            return False
        item = node.target.name
        for body in node.body:
            for part in (body, *body.find_all(nodes.Node)):
                if type(part) not in _PURE_NODES:
                    return False
                if type(part) is nodes.Name and part.name != item and (
                        part.ctx != "load" or part.name not in names or part.name not in hoisted.values()):
                    return False
                if type(part) is nodes.Filter and (part.name not in pure or part.node is None
                                                   or part.dyn_args or part.dyn_kwargs):
                    return False
        return True

    def _kept_loop(self, node: nodes.For, frame: Frame, hoisted: dict[str, str]) -> None:
        """The loop's body as a function of its item returning the pass's text; `loop_text` calls it for
        the items whose text is not kept, and the loop's text is written at once. The identities of what
        else the body reads (the unchanging names, the filters) go with the texts: another value of one is
        another table."""
        loop_frame = frame.inner()
        loop_frame.loop_frame = True
        loop_frame.symbols.analyze_node(node, for_branch="body")
        body = self.temporary_identifier()
        self.writeline(f"def {body}(", node)
        self.visit(node.target, loop_frame)       # a parameter of the loop's frame
        self.write("):")
        self.indent()
        self.enter_frame(loop_frame)              # (the names hoisted: read from the enclosing render)
        flags = self._dict_flags
        self._dict_flags = dict(flags)
        item = loop_frame.symbols.ref(node.target.name)   # a parameter no line of the body assigns
        line = self._line_of(node.body, {node.target.name, *hoisted.values()})
        if line is not None:
            self._one_expression(node.body, loop_frame, (item, *hoisted), line)
        if sum(self._reads(node.target.name, b) for b in node.body) > 1:
            self._flag(item)
        self.buffer(loop_frame)
        try:
            self.blockvisit(node.body, loop_frame)
        finally:
            self._dict_flags = flags
        self.return_buffer_contents(loop_frame, force_unescaped=True)
        self.outdent()
        self.leave_frame(loop_frame, with_python_scope=True)
        held = [*hoisted, *sorted({self.filters[f.name] for b in node.body for f in b.find_all(nodes.Filter)})]
        self.start_write(frame, node)
        self.write(f"_loop_text(_loops, {body!r}, ")
        self.visit(node.iter, frame)
        self.write(f", ({''.join(f'{h}, ' for h in held)}), {body})")
        self.end_write(frame)
        if self._assign_stack:
            self._assign_stack[-1].difference_update(loop_frame.symbols.stores)

    def _line_of(self, body: list[nodes.Node], names: set[str]) -> nodes.Node | None:
        """The first node of a kept loop's body that is all on one template line, of output and `if` only,
        printed as `visit_Output` prints it (no finalize, no autoescape), whose every read is an item or
        attribute of one of `names` (the item, the unchanging names) that a plain dict answers with its item;
        None for any other body."""
        finalize = self._make_finalize()
        if finalize.src is not None or not body:
            return None
        parts = [part for b in body for part in (b, *b.find_all(nodes.Node))]
        if len({part.lineno for part in parts}) != 1:
            return None
        for part in parts:
            if isinstance(part, nodes.Stmt) and type(part) not in (nodes.Output, nodes.If):
                return None
            if type(part) in (nodes.Getattr, nodes.Getitem) and not (
                    type(part.node) is nodes.Name and part.node.name in names and (
                        part.attr not in FROZEN_ATTRIBUTES if type(part) is nodes.Getattr else
                        type(part.arg) is nodes.Const and type(part.arg.value) in (str, int))):
                return None
        return body[0]

    def _one_expression(self, body: list[nodes.Node], frame: Frame, names: tuple[str, ...], line: nodes.Node) -> None:
        """A kept loop's body of one template line (`_line_of`), written first as one expression that reads
        the item and the unchanging names, each a plain dict (or FrozenDict), by their keys alone: `w["a"]`
        for `w.a` (the sandbox's answer when the dict holds "a"), no test a read. A key one lacks is a
        KeyError: then the body as jinja2 writes it runs instead, from the start. Running the expression has
        no effect of its own (a kept loop's body reads and calls pure filters only: `_keepable`), and it makes
        no undefined value (each read is a value the data holds), so what the body prints, or how it fails,
        is the same, on the same template line."""
        read = sorted({*names} & {self._variable_of(n, frame) for b in body
                                  for n in b.find_all(nodes.Name)})
        # A key read more than once (`w.no_lynch` in two tests) is read once, first (a FrozenDict's item costs
        # twice a plain dict's: a dict subclass's [] goes through its class's __getitem__).
        reads = Counter((self._variable_of(part.node, frame), repr(part.attr if type(part) is nodes.Getattr
                                                                  else part.arg.value))     # type: ignore[union-attr]
                        for b in body for part in b.find_all((nodes.Getattr, nodes.Getitem)))
        self._dict_keys = frozenset(read)
        self._read_once = {read: self.temporary_identifier() for read, times in reads.items() if times > 1}
        try:
            code = self._expression(body, frame)[0]
        finally:
            self._dict_keys, once, self._read_once = frozenset(), self._read_once, {}
        self.writeline(f"if {' and '.join(f'type({name}) in _plain_dicts' for name in read) or 'True'}:", line)
        self.indent()
        self.writeline("try:")
        self.indent()
        for (variable, key), local in once.items():
            self.writeline(f"{local} = {variable}[{key}]", line)
        self.writeline(f"return {code}", line)
        self.outdent()
        self.writeline("except KeyError:")
        self.indent()
        self.writeline("pass")
        self.outdent(2)

    def _variable_of(self, name: nodes.Name, frame: Frame) -> str | None:
        return _variable(self._code(name, frame))

    def _expression(self, body: list[nodes.Node], frame: Frame) -> tuple[str, bool]:
        """The text `body` (output and `if`, as `_line_of` takes) prints, as one Python expression, with
        whether it is a str already: its text and values one `%` format (each value `str()`-ed by `%s`, as
        visit_Output's), an `if` a conditional expression of its branches' texts."""
        finalize = self._make_finalize()
        form, values = "", []
        for statement in body:
            if type(statement) is nodes.If:
                branches = [(statement.test, statement.body), *((e.test, e.body) for e in statement.elif_)]
                code = self._expression(statement.else_, frame)[0]
                for test, branch in reversed(branches):
                    code = f"({self._expression(branch, frame)[0]} if {self._code(test, frame)} else {code})"
                form += "%s"
                values.append((code, True))
                continue
            for child in statement.nodes:
                try:
                    if not (finalize.const or isinstance(child, nodes.TemplateData)):
                        raise nodes.Impossible()
                    form += self._output_child_to_const(child, frame, finalize).replace("%", "%%")
                except (nodes.Impossible, Exception):
                    form += "%s"
                    values.append((self._code(child, frame), False))
        if not values:
            return repr(form.replace("%%", "%")), True
        if form == "%s":
            code, text = values[0]
            return (code, True) if text else (f"str({code})", True)
        return f"({form!r} % ({''.join(f'{code}, ' for code, _ in values)}))", True

    _dict_keys: frozenset[str] = frozenset()     # the variables `_one_expression` reads by key alone
    _read_once: dict[tuple[str | None, str], str] = {}    # and the local of each of their keys read twice

    def _flag(self, variable: str) -> None:
        """Write the flag of a variable that keeps its value through the function being written."""
        flag = self._dict_flags[variable] = self.temporary_identifier()
        self.writeline(f"{flag} = type({variable}) in _plain_dicts")

    def _reads(self, name: str, within: Any) -> int:
        """How many attribute or item reads of the template name `name` `within` holds."""
        return sum(1 for read in within.find_all((nodes.Getattr, nodes.Getitem))
                   if type(read.node) is nodes.Name and read.node.name == name)

    def leave_frame(self, frame: Frame, with_python_scope: bool = False) -> None:
        if frame.rootlevel:
            self._dict_flags = {}       # (a block's function, written next, reads its own variables)
        super().leave_frame(frame, with_python_scope)

    def enter_frame(self, frame: Frame) -> None:
        if frame.rootlevel and self._plain() and self._template is not None:
            # A name of the context the template never assigns (no `set`, loop, import or `with` of it
            # anywhere) keeps the value the render's first lines read: whether it is a dict is asked once.
            self._enter(frame)
            template = self._template
            stored = {n.name for n in template.find_all(nodes.Name) if n.ctx != "load"}
            stored.update(n.target for n in template.find_all(nodes.Import))
            stored.update(n if isinstance(n, str) else n[-1] for i in template.find_all(nodes.FromImport)
                          for n in i.names)
            for variable, (action, name) in frame.symbols.loads.items():
                if action == VAR_LOAD_RESOLVE and name not in stored and self._reads(name, template) > 1:
                    self._flag(variable)
            return None
        hoisted = self._hoisted
        if hoisted is None or not frame.loop_frame:
            return self._enter(frame)
        self._hoisted = None      # the loop's own frame (a test's frame is no loop frame): once
        loads = frame.symbols.loads
        kept = {t: load for t, load in loads.items() if not (t in hoisted and load == (VAR_LOAD_RESOLVE, hoisted[t]))}
        frame.symbols.loads = kept
        try:
            self._enter(frame)
        finally:
            frame.symbols.loads = loads    # (leave_frame still resets every load after the loop)
        return None

    def _resolves_inline(self) -> bool:
        """Whether the environment's contexts resolve a name as Context does (`_resolved`)."""
        return self._plain() and getattr(self.environment.context_class, "resolve_or_missing", None) is _RESOLVE

    def write_commons(self) -> None:
        if not self._resolves_inline():
            return super().write_commons()
        # jinja2's lines but `resolve = context.resolve_or_missing`, which only its enter_frame read (`_enter`)
        self.writeline("undefined = environment.undefined")
        self.writeline("concat = environment.concat")
        self.writeline("cond_expr_undefined = Undefined")
        self.writeline("if 0: yield None")
        return None

    def _resolved(self, name: str) -> str:
        """The code that resolves a name of the context: Context.resolve_or_missing's own lines, written where
        the name is read instead of called (a frame and a bound method less each), when the environment's
        contexts resolve as Context does."""
        if self.get_resolve_func() != "resolve" or not self._resolves_inline():
            return f"{self.get_resolve_func()}({name!r})"
        return (f"(context.vars[{name!r}] if {name!r} in context.vars else context.parent[{name!r}]"
                f" if {name!r} in context.parent else missing)")

    def _enter(self, frame: Frame) -> None:
        """jinja2's enter_frame, a name of the context resolved by `_resolved`."""
        loads = frame.symbols.loads
        resolved = {t: load for t, load in loads.items() if load[0] == VAR_LOAD_RESOLVE}
        for target, (_action, name) in resolved.items():
            self.writeline(f"{target} = {self._resolved(name)}")
        frame.symbols.loads = {t: load for t, load in loads.items() if t not in resolved}
        try:
            super().enter_frame(frame)
        finally:
            frame.symbols.loads = loads

    def _arguments(self, node: nodes.Call, frame: Frame) -> None:
        first = True
        for arg in (*node.args, *node.kwargs):
            if not first:
                self.write(", ")
            first = False
            self.visit(arg, frame)

    def visit_Include(self, node: nodes.Include, frame: Frame) -> None:
        template = node.template
        if (not self._plain() or node.ignore_missing or not isinstance(template, nodes.Const)
                or not isinstance(template.value, str) or self.environment.auto_reload
                or self.environment.cache is None):
            return super().visit_Include(node, frame)
        # The environment would find the same template in its cache at each render (it does not reload).
        key = repr(template.value)
        local = self.dump_local_context(frame) if node.with_context else ""
        if local == "{}":
            # template.new_context(context.get_all(), True): a context of the same names, made directly; or,
            # for a template that only reads its context, this very one (found once, with the template).
            key = repr(f"{template.value}\0context")
            self.writeline(f"found = _included.get({key})", node)
            self.writeline("if found is None:")
            self.indent()
            self.writeline(f"template = environment.get_template({template.value!r}, {self.name!r})")
            self.writeline(f"found = _included[{key}] = (template, "
                           "template.root_render_func.__globals__.get('_reads_context_only') is True)")
            self.outdent()
            self.writeline("template, shared = found")
            self.writeline("gen = template.root_render_func(context if shared else environment.context_class("
                           "environment, context.get_all(), template.name, template.blocks, globals=template.globals))")
        else:
            self.writeline(f"template = _included.get({key})", node)
            self.writeline("if template is None:")
            self.indent()
            self.writeline(f"template = _included[{key}] = environment.get_template({key}, {self.name!r})")
            self.outdent()
            if not node.with_context:
                self.writeline("yield from template._get_default_module()._body_stream")
                return None
            self.writeline(f"gen = template.root_render_func(template.new_context(context.get_all(), True, {local}))")
        self.writeline("try:")
        self.indent()
        if frame.buffer is None:        # its text passed on in C, not event by event in Python
            self.writeline("yield from gen")
        else:
            self.writeline(f"{frame.buffer}.extend(gen)")
        self.outdent()
        self.writeline("finally: gen.close()")
        return None

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        finalize = self._make_finalize()
        if (frame.require_output_check or finalize.src is not None or frame.eval_ctx.volatile
                or frame.eval_ctx.autoescape):
            return super().visit_Output(node, frame)
        # As jinja2 does: constants joined at compile time, each value str()-ed at run time; then the
        # pieces of each template line are one `%` format (`%s` is str()), one yield or append.
        lines: list[list[Any]] = []      # of [lineno or None, format, values]
        for child in node.nodes:
            try:
                if not (finalize.const or isinstance(child, nodes.TemplateData)):
                    raise nodes.Impossible()
                text = self._output_child_to_const(child, frame, finalize)
            except (nodes.Impossible, Exception):
                if not lines or lines[-1][0] not in (None, child.lineno):
                    lines.append([child.lineno, "", []])
                lines[-1][0] = child.lineno
                lines[-1][1] += "%s"
                lines[-1][2].append(child)
                continue
            if not lines:
                lines.append([None, "", []])
            lines[-1][1] += text.replace("%", "%%")
        for _line, form, values in lines:
            head = "yield " if frame.buffer is None else f"{frame.buffer}.append("
            tail = "" if frame.buffer is None else ")"
            if not values:
                if form:      # (an empty text, such as a markdown list's start, is not written at all)
                    self.writeline(f"{head}{form.replace('%%', '%')!r}{tail}")
                continue
            self.writeline(head, values[0])
            if form == "%s":
                self.write("str(")
                self.visit(values[0], frame)
                self.write(")" + tail)
                continue
            self.write(f"{form!r} % (")
            for value in values:
                self.visit(value, frame)
                self.write(", ")
            self.write(")" + tail)
        return None
