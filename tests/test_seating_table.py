"""Who may see and do what, over a masked game on the local web forum: the web pages and their JSON, private
messages, the host's commands and the console. Every answer comes from the game's seating chart.

The game: Body Snatchers sign-ups of 12 (the bot made the masks' accounts at the deal), every role confirmed
(night 0), then the host let Spec watch, replaced Keanu Reeves (acct3) with Subby and modkilled Brad Pitt
(acct2). Cohost co-hosts it. Host2 hosts another game, g2, and plays here as Hugh Jackman (acct12); acct1 (Tom
Hanks here) plays in g2 too, and both wrote to the bot for g2. Zed has an account and no part in the game;
"anonymous" is not signed in."""

from __future__ import annotations

import re
import sqlite3
from datetime import timedelta

import pytest
from helpers import START

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.chart import run_chart
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts, hash_password
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

BS = load_ruleset("bodysnatchers", "mafia")
ROLES = ["detective", "psychologist", "bouncer", "maniac", "inspector", "assistant", "writer", "masseur",
         "policeman", "thief", "taxi", "politician"]
TABLE = {str(n): role for n, role in enumerate(ROLES, start=1)}
MASKS = ["Tom Hanks", "Brad Pitt", "Keanu Reeves", "Meryl Streep", "Angelina Jolie", "Johnny Depp",
         "Nicole Kidman", "Morgan Freeman", "Scarlett Johansson", "Leonardo DiCaprio", "Cate Blanchett",
         "Hugh Jackman"]
REAL = [f"acct{n}" for n in range(1, 12)] + ["Host2"]
LATER = START + timedelta(days=60)
PASSWORD = "a-long-password-{}"
HOSTS = {"Host": "host-console-pass", "Cohost": "cohost-console-pass", "Host2": "host2-console-pass"}


def at(hours: float):
    return START + timedelta(hours=hours)


def configs():
    g = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host", phase="signup", players=(),
                   options={**BS, "role_table": TABLE}, cohosts=("Cohost",))
    g2 = GameConfig(name="g2", game="mafia", lang="en", start=START, host="Host2", phase="day1",
                    players=tuple(PlayerRef(n) for n in ("Xi", "Yan", "Wu", "acct1")), options={"day_hours": 24 * 30})
    return g, g2


