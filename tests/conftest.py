import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter):
    import helpers
    for folder in helpers.SCREENSHOT_DIRS:
        terminalreporter.write_line(f"browser screenshots: {folder}")



@pytest.fixture()
def site(tmp_path):
    """A web forum app over a new local forum with one game, g (Alice and Bob, hosted by Host), and an outsider,
    Zed: (app, forum, passwords by name)."""
    from test_web import GAME

    from forumbot.platforms.local import LocalForum
    from forumbot.web.accounts import Accounts
    from forumbot.web.app import create_app
    from forumbot.web.config import WebConfig, WebSettings

    path = tmp_path / "forum.db"
    forum = LocalForum(path)
    accounts = Accounts(path)
    passwords = {name: accounts.add_user(name) for name in ("Alice", "Bob", "Host", "Zed")}
    app = create_app(WebSettings(str(path), WebConfig(per_page=10), games=(GAME,)))
    return app, forum, passwords
