"""The web forum without a browser: safe rendering of hostile posts (markdown and BBCode), password hashes,
sign-in rate limits, CSRF, who may read and write what, paging and permalinks, the [web] config, the bot's
links, `forumbot forum add-user` and `forumbot run` serving the forum on 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.engine.service import Service
from forumbot.errors import ConfigError
from forumbot.model import format_time
from forumbot.platforms.local import LocalForum
from forumbot.web.accounts import Accounts, RateLimiter, check_password, hash_password
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.markup import quoted, to_html
from forumbot.web.server import WebServer

ALLOWED_TAGS = {"span", "p", "br", "strong", "em", "u", "del", "s", "sup", "sub", "a", "blockquote", "cite", "details",
                "summary", "pre", "code", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table",
                "thead", "tbody", "tr", "th", "td"}
ALLOWED_ATTRS = {"href", "rel", "start", "style", "class"}   # style: markdown-it's table alignment only


def assert_inert(html: str) -> None:
    """Only known tags and attributes; links only to http(s), this site, a fragment or this page (an empty
    target: markdown's `[x]()`)."""
    for tag in BeautifulSoup(f"<div>{html}</div>", "html.parser").div.find_all(True):
        assert tag.name in ALLOWED_TAGS, (tag.name, html)
        assert set(tag.attrs) <= ALLOWED_ATTRS, (tag.attrs, html)
        if "class" in tag.attrs:
            assert tag.name == "span" and tag["class"] == ["spoiler"], html
        if "style" in tag.attrs:
            assert re.fullmatch(r"text-align:(left|right|center)", tag["style"]), html
        if tag.name == "a":
            assert re.match(r"(https?://|/(?!/)|#|$)", tag["href"]), html


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](  javascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "<javascript:alert(1)>",
    "[ref][1]\n\n[1]: javascript:alert(1)",
    '[x](http://a.b "title" onmouseover=alert(1))',
    "![i](http://evil.example/x.png)",
    "[x](//evil.example/)",
    "[url=javascript:alert(1)]x[/url]",
    "[url]javascript:alert(1)[/url]",
    '[url=http://a.b" onclick="alert(1)]x[/url]',
    "[url=http://a.b]<b onclick=alert(1)>x</b>[/url]",
    '[quote="><script>alert(1)</script>]hi[/quote]',
    "[b][i][url=//evil]x[/url][/i][/b]",
    "[code]<script>alert(1)</script>[/code]",
    "[spoiler]<iframe src=javascript:alert(1)>[/spoiler]",
    "[quote=]()",   # found by hypothesis: a link with an empty target (this page)
]


@pytest.mark.parametrize("dialect", ["markdown", "bbcode", "plain"])
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_posts_render_inert(text, dialect):
    html = str(to_html(text, dialect))
    assert_inert(html)
    assert "<script" not in html and "<img" not in html and "<iframe" not in html


PIECES = [*"<>[]()=\"':/ \n*_~!#&;abjvsrciptu\ue000\ue001", ">!", "!<", "[url=", "[/url]", "javascript:",
          "<script>", "[quote=", "[/quote]",
          "](", "http://", "[b]", "[/b]", "[spoiler]", "[/spoiler]", "<a href=", "onerror="]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join), st.sampled_from(["markdown", "bbcode"]))
def test_any_text_renders_inert(text, dialect):
    assert_inert(str(to_html(text, dialect)))


