"""The web forum under hostile use. Through Flask's test client: sign-in redirects go only to paths on this
site; a post is rendered once and kept, one too slow to render is kept as its text, posting is limited per
account; edits are moderated like posts (a post the bot removed, a Food Chain channel the author is not in)
and the host sees the refusals in the flags. Over HTTP on 127.0.0.1, served by waitress as `forumbot run`
serves it: ten sign-ins at once take at most five tries; the forum answers while one client holds 150 idle
connections, past its cap of them; an idle connection is closed; behind a reverse proxy the forwarded
address counts only when the proxy sends it. Network use: 127.0.0.x only, a few hundred sockets at most,
every wait bounded."""

from __future__ import annotations

import http.client
import re
import selectors
import socket
import threading
import time
import urllib.parse
from datetime import UTC, datetime

import pytest
from helpers import apply_post
from test_console import Bed, host_client
from test_web import GAME, signed_in, token

from forumbot.config.game import load_ruleset
from forumbot.games import get_game
from forumbot.games.base import GameSetup
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web import markup, posthtml
from forumbot.web.accounts import Accounts
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.server import PER_CLIENT, WebServer

# ---- where a sign-in sends you ---------------------------------------------------------------------
HERE = ["/t/g/votes?page=2#p3", "/pm/", "/t/g/votes", "/p/7/edit"]
ELSEWHERE = ["//evil.example/", "/\t/evil.example/", "/\n/evil.example/", "/%09/evil.example/", "/%2F/evil.example/",
             "/\\evil.example/", "/%5Cevil.example/", "https://evil.example/", "javascript:alert(1)",
             "evil.example/", "/x\r\nSet-Cookie: a=b", "/%0d%0aX-Injected: 1", "", " /t/g/votes", "/x\x7f"]


@pytest.mark.parametrize("target", HERE + ELSEWHERE)
def test_a_sign_in_sends_you_to_a_path_on_this_site_or_home(site, target):
    app, _, passwords = site
    client = app.test_client()
    response = client.post("/signin", data={"name": "Alice", "password": passwords["Alice"], "next": target,
                                            "csrf": token(client)})
    assert response.status_code == 302
    assert response.headers["Location"] == (target if target in HERE else "/")


def test_the_consoles_back_field_stays_in_the_console(tmp_path):
    bed = Bed(tmp_path)
    client = host_client(bed)
    csrf = token(client, "/console/g/g")
    for back, where in [("/console/g/g/flags", "/console/g/g/flags"), ("/console/\n/evil.example", "/console/g/g"),
                        ("//evil.example/console/", "/console/g/g"), ("/console/\t/x", "/console/g/g")]:
        response = client.post("/console/g/g/flags/resolve", data={"csrf": csrf, "back": back})
        assert response.status_code == 302 and response.headers["Location"] == where


# ---- a post's cost paid once -------------------------------------------------------------------------
def test_a_post_is_rendered_once_and_pages_show_what_was_kept(tmp_path, monkeypatch):
    path = tmp_path / "forum.db"
    forum = LocalForum(path)
    password = Accounts(path).add_user("Alice")
    app = create_app(WebSettings(str(path), WebConfig(per_page=100), games=(GAME,)))
    alice = signed_in(app, {"Alice": password}, "Alice")
    assert alice.post("/reply", data={"thread": "g/votes", "body": "**bold** " + "[" * 500,
                                      "csrf": token(alice, "/t/g/votes")}).status_code == 302
    for n in range(299):   # written beside the web (the bot's posts): each rendered when first shown
        forum.add_post("g/votes", "forumbot", f"*count* {n}")
    pages = [app.test_client().get(f"/t/g/votes?page={n}").get_data(as_text=True) for n in (1, 2, 3)]
    assert "<strong>bold</strong>" in pages[0] and "<em>count</em> 298" in pages[2]

    def no_rendering(text: str) -> str:
        raise AssertionError("rendered again")

    monkeypatch.setattr(markup, "markdown_html", no_rendering)
    restarted = create_app(WebSettings(str(path), WebConfig(per_page=100), games=(GAME,)))
    for n, page in zip((1, 2, 3), pages, strict=True):    # 300 posts, kept however many, across a restart
        again = restarted.test_client().get(f"/t/g/votes?page={n}")
        assert again.status_code == 200 and again.get_data(as_text=True) == page
    feed = restarted.test_client().get("/new.json?t=g/votes&after=0").get_json()
    assert "<strong>bold</strong>" in feed["posts"][0]["html"]


