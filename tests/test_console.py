"""The host console through Flask's test client, over a real store and runner: host sign-in (hash, one-time
link, rate limit), a host sees only their games, a player's session is not a host's, CSRF, the game page's
count equal to `forumbot tally` and its reasons per post, corrections that change the next count and
survive a restart and a recount, undo, host commands as buttons, the flags queue, the exports."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import START

from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts, check_password, hash_password
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
PASSWORDS = {"Host": "host-password-1", "Other": "other-password-2"}
HASHES = {name: hash_password(p) for name, p in PASSWORDS.items()}


def at(hours: float):
    return START + timedelta(hours=hours)


def make_runner(tmp_path, forum):
    cfg = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host",
                     players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24}, phase="day1")
    run = GameRun.build(cfg)
    runner = Runner(Store(tmp_path / "bot.db"), forum, [run])
    runner.start(START)
    return run, runner


class Bed:
    def __init__(self, tmp_path):
        self.now = at(3)
        self.forum = LocalForum(tmp_path / "forum.db", clock=lambda: self.now, base_url="http://forum.test")
        self.run, self.runner = make_runner(tmp_path, self.forum)
        self.forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
        self.forum.add_post("g/votes", "Carol", "vote Bobby the Great", at=at(2))   # misread: no such player
        self.runner.step(at(3))
        self.app = create_app(WebSettings(
            str(tmp_path / "forum.db"), WebConfig(hosts=HASHES), games=(WebGame("g", {"votes": "g/votes"}, "Host",
                                                                                   tuple(PLAYERS)),),
            clock=lambda: self.now, store=str(tmp_path / "bot.db"), game_hosts={"g": "Host", "h": "Other"}))
        self.app.config["TESTING"] = True

    def step(self, hours: float) -> None:
        self.now = at(hours)
        self.runner.step(self.now)

    def votes(self):
        return self.run.game.summary(self.runner.state(self.run))["votes"]

    def post_of(self, author):
        return next(p.platform_id for p in self.runner.store.posts(["g/votes"]) if p.author == author)


@pytest.fixture()
def bed(tmp_path):
    return Bed(tmp_path)


def csrf(client, url="/console/signin"):
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True)).group(1)


def host_client(bed, name="Host"):
    client = bed.app.test_client()
    response = client.post("/console/signin", data={"name": name, "password": PASSWORDS[name], "csrf": csrf(client)})
    assert response.status_code == 302, response.get_data(as_text=True)
    return client


def post(client, url, **data):
    return client.post(url, data={"csrf": csrf(client, "/console/g/g"), **data})


def page(client, url="/console/g/g"):
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def wagons(soup):
    return {row["data-target"]: [a.get_text() for a in row.select("td:nth-of-type(4) span")]
            for row in soup.select("#wagons tr.wagon")}


def test_a_host_signs_in_and_sees_only_their_games(bed):
    client = bed.app.test_client()
    wrong = client.post("/console/signin", data={"name": "Host", "password": "nope-nope-nope", "csrf": csrf(client)})
    assert wrong.status_code == 401 and "Wrong host name or password" in wrong.get_data(as_text=True)
    other = host_client(bed, "Other")
    assert other.get("/console/g/g").status_code == 404                 # another host's game is not disclosed
    assert "/console/g/g" not in other.get("/console/").get_data(as_text=True)
    mine = host_client(bed)
    assert [a.get_text() for a in page(mine, "/console/").select("li a")] == ["g"]
    assert bed.app.test_client().get("/console/g/g").status_code == 401   # nobody signed in


def test_sign_in_to_the_console_is_rate_limited(bed):
    client = bed.app.test_client()
    for _ in range(5):
        client.post("/console/signin", data={"name": "Host", "password": "wrong-wrong-wrong", "csrf": csrf(client)})
    blocked = client.post("/console/signin", data={"name": "Host", "password": PASSWORDS["Host"], "csrf": csrf(client)})
    assert blocked.status_code == 429


def test_a_players_forum_session_cannot_open_the_console(bed, tmp_path):
    password = Accounts(tmp_path / "forum.db").add_user("Host")   # a forum account with the host's very name
    client = bed.app.test_client()
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/signin").get_data(as_text=True)).group(1)
    assert client.post("/signin", data={"name": "Host", "password": password, "csrf": token}).status_code == 302
    assert client.get("/console/g/g").status_code == 401
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    assert client.post("/console/g/g/correct", data={"csrf": token, "post": bed.post_of("Carol"), "kind": "not_a_vote"}
                       ).status_code == 401
    assert corrections.listing(bed.runner.store, "g") == []


def test_a_forged_post_without_its_csrf_token_is_refused(bed):
    client = host_client(bed)
    forged = client.post("/console/g/g/correct", data={"post": bed.post_of("Carol"), "kind": "vote_for",
                                                       "target": "Bob"})
    assert forged.status_code == 400
    stale = client.post("/console/g/g/command", data={"csrf": "made-up", "command": "pause"})
    assert stale.status_code == 400
    assert corrections.listing(bed.runner.store, "g") == []


def test_the_game_page_matches_forumbot_tally_and_says_why_each_post_counts(bed, tmp_path):
    bed.forum.add_post("g/votes", "Dave", "vote Bo", at=at(2.5))
    bed.step(3)
    soup = page(host_client(bed))
    printed = CliRunner().invoke(cli, ["tally", "--db", str(tmp_path / "bot.db"), "--json"])
    assert printed.exit_code == 0, printed.output
    assert wagons(soup) == json.loads(printed.output)["votes"] == {"Bob": ["Alice", "Dave"]}
    assert soup.select_one("#phase").get_text() == "Day 1"
    assert soup.select_one("#left").get_text() == "21h 0m"
    assert "Not voting (3): Bob, Carol, Eve" in soup.select_one("#not-voting").get_text()
    assert soup.select_one("#wagons a")["href"] == "http://forum.test/t/g/votes#p1"   # each vote links to its post
    carol = soup.find(id=f"post-{bed.post_of('Carol')}").get_text(" ", strip=True)
    assert "'Bobby the Great' → no player" in carol and "flag" in carol
    alice = soup.find(id=f"post-{bed.post_of('Alice')}").get_text(" ", strip=True)
    assert "vote Bob read as vote → Bob" in alice and "'Bob' → Bob exactly" in alice
    assert "'Bo' → Bob by prefix" in soup.find(id=f"post-{bed.post_of('Dave')}").get_text()


def test_a_correction_changes_the_next_count_survives_a_restart_and_equals_a_recount(bed, tmp_path):
    client = host_client(bed)
    response = post(client, "/console/g/g/correct", post=bed.post_of("Carol"), kind="vote_for", target="Bob",
                    reason="Bobby is Bob")
    assert response.status_code == 302
    assert "1 correction waits for the bot's next poll" in page(client).get_text()
    bed.step(4)
    assert bed.votes() == {"Bob": ["Alice", "Carol"]}
    last = [p["body"] for p in bed.forum.thread_posts("g/votes") if p["author"] == bed.forum.account][-1]
    assert "Corrected by the host." in last
    soup = page(client)
    assert wagons(soup) == {"Bob": ["Alice", "Carol"]}
    trail = soup.select_one("#corrections").get_text(" ", strip=True)
    assert "Host" in trail and "counted as a vote for Bob" in trail and "Bobby is Bob" in trail and "applied" in trail
    # a restart: a new runner over the same store reads the same, and so does a recount of the store
    bed.runner.store.close()
    bed.run, bed.runner = make_runner(tmp_path, bed.forum)
    bed.step(5)
    assert bed.votes() == {"Bob": ["Alice", "Carol"]}
    assert bed.run.game.summary(bed.runner.recount(bed.run, at(5))) == bed.run.game.summary(bed.runner.state(bed.run))
    # undone from the console: the count goes back
    (fix,) = corrections.listing(bed.runner.store, "g")
    assert post(client, f"/console/g/g/undo/{fix.id}").status_code == 302
    assert post(client, f"/console/g/g/undo/{fix.id}").status_code == 400       # once
    bed.step(6)
    assert bed.votes() == {"Bob": ["Alice"]}


def test_a_correction_to_someone_not_alive_or_a_post_not_read_is_refused(bed):
    client = host_client(bed)
    assert post(client, "/console/g/g/correct", post=bed.post_of("Carol"), kind="vote_for", target="Zed"
                ).status_code == 400
    assert post(client, "/console/g/g/correct", post="local:999", kind="not_a_vote").status_code == 400
    assert post(client, "/console/g/g/correct", post=bed.post_of("Carol"), kind="use_edited").status_code == 400
    assert post(client, "/console/g/g/vote", player="Dave", target="Eve").status_code == 400   # no reason given
    assert corrections.listing(bed.runner.store, "g") == []


def test_host_commands_as_buttons_go_through_the_host_layer(bed):
    client = host_client(bed)
    post(client, "/console/g/g/command", command="extend", hours="12")
    post(client, "/console/g/g/command", command="end", phase="night1")    # the wrong phase: refused, by PM
    bed.step(4)
    assert bed.runner.state(bed.run).phase_ends == at(36)
    assert any("extended by 12 h" in p["body"] for p in bed.forum.thread_posts("g/game"))
    assert any("not Night 1" in p["body"] for p in bed.forum.pms_to("Host"))
    assert "End Day 1 now" in page(client).get_text()
    post(client, "/console/g/g/vote", player="Dave", target="Eve", reason="voted by mail")
    bed.step(5)
    assert bed.votes() == {"Bob": ["Alice"], "Eve": ["Dave"]}


def test_the_flags_queue_newest_first_one_click_correction_and_dismiss(bed):
    bed.forum.add_post("g/votes", "Eve", "vote Alicia Keys", at=at(3.5))
    bed.step(4)
    client = host_client(bed)
    soup = page(client, "/console/g/g/flags")
    rows = soup.select("#flags tr.flag")
    assert "Alicia Keys" in rows[0].get_text() and "Bobby the Great" in rows[1].get_text()
    flag_id = int(rows[1]["id"].removeprefix("flag-"))
    assert post(client, "/console/g/g/flags/resolve", flag=str(flag_id)).status_code == 302
    assert flag_id not in [f["id"] for f in bed.runner.store.flag_list("g")]
    (button,) = rows[0].select("button.vote-for")        # the resolver's candidate for "Alicia Keys", one click
    assert button.get_text() == "Count as a vote for Alice"
    hidden = button.find_parent("form").select("input[type=hidden]")
    form = {i["name"]: i["value"] for i in hidden if i["name"] != "csrf"}
    assert post(client, "/console/g/g/correct", **form).headers["Location"].endswith("/console/g/g/flags")
    assert bed.post_of("Eve") not in [f["post"] for f in bed.runner.store.flag_list("g")]   # resolved with it
    bed.step(5)
    assert bed.votes() == {"Bob": ["Alice"], "Alice": ["Eve"]}


def test_exports_the_days_votes_as_csv_and_the_game_log_as_json_lines(bed):
    client = host_client(bed)
    post(client, "/console/g/g/correct", post=bed.post_of("Alice"), kind="not_a_vote", reason="a joke")
    rows = list(csv.DictReader(io.StringIO(client.get("/console/g/g/votes.csv").get_data(as_text=True))))
    assert [(r["voter"], r["target"], r["url"]) for r in rows] == [("Alice", "Bob", "http://forum.test/t/g/votes#p1")]
    lines = [json.loads(line) for line in client.get("/console/g/g/log.jsonl").get_data(as_text=True).splitlines()]
    kinds = {line["type"] for line in lines}
    assert kinds == {"post", "intent", "flag", "correction", "event"}
    assert any(line["type"] == "correction" and line["reason"] == "a joke" for line in lines)


def test_a_one_time_link_signs_the_host_in_once_by_its_pages_button(bed):
    token = corrections.new_link(bed.runner.store, "Host", "g", at(10))
    preview = bed.app.test_client()        # a chat app's link preview: GETs, never submits
    for _ in range(2):
        shown = preview.get(f"/console/link/{token}")
        assert shown.status_code == 200 and "Sign in with this link" in shown.get_data(as_text=True)
    assert preview.get("/console/g/g").status_code == 401            # a GET signed nobody in
    client = bed.app.test_client()
    assert client.post(f"/console/link/{token}").status_code == 400    # no CSRF token: refused, link kept
    response = client.post(f"/console/link/{token}", data={"csrf": csrf(client, f"/console/link/{token}")})
    assert response.status_code == 302 and response.headers["Location"].endswith("/console/g/g")
    assert client.get("/console/g/g").status_code == 200
    again = bed.app.test_client()
    assert again.post(f"/console/link/{token}", data={"csrf": csrf(again, f"/console/link/{token}")}).status_code \
        == 403
    late = corrections.new_link(bed.runner.store, "Host", "g", at(2))    # expired before now
    assert again.post(f"/console/link/{late}", data={"csrf": csrf(again, f"/console/link/{late}")}).status_code \
        == 403


def test_web_hosts_in_the_bot_config_and_the_console_of_forumbot_run(tmp_path):
    from forumbot.engine.service import Service
    from forumbot.errors import ConfigError

    (tmp_path / "game.toml").write_text(
        '[game]\nname = "mafia"\nlang = "en"\nstart = "2026-05-01T18:00:00Z"\nhost = "Host"\n'
        '[game.options]\nvotes_only = true\n[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n'
        '[[players]]\nname = "Carol"\n')
    bot = tmp_path / "bot.toml"
    bot.write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                   f'[[games]]\nconfig = "game.toml"\n[web]\n[web.hosts]\nHost = "{HASHES["Host"]}"\n')
    settings = Service(load_bot_config(bot)).web_settings()
    assert settings.store == str(tmp_path / "bot.db") and settings.game_hosts == {"game": "Host"}
    assert settings.web.hosts == {"Host": HASHES["Host"]}
    client = create_app(settings).test_client()
    response = client.post("/console/signin", data={"name": "Host", "password": PASSWORDS["Host"],
                                                    "csrf": csrf(client)})
    assert response.status_code == 302
    bot.write_text(bot.read_text().replace(HASHES["Host"], "plain-text-password"))
    with pytest.raises(ConfigError, match=r"bot.toml:\d+: the password of host Host must be a hash made by"):
        load_bot_config(bot)


def test_forumbot_passwd_and_host_link(tmp_path):
    made = CliRunner().invoke(cli, ["passwd"], input="long-enough-pw\nlong-enough-pw\n")
    assert made.exit_code == 0, made.output
    hashed = made.output.strip().splitlines()[-1]
    assert check_password(hashed, "long-enough-pw")
    short = CliRunner().invoke(cli, ["passwd"], input="short\nshort\n")
    assert short.exit_code == 2
    (tmp_path / "game.toml").write_text(
        '[game]\nname = "mafia"\nlang = "en"\nstart = "2026-05-01T18:00:00Z"\nhost = "Host"\n'
        '[game.options]\nvotes_only = true\n[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n'
        '[[players]]\nname = "Carol"\n')
    (tmp_path / "bot.toml").write_text(
        '[platforms.local]\nkind = "local"\npath = "forum.db"\n[[games]]\nconfig = "game.toml"\n'
        f'[web]\nlisten = "127.0.0.1:8099"\n[web.hosts]\nHost = "{hashed}"\n')
    printed = CliRunner().invoke(cli, ["host-link", "game", "--config", str(tmp_path / "bot.toml")])
    assert printed.exit_code == 0, printed.output
    token = re.search(r"http://127.0.0.1:8099/console/link/(\S+)", printed.output).group(1)
    store = Store(load_bot_config(tmp_path / "bot.toml").store)
    assert corrections.use_link(store, token, at(0)) == ("Host", "game")
    assert corrections.use_link(store, token, at(0)) is None      # once
    unknown = CliRunner().invoke(cli, ["host-link", "nope", "--config", str(tmp_path / "bot.toml")])
    assert unknown.exit_code == 2 and "name one of: game" in unknown.output


def test_the_night_view_shows_the_orders_who_has_not_acted_and_the_resolved_nights(tmp_path):
    from test_mafia_night import MAFIA, game, night, send

    state, _ = night(game(), ("Man", "kill", "Wri"))                 # night 0 resolved, then day 1 ...
    state, _ = MAFIA.on_deadline(state, state.phase_ends)             # ... ends: night 1
    state, events = send(state, "Det", "kill", "Pol")
    store = Store(tmp_path / "bot.db")
    store.commit_step("n", "mafia", {}, MAFIA.to_json(state))
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(hosts=HASHES), clock=lambda: at(1),
                                 store=str(tmp_path / "bot.db"), game_hosts={"n": "Host"}))
    client = app.test_client()
    client.post("/console/signin", data={"name": "Host", "password": PASSWORDS["Host"], "csrf": csrf(client)})
    soup = page(client, "/console/g/n")
    assert soup.select_one("#phase").get_text().startswith("Night")
    orders = [[td.get_text() for td in tr.select("td")] for tr in soup.select("#night tr")[1:]]
    assert [o[1:3] for o in orders] == [["kill", "Pol"]]
    silent = soup.find(string=re.compile("No action yet from"))
    names = [n.strip() for n in silent.split(":", 1)[1].split(",")]
    assert "Man" in names and "Det" not in names and "Wri" not in names   # Det has acted; Wri is dead
    resolved = json.loads(soup.select_one("details pre").get_text())
    assert resolved == json.loads(json.dumps(MAFIA.summary(state)["nights"]))


def test_use_the_edited_text_of_a_post(bed):
    from dataclasses import replace

    carol = next(p for p in bed.runner.store.posts(["g/votes"]) if p.author == "Carol")
    bed.runner.store.save_posts("local", [replace(carol, body="vote Dave", edited=at(3.2))])   # an edit seen later
    client = host_client(bed)
    row = page(client).find(id=f"post-{carol.platform_id}")
    assert "edited since: vote Dave" in row.get_text(" ", strip=True)
    assert post(client, "/console/g/g/correct", post=carol.platform_id, kind="use_edited").status_code == 302
    bed.step(4)
    assert bed.votes() == {"Bob": ["Alice"], "Dave": ["Carol"]}


def test_a_russian_games_console_page_speaks_russian_and_the_rest_the_forums_language(bed):
    from dataclasses import replace

    settings = bed.app.extensions["forumbot"].settings
    settings.games = tuple(replace(g, lang="ru") for g in settings.games)
    client = host_client(bed)
    text = page(client).get_text()
    assert "Команды ведущего" in text and "Закончить сейчас: День 1" in text and "21 ч 0 мин" in text
    assert "Host commands" not in text and "Extend the deadline" not in text
    assert "Your games" in page(client, "/console/").get_text()      # the forum's language: English
