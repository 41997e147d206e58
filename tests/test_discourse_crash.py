"""The crash test on the fake Discourse site: `forumbot run` (the Discourse platform, its API key from the
environment) killed with SIGKILL at every crash point while players post and send PMs; the topics, the PMs and
the game's state must end up exactly as after an uninterrupted run. And a game without [games.threads] opens
its topics once, across a SIGKILL between opening one and recording it."""

from __future__ import annotations

import signal
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakediscourse import DiscourseState, FakeDiscourse
from test_crash_reddit import START, crash_plan, play_windows, run_bot

from forumbot.cli import cli
from forumbot.engine.crashpoints import POINTS
from forumbot.engine.threads import recorded
from forumbot.storage import Store

KEY = "crash-test-key"
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
# (minutes after the start, author, text, where: "votes", "game" or "pm")
SCRIPT: list[tuple[int, str, str, str]] = [
    (5, "Alice", "**vote Bob**", "votes"), (12, "Bob", "vote: Alice", "votes"),
    (20, "Carol", "Morning, everyone!", "game"), (26, "Carol", "**vote Bob**", "votes"),
    (33, "Dave", "**vote Alice**", "votes"), (40, "Erin", "check Bob", "pm"),
    (47, "Erin", "**vote Bob**", "votes"), (61, "Frank", "**unvote**", "votes"),
    (75, "Frank", "**vote Erin**", "votes"), (88, "Dave", "**no lynch**", "votes"),
    (95, "Alice", "**vote Erin**", "votes"), (130, "Bob", "block Alice", "pm"),
    (150, "Carol", "**vote Dave**", "votes"), (170, "Erin", "**vote Carol**", "votes"),
]


def new_site() -> tuple[DiscourseState, int]:
    state = DiscourseState()
    state.add_user("forumbot", admin=True, key=KEY)
    for name in PLAYERS:
        state.add_user(name)
    return state, state.add_category("Mafia games").id


def prepare(folder: Path, url: str, category: int, votes: int | None = None, game: int | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.toml").write_text(
        f'[game]\nname = "mafia"\nlang = "en"\nstart = "{START:%Y-%m-%dT%H:%M:%SZ}"\ndialect = "markdown"\n'
        '[game.options]\nday_hours = 2\nnight_hours = 1\nvotes_only = true\n'
        + "".join(f'[[players]]\nname = "{n}"\n' for n in PLAYERS), encoding="utf-8")
    config = folder / "bot.toml"
    config.write_text(f'[bot]\nstore = "bot.db"\n[platforms.forum]\nkind = "discourse"\nurl = "{url}"\n'
                      f'account = "forumbot"\ncategory = {category}\napi_key_env = "FORUMBOT_TEST_DISCOURSE"\n'
                      'requests_per_minute = 0\npoll_seconds = 300\n'
                      '[[games]]\nconfig = "game.toml"\nname = "g"\nplatform = "forum"\n'
                      + (f'[games.threads]\nvotes = "{votes}"\ngame = "{game}"\n' if votes is not None else ""),
                      encoding="utf-8")
    return config


def play(folder: Path, kills: dict[int, list[str]]) -> tuple[dict[str, object], dict[str, int]]:
    state, category = new_site()
    votes = state.add_topic("Alice", "Mafia: day one votes", "Vote here, please, in bold.", category=category,
                            at=START.timestamp())
    game = state.add_topic("Alice", "Mafia: the game topic", "Talk here; the news comes here.", category=category,
                           at=START.timestamp())
    killed: dict[str, int] = {}
    with FakeDiscourse(state) as fake:
        config = prepare(folder, fake.url, category, votes.id, game.id)

        def put(author: str, body: str, where: str, at: float) -> None:
            if where == "pm":
                state.add_topic(author, "Night action", body, to=["forumbot"], at=at)
            else:
                state.add_post((votes if where == "votes" else game).id, author, body, at=at)

        play_windows(config, SCRIPT, kills, killed, put)
        row = Store(folder / "bot.db").game("g")
        assert row is not None

        def plain(text: str) -> str:       # each run has its own server port
            return text.replace(fake.url, "URL")

        outcome = {
            "votes": [plain(p.raw) for p in state.topic_posts(votes.id, "forumbot")],
            "game": [plain(p.raw) for p in state.topic_posts(game.id, "forumbot")],
            "pms": sorted((to, plain(p.raw)) for to, p in state.pms_from("forumbot")),
            "state": row.state,
        }
    return outcome, killed


