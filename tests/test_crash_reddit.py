"""The crash test on the local Reddit server: `forumbot run` (praw against tests/fakereddit) killed with
SIGKILL at every crash point while players comment and send PMs; the threads and the inbox must end up
exactly as after an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fakereddit import FakeReddit, RedditState

from forumbot.engine.crashpoints import POINTS
from forumbot.storage import Store

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=30)
UNTIL = START + timedelta(hours=4)
PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
# (minutes after the start, author, text, where): "votes"/"game" for a top-level comment, "pm" for a PM to
# the bot, or the index of an earlier comment this one replies to.
SCRIPT: list[tuple[int, str, str, str | int]] = [
    (5, "alice", "##vote bob", "votes"), (12, "bob", "vote alice", 0), (20, "carol", "Morning!", "game"),
    (26, "carol", "##vote bob", "votes"), (33, "dave", "vote: alice", 1), (40, "erin", "check bob", "pm"),
    (47, "erin", "vote bob", "votes"), (61, "frank", "unvote", "votes"), (75, "frank", "vote erin", 3),
    (88, "dave", "no lynch", "votes"), (95, "alice", "vote erin", "votes"), (130, "bob", "block alice", "pm"),
    (150, "carol", "vote dave", "votes"), (170, "erin", "vote carol", "votes"),
]


def prepare(folder: Path, fake: FakeReddit, votes: str, game: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    site = "\n".join(f"{k} = {v}" for k, v in fake.praw_settings("forumbot", "pw").items())
    (folder / "praw.ini").write_text(f"[fake]\n{site}\n", encoding="utf-8")
    (folder / "game.toml").write_text(
        f'[game]\nname = "mafia"\nlang = "en"\nstart = "{START:%Y-%m-%dT%H:%M:%SZ}"\n'
        '[game.options]\nvotes_only = true\nday_hours = 2\nnight_hours = 1\n'
        + "".join(f'[[players]]\nname = "{n}"\n' for n in PLAYERS), encoding="utf-8")
    config = folder / "bot.toml"
    config.write_text('[bot]\nstore = "bot.db"\n[platforms.reddit]\nkind = "reddit"\nsite = "fake"\n'
                      'subreddit = "mafia"\npoll_seconds = 300\n[[games]]\nconfig = "game.toml"\nname = "g"\n'
                      f'platform = "reddit"\n[games.threads]\nvotes = "{votes}"\ngame = "{game}"\n',
                      encoding="utf-8")
    return config


def run_bot(config: Path, until: datetime, crash: str | None = None) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FORUMBOT_CRASH", None)
    if crash:
        env["FORUMBOT_CRASH"] = crash
    done = subprocess.run([sys.executable, "-m", "forumbot", "run", "--config", str(config), "--in-place",
                           "--simulate-from", f"{START:%Y-%m-%dT%H:%M:%SZ}", "--until", f"{until:%Y-%m-%dT%H:%M:%SZ}",
                           "--step", "300"],
                          env=env, cwd=config.parent, capture_output=True, text=True, timeout=300)
    if done.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(f"the bot failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.returncode



def crash_plan() -> dict[int, list[str]]:
    """Which crash points kill the bot in which window: every point at least once, at different moments of
    the game, and pm_read and pms_fetched in the windows where PMs arrive (30-60 and 120-150 minutes)."""
    plan = {window: [f"{POINTS[(window * 3 + k) % len(POINTS)]}:1" for k in range(3)] for window in range(8)}
    for window in (1, 4):
        plan[window][:0] = ["pms_fetched:1", "pm_read:1"]
    return plan


def run_window(config: Path, end: datetime, crashes: list[str], killed: dict[str, int]) -> None:
    """One window of the game: the bot killed at each crash point given (counted in `killed`), then a run
    that must finish."""
    for crash in crashes:
        if run_bot(config, end, crash) == -signal.SIGKILL:
            point = crash.split(":")[0]
            killed[point] = killed.get(point, 0) + 1
    assert run_bot(config, end) == 0


def play_windows(config: Path, script: list[tuple[Any, ...]], kills: dict[int, list[str]], killed: dict[str, int],
                 put: Callable[[Any, str, Any, float], None]) -> None:
    """Every window of the game: the script's posts due by its end put on the platform (`put(author, body,
    where, at)`), then `run_window` with that window's crash points."""
    script = list(script)
    end, window = START + WINDOW, 0
    while end <= UNTIL:
        while script and START + timedelta(minutes=script[0][0]) <= end:
            minute, author, body, where = script.pop(0)
            put(author, body, where, (START + timedelta(minutes=minute)).timestamp())
        run_window(config, end, kills.get(window, []), killed)
        end, window = end + WINDOW, window + 1


def play(folder: Path, kills: dict[int, list[str]]) -> tuple[dict[str, object], dict[str, int]]:
    """The scripted game, window by window: players' comments and PMs appear, then the bot runs up to the
    window's end — killed first at the crash points planned for that window, then let finish."""
    state = RedditState()
    killed: dict[str, int] = {}
    with FakeReddit(state) as fake:
        for name in ["forumbot", *PLAYERS]:
            state.add_user(name, "pw")
        votes = state.add_submission("mafia", "Day: votes", at=START.timestamp())
        game = state.add_submission("mafia", "Day: discussion", at=START.timestamp())
        config = prepare(folder, fake, votes, game)
        made: list[str] = []

        def put(author: str | int, body: str, where: str | int, at: float) -> None:
            if where == "pm":
                state.add_message(author, "forumbot", "night", body, at=at)
                return
            parent = f"t1_{made[where]}" if isinstance(where, int) else (votes if where == "votes" else game)
            made.append(state.add_comment(parent, author, body, at=at))

        play_windows(config, SCRIPT, kills, killed, put)
        row = Store(folder / "bot.db").game("g")
        assert row is not None
        def plain(text: str) -> str:   # each run has its own server port
            return text.replace(fake.url, "URL")

        outcome = {
            "votes": [plain(c.body) for c in state.comments_by("forumbot", votes)],
            "game": [plain(c.body) for c in state.comments_by("forumbot", game)],
            "pms": sorted((m.dest, plain(m.body)) for m in state.messages.values() if m.author == "forumbot"),
            "unread": [m.id for m in state.messages.values() if m.dest == "forumbot" and m.new],
            "state": row.state,
        }
    return outcome, killed


def test_killed_bot_on_reddit_posts_exactly_what_an_uninterrupted_one_does(tmp_path):
    reference, _ = play(tmp_path / "reference", {})
    assert len(reference["votes"]) >= 5 and reference["game"] and reference["pms"]             # type: ignore
    assert reference["unread"] == []
    plan = crash_plan()
    crashed, killed = play(tmp_path / "crashed", plan)
    assert crashed == reference
    assert sum(killed.values()) >= 12 and set(killed) == set(POINTS), killed
