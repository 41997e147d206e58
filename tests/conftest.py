import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter):
    import helpers
    for folder in helpers.SCREENSHOT_DIRS:
        terminalreporter.write_line(f"browser screenshots: {folder}")