def test_killed_bot_on_discourse_posts_exactly_what_an_uninterrupted_one_does(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_TEST_DISCOURSE", KEY)          # the bot's API key, from the environment
    reference, _ = play(tmp_path / "reference", {})
    assert len(reference["votes"]) >= 5 and reference["game"] and reference["pms"]             # type: ignore
    assert any("~~" in text for text in reference["votes"])                # type: ignore[union-attr]
    plan = crash_plan()
    plan[1].insert(0, "fetched:1")           # killed after reading the PM, before storing it
    crashed, killed = play(tmp_path / "crashed", plan)
    assert sum(killed.values()) >= 12 and set(killed) == set(POINTS), killed
    assert crashed == reference


def test_a_discourse_game_without_threads_opens_its_topics_once_across_a_kill(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_TEST_DISCOURSE", KEY)
    state, category = new_site()
    with FakeDiscourse(state) as fake:
        config = prepare(tmp_path, fake.url, category)

        def opened() -> dict[str, int]:
            return {t.title: n for n, t in state.topics.items()
                    if t.archetype == "regular" and state.user_by_id(t.user_id).username == "forumbot"}

        # killed right after the first topic is opened, before its id is in the store
        assert run_bot(config, START + timedelta(minutes=5), "thread_opened:1") == -signal.SIGKILL
        assert len(opened()) == 1 and "g" not in recorded(Store(tmp_path / "bot.db"))
        assert run_bot(config, START + timedelta(minutes=5)) == 0
        topics = opened()
        assert sorted(topics) == ["g: game · forumbot game", "g: votes · forumbot game"]   # padded to 15
        ids = {thread: str(topics[f"g: {thread} · forumbot game"]) for thread in ("game", "votes")}
        assert recorded(Store(tmp_path / "bot.db"))["g"] == [("forum", "game", ids["game"]),
                                                           ("forum", "votes", ids["votes"])]
        state.add_post(int(ids["votes"]), "Alice", "**vote Bob**", at=(START + timedelta(minutes=7)).timestamp())
        assert run_bot(config, START + timedelta(minutes=15)) == 0
        counts = [p.raw for p in state.topic_posts(int(ids["votes"]), "forumbot")]
        assert any("Alice" in t and "Bob" in t for t in counts[1:]), counts
        assert len(opened()) == 2
        status = CliRunner().invoke(cli, ["status", "--config", str(config)])
        assert status.exit_code == 0, status.output
        assert f"thread votes on forum: {ids['votes']} {fake.url}/t/{ids['votes']}" in status.output


def test_a_lobby_opens_each_duels_topic_once_across_a_kill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`forumbot run` with an Infiltration lobby on Discourse: the bot opens the lobby's topic, a challenge is
    accepted there, and the bot is SIGKILLed right after opening the duel's topic, before recording it; the
    restarted bot finds that topic by its marker and opens no second one."""
    monkeypatch.setenv("FORUMBOT_TEST_DISCOURSE", KEY)
    state, category = new_site()
    for name in ("alice", "bob"):
        state.add_user(name)
    with FakeDiscourse(state) as fake:
        config = tmp_path / "bot.toml"
        config.write_text(f'[bot]\nstore = "bot.db"\n[platforms.forum]\nkind = "discourse"\nurl = "{fake.url}"\n'
                          f'account = "forumbot"\ncategory = {category}\napi_key_env = "FORUMBOT_TEST_DISCOURSE"\n'
                          'requests_per_minute = 0\npoll_seconds = 300\n'
                          '[[lobbies]]\nplatform = "forum"\nname = "lobby"\nhost = "Host"\n'
                          '[lobbies.options]\nseed = "s"\nsetup_hours = 1\n', encoding="utf-8")

        def opened() -> list[tuple[str, int]]:
            return sorted((t.title, n) for n, t in state.topics.items()
                          if t.archetype == "regular" and state.user_by_id(t.user_id).username == "forumbot")

        assert run_bot(config, START + timedelta(minutes=5)) == 0
        ((_, lobby),) = opened()
        state.add_post(lobby, "alice", "challenge bob", at=(START + timedelta(minutes=6)).timestamp())
        state.add_post(lobby, "bob", "accept alice", at=(START + timedelta(minutes=7)).timestamp())
        assert run_bot(config, START + timedelta(minutes=15), "thread_opened:1") == -signal.SIGKILL
        assert len(opened()) == 2 and "duel-1" not in recorded(Store(tmp_path / "bot.db"))
        assert run_bot(config, START + timedelta(minutes=20)) == 0
        topics = opened()
        assert len(topics) == 2                                     # found again by its marker, not reopened
        duel = next(n for title, n in topics if n != lobby)
        assert recorded(Store(tmp_path / "bot.db"))["duel-1"] == [("forum", "game", str(duel))]
        assert any("Send me your setup" in p.raw for p in state.topic_posts(duel, "forumbot"))