def test_a_post_too_slow_to_render_is_kept_as_its_text(site, monkeypatch):
    app, _, passwords = site
    monkeypatch.setattr(posthtml, "RENDER_SECONDS", -1.0)   # every render counts as too slow
    alice = signed_in(app, passwords, "Alice")
    alice.post("/reply", data={"thread": "g/votes", "body": "**bold** <b>x</b>\nline two",
                               "csrf": token(alice, "/t/g/votes")})
    monkeypatch.undo()
    page = app.test_client().get("/t/g/votes").get_data(as_text=True)
    assert "**bold** &lt;b&gt;x&lt;/b&gt;<br>\nline two" in page and "<strong>" not in page


def test_posting_is_limited_per_account(tmp_path):
    path = tmp_path / "forum.db"
    forum = LocalForum(path)
    accounts = Accounts(path)
    passwords = {name: accounts.add_user(name) for name in ("Alice", "Bob")}
    app = create_app(WebSettings(str(path), WebConfig(posts_per_minute=3), games=(GAME,)))
    alice, bob = signed_in(app, passwords, "Alice"), signed_in(app, passwords, "Bob")
    csrf = token(alice, "/t/g/votes")
    for n in range(3):
        assert alice.post("/reply", data={"thread": "g/votes", "body": f"post {n}", "csrf": csrf}).status_code == 302
    refused = alice.post("/reply", data={"thread": "g/votes", "body": "post 3", "csrf": csrf})
    assert refused.status_code == 429 and "At most 3 posts" in refused.get_data(as_text=True)
    assert alice.post("/p/1/edit", data={"body": "edited", "csrf": csrf}).status_code == 429
    assert alice.post("/pm/forumbot", data={"body": "check Bob", "csrf": csrf}).status_code == 429
    assert bob.post("/reply", data={"thread": "g/votes", "body": "Bob's", "csrf": token(bob, "/t/g/votes")}) \
        .status_code == 302
    assert [p["body"] for p in forum.thread_posts("g/votes")] == ["post 0", "post 1", "post 2", "Bob's"]
    unlimited = create_app(WebSettings(str(path), WebConfig(posts_per_minute=0), games=(GAME,)))
    zed = signed_in(unlimited, passwords, "Bob")
    csrf = token(zed, "/t/g/votes")
    for n in range(12):
        assert zed.post("/reply", data={"thread": "g/votes", "body": f"more {n}", "csrf": csrf}).status_code == 302


# ---- edits moderated like posts ----------------------------------------------------------------------
def test_an_edit_of_a_post_the_bot_removed_is_refused_and_flagged_for_the_host(tmp_path):
    bed = Bed(tmp_path)
    password = Accounts(tmp_path / "forum.db").add_user("Alice")
    alice = signed_in(bed.app, {"Alice": password}, "Alice")
    first = bed.post_of("Alice")
    bed.forum.remove_post(first, "not here")
    number = first.split(":")[1]
    assert alice.get(f"/p/{number}/edit").status_code == 403
    refused = alice.post(f"/p/{number}/edit", data={"body": "vote Bob, put back", "csrf": token(alice, "/t/g/votes")})
    assert refused.status_code == 403 and "the bot removed this post" in refused.get_data(as_text=True)
    assert bed.forum.thread_posts("g/votes")[0]["body"] == "[removed by the bot: not here]"
    flags = [f for f in bed.runner.store.flag_list("g") if f["post"] == first]
    assert [(f["author"], f["line"]) for f in flags] == [("Alice", "vote Bob, put back")]
    assert "the bot removed this post" in flags[0]["reason"]
    listed = host_client(bed).get("/console/g/g/flags").get_data(as_text=True)
    assert "an edit refused by the web forum: the bot removed this post" in listed


FC_CAST = {"Pred": "Predator, main Forest, start Forest", "Hunt": "Hunter, start Forest",
           "Prey": "Prey, main Field, start Forest", "Scav": "Scavenger, start Sky"}