@pytest.mark.parametrize(("dialect", "text", "html"), [
    ("markdown", "**Том Хэнкс** (6/7): [Мэрил](http://h/t/g/votes#p2), ~~Брэд~~",
     '<strong>Том Хэнкс</strong> (6/7): <a href="http://h/t/g/votes#p2" rel="nofollow noopener">Мэрил</a>, '
     "<s>Брэд</s>"),
    ("bbcode", "[b]Том Хэнкс[/b] (6/7): [url=http://h/t/g/votes#p2]Мэрил[/url], [s]Брэд[/s]",
     '<strong>Том Хэнкс</strong> (6/7): <a href="http://h/t/g/votes#p2" rel="nofollow noopener">Мэрил</a>, '
     "<del>Брэд</del>"),
    ("bbcode", "[quote=Брэд Питт]Против Хэнкса[/quote]да", "<blockquote><cite>Брэд Питт</cite>Против Хэнкса"
                                                          "</blockquote>да"),
    ("bbcode", "[vote]X[/vote] [color=red]красный[/color]", "[vote]X[/vote] красный"),
    ("markdown", ">!Против Анджи!< шучу", '<p><span class="spoiler">Против Анджи</span> шучу</p>'),
    ("markdown", "a >!<b>!< \ue000c\ue001", '<p>a <span class="spoiler">&lt;b&gt;</span> c</p>'),
])
def test_the_bots_markup_renders(dialect, text, html):
    assert html in str(to_html(text, dialect))


def test_a_quote_drops_the_bots_marker_and_stays_a_quote():
    assert quoted("Бот", "Итоги\n[](#fb:g:1)", "markdown") == "> **Бот**:\n> Итоги\n\n"
    assert quoted("Бот", "Итоги\n[url=#fb:g:1][/url]", "bbcode") == "[quote=Бот]Итоги[/quote]\n\n"


def test_passwords_are_stored_as_salted_scrypt_hashes(tmp_path):
    first, second = hash_password("секрет"), hash_password("секрет")
    assert first != second and first.startswith("scrypt$16384$8$1$") and "секрет" not in first
    assert check_password(first, "секрет") and not check_password(first, "секрет ")
    assert not check_password("md5$abc", "x") and not check_password("garbage", "x")
    accounts = Accounts(tmp_path / "forum.db")
    password = accounts.add_user("Мэрил Стрип")
    assert len(password) >= 16 and accounts.verify("Мэрил Стрип", password)
    assert not accounts.verify("Мэрил Стрип", "nope") and not accounts.verify("Никто", password)
    stored = accounts.db.execute("SELECT password FROM web_users").fetchone()[0]
    assert password not in stored
    with pytest.raises(ConfigError):
        accounts.add_user("forumbot", reserved=("forumbot",))
    with pytest.raises(ConfigError):
        accounts.add_user("a/b")


def test_the_rate_limiter_counts_attempts_in_a_window_all_keys_or_none():
    now = [0.0]
    limiter = RateLimiter(window=60, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.take(("ip", 3)) == 0
    assert limiter.take(("ip", 3)) == 60 and limiter.take(("other", 3)) == 0
    assert limiter.take(("fresh", 3), ("ip", 3)) == 60
    assert limiter.take(("fresh", 1)) == 0      # the refused take above counted nothing against "fresh"
    limiter.give_back(("fresh", 1))
    assert limiter.take(("fresh", 1)) == 0      # given back: room again
    now[0] = 61
    assert limiter.take(("ip", 3)) == 0
    for n in range(10_001):
        limiter.take((f"name:{n}", 5))
    now[0] = 200
    limiter.take(("late", 5))
    assert list(limiter.attempts) == ["late"]   # the expired keys are forgotten


# ---- the app through Flask's test client ----------------------------------------------------------

GAME = WebGame("g", {"votes": "g/votes", "game": "g/game"}, "Host", ("Alice", "Bob"))




def token(client, url="/signin"):
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True)).group(1)


def signed_in(app, passwords, name, address="127.0.0.1"):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    response = client.post("/signin", data={"name": name, "password": passwords[name], "csrf": token(client)})
    assert response.status_code == 302
    return client


def test_pages_declare_utf8_and_render_cyrillic(site):
    app, forum, _ = site
    forum.add_post("g/votes", "Alice", "Голосую против **Боба**")
    page = app.test_client().get("/t/g/votes")
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    html = page.get_data(as_text=True)
    assert '<meta charset="utf-8">' in html and "Голосую против <strong>Боба</strong>" in html
    assert "default-src 'self'" in page.headers["Content-Security-Policy"]


