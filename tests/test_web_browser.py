"""The web forum in a real headless Chromium (Debian's chromium, driven by Playwright), against the web demo:
the sample Russian day played on the local forum on 127.0.0.1, with the bot polling live. The tests run in
file order: the vote from the browser ends day 1, and the PM tests play in night 1.

They skip only when no Chromium can be found, and fail instead when FORUMBOT_REQUIRE_BROWSER is set
(scripts/test.sh, which CI runs, sets it after installing chromium)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

import helpers
import pytest

from forumbot.config.game import load_scenario
from forumbot.config.paths import data_dir
from forumbot.web.accounts import Accounts
from forumbot.web.demo import DemoInfo, web_demo

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 20_000
PRINTED: list[dict] = []   # what the demo printed as players' posts (the terminal's side of the demo)

if not Path(CHROMIUM).exists():
    if os.environ.get("FORUMBOT_REQUIRE_BROWSER"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (scripts/test.sh does)")
    pytest.skip("no Chromium on this machine (apt-get install chromium; scripts/test.sh installs it)",
                allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the [test] extra)")


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = Path(os.environ.get("FORUMBOT_SCREENSHOTS") or tempfile.mkdtemp(prefix="forumbot-web-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    helpers.SCREENSHOT_DIRS.append(str(folder))
    return folder


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    """The web demo in a thread, all scripted posts played, the bot polling every 0.3 s."""
    folder = tmp_path_factory.mktemp("webdemo")
    live, stop, failed = threading.Event(), threading.Event(), []
    found: list[DemoInfo] = []

    def serve() -> None:
        try:
            web_demo(load_scenario(data_dir("samples") / "mafia-day-ru.toml"), folder, listen=("127.0.0.1", 0),
                     pace=0, stop=stop, on_live=lambda info: (found.append(info), live.set()), poll_seconds=0.3,
                     per_page=10, on_post=PRINTED.append)
        except Exception as err:   # reported by the fixture below
            failed.append(err)
            live.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert live.wait(120), "the demo did not finish its scripted posts"
    assert not failed, failed
    accounts = Accounts(folder / "forum.db")
    info = found[0]
    passwords = {info.player: info.password, info.host: info.host_password,
                 "Мэрил Стрип": accounts.add_user("Мэрил Стрип"), "Брэд Питт": accounts.add_user("Брэд Питт")}
    yield info, passwords
    stop.set()
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def page_for(browser, demo, name: str | None = None):
    """A fresh browser context (its own cookies), signed in as `name` when given."""
    info, passwords = demo
    page = browser.new_context(locale="ru-RU").new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(info.url + "/signin")
    if name:
        page.fill("input[name=name]", name)
        page.fill("input[name=password]", passwords[name])
        page.click("form.signin button")
        page.wait_for_selector(f".me:text-is('{name}')")
    return page


VOTES = "/t/mafia-day-ru/votes"


def test_sign_in_then_read_the_votes_thread_across_pages(browser, demo, shots):
    info, passwords = demo
    page = page_for(browser, demo)
    page.fill("input[name=name]", "Мэрил Стрип")
    page.fill("input[name=password]", "wrong password")
    page.click("form.signin button")
    assert "Wrong name or password" in page.inner_text("[role=alert]")
    page.screenshot(path=str(shots / "signin.png"))
    page.fill("input[name=password]", passwords["Мэрил Стрип"])
    page.click("form.signin button")
    assert page.inner_text(".me") == "Мэрил Стрип"
    page.goto(info.url + VOTES)
    assert page.evaluate("document.characterSet") == "UTF-8"
    first = page.locator("article.post").all_inner_texts()
    assert len(first) == 10 and "Голосую против Тома Хэнкса. Слишком тихий." in first[0]
    page.click(".pager >> nth=0 >> text=Next ›")
    page.wait_for_url(re.compile(r"page=2"))
    second = page.locator("article.post").all_inner_texts()
    assert len(second) == 10 and not set(second) & set(first)
    assert page.locator(".pager strong").first.inner_text() == "2"
    page.screenshot(path=str(shots / "thread-page2.png"), full_page=True)


def test_a_vote_posted_in_the_browser_is_counted_and_shown_live(browser, demo, shots):
    info, _ = demo
    page = page_for(browser, demo, info.player)
    page.goto(info.url + VOTES + "?page=last")
    bot_posts = page.locator("article.post.bot").count()
    page.fill("#body", "Голосую против Тома Хэнкса")
    page.click("#reply button")
    page.wait_for_selector(f"article.post:has-text('{info.player}'):has-text('Голосую против Тома Хэнкса')")
    page.evaluate("window.notReloaded = true")
    # the bot's answer arrives through the live refresh, without a reload
    page.wait_for_selector("article.post.bot:has-text('Повешен: Том Хэнкс')")
    assert page.evaluate("window.notReloaded") is True
    mine = [p for p in PRINTED if p["author"] == info.player and p["text"] == "Голосую против Тома Хэнкса"]
    assert [p.get("thread") for p in mine] == ["votes"]   # the terminal shows the browser's post too
    assert page.locator("article.post.bot").count() > bot_posts
    page.screenshot(path=str(shots / "vote-count-live.png"), full_page=True)
    # the links in the bot's count open the vote posts on the web forum, on whatever page they are
    day_end = page.locator("article.post.bot:has-text('Повешен: Том Хэнкс')")
    href = day_end.locator("a:text-is('Джонни Депп')").first.get_attribute("href")
    assert re.fullmatch(re.escape(info.url + VOTES) + r"#p\d+", href)
    page.goto(href)
    page.wait_for_url(re.compile(r"\?page=[2-9]#p\d+$"))
    assert "Передумал. Голосую против Тома Хэнкса" in page.inner_text(f"#p{href.rsplit('#p', 1)[1]}")


def test_reply_with_a_quote(browser, demo):
    info, _ = demo
    page = page_for(browser, demo, "Брэд Питт")
    page.goto(info.url + VOTES)
    page.locator("article.post:has-text('Против Хэнкса')").first.locator("a.quote").click()
    draft = page.input_value("#body")
    assert draft.startswith("> **Киану Ривз**:\n> Против Хэнкса")
    page.fill("#body", draft + "Согласен с Киану.")
    page.click("#reply button")
    mine = page.locator("article.post:has-text('Согласен с Киану.')")
    mine.wait_for()
    assert mine.locator("blockquote").inner_text().strip().endswith("Против Хэнкса")


def test_edit_ones_own_post_and_only_ones_own(browser, demo):
    info, _ = demo
    page = page_for(browser, demo, "Брэд Питт")
    page.goto(info.url + VOTES + "?page=last")
    mine = page.locator("article.post:has-text('Согласен с Киану.')")
    mine.locator("a.edit").click()
    page.fill("#edit textarea", "Согласен с Киану. (исправлено)")
    page.click("#edit button")
    edited = page.locator("article.post:has-text('(исправлено)')")
    edited.wait_for()
    assert "edited" in edited.locator(".edited").inner_text()
    others = page.locator("article.post:has-text('Киану Ривз'):not(:has-text('Согласен'))").first
    assert others.locator("a.edit").count() == 0
    number = others.get_attribute("id")[1:]
    page.goto(f"{info.url}/p/{number}/edit")
    assert "only your own posts" in page.inner_text("[role=alert]")


def test_a_pm_to_the_bot_gets_its_answer(browser, demo, shots):
    info, _ = demo
    page = page_for(browser, demo, "Мэрил Стрип")
    page.click("#inbox-link")
    page.click("ul.recipients a:text-is('forumbot')")
    page.fill("#body", "Записка: в городе неспокойно")
    page.click("#pm-form button")
    page.wait_for_selector("article.pm:has-text('Записка: в городе неспокойно')")
    for _ in range(40):   # the bot answers at its next poll; the conversation page has no live refresh
        if page.locator("article.pm.bot:has-text('Записка №1 принята')").count():
            break
        page.wait_for_timeout(500)
        page.reload()
    assert page.locator("article.pm.bot:has-text('Записка №1 принята')").count() == 1
    page.screenshot(path=str(shots / "pm-conversation.png"), full_page=True)


def test_a_second_player_cannot_read_the_first_ones_pms_but_the_host_can(browser, demo):
    info, _ = demo
    page = page_for(browser, demo, "Брэд Питт")
    page.goto(f"{info.url}/pm/Мэрил Стрип/forumbot")
    assert "only your own private messages" in page.inner_text("[role=alert]")
    page.goto(info.url + "/pm/")
    assert "Мэрил" not in page.inner_text("ul.conversations")
    host = page_for(browser, demo, info.host)
    host.goto(info.url + "/pm/")
    host.click("ul.conversations a:has-text('Мэрил Стрип'):has-text('forumbot')")
    assert "в городе неспокойно" in host.inner_text("#messages")


def test_a_forged_form_without_its_csrf_token_is_refused(browser, demo):
    info, _ = demo
    page = page_for(browser, demo, "Брэд Питт")
    page.goto(info.url + VOTES + "?page=last")
    before = page.locator("article.post").count()
    page.evaluate("""() => {
        const form = document.createElement('form');
        form.method = 'post'; form.action = '/reply';
        for (const [k, v] of [['thread', 'mafia-day-ru/votes'], ['body', 'Голосую против Мэрил Стрип']]) {
            const input = document.createElement('input'); input.name = k; input.value = v; form.appendChild(input);
        }
        document.body.appendChild(form); form.submit();
    }""")
    page.wait_for_selector("[role=alert]")
    assert "security token" in page.inner_text("[role=alert]")
    page.goto(info.url + VOTES + "?page=last")
    assert page.locator("article.post").count() == before


def test_hostile_posts_render_inert(browser, demo):
    info, _ = demo
    page = page_for(browser, demo, "Брэд Питт")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(info.url + VOTES + "?page=last")
    hostile = ("<script>window.pwned = 1; alert(1)</script>\n\n<img src=x onerror=\"window.pwned = 3\">\n\n"
               "[жми](javascript:window.pwned=2) [и тут](JaVaScRiPt:alert(2)) <javascript:alert(3)>\n\n"
               "[url=javascript:alert(4)]bb[/url] [ref][1]\n\n[1]: javascript:alert(5)\n\n"
               "<a href=\"javascript:alert(6)\">raw</a> ![img](http://127.0.0.1:9/x.png)")
    page.fill("#body", hostile)
    page.click("#reply button")
    post = page.locator("article.post:has-text('window.pwned = 1')")
    post.wait_for()
    body = post.locator(".body")
    assert body.locator("script, img, iframe, [onerror]").count() == 0
    hrefs = body.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert not any("javascript" in (h or "").lower() for h in hrefs)
    for link in body.locator("a").all():
        link.click()
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None and dialogs == []
