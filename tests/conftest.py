import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter):
    import helpers
    for folder in helpers.SCREENSHOT_DIRS:
        terminalreporter.write_line(f"browser screenshots: {folder}")


# The process's kept tables (a value made from an object or a key, found by its identity or value:
# forumbot/kept.py), each bounded and started afresh when full. A budget in bytecodes counts the work those tables
# spare, so how full earlier tests left them moved a count's cost (test_render_format measured 1,371 to 1,401 a
# count by how many views earlier tests had made, test_count_kept 1,306 to 1,328): each test starts with all of
# them empty.
_KEPT_DICTS = ("forumbot.games.mafia.state:_DERIVED _FIELD_TEXT _MADE", "forumbot.games.mafia.voting:_RECENT _TALLIES",
               "forumbot.games.mafia.game:_WAGON_VIEWS")


@pytest.fixture(autouse=True)
def _fresh_kept_tables():
    from forumbot.kept import ByIdentity, ByValue
    for module in [m for name, m in sys.modules.items() if name.startswith("forumbot")]:
        for value in vars(module).values():
            if isinstance(value, ByIdentity):
                value.dicts = ({}, {})
            elif isinstance(value, ByValue):
                value.clear()
    for spec in _KEPT_DICTS:
        module, names = spec.split(":")
        if module in sys.modules:   # (not imported here: a test may count what is imported)
            for name in names.split():
                getattr(sys.modules[module], name).clear()