def test_a_thread_pages_and_permalinks_find_the_page(site):
    app, forum, _ = site
    ids = [forum.add_post("g/votes", "Alice", f"post {n}") for n in range(25)]
    client = app.test_client()
    page3 = client.get("/t/g/votes?page=3").get_data(as_text=True)
    assert page3.count('class="post') == 5 and "post 20" in page3 and "post 19" not in page3
    assert "post 24" in client.get("/t/g/votes?page=last").get_data(as_text=True)
    assert client.get("/t/g/votes?page=4").status_code == 404
    assert client.get(f"/p/{ids[14].split(':')[1]}").headers["Location"] == "/t/g/votes?page=2#p15"
    assert client.get("/p/999").status_code == 404
    feed = client.get("/new.json?t=g/votes&after=23").get_json()
    assert [p["id"] for p in feed["posts"]] == [24, 25] and 'id="p25"' in feed["posts"][1]["html"]


def test_forms_without_the_csrf_token_are_refused(site):
    app, forum, passwords = site
    client = signed_in(app, passwords, "Alice")
    for data in ({"thread": "g/votes", "body": "vote Bob"}, {"thread": "g/votes", "body": "vote Bob", "csrf": "x"}):
        response = client.post("/reply", data=data)
        assert response.status_code == 400 and "security token" in response.get_data(as_text=True)
    assert client.post("/pm/forumbot", data={"body": "kill Bob"}).status_code == 400
    assert forum.thread_posts("g/votes") == [] and forum.pms_to("forumbot") == []
    good = token(client, "/t/g/votes")
    assert client.post("/reply", data={"thread": "g/votes", "body": "vote Bob", "csrf": good}).status_code == 302
    assert [p["body"] for p in forum.thread_posts("g/votes")] == ["vote Bob"]


def test_sign_in_is_rate_limited_per_name_from_an_address_and_per_address(site):
    app, _, passwords = site
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.0.0.1"
    for _ in range(5):
        response = client.post("/signin", data={"name": "Alice", "password": "wrong", "csrf": token(client)})
        assert response.status_code == 401
    blocked = client.post("/signin", data={"name": "Alice", "password": passwords["Alice"], "csrf": token(client)})
    assert blocked.status_code == 429
    # five wrong passwords from elsewhere lock nobody out: Alice signs in from her own address
    signed_in(app, passwords, "Alice", address="10.0.0.2")
    # an address trying name after name is stopped at 30 attempts, whichever names
    for n in range(25):
        assert client.post("/signin", data={"name": f"Name{n}", "password": "x", "csrf": token(client)}).status_code \
            == 401
    assert client.post("/signin", data={"name": "Bob", "password": passwords["Bob"], "csrf": token(client)}) \
        .status_code == 429
    signed_in(app, passwords, "Bob", address="10.0.0.3")


def test_a_successful_sign_in_is_not_counted(site):
    app, _, passwords = site
    for _ in range(8):   # more than five sign-ins from one address, all right
        signed_in(app, passwords, "Alice", address="10.0.0.4")