def test_an_edit_in_a_channel_its_author_may_not_post_in_is_refused_and_flagged(tmp_path):
    rules = get_game("foodchain")
    start = datetime(2026, 8, 1, 12, tzinfo=UTC)
    state = rules.new(GameSetup("foodchain", tuple(PlayerRef(p) for p in FC_CAST), start,
                                options={**load_ruleset("foodchain", "foodchain"), "seed": "t"}))
    for player, text in FC_CAST.items():
        state, _ = apply_post(rules, state, player, text)
    state, _ = rules.on_deadline(state, state.ends)          # round 1: Scav is in the Sky, the rest in the Forest
    store = Store(tmp_path / "bot.db")
    store.commit_step("fc", "foodchain", {}, rules.to_json(state), at=start, expected_version=0)
    threads = {purpose: f"fc/{name}" for purpose, name in rules.threads(state).items()}
    forum = LocalForum(tmp_path / "forum.db")
    accounts = Accounts(tmp_path / "forum.db")
    passwords = {name: accounts.add_user(name) for name in ("Pred", "Scav")}
    app = create_app(WebSettings(str(tmp_path / "forum.db"), games=(WebGame("fc", threads, "H", tuple(FC_CAST)),),
                                 store=str(tmp_path / "bot.db"), game_hosts={"fc": "H"}))
    scavs = forum.add_post("fc/forest", "Scav", "hello").split(":")[1]    # before the bot read it
    preds = forum.add_post("fc/forest", "Pred", "hi").split(":")[1]
    scav, pred = signed_in(app, passwords, "Scav"), signed_in(app, passwords, "Pred")
    refused = scav.post(f"/p/{scavs}/edit", data={"body": "the Sky is empty", "csrf": token(scav, "/t/fc/forest")})
    assert refused.status_code == 403
    assert "in the Sky this round, not in the Forest" in refused.get_data(as_text=True)
    assert pred.post(f"/p/{preds}/edit", data={"body": "hi all", "csrf": token(pred, "/t/fc/forest")}).status_code \
        == 302
    assert [p["body"] for p in forum.thread_posts("fc/forest")] == ["hello", "hi all"]
    assert [(f["author"], f["line"]) for f in store.flag_list("fc")] == [("Scav", "the Sky is empty")]
    assert store.flag_list("fc")[0]["reason"].startswith("an edit refused by the web forum: ")


# ---- over HTTP ------------------------------------------------------------------------------------------
class Client:
    """A browser-less client: its own session cookie, from a chosen 127.0.0.x address, each request on a
    new connection."""

    def __init__(self, port: int, source: str = "127.0.0.1", headers: dict[str, str] | None = None) -> None:
        self.port, self.source, self.headers, self.cookie = port, source, dict(headers or {}), ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(self.source, 0))
        sent = {**self.headers, **(headers or {})}
        if self.cookie:
            sent["Cookie"] = self.cookie
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            text = response.read().decode()
            if cookie := response.getheader("Set-Cookie"):
                self.cookie = cookie.split(";", 1)[0]
            return response.status, text
        finally:
            conn.close()

    def csrf(self, path: str = "/signin") -> str:
        return re.search(r'name="csrf" value="([^"]+)"', self.request("GET", path)[1]).group(1)

    def sign_in(self, name: str, password: str, headers: dict[str, str] | None = None) -> int:
        form = {"name": name, "password": password, "csrf": self.csrf()}
        return self.request("POST", "/signin", form, headers)[0]


def serve(tmp_path, web: WebConfig, **options):
    path = tmp_path / "forum.db"
    LocalForum(path).ensure_thread("g/votes", "votes")
    passwords = {name: Accounts(path).add_user(name) for name in ("Alice", "Bob")}
    server = WebServer(WebSettings(str(path), web, games=(GAME,)), **options).start()
    return server, passwords


@pytest.fixture()
def server(tmp_path):
    server, passwords = serve(tmp_path, WebConfig(port=0))
    yield server, passwords
    server.stop()