class Game:
    """The masked game on a local forum file and a store file, as the bot left it; `app()` serves it."""

    def __init__(self, folder, like: Game | None = None) -> None:
        """The story played in `folder`, or a copy of the files of `like`, a game that has played it."""
        self.forum_path, self.store_path = folder / "forum.db", folder / "bot.db"
        if like is not None:
            for mine, theirs in ((self.forum_path, like.forum_path), (self.store_path, like.store_path)):
                with sqlite3.connect(theirs) as source, sqlite3.connect(mine) as target:
                    source.backup(target)
        self.forum = LocalForum(self.forum_path, clock=lambda: LATER, accounts=True)
        self.runs = [GameRun.build(c) for c in configs()]
        self.runner = Runner(Store(self.store_path), self.forum, self.runs)
        self.runner.start(START)
        if like is not None:
            self.handed, self.handed_work = like.handed, like.handed_work
            return
        say = self.forum.add_pm
        for n, (account, mask) in enumerate(zip(REAL, MASKS, strict=True), start=1):
            say(account, "forumbot", f"game g\nsign up: {n}, {mask}", at=at(n / 100))
        self.step(1)
        for n, account in enumerate(REAL, start=1):
            say(account, "forumbot", "game g\nconfirm", at=at(1 + n / 100))
        self.step(2)
        say("Host", "forumbot", "spectate Spec", at=at(2.1))
        say("Host", "forumbot", "replace Keanu Reeves with Subby", at=at(2.2))
        say("Host", "forumbot", "modkill Brad Pitt", at=at(2.3))
        self.step(3)
        accounts = Accounts(self.forum_path)
        sent = self.forum.db.execute("SELECT recipient, body FROM forum_pms WHERE sender = 'forumbot'").fetchall()
        # the mask's passwords of the replaced seat: acct3's (from the deal), Subby's (from the replace)
        self.handed = {to: _password(body) for to, body in sent
                       if to in ("acct3", "Subby") and "one-time password" in body and "Keanu Reeves" in body}
        self.handed_work = {to: accounts.verify("Keanu Reeves", p) for to, p in self.handed.items()}
        for name in (*REAL, "Subby", "Spec", "Host", "Cohost", "Zed", "Xi"):
            accounts.add_user(name, password=PASSWORD.format(name))
        for mask in MASKS:   # each mask's player has set its password (the one-time one went by PM)
            accounts.set_password(mask, PASSWORD.format(mask))
        self.forum.add_post("g/dead-chat", "Brad Pitt", "the dead are watching", at=at(3.5))
        self.forum.add_pm("Tom Hanks", "forumbot", "check Meryl Streep", at=at(3.6))
        say("acct1", "forumbot", "game g2\ncheck Xi", at=at(3.7))   # g2's to answer (it is day there)
        say("Host2", "forumbot", "game g2\nextend 1", at=at(3.8))       # g2's host at work, not g's business
        self.step(3.9)
        self.runner.store.write_deliveries()   # (what the bot's next poll writes)

    @property
    def g(self):
        return self.runs[0]

    def step(self, hours: float) -> None:
        self.runner.step(at(hours))
        self.runner.deliver(at(hours))

    def chart(self):
        return run_chart(self.g, self.runner.state(self.g), self.runner.host_state(self.g))

    def app(self):
        games = (WebGame("g", {"votes": "g/votes", "game": "g/game"}, "Host", (), cohosts=("Cohost",)),
                 WebGame("g2", {"votes": "g2/votes", "game": "g2/game"}, "Host2", ("Xi", "Yan", "Wu", "acct1")))
        app = create_app(WebSettings(str(self.forum_path), WebConfig(per_page=20, hosts={
            name: hash_password(p) for name, p in HOSTS.items()}), games=games, store=str(self.store_path),
            game_hosts={"g": "Host", "g2": "Host2"}, game_cohosts={"g": ("Cohost",)}))
        app.config["TESTING"] = True
        return app


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    """The story played once; a test that changes the game plays on a copy of it (Game(folder, like=story))."""
    return Game(tmp_path_factory.mktemp("story"))


@pytest.fixture(scope="module")
def game(tmp_path_factory, story):
    made = Game(tmp_path_factory.mktemp("table"), like=story)
    made.web = made.app()
    return made


def csrf(client, url="/signin"):
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True))
    return found.group(1) if found else csrf(client) if url != "/signin" else ""


def client_of(game, who):
    client = game.web.test_client()
    if who != "anonymous":
        got = client.post("/signin", data={"name": who, "password": PASSWORD.format(who), "csrf": csrf(client)})
        assert got.status_code == 302, who
    return client


def test_the_chart_is_as_the_story_says(game):
    chart = game.chart()
    assert chart.hosts() == ("Host", "Cohost") and chart.spectators == ("Spec",)
    keanu = chart.seat_of("Subby")
    assert keanu.name == "Keanu Reeves" and [h.account for h in keanu.holders] == ["acct3", "Subby"]
    assert chart.seat_of("acct3") is None and not chart.seat_of("Brad Pitt").alive
    assert set(chart.dead_chat()) == {"Host", "Cohost", "Spec", "acct2", "Brad Pitt"}


PEOPLE = ["acct1", "Tom Hanks", "acct2", "Brad Pitt", "Subby", "acct3", "Keanu Reeves", "Host", "Cohost",
          "Host2", "Hugh Jackman", "Spec", "Zed", "anonymous"]
