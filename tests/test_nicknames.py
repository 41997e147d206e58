"""Nicknames the thread teaches: collected from discussion in the order of posts, read where only they fit
(marked "check"), offered to the host in the console, and read as aliases once the host confirms them. Two
fits are never a candidate. English and Russian."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.text.names import Roster
from forumbot.text.nicknames import NicknameBook, taught_names
from forumbot.web.accounts import hash_password
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

EN = ["BlueKestrel", "Marlo", "Kit", "Dave"]


def book_of(names, lang="en"):
    roster = Roster([PlayerRef(n) for n in names], lang=lang)
    return roster, NicknameBook(roster.names, roster.names_whole(), suggest=roster.suggest)


def learn(book, posts, dialect="plain"):
    taught = {}
    for text in posts:
        taught = book.read(taught, text, dialect)
    return taught


TAUGHT = [
    (EN, ["I think BK is scummy.", "Why is BK so quiet?", "I agree with Marlo."], {"BK": "BlueKestrel"}),
    (EN, ["Honestly Kestrelle is lying.", "I think Kestrelle is town."], {"Kestrelle": "BlueKestrel"}),
    (["TwoKingsOfSpades", "Marlo"], ["So 2kings claimed.", "Yes, 2kings did."], {"2kings": "TwoKingsOfSpades"}),
    (EN, ["BK lies. NOT TOWN. not town at all", "BK again"], {"BK": "BlueKestrel"}),   # NOT is a word
    (EN, ["I think BK is scummy."], {}),                                               # used once
    (["BlueKestrel", "BigKahuna"], ["I think BK is scummy.", "Yes BK is."], {}),       # two fits: none
    (EN, ['[quote="Kit"]BK is scum. BK![/quote] ok'], {}),                              # quoted words
    (["Том Хэнкс", "Мэрил Стрип"], ["Думаю, ТХ мафия.", "Согласен, ТХ врёт."], {"ТХ": "Том Хэнкс"}),
    (["Том Хэнкс", "Мэрил Стрип"], ["По-моему Стрипуха мирная.", "А вот Стрипуха молчит."],
     {"Стрипуха": "Мэрил Стрип"}),
]


@pytest.mark.parametrize("names,posts,expected", TAUGHT, ids=[" / ".join(c[1])[:40] for c in TAUGHT])
def test_the_thread_teaches_the_nicknames_it_uses_for_one_player(names, posts, expected):
    _, book = book_of(names, "ru" if any("а" <= ch <= "я" for ch in names[0].lower()) else "en")
    assert {n.word: n.player for n in book.candidates(learn(book, posts, "bbcode"))} == expected


def test_a_taught_nickname_is_read_only_where_nothing_else_fits_and_marked_check():
    from forumbot.text.grammar import load_grammar
    from forumbot.text.parse import PostParser

    roster, book = book_of(EN)
    roster.teach(taught_names(book, learn(book, ["Honestly Kestrelle is lying.", "I think Kestrelle is town."])))
    parser = PostParser(load_grammar("mafia", "en"), roster)
    parsed = parser.parse_text("[vote]Kestrelle[/vote]", "bbcode", author="Kit")
    assert [(i.kind, i.data.get("target"), i.data.get("check")) for i in parsed.intents] == \
        [("vote", "BlueKestrel", True)]
    assert parsed.flags[0].reason.startswith("check: 'Kestrelle' read as BlueKestrel")
    # a whole name still wins over what the thread taught
    assert parser.parse_text("[vote]Marlo[/vote]", "bbcode").intents[0].data.get("check") is None


# ---- the live game: learned in order, offered in the console, confirmed --------------------------------

def at(hours: float):
    return START + timedelta(hours=hours)


@pytest.fixture()
def bed(tmp_path):
    cfg = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host",
                     players=tuple(PlayerRef(n) for n in EN), options={"day_hours": 48}, phase="day1")
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: at(10), base_url="http://forum.test")
    run = GameRun.build(cfg)
    runner = Runner(Store(tmp_path / "bot.db"), forum, [run])
    runner.start(START)
    app = create_app(WebSettings(str(tmp_path / "forum.db"), WebConfig(hosts={"Host": hash_password("pw-host-1")}),
                                 games=(WebGame("g", {"votes": "g/votes"}, "Host", tuple(EN)),), clock=lambda: at(10),
                                 store=str(tmp_path / "bot.db"), game_hosts={"g": "Host"}))
    app.config["TESTING"] = True
    return run, runner, forum, app


def votes(run, runner):
    return run.game.summary(runner.state(run))["votes"]


def test_the_console_offers_a_nickname_and_a_confirmed_one_is_read_from_then_on(bed):
    run, runner, forum, app = bed
    forum.add_post("g/votes", "Marlo", "[vote]Kestrelle[/vote]", at=at(1))        # nobody taught it yet
    forum.add_post("g/votes", "Kit", "Honestly Kestrelle is lying.", at=at(2))
    forum.add_post("g/votes", "Dave", "I think Kestrelle is town.", at=at(3))
    forum.add_post("g/votes", "Kit", "[vote]Kestrelle[/vote]", at=at(4))          # the only fit: counted, check
    runner.step(at(5))
    assert votes(run, runner) == {"BlueKestrel": ["Kit"]}
    assert any(f["reason"].startswith("check: 'Kestrelle'") for f in runner.store.flags("g"))
    shown = run.game.tally(runner.state(run), at(5)).data["errors"]      # marked "check" in the count
    assert [(e["author"], e["reason"]) for e in shown if "check" in e["reason"]] == \
        [("Kit", "check: 'Kestrelle' read as BlueKestrel, a nickname the thread uses")]

    client = app.test_client()

    def token(url: str) -> str:
        return re.search(r'name="csrf" value="([^"]+)"', client.get(url).get_data(as_text=True)).group(1)

    client.post("/console/signin", data={"name": "Host", "password": "pw-host-1", "csrf": token("/console/signin")})
    soup = BeautifulSoup(client.get("/console/g/g").get_data(as_text=True), "html.parser")
    offered = soup.select_one("#nicknames").get_text(" ", strip=True)
    assert "Read 'Kestrelle' as BlueKestrel" in offered and "used 4 times" in offered   # in talk and in votes
    assert client.post("/console/g/g/nickname", data={"csrf": token("/console/g/g"), "word": "Kestrel",
                                                      "player": "Marlo"}).status_code == 400     # not offered
    assert client.post("/console/g/g/nickname", data={"csrf": token("/console/g/g"), "word": "Kestrelle",
                                                      "player": "BlueKestrel"}).status_code == 302
    runner.step(at(6))
    forum.add_post("g/votes", "Dave", "[vote]Kestrelle[/vote]", at=at(7))
    runner.step(at(8))
    assert votes(run, runner) == {"BlueKestrel": ["Kit", "Dave"]}
    (fix,) = corrections.listing(runner.store, "g")
    assert fix.kind == "nickname" and fix.describe() == "'Kestrelle' read as BlueKestrel from here on"
    flags = [f["reason"] for f in runner.store.flags("g") if f["post"] and "Kestrelle" in f["reason"]]
    assert len(flags) == 2             # Marlo's (nobody taught it) and Kit's check; Dave's is an alias now
    soup = BeautifulSoup(client.get("/console/g/g").get_data(as_text=True), "html.parser")
    assert soup.select_one("#nicknames") is None                                     # nothing left to offer
    # a recount of the store reads the same, nickname and all
    assert run.game.summary(runner.recount(run, at(8))) == run.game.summary(runner.state(run))
