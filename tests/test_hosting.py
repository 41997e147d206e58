"""Games made at run time in the host console: checked as `check-config` checks a file, stored, taken up by
the running bot at its next poll with no restart (and after one), ended and archived the same way; the TOML
export passes `check-config`; [hosting] says who may make games; the thread pages' banner and lock."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from helpers import START

from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import Service
from forumbot.errors import ConfigError
from forumbot.model import format_time
from forumbot.web.accounts import hash_password
from forumbot.web.app import create_app

PASSWORDS = {"Host": "host-password-1", "Other": "other-password-2"}
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def bot_config(tmp_path, creators=("Host",), games=""):
    hosts = "\n".join(f'{name} = "{hash_password(p)}"' for name, p in PASSWORDS.items())
    path = tmp_path / "bot.toml"
    path.write_text(f"""
[bot]
store = "bot.db"
[platforms.local]
kind = "local"
path = "forum.db"
poll_seconds = 30
[hosting]
creators = {list(creators)!r}
[web]
listen = "127.0.0.1:8099"
[web.hosts]
{hosts}
{games}
""".replace("'", '"'), encoding="utf-8")
    return path


class Bed:
    def __init__(self, tmp_path, **kwargs):
        self.path = bot_config(tmp_path, **kwargs)
        self.clock = VirtualClock(START)
        self.service = Service(load_bot_config(self.path), clock=self.clock)
        self.app = create_app(self.service.web_settings())
        self.app.config["TESTING"] = True
        self.client = self.app.test_client()

    def sign_in(self, name="Host", client=None):
        client = client or self.client
        client.post("/console/signin", data={"csrf": csrf(client, "/console/signin"), "name": name,
                                             "password": PASSWORDS[name]})
        return client

    def make(self, **fields):
        form = {"csrf": csrf(self.client, "/console/new"), "kind": "game", "name": "my7", "game": "mafia",
                "ruleset": "bodysnatchers", "lang": "en", "start": "2026-03-01T20:00:00Z", "phase": "day1",
                "day_hours": "24", "night_hours": "12", "votes_only": "1", "players": "\n".join(PLAYERS),
                "options": "", "file": ""}
        form.update(fields)
        return self.client.post("/console/new", data=form)

    def poll(self, minutes=1):
        self.clock.now = self.clock.now + timedelta(minutes=minutes)
        return self.service.poll_all(self.clock.now)

    def runs(self):
        return [run.name for w in self.service.workers.values() for run in w.runner.runs]

    def forum(self):
        return self.service.workers["local"].runner.platform


def csrf(client, url):
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True)).group(1)


@pytest.fixture()
def bed(tmp_path):
    return Bed(tmp_path)


def test_a_bot_config_with_hosting_needs_no_game_file(tmp_path):
    config = load_bot_config(bot_config(tmp_path))
    assert config.games == () and config.hosting.creators == ("Host",) and config.hosting.platform == "local"


def test_a_creator_must_be_able_to_sign_in(tmp_path):
    with pytest.raises(ConfigError, match="Nobody cannot sign in"):
        load_bot_config(bot_config(tmp_path, creators=("Nobody",)))


def test_a_game_made_in_the_console_runs_at_the_next_poll_without_a_restart(bed):
    bed.sign_in()
    response = bed.make()
    assert response.status_code == 302, response.get_data(as_text=True)
    assert "my7" not in bed.runs()
    # the threads exist at once, titled for people
    page = BeautifulSoup(bed.client.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.h1.get_text() == "My7 · Voting thread"
    bed.poll()
    assert "my7" in bed.runs()
    store = bed.service.workers["local"].runner.store
    assert store.game("my7") is not None
    forum = bed.forum()
    forum.add_post("my7/votes", "Alice", "vote Bob", at=bed.clock.now)
    forum.add_post("my7/votes", "Carol", "vote Bob", at=bed.clock.now)
    bed.poll()
    runner = bed.service.workers["local"].runner
    run = next(r for r in runner.runs if r.name == "my7")
    assert run.game.summary(runner.state(run))["votes"] == {"Bob": ["Alice", "Carol"]}
    console = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    assert console.select_one("#phase").get_text() == "Day 1"


def test_the_console_checks_as_check_config_does_and_stores_nothing_bad(bed, tmp_path):
    bed.sign_in()
    response = bed.make(players="Alice\nBob")
    assert response.status_code == 400
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    error = page.select_one("#new-error").get_text()
    # the very words check-config says of the same file
    text = page.select_one("#new-text").get_text()
    (tmp_path / "same.toml").write_text(text, encoding="utf-8")
    said = CliRunner().invoke(cli, ["check-config", str(tmp_path / "same.toml")])
    assert said.exit_code == 2
    reason = said.output.split("error: ", 1)[1].split(":", 1)[1].split("\n")[0].strip()
    assert reason and reason in error
    assert bed.service.workers["local"].runner.store.hosted_games() == []
    bed.poll()
    assert "my7" not in bed.runs()


@pytest.mark.parametrize(("fields", "said"), [
    ({"name": "My Game"}, "cannot name a game"),
    ({"options": "no_such_option = 1"}, "no_such_option"),
    ({"start": "tomorrow"}, "is not a time"),
    ({"ruleset": "infiltration"}, "is for game 'infiltration'"),
])
def test_bad_forms_are_answered_with_the_fix(bed, fields, said):
    bed.sign_in()
    response = bed.make(**fields)
    assert response.status_code == 400
    assert said in BeautifulSoup(response.get_data(as_text=True), "html.parser").select_one("#new-error").get_text()


def test_only_the_creators_may_make_games(bed):
    bed.sign_in("Other")
    assert bed.client.get("/console/new").status_code == 403
    assert "new-game" not in bed.client.get("/console/").get_data(as_text=True)


def test_two_games_cannot_share_a_name(bed):
    bed.sign_in()
    assert bed.make().status_code == 302
    again = bed.make()
    assert again.status_code == 400 and "already" in again.get_data(as_text=True)


def test_the_export_passes_check_config_and_runs_from_a_file(bed, tmp_path):
    bed.sign_in()
    bed.make()
    text = bed.client.get("/console/g/my7/game.toml").get_data(as_text=True)
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "my7.toml").write_text(text, encoding="utf-8")
    said = CliRunner().invoke(cli, ["check-config", str(tmp_path / "games" / "my7.toml")])
    assert said.exit_code == 0, said.output
    assert said.output.startswith("ok:")
    other = tmp_path / "other"
    other.mkdir()
    config = load_bot_config(bot_config(other, games='[[games]]\nconfig = "../games/my7.toml"\nname = "my7"'))
    assert [g.config.players for g in config.games][0] == tuple(
        p for p in config.games[0].config.players if p.name in PLAYERS)
    assert [p.name for p in config.games[0].config.players] == PLAYERS


def test_a_pasted_game_file_is_taken_as_a_file(bed):
    bed.sign_in()
    text = ('[game]\nname = "mafia"\nruleset = "bodysnatchers"\nlang = "ru"\nstart = "2026-03-01T20:00:00Z"\n'
            '[game.options]\nvotes_only = true\nday_hours = 0.5\n'
            + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS))
    assert bed.make(name="pasted", file=text).status_code == 302
    bed.poll()
    assert "pasted" in bed.runs()
    runner = bed.service.workers["local"].runner
    run = next(r for r in runner.runs if r.name == "pasted")
    assert run.config.host == "Host" and run.config.lang == "ru"


def test_a_pasted_game_of_another_host_is_refused(bed):
    bed.sign_in()
    text = '[game]\nname = "mafia"\nhost = "Other"\nstart = "2026-03-01T20:00:00Z"\n[[players]]\nname = "A"\n'
    response = bed.make(name="theirs", file=text)
    assert response.status_code == 400 and "is yours" in response.get_data(as_text=True)


def test_ending_and_archiving_lock_the_threads_and_the_bot_lets_go(bed):
    bed.sign_in()
    bed.make()
    bed.poll()
    player = bed.app.test_client()
    accounts = bed.app.extensions["forumbot"].connections().accounts
    accounts.add_user("Alice", password="alice-password-1")
    player.post("/signin", data={"csrf": csrf(player, "/signin"), "name": "Alice", "password": "alice-password-1"})
    page = BeautifulSoup(player.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#reply") is not None
    assert page.select_one("#thread-state").get_text().startswith("Open")
    wrong = bed.client.post("/console/g/my7/close", data={"csrf": csrf(bed.client, "/console/g/my7"),
                                                          "what": "end", "confirm": "nope"})
    assert wrong.status_code == 400
    bed.client.post("/console/g/my7/close", data={"csrf": csrf(bed.client, "/console/g/my7"), "what": "end",
                                                  "confirm": "my7"})
    bed.poll()
    assert "my7" not in bed.runs()
    page = BeautifulSoup(player.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#reply") is None and page.select_one("#locked") is not None
    assert "ended the game" in page.select_one("#thread-state").get_text()
    refused = player.post("/reply", data={"csrf": csrf(player, "/t/my7/votes"), "thread": "my7/votes",
                                          "body": "vote Bob"})
    assert refused.status_code == 403
    assert "my7" in BeautifulSoup(player.get("/").get_data(as_text=True), "html.parser").get_text()
    bed.client.post("/console/g/my7/close", data={"csrf": csrf(bed.client, "/console/g/my7"), "what": "archive",
                                                  "confirm": "my7"})
    front = BeautifulSoup(player.get("/").get_data(as_text=True), "html.parser")
    assert "My7" not in front.get_text() and "my7" not in [h.get_text() for h in front.select("h2")]
    index = BeautifulSoup(bed.client.get("/console/").get_data(as_text=True), "html.parser")
    assert "my7" in index.select_one("#archived").get_text()


def test_a_game_of_the_bot_config_can_be_ended_too(tmp_path):
    (tmp_path / "g.toml").write_text('[game]\nname = "mafia"\nstart = "2026-03-01T20:00:00Z"\nhost = "Host"\n'
                                     '[game.options]\nvotes_only = true\n'
                                     + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS), encoding="utf-8")
    bed = Bed(tmp_path, games='[[games]]\nconfig = "g.toml"')
    bed.service.start_games()
    bed.poll()
    assert "g" in bed.runs()
    bed.sign_in()
    bed.client.post("/console/g/g/close", data={"csrf": csrf(bed.client, "/console/g/g"), "what": "end",
                                                "confirm": "g"})
    bed.poll()
    assert "g" not in bed.runs()
    assert bed.client.get("/console/g/g/game.toml").status_code == 404   # its file is the bot config's


@pytest.mark.parametrize(("lang", "said"), [("en", "the host has ended the game"),
                                             ("ru", "ведущий завершил игру")])
def test_a_game_its_host_ends_says_so_in_its_thread_once(tmp_path, lang, said):
    (tmp_path / "g.toml").write_text(f'[game]\nname = "mafia"\nstart = "2026-03-01T20:00:00Z"\nhost = "Host"\n'
                                     f'lang = "{lang}"\n[game.options]\nvotes_only = true\n'
                                     + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS), encoding="utf-8")
    bed = Bed(tmp_path, games='[[games]]\nconfig = "g.toml"')
    bed.service.start_games()
    bed.poll()
    forum = bed.forum()

    def notices():
        threads = [row[0] for row in forum.db.execute("SELECT DISTINCT thread FROM forum_posts")]
        return [(thread, post["body"]) for thread in threads for post in forum.thread_posts(thread)
                if said in post["body"]]

    assert notices() == []
    bed.sign_in()
    bed.client.post("/console/g/g/close", data={"csrf": csrf(bed.client, "/console/g/g"), "what": "end",
                                                "confirm": "g"})
    bed.poll()
    assert "g" not in bed.runs()
    told = notices()
    assert len(told) == 1 and told[0][0].startswith("g/")
    bed.poll(minutes=60 * 48)   # no deadline of the ended game runs, and nothing is said twice
    again = Service(load_bot_config(bed.path), clock=bed.clock)   # nor after a restart
    again.poll_all(bed.clock.now + timedelta(minutes=1))
    assert notices() == told


def test_the_host_of_a_console_game_commands_it_from_the_command_line(bed):
    bed.clock.now = datetime.now(UTC).replace(microsecond=0)   # (the command is stored at the real time)
    bed.sign_in()
    bed.make(start=format_time(bed.clock.now))
    bed.poll()
    out = CliRunner().invoke(cli, ["host", "--config", str(bed.path), "--game", "my7", "extend", "12"])
    assert out.exit_code == 0, out.output
    assert "stored as Host's PM to the bot: extend 12" in out.output
    bed.poll(minutes=2)
    threads = [row[0] for row in bed.forum().db.execute("SELECT DISTINCT thread FROM forum_posts")]
    said = [post["body"] for thread in threads if thread.startswith("my7/")
            for post in bed.forum().thread_posts(thread)]
    assert any("the phase is extended by 12 h" in body for body in said), said
    missing = CliRunner().invoke(cli, ["host", "--config", str(bed.path), "--game", "my8", "pause"])
    assert missing.exit_code == 2 and "games: my7" in missing.output


def test_a_restarted_bot_builds_the_console_games_from_the_store(bed, tmp_path):
    bed.sign_in()
    bed.make()
    bed.poll()
    again = Service(load_bot_config(bed.path), clock=bed.clock)
    assert "my7" in [run.name for w in again.workers.values() for run in w.runner.runs]


def test_a_lobby_made_in_the_console_is_taken_up(bed):
    bed.sign_in()
    form = {"csrf": csrf(bed.client, "/console/new?kind=lobby"), "kind": "lobby", "name": "duels",
            "ruleset": "infiltration", "lang": "en", "prefix": "duel"}
    response = bed.client.post("/console/new", data=form)
    assert response.status_code == 302, response.get_data(as_text=True)
    bed.poll()
    assert "duels" in bed.runs()
    assert bed.client.get("/t/duels/lobby").status_code == 200


def test_a_player_follows_the_game_from_its_banner_in_their_time_zone(bed):
    bed.sign_in()
    bed.make()
    bed.poll()
    bed.forum().add_post("my7/votes", "Alice", "vote Bob", at=bed.clock.now)
    bed.poll()
    anonymous = BeautifulSoup(bed.app.test_client().get("/t/my7/votes").get_data(as_text=True), "html.parser")
    banner = anonymous.select_one("#banner")
    assert anonymous.select_one("#banner-phase").get_text() == "Day 1"
    # day1 started at START (20:00 UTC) for 24 hours: in UTC, to the second, and the time to go
    assert anonymous.select_one("#banner-deadline").get_text() == "2026-03-02 20:00:00 UTC"
    left = anonymous.select_one("#banner-left")
    assert left["data-deadline"] == "2026-03-02T20:00:00+00:00"
    assert left.get_text() == "23:58:00"      # two polls a minute apart after the start
    assert anonymous.select_one("#banner-alive").get_text() == ", ".join(PLAYERS)
    assert "Sign in" in anonymous.get_text() and anonymous.select_one("#choose-zone") is None
    count = banner.select_one("#banner-count")["href"]
    assert bed.app.test_client().get(count).status_code == 302
    # a player chooses their zone once; from then on deadlines are in it
    player = bed.app.test_client()
    bed.app.extensions["forumbot"].connections().accounts.add_user("Alice", password="alice-password-1")
    player.post("/signin", data={"csrf": csrf(player, "/signin"), "name": "Alice", "password": "alice-password-1"})
    page = BeautifulSoup(player.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#choose-zone") is not None
    bad = player.post("/account/timezone", data={"csrf": csrf(player, "/account/timezone"), "zone": "Mars/Olympus"})
    assert bad.status_code == 400
    player.post("/account/timezone", data={"csrf": csrf(player, "/account/timezone"), "zone": "Europe/Moscow"})
    page = BeautifulSoup(player.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#banner-deadline").get_text() == "2026-03-02 23:00:00 Europe/Moscow (UTC+03:00)"
    assert page.select_one("#choose-zone") is None
    # post times too: the reader's zone; a reader without one, UTC (the game has no calendar zone)
    vote = next(p for p in page.select("article.post") if "vote Bob" in p.get_text())
    assert vote.select_one("time").get_text() == "2026-03-01 23:01 MSK"
    anonymous = BeautifulSoup(bed.app.test_client().get("/t/my7/votes").get_data(as_text=True), "html.parser")
    vote = next(p for p in anonymous.select("article.post") if "vote Bob" in p.get_text())
    assert vote.select_one("time").get_text() == "2026-03-01 20:01 UTC"


def test_a_games_calendar_zone_is_the_default_for_its_pages(bed):
    bed.sign_in()
    response = bed.make(options='calendar_tz = "Asia/Tokyo"')
    assert response.status_code == 302, response.get_data(as_text=True)
    bed.poll()
    bed.forum().add_post("my7/votes", "Alice", "vote Bob", at=bed.clock.now)
    bed.poll()
    anonymous = BeautifulSoup(bed.app.test_client().get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert anonymous.select_one("#banner-deadline").get_text() == "2026-03-03 05:00:00 Asia/Tokyo (UTC+09:00)"
    vote = next(p for p in anonymous.select("article.post") if "vote Bob" in p.get_text())
    assert vote.select_one("time").get_text() == "2026-03-02 05:01 JST"
    assert vote.select_one("time")["datetime"].startswith("2026-03-01T20:01")
    # a reader's own zone comes first
    player = bed.app.test_client()
    bed.app.extensions["forumbot"].connections().accounts.add_user("Alice", password="alice-password-1")
    player.post("/signin", data={"csrf": csrf(player, "/signin"), "name": "Alice", "password": "alice-password-1"})
    player.post("/account/timezone", data={"csrf": csrf(player, "/account/timezone"), "zone": "America/Sao_Paulo"})
    page = BeautifulSoup(player.get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#banner-deadline").get_text().endswith("America/Sao_Paulo (UTC-03:00)")
    vote = next(p for p in page.select("article.post") if "vote Bob" in p.get_text())
    assert vote.select_one("time").get_text() == "2026-03-01 17:01 UTC-03:00"      # (no abbreviation)


def test_the_time_zone_page_needs_an_account(bed):
    assert bed.app.test_client().get("/account/timezone").status_code == 401


def test_a_thread_of_a_game_over_is_locked_and_says_who_won(bed):
    bed.sign_in()
    response = bed.make(ruleset="classic", votes_only="", players="Alice | mafia\nBob | townsfolk\nCarol | townsfolk\n"
                        "Dave | townsfolk\nEve | doctor")
    assert response.status_code == 302, response.get_data(as_text=True)
    bed.poll()
    for voter in ("Bob", "Carol", "Dave"):
        bed.forum().add_post("my7/votes", voter, "vote Alice", at=bed.clock.now)
    bed.poll()
    bed.poll()
    page = BeautifulSoup(bed.app.test_client().get("/t/my7/votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#banner-phase").get_text() == "over"
    assert page.select_one("#banner-winner").get_text() == "town"
    assert page.select_one("#thread-state").get_text() == "Locked: the game is over (town won)."
    assert page.select_one("#banner-left") is None and page.select_one("#locked") is not None


CLASSIC = "Alice | mafia\nBob | townsfolk\nCarol | townsfolk\nDave | townsfolk\nEve | doctor"


def test_game_over_in_the_console_winner_roles_log_no_buttons_and_the_votes_csv(bed):
    bed.sign_in()
    bed.make(ruleset="classic", votes_only="", players=CLASSIC)
    bed.poll()
    for voter in ("Bob", "Carol", "Dave"):
        bed.forum().add_post("my7/votes", voter, "vote Alice", at=bed.clock.now)
    bed.poll()
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    assert page.select_one("#phase").get_text() == "over"
    assert page.select_one("#winner").get_text() == "Winner: town"
    roles = {tr.select("td")[0].get_text(): tr.select("td")[1].get_text() for tr in page.select("#roles tr")[1:]}
    assert roles == {"Alice": "mafia", "Bob": "townsfolk", "Carol": "townsfolk", "Dave": "townsfolk", "Eve": "doctor"}
    assert page.select_one("#do-end") is None and page.select_one("#do-extend") is None
    assert page.select_one("#night") is None and "No action yet from" not in page.get_text()
    kinds = [tr["data-kind"] for tr in page.select("#history tr")[1:]]
    assert "day_end" in kinds and "game_over" in kinds
    said = page.select_one("#history").get_text(" ")
    assert "The game is over" in said and "day_end" not in said   # the messages as they went out, not the kinds
    rows = bed.client.get("/console/g/my7/votes.csv").get_data(as_text=True).splitlines()
    assert rows[0] == "day,voter,target,at,final,withdrawn,post,url"
    assert sorted((r.split(",")[0], r.split(",")[1], r.split(",")[2]) for r in rows[1:]) == [
        ("1", "Bob", "Alice"), ("1", "Carol", "Alice"), ("1", "Dave", "Alice")]


def test_a_misread_night_action_is_read_as_the_host_says_with_its_own_reason(bed):
    bed.sign_in()
    bed.make(ruleset="classic", votes_only="", players=CLASSIC, phase="night1", night_hours="24")
    bed.poll()
    forum = bed.forum()
    forum.add_pm("Eve", "forumbot", "I protect the one in the hat, Bob", at=bed.clock.now)
    forum.add_pm("Alice", "forumbot", "kill Carol", at=bed.clock.now)
    bed.poll()
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    orders = [[td.get_text() for td in tr.select("td")][:4] for tr in page.select("#night tr")[1:]]
    assert orders == [["Alice", "Mafia", "the mafia's kill", "Carol"]]
    assert page.select_one("#awaiting").get_text() == "No action yet from: Eve (Doctor)"
    eve = next(tr for tr in page.select("tr.post-row") if "I protect" in tr.get_text())
    form = eve.select_one("form.read-as")
    data = {i["name"]: i.get("value", "") for i in form.select("input")}
    data.update(text="heal Bob", reason="she named Bob")
    # the other buttons of the row carry reason boxes of their own
    assert all(f.select_one('input[name="reason"]') for f in eve.select("form"))
    bed.client.post(form["action"], data=data)
    bed.poll()
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    orders = [[td.get_text() for td in tr.select("td")][:4] for tr in page.select("#night tr")[1:]]
    assert ["Eve", "Doctor", "heal", "Bob"] in orders
    assert page.select_one("#awaiting").get_text() == "No action yet from: nobody"
    audit = page.select("#corrections tr")[1].select("td")
    assert audit[2].get_text().startswith("Eve's PM of ")
    assert "“I protect the one in the hat, Bob”" in audit[2].get_text()
    assert "read as “heal Bob”" in audit[2].get_text() and audit[3].get_text() == "she named Bob"


def test_not_a_vote_keeps_the_reason_typed_beside_it(bed):
    bed.sign_in()
    bed.make()
    bed.poll()
    bed.forum().add_post("my7/votes", "Alice", "vote Bob", at=bed.clock.now)
    bed.poll()
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    row = next(tr for tr in page.select("tr.post-row") if "vote Bob" in tr.get_text())
    form = next(f for f in row.select("form") if f.select_one("button.not-a-vote"))
    data = {i["name"]: i.get("value", "") for i in form.select("input")}
    data["reason"] = "a joke, she said so"
    bed.client.post(form["action"], data=data)
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    audit = page.select("#corrections tr")[1].select("td")
    assert audit[3].get_text() == "a joke, she said so"
    assert audit[2].get_text().startswith("Alice's post of ") and "“vote Bob”" in audit[2].get_text()


def test_the_console_page_knows_when_the_game_moved_on(bed):
    bed.sign_in()
    bed.make()
    bed.poll()
    first = bed.client.get("/console/g/my7/version.json").get_json()["version"]
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    assert page.select_one("#console-live")["data-version"] == first
    assert bed.client.get("/console/g/my7/version.json").get_json()["version"] == first   # nothing new
    bed.forum().add_post("my7/votes", "Alice", "vote Bob", at=bed.clock.now)
    bed.poll()
    assert bed.client.get("/console/g/my7/version.json").get_json()["version"] != first
    assert bed.app.test_client().get("/console/g/my7/version.json").status_code == 401


def test_a_conversation_shows_new_messages_live_to_those_who_may_read_it(bed):
    accounts = bed.app.extensions["forumbot"].connections().accounts
    clients = {}
    for name in ("Alice", "Bob"):
        accounts.add_user(name, password=f"{name.lower()}-password-1")
        client = clients[name] = bed.app.test_client()
        client.post("/signin", data={"csrf": csrf(client, "/signin"), "name": name,
                                     "password": f"{name.lower()}-password-1"})
    forum = bed.forum()
    forum.add_pm("forumbot", "Alice", "Your role: doctor")
    page = BeautifulSoup(clients["Alice"].get("/pm/forumbot").get_data(as_text=True), "html.parser")
    feed, last = page.select_one("#messages")["data-feed"], page.select_one("#messages")["data-last"]
    assert clients["Alice"].get(f"{feed}&after={last}").get_json() == {"messages": []}
    forum.add_pm("forumbot", "Alice", "Night 1 starts")
    new = clients["Alice"].get(f"{feed}&after={last}").get_json()["messages"]
    assert len(new) == 1 and "Night 1 starts" in new[0]["html"]
    assert clients["Bob"].get(f"{feed}&after=0").status_code == 403


def test_the_sign_up_view_lists_numbers_masks_and_confirmations(bed):
    bed.sign_in()
    response = bed.make(phase="signup", players="", votes_only="", options='signup_slots = 3\nsignup_hours = 24\n'
                        'role_table = { "1" = "detective", "2" = "maniac", "3" = "inspector" }')
    assert response.status_code == 302, response.get_data(as_text=True)
    bed.poll()
    forum = bed.forum()
    forum.add_pm("alice", "forumbot", "sign up: 1, Tom Hanks", at=bed.clock.now)
    bed.poll()
    page = BeautifulSoup(bed.client.get("/console/g/my7").get_data(as_text=True), "html.parser")
    assert page.select_one("#phase").get_text() == "signup"
    rows = [[td.get_text() for td in tr.select("td")] for tr in page.select("#signups tr")[1:]]
    assert [r[:3] + r[4:] for r in rows] == [["alice", "1", "Tom Hanks", "not yet"]]


def test_a_game_a_lobby_starts_shows_on_the_forum_and_in_the_console_without_a_restart(bed):
    bed.sign_in()
    form = {"csrf": csrf(bed.client, "/console/new?kind=lobby"), "kind": "lobby", "name": "duels",
            "ruleset": "infiltration", "lang": "en", "prefix": "duel"}
    assert bed.client.post("/console/new", data=form).status_code == 302
    bed.poll()
    forum = bed.forum()
    forum.add_post("duels/lobby", "alice", "challenge bob", at=bed.clock.now)
    bed.poll()
    forum.add_post("duels/lobby", "bob", "accept alice", at=bed.clock.now)
    bed.poll()
    bed.poll()
    spawned = [name for name in bed.runs() if name.startswith("duel") and name != "duels"]
    assert len(spawned) == 1
    front = BeautifulSoup(bed.app.test_client().get("/").get_data(as_text=True), "html.parser")
    assert spawned[0] in [h.get_text() for h in front.select("h2")]
    index = BeautifulSoup(bed.client.get("/console/").get_data(as_text=True), "html.parser")
    assert spawned[0] in index.select_one("#games").get_text()
    assert bed.client.get(f"/console/g/{spawned[0]}").status_code == 200


def test_a_game_made_in_the_console_may_name_its_threads(bed):
    bed.sign_in()
    bed.forum().ensure_thread("friday-votes", "Friday votes")
    wrong = bed.make(threads='ballots = "friday-votes"')
    assert wrong.status_code == 400 and "the game has no thread ballots" in wrong.get_data(as_text=True)
    assert bed.make(threads='votes = "friday-votes"').status_code == 302
    bed.poll()
    bed.forum().add_post("friday-votes", "Alice", "vote Bob", at=bed.clock.now)
    bed.poll()
    runner = bed.service.workers["local"].runner
    run = next(r for r in runner.runs if r.name == "my7")
    assert run.game.summary(runner.state(run))["votes"] == {"Bob": ["Alice"]}
    page = BeautifulSoup(bed.client.get("/t/friday-votes").get_data(as_text=True), "html.parser")
    assert page.select_one("#banner-phase").get_text() == "Day 1"
    assert '[games.threads] votes = "friday-votes"' in bed.client.get("/console/g/my7/game.toml").get_data(
        as_text=True)


def test_the_console_names_no_folder_on_the_bots_machine(bed):
    bed.sign_in()
    text = ('[game]\nname = "mafia"\nstart = "2026-03-01T20:00:00Z"\ntemplates = "/etc"\n[game.options]\n'
            'votes_only = true\n' + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS))
    response = bed.make(file=text)
    assert response.status_code == 400
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    assert "templates" in page.select_one("#new-error").get_text()
    lobby = bed.client.post("/console/new", data={"csrf": csrf(bed.client, "/console/new?kind=lobby"), "kind": "lobby",
                                                  "name": "duels", "ruleset": "infiltration", "lang": "en",
                                                  "prefix": "<b>x"})
    assert lobby.status_code == 400 and "prefix" in lobby.get_data(as_text=True)