# the people each page lets in; the others get the status after the set
MAY = {
    # the game's threads are public to read
    "read votes": (set(PEOPLE), None),
    # posting there: the hosts, and each living seat under its mask (its real account would unmask it)
    "post votes": ({"Tom Hanks", "Keanu Reeves", "Hugh Jackman", "Host", "Cohost"}, 403),
    # the dead chat: the dead, the spectators and the hosts; nobody else learns it exists
    "read dead chat": ({"acct2", "Brad Pitt", "Spec", "Host", "Cohost"}, 404),
    "dead chat json": ({"acct2", "Brad Pitt", "Spec", "Host", "Cohost"}, 404),
    "post dead chat": ({"acct2", "Brad Pitt", "Spec", "Host", "Cohost"}, 404),
    # quoting a dead chat post into the game's thread (only the hosts both read it and post there)
    "quote the dead chat": ({"Host", "Cohost"}, "no quote"),
    # a seat's private messages with the bot: its own account and the game's hosts
    "read Tom Hanks's PMs": ({"Tom Hanks", "Host", "Cohost"}, 403),
    "read Host's PMs": ({"Host", "Cohost"}, 403),
    # whom one may write to: the bot and the hosts; a host also to the seats
    "write to Tom Hanks": ({"Host", "Cohost"}, 403),
    # the console: a game's hosts only; another game's host sees nothing of it
    "console": ({"Host", "Cohost"}, 404),
}


def _do(game, client, what):
    if what == "read votes":
        return client.get("/t/g/votes").status_code
    if what == "read dead chat":
        return client.get("/t/g/dead-chat").status_code
    if what == "dead chat json":
        response = client.get("/new.json?t=g/dead-chat&after=0")
        assert response.status_code != 200 or "the dead are watching" in response.get_data(as_text=True)
        return response.status_code
    if what == "quote the dead chat":
        number = next(p["id"] for p in game.forum.thread_posts("g/dead-chat"))
        text = client.get(f"/t/g/votes?quote={number}").get_data(as_text=True)
        return 200 if "the dead are watching" in text else "no quote"
    if what.startswith("post"):
        thread = "g/votes" if what == "post votes" else "g/dead-chat"
        token = csrf(client, "/t/g/votes")
        return client.post("/reply", data={"thread": thread, "body": "hello", "csrf": token}).status_code
    if what == "read Tom Hanks's PMs":
        return client.get("/pm/Tom Hanks/forumbot").status_code
    if what == "read Host's PMs":
        return client.get("/pm/Host/forumbot").status_code
    if what == "write to Tom Hanks":
        return client.post("/pm/Tom Hanks", data={"body": "hi", "csrf": csrf(client, "/t/g/votes")}).status_code
    raise AssertionError(what)


ALLOWED = {"read votes": 200, "read dead chat": 200, "dead chat json": 200, "post votes": 302,
           "post dead chat": 302, "quote the dead chat": 200, "read Tom Hanks's PMs": 200,
           "read Host's PMs": 200, "write to Tom Hanks": 302}


@pytest.mark.parametrize("what", [w for w in MAY if w != "console"])
@pytest.mark.parametrize("who", PEOPLE)
def test_who_may_see_and_do_what_on_the_web_forum(game, who, what):
    allowed, refused = MAY[what]
    got = _do(game, client_of(game, who), what)
    if who in allowed:
        assert got == ALLOWED[what] or (got == 302 and what == f"read {who}'s PMs"), (who, what)   # one's own
    elif who == "anonymous" and what not in ("quote the dead chat", "dead chat json", "read dead chat"):
        assert got in (401, 403), (who, what)   # sign in first
    else:
        assert got == refused, (who, what)


# ---- which private messages a host reads: those of the games they host, none of another game ---------------
# (the message's words, its conversation with the bot) → who reads it on the web forum
PM_READERS = {
    "sign up: 1, Tom Hanks": ("acct1", {"acct1", "Host", "Cohost"}),          # g's: not Host2, who plays in g
    "check Xi": ("acct1", {"acct1", "Host2"}),                                # g2's: not g's hosts
    "night actions are sent at night": ("acct1", {"acct1", "Host2"}),         # g2's answer to it
    "sign up: 12, Hugh Jackman": ("Host2", {"Host2", "Host", "Cohost"}),      # Host2 as a player of g
    "extend 1": ("Host2", {"Host2"}),                                         # Host2 hosting g2
}
PM_PEOPLE = ["acct1", "Host2", "Host", "Cohost", "Tom Hanks", "Xi", "Spec", "Zed"]