def test_who_may_post_edit_and_read_private_messages(site):
    app, forum, passwords = site
    alice, zed, host = (signed_in(app, passwords, n) for n in ("Alice", "Zed", "Host"))
    csrf = token(zed, "/t/g/votes")
    assert zed.post("/reply", data={"thread": "g/votes", "body": "vote Bob", "csrf": csrf}).status_code == 403
    assert app.test_client().post("/reply", data={"thread": "g/votes", "body": "x"}).status_code == 400
    forum.add_post("other/lobby", "Bob", "hello")
    assert zed.post("/reply", data={"thread": "other/lobby", "body": "hi", "csrf": csrf}).status_code == 302
    bobs = forum.add_post("g/votes", "Bob", "vote Alice").split(":")[1]
    csrf = token(alice, "/t/g/votes")
    assert alice.post(f"/p/{bobs}/edit", data={"body": "vote Host", "csrf": csrf}).status_code == 403
    alices = forum.add_post("g/votes", "Alice", "vote Bob").split(":")[1]
    assert alice.post(f"/p/{alices}/edit", data={"body": "vote Zed", "csrf": csrf}).status_code == 302
    edited = [p for p in forum.thread_posts("g/votes") if str(p["id"]) == alices][0]
    assert edited["body"] == "vote Zed" and edited["edited"]
    assert alice.post("/pm/forumbot", data={"body": "check Bob", "csrf": csrf}).status_code == 302
    assert alice.post("/pm/Zed", data={"body": "psst", "csrf": csrf}).status_code == 403
    forum.add_pm("forumbot", "Alice", "Bob is town")
    assert '<span class="unread" id="unread">1</span>' in alice.get("/t/g/votes").get_data(as_text=True)
    assert "Bob is town" in alice.get("/pm/forumbot").get_data(as_text=True)
    assert 'id="unread"' not in alice.get("/t/g/votes").get_data(as_text=True)
    assert zed.get("/pm/Alice/forumbot").status_code == 403
    assert "Alice" not in zed.get("/pm/").get_data(as_text=True).split("<h2>")[0]
    # (no bot's store behind this forum: no game sent it, so it is Alice's alone; the host's page opens empty)
    assert host.get("/pm/Alice/forumbot").status_code == 200
    assert "Bob is town" not in host.get("/pm/Alice/forumbot").get_data(as_text=True)
    assert [p["read"] for p in forum.pms_to("forumbot")] == [0]   # the bot's inbox is the bot's to mark


def test_a_player_changes_their_password(site):
    app, _, passwords = site
    alice = signed_in(app, passwords, "Alice")
    csrf = token(alice, "/account/password")
    for form, problem in [({"current": "wrong", "new": "новый пароль 1", "again": "новый пароль 1"}, "is wrong"),
                          ({"current": passwords["Alice"], "new": "short", "again": "short"}, "at least 10"),
                          ({"current": passwords["Alice"], "new": "новый пароль 1", "again": "другой"}, "differ")]:
        response = alice.post("/account/password", data={**form, "csrf": csrf})
        assert response.status_code == 400 and problem in response.get_data(as_text=True)
    done = alice.post("/account/password", data={"current": passwords["Alice"], "new": "новый пароль 1",
                                                 "again": "новый пароль 1", "csrf": csrf})
    assert done.status_code == 200 and "password is changed" in done.get_data(as_text=True)
    signed_in(app, {"Alice": "новый пароль 1"}, "Alice")
    with pytest.raises(AssertionError):
        signed_in(app, passwords, "Alice", address="10.9.9.9")
    assert app.test_client().get("/account/password").status_code == 401


def test_private_forum_needs_sign_in(tmp_path):
    path = tmp_path / "forum.db"
    app = create_app(WebSettings(str(path), WebConfig(private=True), games=(GAME,)))
    client = app.test_client()
    assert client.get("/t/g/votes").status_code == 401 and client.get("/signin").status_code == 200


def test_the_bots_links_point_at_the_web_forum(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", base_url="http://forum.example/")
    forum.add_post("mafia-1/votes", "Alice", "vote Bob")
    assert forum.fetch_posts(["mafia-1/votes"], None)[0][0].url == "http://forum.example/t/mafia-1/votes#p1"
    game = tmp_path / "game.toml"
    game.write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-05-01T18:00:00Z"\n'
                    '[game.options]\nvotes_only = true\n'
                    '[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n[[players]]\nname = "Carol"\n')
    bot = tmp_path / "bot.toml"
    bot.write_text('[platforms.local]\nkind = "local"\npath = "forum.db"\n[[games]]\nconfig = "game.toml"\n'
                   '[web]\nlisten = "127.0.0.1:8099"\n')
    config = load_bot_config(bot)
    assert config.web == WebConfig("127.0.0.1", 8099)
    assert config.platforms["local"].options["base_url"] == "http://127.0.0.1:8099"
    bot.write_text(bot.read_text().replace('"127.0.0.1:8099"', '"8099"'))
    with pytest.raises(ConfigError, match=r"bot.toml:7: listen must be host:port"):
        load_bot_config(bot)


