"""The host console in a real headless Chromium (Debian's chromium, driven by Playwright), served by the web
server on 127.0.0.1 over a Russian Mafia day the bot has read: sign in as host; the count equals `forumbot
tally`; a misread post corrected in the browser changes the next count, survives a restart and equals a
recount; a player's session cannot open the console; a forged POST without CSRF is refused. Screenshots
of the game page and the flags queue are saved (their folder is printed at the end of the run).

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import START

from forumbot.cli import cli
from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts, hash_password
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.server import WebServer

# Chromium is found (or the module skips, or fails under FORUMBOT_REQUIRE_BROWSER) as for the web forum's
# tests, whose `browser` and `shots` fixtures these tests use too.
web_browser = pytest.importorskip("test_web_browser")
browser, shots = web_browser.browser, web_browser.shots

PLAYERS = ["Том Хэнкс", "Мэрил Стрип", "Брэд Питт", "Анджелина Джоли", "Джонни Депп"]
HOST, PASSWORD = "Ведущий", "host-console-pw"


def at(hours: float):
    return START + timedelta(hours=hours)


def runner_over(folder: Path, forum: LocalForum) -> tuple[GameRun, Runner]:
    cfg = GameConfig(name="g", game="mafia", lang="ru", start=START, host=HOST,
                     players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24}, phase="day1")
    run = GameRun.build(cfg)
    runner = Runner(Store(folder / "bot.db"), forum, [run])
    runner.start(START)
    return run, runner


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("console")
    clock = {"now": at(3)}
    forum = LocalForum(folder / "forum.db", clock=lambda: clock["now"], base_url="http://forum.test")
    run, runner = runner_over(folder, forum)
    forum.add_post("g/votes", "Мэрил Стрип", "Голосую против Тома Хэнкса", at=at(1))
    forum.add_post("g/votes", "Джонни Депп", "Голосую против Бредли Купера", at=at(2))    # read as Брэд Питт
    forum.add_post("g/votes", "Брэд Питт", "голосую против Кого-то Непонятного", at=at(2.5))
    runner.step(at(3))
    player_password = Accounts(folder / "forum.db").add_user("Мэрил Стрип")
    settings = WebSettings(str(folder / "forum.db"), WebConfig(port=0, hosts={HOST: hash_password(PASSWORD)}),
                           games=(WebGame("g", {"votes": "g/votes"}, HOST, tuple(PLAYERS)),),
                           clock=lambda: clock["now"], store=str(folder / "bot.db"), game_hosts={"g": HOST})
    server = WebServer(settings, threads=2).start()
    state = {"folder": folder, "forum": forum, "run": run, "runner": runner, "clock": clock,
             "url": f"http://127.0.0.1:{server.port}", "player_password": player_password}
    yield state
    server.stop()


def host_page(browser, bed):
    page = browser.new_context(locale="ru-RU").new_page()
    page.set_default_timeout(20_000)
    page.goto(bed["url"] + "/console/signin")
    page.fill("input[name=name]", HOST)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.console-signin button")
    page.wait_for_selector(f".host-me:text-is('{HOST}')")
    return page


def wagons(page) -> dict[str, list[str]]:
    return {row.get_attribute("data-target"): [s.inner_text().removesuffix(" (final)")
                                               for s in row.locator("td:nth-of-type(4) span").all()]
            for row in page.locator("#wagons tr.wagon").all()}


def tally(bed) -> dict[str, list[str]]:
    printed = CliRunner().invoke(cli, ["tally", "--db", str(bed["folder"] / "bot.db"), "--json"])
    assert printed.exit_code == 0, printed.output
    return json.loads(printed.output)["votes"]


def test_the_host_corrects_a_misread_post_in_the_browser(browser, bed, shots):
    page = host_page(browser, bed)
    page.click("main li a:text-is('g')")
    page.wait_for_selector("#wagons")
    assert wagons(page) == tally(bed) == {"Том Хэнкс": ["Мэрил Стрип"], "Брэд Питт": ["Джонни Депп"]}
    assert "'Тома Хэнкса' → Том Хэнкс by inflection" in page.inner_text("#posts")
    assert "'Бредли' → Брэд Питт despite a typo" in page.inner_text("#posts")
    assert "read as not counted" in page.inner_text("#posts") and "not_counted" not in page.inner_text("#posts")
    page.screenshot(path=str(shots / "console-game.png"), full_page=True)
    row = page.locator("tr.post-row", has_text="Бредли Купера")
    assert row.locator(".status").inner_text() == "check"        # a fuzzy guess is marked for a look
    row.locator("select[name=target]").select_option("Том Хэнкс")
    row.locator("form:has(button.vote-for) input[name=reason]").fill("Бредли Купер не играет")
    row.locator("button.vote-for").click()
    page.wait_for_selector("text=Correction saved")
    bed["clock"]["now"] = at(4)
    bed["runner"].step(at(4))                         # the bot's next poll
    page.reload()
    assert wagons(page) == tally(bed) == {"Том Хэнкс": ["Мэрил Стрип", "Джонни Депп"]}
    assert "Бредли Купер не играет" in page.inner_text("#corrections")
    last = [p["body"] for p in bed["forum"].thread_posts("g/votes") if p["author"] == bed["forum"].account][-1]
    assert "Исправлено ведущим." in last
    # a restart of the bot, and a recount of the store, read the same
    bed["runner"].store.close()
    bed["run"], bed["runner"] = runner_over(bed["folder"], bed["forum"])
    bed["runner"].step(at(5))
    run, runner = bed["run"], bed["runner"]
    assert run.game.summary(runner.state(run))["votes"] == {"Том Хэнкс": ["Мэрил Стрип", "Джонни Депп"]}
    assert run.game.summary(runner.recount(run, at(5))) == run.game.summary(runner.state(run))
    page.reload()
    assert page.locator("tr.post-row", has_text="Подсчёт голосов").count() == 0   # the bot's own posts are not listed
    assert page.locator("tr.post-row", has_text="Бредли Купера").locator(".status").inner_text() == "corrected"
    page.screenshot(path=str(shots / "console-game-corrected.png"), full_page=True)


def test_the_flags_queue_shows_the_unknown_name_and_dismisses_it(browser, bed, shots):
    page = host_page(browser, bed)
    page.goto(bed["url"] + "/console/g/g/flags")
    flag = page.locator("tr.flag", has_text="Кого-то Непонятного")
    assert flag.count() == 1
    page.screenshot(path=str(shots / "console-flags.png"), full_page=True)
    flag.locator("button.dismiss").click()
    page.wait_for_selector("text=Flag dismissed")
    assert page.locator("tr.flag", has_text="Кого-то Непонятного").count() == 0


def test_a_players_session_cannot_open_the_console(browser, bed):
    page = browser.new_context().new_page()
    page.goto(bed["url"] + "/signin")
    page.fill("input[name=name]", "Мэрил Стрип")
    page.fill("input[name=password]", bed["player_password"])
    page.click("form.signin button")
    page.wait_for_selector(".me:text-is('Мэрил Стрип')")
    response = page.goto(bed["url"] + "/console/g/g")
    assert response is not None and response.status == 401
    assert "Sign in to the host console first" in page.inner_text("main")


def test_a_forged_post_without_csrf_is_refused(browser, bed):
    page = host_page(browser, bed)
    page.goto(bed["url"] + "/console/g/g")
    before = page.inner_text("#corrections")
    page.evaluate("""() => {
        const form = document.createElement('form');
        form.method = 'post'; form.action = '/console/g/g/command';
        const input = document.createElement('input'); input.name = 'command'; input.value = 'pause';
        form.appendChild(input); document.body.appendChild(form); form.submit();
    }""")
    page.wait_for_selector("text=security token")
    page.goto(bed["url"] + "/console/g/g")
    assert page.inner_text("#corrections") == before
    assert "Pause the game" in page.inner_text("main")
