"""A game in the bot config without [games.threads] on phpBB: `forumbot run` opens its topics at the
game's start through `open_thread`, exactly once even when SIGKILLed between opening a topic and recording
it, reads the votes posted there, and `forumbot status` shows the topics' ids and URLs."""

from __future__ import annotations

import signal
from datetime import timedelta

import pytest
from click.testing import CliRunner
from fakephpbb import Board, FakePhpbb
from test_crash_reddit import START, run_bot
from test_phpbb_crash import PLAYERS, prepare

from forumbot.cli import cli
from forumbot.engine.threads import recorded
from forumbot.storage import Store


def test_a_phpbb_game_without_threads_opens_its_topics_once_across_a_kill(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FORUMBOT_TEST_PHPBB", "pw")
    board, _, _ = Board.for_game(PLAYERS, START.timestamp(), form_min_age=0)
    before = set(board.topics)
    with FakePhpbb(board) as fake:
        config = prepare(tmp_path, fake)

        def opened() -> dict[str, int]:
            return {t.title: n for n, t in board.topics.items() if n not in before and t.author == 62}

        # killed right after the first topic is opened, before its id is in the store
        assert run_bot(config, START + timedelta(minutes=5), "thread_opened:1") == -signal.SIGKILL
        assert len(opened()) == 1 and "g" not in recorded(Store(tmp_path / "bot.db"))
        assert run_bot(config, START + timedelta(minutes=5)) == 0
        topics = opened()
        assert sorted(topics) == ["g: game", "g: votes"]               # each opened once, the first found again
        ids = {thread: str(topics[f"g: {thread}"]) for thread in ("game", "votes")}
        assert recorded(Store(tmp_path / "bot.db"))["g"] == [("board", "game", ids["game"]),
                                                           ("board", "votes", ids["votes"])]
        # the game posts in its topics and reads the votes posted there
        bot_text = [board.posts[n].text for n in board.topics[int(ids["game"])].posts if board.posts[n].author == 62]
        assert len(bot_text) >= 2 and "g's game thread" in bot_text[0]
        board.add_post(int(ids["votes"]), 70, "[b]vote Bob[/b]", at=(START + timedelta(minutes=7)).timestamp())
        assert run_bot(config, START + timedelta(minutes=15)) == 0
        votes_text = [board.posts[n].text for n in board.topics[int(ids["votes"])].posts if board.posts[n].author == 62]
        assert any("Alice" in t and "Bob" in t for t in votes_text[1:]), votes_text
        assert len(opened()) == 2
        status = CliRunner().invoke(cli, ["status", "--config", str(config)])
        assert status.exit_code == 0, status.output
        assert f"thread votes on board: {ids['votes']} {fake.url}/viewtopic.php?t={ids['votes']}" in status.output


def test_a_game_without_threads_on_a_board_without_a_forum_is_refused_at_load(tmp_path):
    from forumbot.config.bot import load_bot_config
    from forumbot.errors import ConfigError

    class NoServer:                  # prepare() only needs the board's URL
        url = "http://127.0.0.1:9"

    config = prepare(tmp_path, NoServer())  # type: ignore[arg-type]
    config.write_text(config.read_text(encoding="utf-8").replace("forum = 3\n", ""), encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        load_bot_config(config)
    message = str(refused.value)
    assert "game g's threads game, votes" in message and "no forum" in message and "bot.toml:3:" in message
    assert "forum = <forum id>" in message and "[games.threads]" in message
    named = prepare(tmp_path, NoServer(), votes=5, game=6)  # type: ignore[arg-type]
    named.write_text(named.read_text(encoding="utf-8").replace("forum = 3\n", ""), encoding="utf-8")
    assert load_bot_config(named).games[0].threads == {"votes": "5", "game": "6"}   # nothing to open: fine