def _pm_page(client, who, account):
    """What `who` reads of `account`'s conversation with the bot: the page, and the live refresh's JSON."""
    page = client.get("/pm/forumbot" if who == account else f"/pm/{account}/forumbot")
    feed = client.get(f"/pm/new.json?a={account}&b=forumbot&after=0")
    return (page.get_data(as_text=True) if page.status_code == 200 else "",
            feed.get_data(as_text=True) if feed.status_code == 200 else "")


@pytest.mark.parametrize("words", list(PM_READERS))
@pytest.mark.parametrize("who", PM_PEOPLE)
def test_a_host_reads_only_the_pms_of_the_games_they_host(game, who, words):
    account, readers = PM_READERS[words]
    page, feed = _pm_page(client_of(game, who), who, account)
    assert (words in page) is (who in readers), (who, words, "page")
    assert (words in feed) is (who in readers), (who, words, "json")


def test_a_hosts_inbox_counts_only_the_messages_of_their_games(game):
    def line(who, pair):
        text = client_of(game, who).get("/pm/").get_data(as_text=True).split("<h2>")[0]
        return next((li for li in text.split("<li>") if pair in li), "")
    assert "2 messages" in line("Host2", "acct1 ↔ forumbot")       # g2's question and answer, nothing of g
    counted = line("Host", "acct1 ↔ forumbot")
    number = int(re.search(r"(\d+) messages", counted).group(1))
    every = game.forum.db.execute("SELECT count(*) FROM forum_pms WHERE 'acct1' IN (sender, recipient) "
                                  "AND 'forumbot' IN (sender, recipient)").fetchone()[0]
    assert number == every - 2                                       # all but g2's two
    assert "extend 1" not in client_of(game, "Cohost").get("/pm/Host2/forumbot").get_data(as_text=True)


@pytest.mark.parametrize("who", ["Host", "Cohost", "Host2", "Spec", "Tom Hanks"])
def test_the_console_is_the_games_hosts_alone(game, who):
    client = game.web.test_client()
    password = HOSTS.get(who, PASSWORD.format(who))
    client.post("/console/signin", data={"name": who, "password": password, "csrf": csrf(client, "/console/signin")})
    got = client.get("/console/g/g").status_code
    if who in MAY["console"][0]:
        assert got == 200
        seating = client.get("/console/g/g").get_data(as_text=True).split('id="seating"')[1].split("</p>")[0]
        assert "Hosts: Host, Cohost" in seating and "Spectators: Spec" in seating   # the chart, spectators and all
    else:
        assert got in (302, 401, 404), who
    if who == "Host2":
        assert client.get("/console/g/g2").status_code == 200                   # their own game


def test_the_front_page_counts_the_charts_players(game):
    text = client_of(game, "anonymous").get("/").get_data(as_text=True)
    assert "12 players (1 dead)" in text and "0 players" not in text
    assert "dead chat" not in text                                               # not for the living
    assert "dead chat" in client_of(game, "Spec").get("/").get_data(as_text=True)


# ---- private messages and the host's commands --------------------------------------------------------
@pytest.mark.parametrize(("who", "moves"), [("Host", True), ("Cohost", True), ("Host2", False), ("Spec", False),
                                            ("Tom Hanks", False), ("acct1", False), ("Subby", False),
                                            ("acct3", False), ("Zed", False), ("Hоst", False)])
def test_only_the_games_hosts_command_it_by_pm(tmp_path, story, who, moves):
    made = Game(tmp_path, like=story)
    before = made.runner.state(made.g).phase_ends
    made.forum.add_pm(who, "forumbot", "game g\nextend 10", at=at(4))
    made.step(5)
    after = made.runner.state(made.g).phase_ends
    assert (after == before + timedelta(hours=10)) is moves, who
    if not moves:
        assert after == before