def test_ten_sign_ins_at_once_take_at_most_five_tries(server):
    web, _ = server
    clients = [Client(web.port) for _ in range(10)]
    forms = [{"name": "Alice", "password": "wrong", "csrf": c.csrf()} for c in clients]
    start, statuses = threading.Barrier(10), []

    def attempt(client: Client, form: dict[str, str]) -> None:
        start.wait(30)
        statuses.append(client.request("POST", "/signin", form)[0])

    threads = [threading.Thread(target=attempt, args=pair) for pair in zip(clients, forms, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(statuses) == [401] * 5 + [429] * 5


def idle_connections(port: int, count: int, source: str) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind((source, 0))
        sock.settimeout(10)
        sock.connect(("127.0.0.1", port))
        sockets.append(sock)
    return sockets


def closed_by_server(sockets: list[socket.socket], expected: int, seconds: float = 20) -> int:
    """How many of `sockets` the server closed (read end of file), waiting until `expected` are or
    `seconds` have passed."""
    closed = 0
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        until = time.monotonic() + seconds
        while closed < expected and (left := until - time.monotonic()) > 0:
            for key, _ in selector.select(min(left, 1.0)):
                selector.unregister(key.fileobj)
                try:
                    data = key.fileobj.recv(1)
                except OSError:
                    data = b""
                if not data:
                    closed += 1
    return closed


def test_the_forum_answers_while_one_client_holds_150_idle_connections(server):
    web, passwords = server
    flood = idle_connections(web.port, 150, "127.0.0.2")
    try:
        assert closed_by_server(flood, 150 - PER_CLIENT) == 150 - PER_CLIENT   # past the cap, closed at once
        status, page = Client(web.port).request("GET", "/t/g/votes")
        assert status == 200 and "votes" in page
        assert Client(web.port, "127.0.0.3").sign_in("Bob", passwords["Bob"]) == 302
    finally:
        for sock in flood:
            sock.close()


def test_an_idle_or_half_sent_connection_is_closed(tmp_path):
    web, _ = serve(tmp_path, WebConfig(port=0), idle_seconds=1)
    try:
        idle = idle_connections(web.port, 2, "127.0.0.1")
        idle[1].sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")      # a request never finished
        assert closed_by_server(idle, 2) == 2
        assert Client(web.port).request("GET", "/")[0] == 200
    finally:
        web.stop()


def test_behind_a_proxy_the_forwarded_address_counts_only_from_the_proxy(tmp_path):
    web, passwords = serve(tmp_path, WebConfig(port=0, trusted_proxies=1, proxy_addresses=("127.0.0.1",)))
    try:
        proxy = Client(web.port, "127.0.0.1")
        someone = {"X-Forwarded-For": "203.0.113.1"}
        assert [proxy.sign_in("Alice", "wrong", someone) for _ in range(5)] == [401] * 5
        assert proxy.sign_in("Alice", passwords["Alice"], someone) == 429
        # the proxy's other client (another forwarded address) signs in as Alice: nobody locked her out
        assert proxy.sign_in("Alice", passwords["Alice"], {"X-Forwarded-For": "203.0.113.2"}) == 302
        # a client that reaches the server directly cannot choose its address by the header
        direct = Client(web.port, "127.0.0.2")
        tries = [direct.sign_in("Bob", "wrong", {"X-Forwarded-For": f"198.51.100.{n}"}) for n in range(6)]
        assert tries == [401] * 5 + [429]
    finally:
        web.stop()


def test_the_proxy_and_posting_keys_of_the_web_table(tmp_path):
    from forumbot.config.bot import load_bot_config
    from forumbot.errors import ConfigError

    (tmp_path / "game.toml").write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-05-01T18:00:00Z"\n'
                                        '[game.options]\nvotes_only = true\n'
                                        + "".join(f'[[players]]\nname = "{p}"\n' for p in ("A", "B", "C")))
    bot = tmp_path / "bot.toml"
    table = ('[platforms.local]\nkind = "local"\npath = "forum.db"\n[[games]]\nconfig = "game.toml"\n'
             '[web]\ntrusted_proxies = 1\n')
    bot.write_text(table + 'proxy_addresses = ["10.0.0.5"]\nposts_per_minute = 4\n')
    web = load_bot_config(bot).web
    assert (web.trusted_proxies, web.proxy_addresses, web.posts_per_minute) == (1, ("10.0.0.5",), 4)
    bot.write_text(table)
    assert load_bot_config(bot).web.proxy_addresses == ("127.0.0.1", "::1")
    for bad, problem in [('proxy_addresses = "10.0.0.5"', "proxy_addresses must be a list"),
                         ("posts_per_minute = -1", "posts_per_minute must be 0")]:
        bot.write_text(table + bad + "\n")
        with pytest.raises(ConfigError, match=problem):
            load_bot_config(bot)
