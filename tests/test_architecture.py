"""The package's layering, read from its imports: no import cycles; render, text and storage import nothing
above them; games are pure (no engine, storage,
web, platform or renderer code); only the platforms talk to praw or HTTP, only the web forum to Flask."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "forumbot"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _type_only(tree: ast.AST) -> set[int]:
    """The nodes under `if TYPE_CHECKING:` (imports for annotations only)."""
    blocks = [b for b in ast.walk(tree) if isinstance(b, ast.If) and "TYPE_CHECKING" in ast.unparse(b.test)]
    return {id(node) for block in blocks for node in ast.walk(block)}


def imports(name: str) -> set[str]:
    """Every module `name` imports, anywhere in its code (a function's import too), but for annotations."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    skip = _type_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in MODULES else node.module)
    return found


def _cycles() -> list[list[str]]:
    graph = {name: {m for m in imports(name) if m in MODULES and m != name} for name in MODULES}
    order, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return cycles


def test_the_layout_is_read():
    assert {"forumbot.engine.cycle", "forumbot.storage.store", "forumbot.games.mafia.game",
            "forumbot.platforms.phpbb", "forumbot.web.app", "forumbot.text.parse"} <= MODULES.keys()
    assert "forumbot.render.renderer" in imports("forumbot.engine.loading")


def test_no_module_imports_itself_back_through_others():
    assert _cycles() == []


def _under(prefix: str) -> list[str]:
    return sorted(name for name in MODULES if name == prefix or name.startswith(prefix + "."))


@pytest.mark.parametrize("name", _under("forumbot.games"))
def test_a_game_is_pure(name):
    banned = ("forumbot.engine", "forumbot.storage", "forumbot.web", "forumbot.platforms", "forumbot.render",
              "forumbot.audit", "forumbot.cli", "sqlite3", "sqlite_utils", "requests", "praw", "flask", "jinja2")
    assert [m for m in imports(name) if m.startswith(banned)] == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_platforms_speak_to_sites_and_only_the_web_forum_serves(name):
    found = imports(name)
    if not name.startswith("forumbot.platforms"):
        assert [m for m in found if m.split(".")[0] in ("praw", "prawcore", "requests", "urllib3")] == []
    if not name.startswith("forumbot.web"):
        assert [m for m in found if m.split(".")[0] in ("flask", "werkzeug", "waitress")] == []


LOWER = {   # a layer, and what it must not import: nothing above it
    "forumbot.render": ("forumbot.engine", "forumbot.storage", "forumbot.web", "forumbot.cli", "forumbot.platforms",
                        "forumbot.audit", "forumbot.games"),
    "forumbot.text": ("forumbot.engine", "forumbot.storage", "forumbot.web", "forumbot.cli", "forumbot.platforms",
                      "forumbot.audit", "forumbot.games", "forumbot.render"),
    "forumbot.storage": ("forumbot.engine", "forumbot.web", "forumbot.cli", "forumbot.platforms", "forumbot.audit",
                         "forumbot.games", "forumbot.render", "forumbot.text"),
}


@pytest.mark.parametrize("name", [n for layer in LOWER for n in _under(layer)])
def test_a_lower_layer_imports_nothing_above_it(name):
    banned = next(LOWER[layer] for layer in LOWER if name == layer or name.startswith(layer + "."))
    assert [m for m in imports(name) if m.startswith(banned)] == []