def test_a_game_yet_to_start_is_served_with_its_threads_open(tmp_path):
    (tmp_path / "later.toml").write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2040-01-01T18:00:00Z"\n'
                                         'host = "Host"\n[game.options]\nvotes_only = true\n'
                                         '[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n'
                                         '[[players]]\nname = "Carol"\n')
    (tmp_path / "bot.toml").write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\n'
                                       'path = "forum.db"\n[[games]]\nconfig = "later.toml"\n[web]\n')
    settings = Service(load_bot_config(tmp_path / "bot.toml")).web_settings()
    assert settings.games == (WebGame("later", {"game": "later/game", "votes": "later/votes"}, "Host",
                                      ("Alice", "Bob", "Carol")),)
    assert settings.forum_path == str(tmp_path / "forum.db")
    page = create_app(settings).test_client().get("/").get_data(as_text=True)
    assert 'href="/t/later/votes"' in page and 'href="/t/later/game"' in page


def test_forum_add_user_prints_a_password_once(tmp_path):
    path = tmp_path / "forum.db"
    result = CliRunner().invoke(cli, ["forum", "add-user", "Мэрил Стрип", "Bob", "--forum", str(path)])
    assert result.exit_code == 0
    lines = dict(line.split("\t") for line in result.output.splitlines())
    assert Accounts(path).verify("Мэрил Стрип", lines["Мэрил Стрип"]) and Accounts(path).verify("Bob", lines["Bob"])
    refused = CliRunner().invoke(cli, ["forum", "add-user", "x/y", "--forum", str(path)])
    assert refused.exit_code == 2 and "cannot be an account name" in refused.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_forumbot_run_serves_the_web_forum(tmp_path):
    port = _free_port()
    start = format_time(datetime.now(UTC) - timedelta(minutes=1))
    (tmp_path / "game.toml").write_text(f'[game]\nname = "mafia"\nlang = "en"\nstart = "{start}"\n'
                                        '[game.options]\nvotes_only = true\n'
                                        '[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n'
                                        '[[players]]\nname = "Carol"\n')
    (tmp_path / "bot.toml").write_text(f'[platforms.local]\nkind = "local"\npath = "forum.db"\npoll_seconds = 1\n'
                                       f'[[games]]\nconfig = "game.toml"\n[web]\nlisten = "127.0.0.1:{port}"\n')
    process = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(tmp_path / "bot.toml")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        page = ""
        for _ in range(100):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/t/game/game", timeout=2).read().decode()
                if 'class="post bot"' in page:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert 'class="post bot"' in page and "Game · Game thread" in page   # the bot's opening post, served
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0].decode()
    assert process.returncode == 0, output
    assert f"web forum: http://127.0.0.1:{port}/" in output


def test_a_port_already_taken_is_a_clear_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}"):
            WebServer(WebSettings(str(tmp_path / "forum.db"), WebConfig(port=port)))


def test_forumbot_demo_web_prints_where_to_sign_in_and_serves(tmp_path):
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "forumbot", "demo", "--web", "--pace", "0", "--listen",
                                f"127.0.0.1:{port}", "--dir", str(tmp_path / "demo")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ,
                                                                                      "PYTHONUNBUFFERED": "1"})
    lines = []
    try:
        for line in process.stdout:   # type: ignore[union-attr]
            lines.append(line.decode())
            if "Ctrl-C stops the demo" in lines[-1]:
                break
        output = "".join(lines)
        assert f"The forum is at http://127.0.0.1:{port}/" in output
        password = re.search(r"password: (\S+)", output).group(1)
        assert "name:     Хью Джекман" in output and Accounts(tmp_path / "demo" / "forum.db").verify("Хью Джекман",
                                                                                                   password)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/t/mafia-day-ru/votes?page=last").read().decode()
        assert "Голосую против Леонардо Ди Каприо" in page   # the scripted posts, served
    finally:
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=30)[0].decode()
    assert process.returncode == 0 and "demo stopped" in rest
