import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter):
    import helpers
    for folder in helpers.SCREENSHOT_DIRS:
        terminalreporter.write_line(f"browser screenshots: {folder}")


@pytest.fixture(autouse=True)
def _fresh_remade():
    """Each test starts with no view remade (kept.REMADE, the process's 16 latest): a test that renders counts
    some time after their views were made (test_render_format's budget) finds the records of those views or
    not by how many other tests made before it (1,371 to 1,401 bytecodes a count there), so a budget passed
    alone and failed in the whole run."""
    from forumbot import kept
    kept.REMADE.dicts = ({}, {})
