"""The host console and the web forum speak the game's or the forum's language in what Flask says too: why
a post was read as it was, the refusals and flags beside it, the notices after a console action, and the
error pages' messages."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import hash_password
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

PASSWORD = "host-password-1"
CAST = {"ru": ["Алиса", "Борис", "Вика", "Дина"], "en": ["Alice", "Boris", "Vicky", "Dina"]}
VOTES = {"ru": ("Голосую: Бориса", "Голосую: Бобби Великий"), "en": ("vote Bori", "vote Bobby the Great")}


def console(tmp_path, lang: str):
    now = START + timedelta(hours=3)
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: now, base_url="http://forum.test")
    cast = CAST[lang]
    run = GameRun.build(GameConfig(name="g", game="mafia", lang=lang, start=START, host="Host", phase="day1",
                                   players=tuple(PlayerRef(n) for n in cast), options={"day_hours": 24}))
    runner = Runner(Store(tmp_path / "bot.db"), forum, [run])
    runner.start(START)
    forum.add_post("g/votes", cast[0], VOTES[lang][0], at=START + timedelta(hours=1))
    forum.add_post("g/votes", cast[2], VOTES[lang][1], at=START + timedelta(hours=2))
    runner.step(now)
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(hosts={"Host": hash_password(PASSWORD)}),
                                 games=(WebGame("g", {"votes": "g/votes"}, "Host", tuple(cast), lang=lang),),
                                 clock=lambda: now, store=str(tmp_path / "bot.db"), game_hosts={"g": "Host"}))
    app.config["TESTING"] = True
    client = app.test_client()
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/signin").get_data(as_text=True)).group(1)
    assert client.post("/console/signin", data={"name": "Host", "password": PASSWORD, "csrf": token}).status_code == 302
    return client, runner


@pytest.mark.parametrize(("lang", "read", "unread"), [
    ("ru", "'Бориса' → Борис по падежной форме",
     "'Бобби Великий' → нет такого игрока («Бобби Великий» — нет такого игрока"),
    ("en", "'Bori' → Boris by prefix", "'Bobby the Great' → no player ('Bobby the Great' matches no player"),
])
def test_the_console_says_why_a_post_was_read_in_the_games_language(tmp_path, lang, read, unread):
    client, _ = console(tmp_path, lang)
    soup = BeautifulSoup(client.get("/console/g/g").get_data(as_text=True), "html.parser")
    posts = soup.select_one("#posts").get_text(" ", strip=True)
    assert read in posts and unread in posts, posts
    if lang == "ru":
        assert not re.search(r"\b(by|no player|matches|exactly)\b", posts), posts


@pytest.mark.parametrize(("lang", "said"), [("ru", "Пометка снята."), ("en", "Flag dismissed.")])
def test_a_console_notice_is_in_the_games_language(tmp_path, lang, said):
    client, runner = console(tmp_path, lang)
    flag = runner.store.flag_list("g")[0]["id"]
    page = client.get("/console/g/g").get_data(as_text=True)
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    done = client.post("/console/g/g/flags/resolve", data={"csrf": token, "flag": str(flag)}, follow_redirects=True)
    assert said in done.get_data(as_text=True)


@pytest.mark.parametrize(("lang", "said"), [
    ("ru", ["Темы «nothing» на этом форуме нет.", "Сообщения 999 нет.", "Среди ваших игр такой нет",
            "Такой страницы здесь нет."]),
    ("en", ["No thread 'nothing' on this forum.", "No post 999.", "No such game among yours",
            "There is no such page here."]),
])
def test_an_error_page_says_its_message_in_the_forums_language(tmp_path, lang, said):
    web = WebConfig(lang=lang, hosts={"Host": hash_password(PASSWORD)})
    app = create_app(WebSettings(str(tmp_path / "forum.db"), web, store=str(tmp_path / "bot.db")))
    Store(tmp_path / "bot.db").close()
    client = app.test_client()
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/signin").get_data(as_text=True)).group(1)
    client.post("/console/signin", data={"name": "Host", "password": PASSWORD, "csrf": token})
    pages = [client.get("/t/nothing"), client.get("/p/999"), client.get("/console/g/nothing"), client.get("/no/such")]
    assert [p.status_code for p in pages] == [404, 404, 404, 404]
    for page, text in zip(pages, said, strict=True):
        assert text in html.unescape(page.get_data(as_text=True))


@pytest.mark.parametrize(("lang", "said", "unsaid"), [
    ("ru", ["Новая игра", "Первая фаза", "Игроки, по одному в строке", "Проверить и создать"], "First phase"),
    ("en", ["A new game", "First phase", "Players, one a line", "Check and make it"], "Первая фаза"),
])
def test_the_consoles_game_making_form_is_in_the_forums_language(tmp_path, lang, said, unsaid):
    from test_hosting import PASSWORDS, bot_config

    from forumbot.config.bot import load_bot_config
    from forumbot.engine.service import Service

    path = bot_config(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("[web]\n", f'[web]\nlang = "{lang}"\n'), encoding="utf-8")
    app = create_app(Service(load_bot_config(path)).web_settings())
    client = app.test_client()
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/signin").get_data(as_text=True)).group(1)
    client.post("/console/signin", data={"name": "Host", "password": PASSWORDS["Host"], "csrf": token})
    page = html.unescape(client.get("/console/new").get_data(as_text=True))
    assert all(s in page for s in said) and unsaid not in page


@pytest.mark.parametrize(("lang", "said"), [
    ("ru", ["Архив", "Законченные игры", "Ни одна игра ещё не закончилась."]),
    ("en", ["Archive", "Finished games", "No game has finished yet."]),
])
def test_the_archive_is_in_the_forums_language(tmp_path, lang, said):
    Store(tmp_path / "bot.db").close()
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(lang=lang), store=str(tmp_path / "bot.db")))
    page = app.test_client().get("/archive/")
    text = html.unescape(page.get_data(as_text=True))
    assert page.status_code == 200 and all(s in text for s in said), text
