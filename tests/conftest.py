import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from kept_tables import empty_kept_tables  # noqa: E402


def pytest_terminal_summary(terminalreporter):
    import helpers
    for folder in helpers.SCREENSHOT_DIRS:
        terminalreporter.write_line(f"browser screenshots: {folder}")


@pytest.fixture(autouse=True)
def _fresh_kept_tables():
    empty_kept_tables()   # (each test starts with them empty: see kept_tables.py)