def test_no_pm_of_the_game_reaches_an_account_outside_its_seat(game):
    """Every PM the bot sent for game g went to a host, a seat's account at the time, or a sign-up's real
    account; none to the spectator, the outsider, or another game's host as such."""
    chart = game.chart()
    seated = {a for seat in chart.seats for a in seat.every_account()}
    sent = game.forum.db.execute("SELECT recipient, body FROM forum_pms WHERE sender = 'forumbot'").fetchall()
    for to, body in sent:
        assert to in seated | set(chart.hosts()) | {"Xi", "Yan", "Wu"}, (to, body[:60])
        assert to not in ("Spec", "Zed")
    # after the replace, Subby got the mask's new password; acct3's works no more
    assert set(game.handed) == {"acct3", "Subby"}
    assert game.handed_work == {"acct3": False, "Subby": True}


def _password(body: str) -> str:
    return body.split("one-time password: ")[1].split(" ")[0]


@pytest.mark.parametrize(("who", "rejects"), [("Cohost", True), ("Host", True), ("Host2", False), ("Spec", False),
                                              ("Meryl Streep", False)])
def test_the_newspapers_host_only_rules_ask_the_chart(tmp_path, story, who, rejects):
    """Rejecting a note is the host's: the co-host may, a player (another game's host among them) may not."""
    made = Game(tmp_path, like=story)
    made.forum.add_pm("acct4", "forumbot", "note: Tom Hanks is the detective", at=at(4))
    made.step(5)
    made.forum.add_pm(who, "forumbot", "game g\nreject note 1: a role claim", at=at(6))
    made.step(7)
    notes = made.runner.state(made.g).notes
    assert [bool(n.get("rejected")) for n in notes] == [rejects], who
    told = [to for to, body in made.forum.db.execute(
        "SELECT recipient, body FROM forum_pms WHERE sender = 'forumbot' ORDER BY id").fetchall()
        if "a role claim" in body]
    # the note's seat reads it at its mask (the host who rejected it has the answer to their PM too)
    assert [to for to in told if to != who] == (["Meryl Streep"] if rejects else []), who


@pytest.mark.parametrize(("who", "text"), [("acct1", "game g2\nhello, anyone?"), ("acct1", "game g\nhello, anyone?"),
                                           ("Host2", "game g2\nwhat now?"), ("Host2", "game g\nwhat now?")])
def test_a_pm_naming_its_game_with_nothing_to_read_is_answered_once(tmp_path, story, who, text):
    """An account in two games names one and writes nothing the bot can read: that game answers it (not the
    author's first game, not neither)."""
    made = Game(tmp_path, like=story)
    last = made.forum.db.execute("SELECT max(id) FROM forum_pms").fetchone()[0]
    number = made.forum.add_pm(who, "forumbot", text, at=at(4))
    made.step(5)
    made.runner.store.write_deliveries()
    named = text.split("\n")[0].split()[1]
    assert made.runner.store.games_of_messages([number]) == {number: {named}}
    answers = made.forum.db.execute("SELECT id FROM forum_pms WHERE sender = 'forumbot' AND recipient = ? "
                                    "AND id > ?", [who, last]).fetchall()
    sent = made.runner.store.games_of_messages(LocalForum.pm_id(n) for (n,) in answers)
    assert list(sent.values()) == [{named}], sent


@pytest.mark.parametrize("who", ["Hоst", "Cоhost", "CO HOST"])
def test_a_lookalike_of_a_host_or_cohost_is_read_told_and_flagged(tmp_path, story, who):
    made = Game(tmp_path, like=story)
    made.forum.add_pm(who, "forumbot", "game g\nextend 10", at=at(4))
    made.step(5)
    assert [f["author"] for f in made.runner.store.flags("g") if f["author"] == who] == [who]
    assert made.forum.db.execute("SELECT count(*) FROM forum_pms WHERE sender = 'forumbot' AND recipient = ?",
                                 [who]).fetchone()[0] == 1
