"""The Infiltration lobby: players challenge each other in a thread, an accepted challenge starts a game
of its own, its result comes back, and only players of the same win tier may meet."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.games.base import GameSetup
from forumbot.games.infiltration.lobby import InfiltrationLobby
from forumbot.model import Intent
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

LOBBY = InfiltrationLobby()
LATER = START + timedelta(days=30)


def lobby_state(**game_options):
    return LOBBY.new(GameSetup("infiltration-lobby", (), START, options={"game_options": {"seed": "s", **game_options}},
                               host="Host"))


def say(state, author, kind, **data):
    return LOBBY.apply(state, Intent(kind, data, author=author, at=START + timedelta(minutes=1)))


def test_challenge_accept_spawns_a_game():
    state, events = say(lobby_state(), "alice", "challenge", opponent="u/Bob, let's play")
    assert [e.data["what"] for e in events] == ["challenge"] and state.challenges[0][:2] == ("alice", "Bob")
    state, events = say(state, "bob", "accept", challenger="@alice")
    assert events[0].data["what"] == "spawned" and state.challenges == ()
    [game] = LOBBY.spawned(state)
    assert game["name"] == "duel-1" and game["players"] == ["alice", "bob"] and game["options"]["seed"] == "s:duel-1"
    assert game["options"]["wins"] == {"alice": 0, "bob": 0} and not game["finished"]


def test_refusals_change_nothing():
    state = lobby_state()
    for author, kind, data, needle in [("alice", "challenge", {"opponent": "alice"}, "someone else"),
                                       ("bob", "accept", {"challenger": "alice"}, "has not challenged"),
                                       ("bob", "decline", {"challenger": "alice"}, "has not challenged"),
                                       ("bob", "withdraw", {}, "no open challenge")]:
        after, events = say(state, author, kind, **data)
        assert after == state and events[0].kind == "rejected" and needle in events[0].data["reason"]
        assert events[0].data["pm_to"] == author


def test_results_set_the_tiers():
    state, _ = say(lobby_state(), "alice", "challenge", opponent="bob")
    state, _ = say(state, "bob", "accept", challenger="alice")
    after, events = say(state, "alice", "challenge", opponent="bob")
    assert after == state and "still playing" in events[0].data["reason"]
    state, events = LOBBY.apply(state, Intent("result", {"game": "duel-1", "winner": "bob",
                                                        "ledger": {"alice": {"wins": 0, "money": -25},
                                                                   "bob": {"wins": 1, "money": 25}}}))
    assert events[0].data["what"] == "result" and LOBBY.spawned(state)[0]["finished"]
    assert state.wins("bob") == 1
    _, events = say(state, "alice", "challenge", opponent="bob")
    assert events[0].kind == "rejected" and "as many wins" in events[0].data["reason"]
    state, events = say(state, "alice", "challenge", opponent="carol")
    assert events[0].data["what"] == "challenge"


def test_state_round_trips():
    state, _ = say(lobby_state(), "alice", "challenge", opponent="bob")
    state, _ = say(state, "bob", "accept", challenger="alice")
    assert LOBBY.from_json(LOBBY.to_json(state)) == state


def make(store=None, forum=None):
    store = store or Store()
    forum = forum or LocalForum(clock=lambda: LATER)
    lobby = GameConfig(name="lobby", game="infiltration-lobby", lang="en", start=START, players=(), host="Host",
                       options={"game_options": {"seed": "s", "setup_hours": 1}})
    runner = Runner(store, forum, [GameRun.build(lobby)])
    runner.start(START)
    return store, forum, runner


def bot_posts(forum, thread):
    return [p["body"] for p in forum.thread_posts(thread) if p["author"] == forum.account]


def test_the_runner_starts_the_spawned_game_and_reports_its_result():
    store, forum, runner = make()
    forum.add_post("lobby/lobby", "alice", "challenge bob", at=START + timedelta(minutes=1))
    forum.add_post("lobby/lobby", "bob", "accept alice", at=START + timedelta(minutes=2))
    runner.step(START + timedelta(minutes=3))
    runner.step(START + timedelta(minutes=4))                    # the spawned game is created
    assert any("duel-1 starts" in p for p in bot_posts(forum, "lobby/lobby"))
    assert any("Send me your setup" in p for p in bot_posts(forum, "duel-1"))
    # bob concedes during the setup; the lobby learns the result and the tiers follow
    forum.add_post("duel-1", "bob", "I forfeit", at=START + timedelta(minutes=5))
    runner.step(START + timedelta(minutes=6))
    runner.step(START + timedelta(minutes=7))
    lobby = runner.state(runner.runs[0])
    assert lobby.games[0]["result"]["winner"] == "alice" and lobby.wins("alice") == 1
    assert any("duel-1 is over" in p for p in bot_posts(forum, "lobby/lobby"))
    # a restart rebuilds the spawned game from the lobby's record, posting nothing twice
    _, _, again = make(store, forum)
    count = len(bot_posts(forum, "duel-1"))
    again.step(START + timedelta(minutes=8))
    assert "duel-1" in [r.name for r in again.runs] and len(bot_posts(forum, "duel-1")) == count


def test_a_bot_config_lobby_runs_under_forumbot_run(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli

    (tmp_path / "bot.toml").write_text(
        '[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
        '[[lobbies]]\nname = "inf"\nruleset = "infiltration"\nhost = "Host"\n', encoding="utf-8")
    out = CliRunner().invoke(cli, ["run", "--config", str(tmp_path / "bot.toml"), "--once"])
    assert out.exit_code == 0, out.output
    forum = LocalForum(tmp_path / "forum.db")
    assert any("lobby is open" in p["body"] for p in forum.thread_posts("inf/lobby"))
    status = CliRunner().invoke(cli, ["status", "--config", str(tmp_path / "bot.toml")])
    assert "inf (infiltration-lobby): open" in status.output


def test_a_lobby_on_reddit_is_accepted_and_one_on_a_missing_platform_refused(tmp_path):
    from forumbot.config.bot import load_bot_config
    from forumbot.errors import ConfigError

    def load(platform: str, subreddit: str = 'subreddit = "duels"\n') -> Any:
        (tmp_path / "bot.toml").write_text(
            f'[bot]\nstore = "bot.db"\n[platforms.r]\nkind = "reddit"\nsite = "x"\n{subreddit}'
            f'[[lobbies]]\nplatform = "{platform}"\n', encoding="utf-8")
        return load_bot_config(tmp_path / "bot.toml")

    [lobby] = load("r").games
    assert (lobby.platform, lobby.config.game, lobby.threads) == ("r", "infiltration-lobby", {})
    with pytest.raises(ConfigError) as refused:
        load("board")
    assert "open threads" in str(refused.value) and "bot.toml:7:" in str(refused.value)
    assert "platforms: r" in str(refused.value)
    with pytest.raises(ConfigError) as nowhere:          # the bot would have no subreddit to open threads in
        load("r", subreddit="")
    assert "no subreddit" in str(nowhere.value) and "bot.toml:3:" in str(nowhere.value)
    assert 'subreddit = "yoursubreddit"' in str(nowhere.value)


def test_a_lobby_refusal_reaches_the_player_by_pm():
    store, forum, runner = make()
    forum.add_post("lobby/lobby", "bob", "accept alice", at=START + timedelta(minutes=1))
    runner.step(START + timedelta(minutes=2))
    assert [p["body"].split("\n")[0] for p in forum.pms_to("bob")] == ["Not accepted: alice has not challenged you"]
