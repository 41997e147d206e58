"""The process's kept tables (a value made from an object or a key, found by its identity or value:
forumbot/kept.py), each bounded and started afresh when full, emptied. A budget in bytecodes counts the work
those tables spare, so how full earlier tests left them moved a count's cost (test_render_format measured 1,371
to 1,401 a count by how many views earlier tests had made, test_count_kept 1,306 to 1,328): conftest.py empties
them before each test, and a test that measures two cases in turn empties them between the two."""

from __future__ import annotations

import sys

# The kept dicts of a module, by the module's name.
KEPT_DICTS = {"forumbot.games.mafia.state": ("_DERIVED", "_FIELD_TEXT", "_MADE"),
              "forumbot.games.mafia.voting": ("_RECENT", "_TALLIES"),
              "forumbot.games.mafia.game": ("_WAGON_VIEWS",)}


def empty_kept_tables() -> None:
    """Every module-level ByIdentity and ByValue of forumbot's modules imported so far, and KEPT_DICTS, emptied
    (a module not imported yet is not imported here: a test may count what is imported)."""
    from forumbot.kept import ByIdentity, ByValue
    for module in [m for name, m in sys.modules.items() if name.startswith("forumbot")]:
        for value in vars(module).values():
            if isinstance(value, ByIdentity):
                value.dicts = ({}, {})
            elif isinstance(value, ByValue):
                value.clear()
    for module, names in KEPT_DICTS.items():
        if module in sys.modules:
            for name in names:
                getattr(sys.modules[module], name).clear()
