"""The crash test on the fake phpBB board: `forumbot run` (the phpBB platform, signed in through the login
form) killed with SIGKILL at every crash point while players post and send PMs; the topics, the PMs and the
game's state must end up exactly as after an uninterrupted run. A PM viewed (so read on the board) by a
bot killed before its step committed is read again; a post that went out just before a kill is found by
its marker and not posted twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakephpbb import Board, FakePhpbb
from test_crash_reddit import START, crash_plan, play_windows

from forumbot.engine.crashpoints import POINTS
from forumbot.storage import Store

PLAYERS = {"Alice": 70, "Bob": 71, "Carol": 72, "Dave": 73, "Erin": 74, "Frank": 75}
# (minutes after the start, author, text, where: "votes", "game" or "pm")
SCRIPT: list[tuple[int, str, str, str]] = [
    (5, "Alice", "[b]vote Bob[/b]", "votes"), (12, "Bob", "[vote]Alice[/vote]", "votes"),
    (20, "Carol", "Morning!", "game"), (26, "Carol", "[b]vote Bob[/b]", "votes"),
    (33, "Dave", "[vote]Alice[/vote]", "votes"), (40, "Erin", "check Bob", "pm"),
    (47, "Erin", "[b]vote Bob[/b]", "votes"), (61, "Frank", "[b]unvote[/b]", "votes"),
    (75, "Frank", "[vote]Erin[/vote]", "votes"), (88, "Dave", "[b]no lynch[/b]", "votes"),
    (95, "Alice", "[vote]Erin[/vote]", "votes"), (130, "Bob", "block Alice", "pm"),
    (150, "Carol", "[b]vote Dave[/b]", "votes"), (170, "Erin", "[vote]Carol[/vote]", "votes"),
]


def prepare(folder: Path, fake: FakePhpbb, votes: int | None = None, game: int | None = None) -> Path:
    """The game and bot configs; without topic ids the bot opens the game's topics itself."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(
        f'[game]\nname = "mafia"\nlang = "en"\nstart = "{START:%Y-%m-%dT%H:%M:%SZ}"\ndialect = "bbcode"\n'
        '[game.options]\nday_hours = 2\nnight_hours = 1\nvotes_only = true\n'
        + "".join(f'[[players]]\nname = "{n}"\n' for n in PLAYERS), encoding="utf-8")
    config = folder / "bot.toml"
    config.write_text(f'[bot]\nstore = "bot.db"\n[platforms.board]\nkind = "phpbb"\nurl = "{fake.url}"\n'
                      'account = "forumbot"\nforum = 3\nmin_interval = 0\nform_wait = 0\n'
                      'password_env = "FORUMBOT_TEST_PHPBB"\npoll_seconds = 300\n'
                      '[[games]]\nconfig = "game.toml"\nname = "g"\nplatform = "board"\n'
                      + (f'[games.threads]\nvotes = "{votes}"\ngame = "{game}"\n' if votes is not None else ""),
                      encoding="utf-8")
    return config


def play(folder: Path, kills: dict[int, list[str]]) -> tuple[dict[str, object], dict[str, int]]:
    board, votes, game = Board.for_game(PLAYERS, START.timestamp(), form_min_age=0)
    killed: dict[str, int] = {}
    with FakePhpbb(board) as fake:
        config = prepare(folder, fake, votes.id, game.id)

        def put(author: int, body: str, where: str, at: float) -> None:
            if where == "pm":
                board.add_pm(PLAYERS[author], [62], "night", body, at=at)
            else:
                board.add_post((votes if where == "votes" else game).id, PLAYERS[author], body, at=at)

        play_windows(config, SCRIPT, kills, killed, put)
        row = Store(folder / "bot.db").game("g")
        assert row is not None

        def plain(text: str) -> str:       # each run has its own server port
            return text.replace(fake.url, "URL")

        def bot_posts(topic: int) -> list[str]:
            return [plain(board.posts[n].text) for n in board.topics[topic].posts if board.posts[n].author == 62][1:]

        outcome = {
            "votes": bot_posts(votes.id),
            "game": bot_posts(game.id),
            "pms": sorted((board.users[pm.to[0]].name, plain(pm.text)) for pm in board.pms.values() if pm.sender == 62),
            "unread": [pm.id for pm in board.pms.values() if 62 in pm.unread],
            "state": row.state,
        }
    return outcome, killed


def test_killed_bot_on_phpbb_posts_exactly_what_an_uninterrupted_one_does(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FORUMBOT_TEST_PHPBB", "pw")          # the bot's password, from the environment
    reference, _ = play(tmp_path / "reference", {})
    assert len(reference["votes"]) >= 5 and reference["game"] and reference["pms"]             # type: ignore
    assert reference["unread"] == []
    counts = reference["votes"]                                              # type: ignore[union-attr]
    assert not any("[s]" in text for text in counts)                         # stock phpBB has no [s]
    assert any("[color=gray]" in text for text in counts)                    # a withdrawn vote, greyed
    plan = crash_plan()
    plan[1].insert(0, "fetched:1")           # killed after viewing the PM, before storing it
    crashed, killed = play(tmp_path / "crashed", plan)
    assert sum(killed.values()) >= 12 and set(killed) == set(POINTS), killed
    assert crashed == reference
