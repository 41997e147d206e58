"""The seating chart obeyed on the web forum: who may post in a game's threads, write to whom and read whose
private messages, as the bot's store has the game (a `replace` included, across restarts); and the chart's
routing over random seatings, masks and replacements."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine.chart import chart_of
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.host import HostState, apply_host
from forumbot.games.mafia import MAFIA
from forumbot.model import Intent, PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

LATER = START + timedelta(days=60)
PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Eve")
GAME = WebGame("g", {"votes": "g/votes", "game": "g/game"}, "Host", PLAYERS)
PEOPLE = ("Alice", "Bob", "Bobsub", "Host", "Zed")


def at(hours: float):
    return START + timedelta(hours=hours)


@pytest.fixture()
def replaced(tmp_path):
    """Game g at day 1 on the local forum; the host has replaced Bob with Bobsub. Returns a function making
    the web app afresh (a restart) and the passwords."""
    forum_path, store_path = tmp_path / "forum.db", tmp_path / "bot.db"
    forum = LocalForum(forum_path, clock=lambda: LATER)
    config = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host", phase="day1",
                        players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24, "night_hours": 12})
    runner = Runner(Store(store_path), forum, [GameRun.build(config)])
    runner.start(START)
    forum.add_pm("Host", forum.account, "replace Bob with Bobsub", at=at(1))
    runner.step(at(2))
    forum.add_pm("Bobsub", forum.account, "hello, I play Bob now", at=at(3))
    forum.add_pm("Bob", forum.account, "I was Bob", at=at(3))
    runner.step(at(4))   # the game reads both (the replaced player's to flag it)
    runner.deliver(at(4))
    runner.store.close()
    accounts = Accounts(forum_path)
    passwords = {name: accounts.add_user(name) for name in PEOPLE}

    def app():
        return create_app(WebSettings(str(forum_path), WebConfig(per_page=10), games=(GAME,), store=str(store_path)))
    return app, passwords


def signed_in(app, passwords, name):
    client = app.test_client()
    client.post("/signin", data={"name": name, "password": passwords[name], "csrf": _token(client)})
    return client


def _token(client, url="/signin"):
    import re
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True)).group(1)


# who, what they do, the HTTP status they get
TABLE = [
    ("Alice", "post", 302), ("Bobsub", "post", 302), ("Bob", "post", 403), ("Host", "post", 302), ("Zed", "post", 403),
    ("Host", "read Bobsub's PMs", 200), ("Host", "read Bob's PMs", 200), ("Alice", "read Bobsub's PMs", 403),
    ("Zed", "read Bobsub's PMs", 403), ("Bobsub", "read Bob's PMs", 403),
    ("Host", "write to Bobsub", 302), ("Host", "write to Bob", 403), ("Alice", "write to Bobsub", 403),
]


@pytest.mark.parametrize(("who", "what", "status"), TABLE)
def test_who_may_do_what_after_a_replace_across_restarts(replaced, who, what, status):
    make, passwords = replaced
    for app in (make(), make()):   # the second app: the forum restarted, the chart read from the store again
        client = signed_in(app, passwords, who)
        csrf = _token(client, "/t/g/votes")
        if what == "post":
            got = client.post("/reply", data={"thread": "g/votes", "body": "vote Alice", "csrf": csrf}).status_code
        elif what.startswith("read"):
            got = client.get(f"/pm/{what.split()[1][:-2]}/forumbot").status_code
        else:
            got = client.post(f"/pm/{what.split()[-1]}", data={"body": "hi", "csrf": csrf}).status_code
        assert got == status, (who, what)


def test_the_host_reads_the_substitutes_pms_and_the_substitute_sees_the_bots(replaced):
    make, passwords = replaced
    host = signed_in(make(), passwords, "Host")
    assert "hello, I play Bob now" in host.get("/pm/Bobsub/forumbot").get_data(as_text=True)
    assert "Bobsub" in host.get("/pm/").get_data(as_text=True)


# ---- the chart over random seatings ---------------------------------------------------------------
NAMES = st.lists(st.sampled_from(["Ann", "Ben", "Cid", "Dee", "Eli", "Fay", "Gus", "Hal"]), min_size=2, max_size=6,
                 unique=True)


@settings(max_examples=60, deadline=None)
@given(players=NAMES, masked=st.booleans(), swaps=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40)),
                                                             max_size=6))
def test_no_pm_reaches_an_account_outside_its_seat(players, masked, swaps):
    masks = {f"Mask {p}": p for p in players} if masked else {}
    state = MAFIA.new(_setup(players))
    if masked:
        seats = tuple(masks)
        state = state.with_(players=seats, alive=seats, masks=masks)
    seat_names = list(masks) if masked else players
    host = HostState()
    for n, (which, sub) in enumerate(swaps):
        intent = Intent("host_replace", {"target": seat_names[which % len(seat_names)], "account": f"sub{sub}"},
                        author="Host", at=at(n))
        state, host, _ = apply_host(MAFIA, state, host, intent, "Host", tuple(seat_names))
    chart = chart_of("g", MAFIA, state, host, "Host")
    owner = {}
    for seat in chart.seats:
        for account in seat.accounts():
            assert owner.setdefault(account, seat.name) == seat.name   # no account acts for two seats
    for seat in chart.seats:
        # what the game sends to the seat (by its name, mask or first account) reaches an account acting for it
        for name in {seat.name, seat.mask or seat.name, seat.holders[0].account}:
            assert chart.reader_of(name) in seat.accounts()
        # a replaced holder acts for it no longer (unless they hold it again), and reads nothing of it
        for old in seat.holders[:-1]:
            assert old.until
            if old.account != seat.account:
                assert chart.seat_of(old.account) is not seat
                assert chart.reader_of(seat.name) != old.account
    assert chart.reader_of("Host") == "Host" and not chart.seat_of("Host")


def _setup(players):
    from forumbot.games.base import GameSetup
    return GameSetup("mafia", tuple(PlayerRef(p) for p in players), START, phase="day1", host="Host")


def test_the_console_shows_the_seating_chart_with_the_substitute(tmp_path):
    from test_console import Bed, host_client, page
    bed = Bed(tmp_path)
    bed.forum.add_pm("Host", bed.forum.account, "replace Bob with Bobsub", at=at(3.5))
    bed.step(4)
    rows = {row["data-seat"]: row.select("td")[3].get_text(" ", strip=True)
            for row in page(host_client(bed)).select("#seats tr.seat")}
    assert list(rows) == list(PLAYERS)
    assert rows["Alice"] == "Alice"
    assert rows["Bob"].startswith("Bob (start –") and "Bobsub (" in rows["Bob"] and rows["Bob"].endswith("– now)")


# ---- sessions follow the credentials ------------------------------------------------------------------
def test_a_password_reset_ends_every_session_of_the_account(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli
    path = tmp_path / "forum.db"
    LocalForum(path)
    passwords = {"Alice": Accounts(path).add_user("Alice")}
    app = create_app(WebSettings(str(path), WebConfig(per_page=10), games=(GAME,)))
    client = signed_in(app, passwords, "Alice")
    assert client.get("/pm/").status_code == 200
    result = CliRunner().invoke(cli, ["forum", "add-user", "Alice", "--forum", str(path)])
    assert result.exit_code == 0
    assert client.get("/pm/").status_code == 401                            # the old session is over
    passwords["Alice"] = result.output.split("\t")[1].split()[0]
    assert signed_in(app, passwords, "Alice").get("/pm/").status_code == 200


@pytest.mark.parametrize("change", ["changed", "removed"])
def test_a_hosts_console_sessions_end_when_their_hash_changes_or_is_removed(tmp_path, change):
    from forumbot.web.accounts import hash_password
    path, store = tmp_path / "forum.db", tmp_path / "bot.db"
    LocalForum(path)
    Store(store).close()

    def app(hosts):
        made = create_app(WebSettings(str(path), WebConfig(hosts=hosts), games=(GAME,), store=str(store),
                                      game_hosts={"g": "Host"}))
        made.config["TESTING"] = True
        return made
    first = app({"Host": hash_password("host-password-1")})
    client = first.test_client()
    token = _token(client, "/console/signin")
    assert client.post("/console/signin", data={"name": "Host", "password": "host-password-1",
                                                 "csrf": token}).status_code == 302
    assert client.get("/console/").status_code == 200
    restarted = app({"Host": hash_password("host-password-2")} if change == "changed" else {})
    again = restarted.test_client()
    for cookie in client._cookies.values():   # the same browser, after the restart
        again.set_cookie(cookie.key, cookie.value, domain=cookie.domain)
    ended = again.get("/console/")
    assert ended.status_code == 302 and ended.headers["Location"].endswith("/console/signin")
    unchanged = app({"Host": first.extensions["forumbot"].web.hosts["Host"]}).test_client()
    for cookie in client._cookies.values():
        unchanged.set_cookie(cookie.key, cookie.value, domain=cookie.domain)
    assert unchanged.get("/console/").status_code == 200


def test_a_host_of_one_game_playing_in_another_does_not_read_that_games_host_pms(tmp_path):
    path = tmp_path / "forum.db"
    forum = LocalForum(path)
    accounts = Accounts(path)
    passwords = {name: accounts.add_user(name) for name in ("Host", "Ann", "Host2")}
    one = WebGame("g1", {"votes": "g1/votes"}, "Host", ("Ann", "Bob"))
    two = WebGame("g2", {"votes": "g2/votes"}, "Host2", ("Ann", "Host", "Cid"))
    app = create_app(WebSettings(str(path), WebConfig(per_page=10), games=(one, two)))
    forum.add_pm("Ann", "Host2", "I am the detective in g2")
    forum.add_pm("Ann", "forumbot", "game g1\nI'm here")
    host = signed_in(app, passwords, "Host")
    assert host.get("/pm/Ann/Host2").status_code == 403
    assert "Host2" not in host.get("/pm/").get_data(as_text=True).split("<h2>")[0]
    assert host.get("/pm/Ann/forumbot").status_code == 200                 # their own game's seat, with the bot
    assert signed_in(app, passwords, "Host2").get("/pm/Ann/forumbot").status_code == 200
