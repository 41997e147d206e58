"""Dead seats in every game: each game says whom it has put out (Game.eliminated) and the seating chart marks
those seats dead, whatever the game: Mafia's lynched and killed, Food Chain's hunted, eaten and starved. The
dead chat takes them in and the game's threads stop taking their posts (Food Chain's dead channel, while the
rounds run, takes only theirs). A game that puts nobody out (Infiltration, Nisemonogatari, a ranked vote)
says so."""

from __future__ import annotations

import pytest
from helpers import new_game, votes
from test_foodchain_game import CAST, end_round, pm, started

from forumbot.engine.chart import chart_of
from forumbot.engine.host import HostState
from forumbot.games import GAMES, get_game
from forumbot.games.mafia import MAFIA
from forumbot.seating import Chart


def chart(game: str, state) -> Chart:
    return chart_of("g", get_game(game), state, HostState(), "Host", ("Cohost",))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_says_whom_it_has_put_out(name):
    game = GAMES[name]
    assert callable(game.eliminated)            # the chart's one question, asked of every game alike
    assert "eliminated" in type(game).__dict__, name


def test_mafias_lynched_player_holds_a_dead_seat():
    state = new_game(12)
    players = list(state.players)
    state, _ = votes(state, [(v, players[0]) for v in players[1:8]])   # 7 of 12: an early lynch
    assert MAFIA.eliminated(state) == (players[0],)
    seats = chart("mafia", state)
    assert not seats.seat_of(players[0]).alive and seats.seat_of(players[1]).alive
    assert players[0] in seats.dead_chat() and players[1] not in seats.dead_chat()
    assert not seats.may_post(players[0], "votes") and seats.may_post(players[1], "votes")


def test_food_chains_hunted_and_starved_hold_dead_seats():
    state = started(CAST)
    state, _ = pm(state, "Prey", "move to Sky")
    state, _ = pm(state, "Hunt", "attack Prey")
    state, _ = end_round(state)                  # Prey hunted; Pred, who ate nobody, starved
    assert set(get_game("foodchain").eliminated(state)) == {"Prey", "Pred"}
    seats = chart("foodchain", state)
    assert {s.name for s in seats.seats if not s.alive} == {"Prey", "Pred"}
    assert set(seats.dead_chat()) == {"Host", "Cohost", "Prey", "Pred"}
    # the game thread and the habitats: the living (and the hosts); the dead's channel: the dead
    for purpose in ("game", "forest"):
        assert [p for p in CAST if seats.may_post(p, purpose)] == ["Hunt", "Scav"], purpose
    assert [p for p in CAST if seats.may_post(p, "dead")] == ["Pred", "Prey"]
    assert seats.may_post("Host", "dead") and seats.may_post("Cohost", "game")


def test_before_the_rounds_food_chains_dead_channel_is_a_thread_like_the_others():
    from test_foodchain_game import new
    seats = chart("foodchain", new(list(CAST)))
    assert seats.dead_threads == () and all(seats.may_post(p, "dead") for p in CAST)


@pytest.mark.parametrize(("sample", "dead"), [
    ("foodchain-game.toml", None),             # played to the end: its dead, as the stored state says
    ("infiltration-game.toml", set()), ("nisemonogatari-game.toml", set()), ("cyoa-vote.toml", set()),
])
def test_the_stored_chart_of_each_game_played_to_the_end_has_its_dead(sample, dead):
    """As the web forum and the console read it: the chart of the game the store holds."""
    from forumbot.config.paths import data_dir
    from forumbot.engine.chart import stored_chart
    from forumbot.engine.replay import replay

    result = replay(data_dir("samples") / sample)
    try:
        row = result.store.game(result.scenario.config.name)
        state = get_game(row.game).from_json(row.state)
        expected = set(state.dead) if dead is None else dead
        assert dead is not None or expected                     # the sample's rounds killed someone
        seats = stored_chart(row, result.scenario.config.host)
        assert seats.seats and {s.name for s in seats.seats if not s.alive} == expected
        assert set(seats.dead_chat()) - set(seats.hosts()) == expected
    finally:
        result.close()


def test_on_the_web_forum_food_chains_dead_post_in_the_dead_channel_only(tmp_path):
    """The whole way: a Food Chain game run by the bot on the local forum, a round that kills two; the web
    forum asks the stored chart who posts where."""
    import re
    from datetime import UTC, datetime, timedelta

    from forumbot.config.game import GameConfig, load_ruleset
    from forumbot.engine.cycle import GameRun, Runner
    from forumbot.model import PlayerRef
    from forumbot.platforms.local import LocalForum
    from forumbot.storage import Store
    from forumbot.web.accounts import Accounts
    from forumbot.web.app import create_app
    from forumbot.web.config import WebConfig, WebSettings, web_games

    start = datetime(2026, 8, 1, 12, tzinfo=UTC)
    forum_path, store_path = tmp_path / "forum.db", tmp_path / "bot.db"
    forum = LocalForum(forum_path, clock=lambda: start + timedelta(days=30))
    config = GameConfig(name="fc", game="foodchain", lang="en", start=start, host="Host",
                        players=tuple(PlayerRef(p) for p in CAST),
                        options={**load_ruleset("foodchain", "foodchain"), "seed": "t"})
    run = GameRun.build(config)
    runner = Runner(Store(store_path), forum, [run])
    runner.start(start)
    for n, (player, text) in enumerate(CAST.items()):
        forum.add_pm(player, forum.account, text, at=start + timedelta(minutes=n + 1))
    ends = runner.state(run).ends
    runner.step(ends + timedelta(minutes=1))
    at = ends + timedelta(minutes=2)
    forum.add_pm("Prey", forum.account, "move to Sky", at=at)
    forum.add_pm("Hunt", forum.account, "attack Prey", at=at + timedelta(minutes=1))
    runner.step(at + timedelta(minutes=2))
    runner.step(runner.state(run).ends + timedelta(minutes=1))
    assert set(runner.state(run).dead) == {"Prey", "Pred"}
    games = web_games(runner)
    runner.store.close()
    accounts = Accounts(forum_path)
    passwords = {name: accounts.add_user(name) for name in (*CAST, "Host")}
    app = create_app(WebSettings(str(forum_path), WebConfig(per_page=10), games=games, store=str(store_path)))
    app.config["TESTING"] = True
    threads = games[0].threads

    def posts(who, purpose):
        client = app.test_client()
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/signin").get_data(as_text=True)).group(1)
        client.post("/signin", data={"name": who, "password": passwords[who], "csrf": token})
        token = re.search(r'name="csrf" value="([^"]+)"',
                          client.get(f"/t/{threads['game']}").get_data(as_text=True)).group(1)
        return client.post("/reply", data={"thread": threads[purpose], "body": "hello", "csrf": token}).status_code

    assert {who: posts(who, "dead") for who in (*CAST, "Host")} == {
        "Pred": 302, "Hunt": 403, "Prey": 302, "Scav": 403, "Host": 302}
    assert {who: posts(who, "game") for who in (*CAST, "Host")} == {
        "Pred": 403, "Hunt": 302, "Prey": 403, "Scav": 302, "Host": 302}
