"""Crash test: `forumbot run` as a subprocess on a scripted game, killed with SIGKILL at many points
(polling, reading, committing, delivering, marking PMs read) and restarted; the forum must end up with
exactly the posts of an uninterrupted run — none missing, none doubled — and the same final state."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forumbot.config.game import load_scenario
from forumbot.engine.crashpoints import POINTS
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "samples" / "mafia-day-ru.toml"
START, UNTIL = "2026-03-02T20:00:00Z", "2026-03-04T22:00:00Z"
FAR = datetime(2100, 1, 1, tzinfo=UTC)


def prepare(folder: Path) -> Path:
    """A bot config, and a local forum holding the whole scripted game ahead of time (the bot's virtual
    clock lets it see each post only once its time has come)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "bot.toml"
    config.write_text(f'[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                      f'poll_seconds = 900\n[[games]]\nconfig = "{SCENARIO}"\nname = "g"\n', encoding="utf-8")
    forum = LocalForum(folder / "forum.db", clock=lambda: FAR)
    scenario = load_scenario(SCENARIO)
    for post in scenario.posts:
        forum.add_post(f"g/{post.thread}", post.author, post.text, at=post.at)
    # private messages too: the game reads them (and must mark them read only once committed)
    for hours, author in [(2, "Том Хэнкс"), (5, "Брэд Питт"), (9, "Мэрил Стрип"), (14, "Джонни Депп"),
                          (20, "Киану Ривз"), (26, "Хью Джекман")]:
        forum.add_pm(author, forum.account, "Проверяю Мэрил Стрип", at=scenario.config.start + timedelta(hours=hours))
    forum.db.close()
    return config


# A mutant of the bot for the tests that prove this test can fail: it marks private messages read as soon
# as it has fetched them, before anything stored or read them.
MARK_READ_ON_FETCH = """
from forumbot.platforms.local import LocalForum
fetch = LocalForum.fetch_pms
def fetch_and_mark(self):
    pms = fetch(self)
    if pms:
        self.mark_read([pm.platform_id for pm in pms])
    return pms
LocalForum.fetch_pms = fetch_and_mark
"""


def run_bot(config: Path, crash: str | None = None, mutant: str | None = None) -> int:
    """`forumbot run` on the scripted game, killed at `crash` if given; `mutant`: code that patches the bot
    first."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FORUMBOT_CRASH", None)
    if crash:
        env["FORUMBOT_CRASH"] = crash
    program = ["-m", "forumbot"] if mutant is None else \
        ["-c", f"{mutant}\nimport sys\nfrom forumbot.cli import main\nsys.argv[0] = 'forumbot'\nmain()"]
    done = subprocess.run([sys.executable, *program, "run", "--config", str(config), "--in-place",
                           "--simulate-from", START, "--until", UNTIL, "--step", "900"],
                          env=env, capture_output=True, text=True, timeout=300)
    if done.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"the bot failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.returncode


def outcome(folder: Path) -> dict[str, object]:
    forum = LocalForum(folder / "forum.db", clock=lambda: FAR)
    store = Store(folder / "bot.db")
    row = store.game("g")
    assert row is not None
    return {
        "posts": [(p["thread"], p["body"]) for p in forum.db["forum_posts"].rows_where(
            "author = ?", [forum.account], order_by="id")],
        "pms": [(p["recipient"], p["body"]) for p in forum.db["forum_pms"].rows_where(
            "sender = ?", [forum.account], order_by="id")],
        "pms_unread": forum.db.execute("SELECT count(*) FROM forum_pms WHERE recipient = ? AND read = 0",
                                       [forum.account]).fetchone()[0],
        "pending": len(store.pending()),
        "state": json.dumps(row.state, sort_keys=True, ensure_ascii=False),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("reference")
    assert run_bot(prepare(folder)) == 0
    result = outcome(folder)
    assert len(result["posts"]) >= 10 and result["pending"] == 0 and result["pms_unread"] == 0  # type: ignore
    return result


# 10 games, each killed 6 times at points spread over polling, reading, committing, delivering and
# marking PMs read, at different hit counts so the kills land at different moments of the game.
PLANS = [[(POINTS[(game * 3 + kill) % len(POINTS)], 1 + (game + kill) % 2) for kill in range(6)]
         for game in range(10)]


def test_killed_bot_posts_exactly_what_an_uninterrupted_one_does(tmp_path, reference):
    kills: dict[str, int] = {}
    for number, plan in enumerate(PLANS):
        folder = tmp_path / f"game{number}"
        config = prepare(folder)
        for point, count in plan:
            if run_bot(config, f"{point}:{count}") == -signal.SIGKILL:
                kills[point] = kills.get(point, 0) + 1
        assert run_bot(config) == 0
        assert outcome(folder) == reference, f"game {number} (killed at {plan}) differs from the reference"
    assert sum(kills.values()) >= 50, kills
    assert set(kills) == set(POINTS), f"some crash points were never reached: {kills}"
