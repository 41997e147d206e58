"""Hosting from the browser in a real headless Chromium, against `forumbot run` in a process of its own (a bot
config with [hosting] and no game file): the host makes a game in the console, the running bot starts it
at its next poll, a player follows it from the thread's banner (their time zone, the seconds to go, who is
alive, the last count; every post's time in their zone) and votes, the console follows without a reload,
and the host closes the game: its threads lock. No file is edited and the bot is never restarted.
Screenshots: hosting-new-game.png, hosting-console.png, hosting-banner.png, hosting-console-live.png,
hosting-closed.png.

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

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

from forumbot.model import format_time, parse_time
from forumbot.web.accounts import Accounts, hash_password

web_browser = pytest.importorskip("test_web_browser")
browser, shots = web_browser.browser, web_browser.shots
sync_api = web_browser.sync_api

HOST, PASSWORD = "Host", "host-console-pw"
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
WAIT_MS = 30_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hosting")
    port = _free_port()
    (folder / "bot.toml").write_text(
        f'[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\npoll_seconds = 1\n'
        f'[hosting]\ncreators = ["{HOST}"]\n[web]\nlisten = "127.0.0.1:{port}"\n'
        f'[web.hosts]\n{HOST} = "{hash_password(PASSWORD)}"\n', encoding="utf-8")
    before = (folder / "bot.toml").read_text(encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(folder / "bot.toml")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=folder,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url + "/", timeout=2)
            break
        except OSError:
            time.sleep(0.2)
    passwords = {name: Accounts(folder / "forum.db").add_user(name, password=f"{name.lower()}-password-1")
                 for name in PLAYERS}
    yield {"url": url, "folder": folder, "process": process, "passwords": passwords}
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=20)[0].decode()
    assert (folder / "bot.toml").read_text(encoding="utf-8") == before   # no file was edited
    assert output.count("forumbot running") == 1, output                 # never restarted


def _page(browser):
    page = browser.new_context(timezone_id="Europe/Moscow").new_page()
    page.set_default_timeout(WAIT_MS)
    return page


@pytest.fixture(scope="module")
def host(browser, bot):
    page = _page(browser)
    page.goto(bot["url"] + "/console/signin")
    page.fill("input[name=name]", HOST)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.console-signin button")
    page.wait_for_selector(f".host-me:text-is('{HOST}')")
    return page


def test_the_host_makes_a_game_in_the_console(host, bot, shots):
    host.click("#new-game")
    host.fill("#f-name", "friday")
    host.select_option("#f-ruleset", "classic")
    host.fill("#f-start", format_time(datetime.now(UTC) - timedelta(minutes=1)))
    host.fill("#f-day", "2")
    host.fill("#f-players", "Alice | mafia\nBob | townsfolk\nCarol | townsfolk\nDave | townsfolk\nEve | doctor")
    host.screenshot(path=str(shots / "hosting-new-game.png"), full_page=True)
    host.click("#f-create")
    host.wait_for_selector("p.notice:has-text('Game friday is made')")
    # the running bot takes it up within a poll: its page then shows the phase
    for _ in range(30):
        host.goto(bot["url"] + "/console/g/friday")
        if host.locator("#phase").count():
            break
        time.sleep(0.5)
    assert host.inner_text("#phase") == "Day 1"
    assert re.fullmatch(r"01:5\d:\d\d", host.inner_text("#left"))
    host.screenshot(path=str(shots / "hosting-console.png"), full_page=True)


def test_a_mistake_in_the_form_is_answered_with_the_fix(host, bot):
    host.goto(bot["url"] + "/console/new")
    host.fill("#f-name", "broken")
    host.fill("#f-start", format_time(datetime.now(UTC)))
    host.fill("#f-players", "Alice | sheriff\nBob\nCarol")
    host.click("#f-create")
    error = host.inner_text("#new-error")
    assert "role 'sheriff' is not in the ruleset" in error and "fix:" in error


def test_a_player_follows_the_game_from_its_banner_and_votes(browser, bot, shots):
    page = _page(browser)
    page.goto(bot["url"] + "/signin")
    page.fill("input[name=name]", "Bob")
    page.fill("input[name=password]", bot["passwords"]["Bob"])
    page.click("form.signin button")
    page.goto(bot["url"] + "/t/friday/votes")
    assert page.inner_text("h1") == "Friday · Voting thread"
    assert page.inner_text("#banner-phase") == "Day 1"
    assert page.inner_text("#banner-alive") == ", ".join(PLAYERS)
    assert page.inner_text("#banner-deadline").endswith(" UTC")
    # the time zone: chosen once, the browser's own preselected
    page.click("#choose-zone")
    page.wait_for_function("document.getElementById('zone').value === 'Europe/Moscow'")   # (its script ran)
    page.click("#zone-form button")
    page.wait_for_selector("#banner")
    assert page.inner_text("#banner-deadline").endswith("Europe/Moscow (UTC+03:00)")
    assert page.locator("#choose-zone").count() == 0
    first = page.inner_text("#banner-left")
    page.wait_for_function("t => document.getElementById('banner-left').textContent !== t", arg=first)
    assert re.fullmatch(r"01:5\d:\d\d", page.inner_text("#banner-left"))   # seconds, counting down
    page.fill("#body", "vote Alice")
    page.click("#reply button")
    # the bot's count arrives by the live refresh; the banner links to it on the next load
    page.wait_for_selector("article.post.bot:has-text('Alice')")
    live = page.locator("article.post.bot:has-text('Alice') time").last   # (rendered for the live refresh)
    assert live.inner_text().endswith(" MSK"), live.inner_text()
    for _ in range(20):
        page.reload()
        if page.locator("#banner-count").count():
            break
        time.sleep(0.5)
    page.click("#banner-count")
    page.wait_for_selector(":target.post.bot")
    # every post's time in the reader's zone, as the deadline
    times = page.locator("article.post time").all()
    assert times and all(t.inner_text().endswith(" MSK") for t in times)
    for shown in times:
        moscow = parse_time(shown.get_attribute("datetime")) + timedelta(hours=3)
        assert shown.inner_text() == f"{moscow:%Y-%m-%d %H:%M} MSK"
    page.screenshot(path=str(shots / "hosting-banner.png"), full_page=True)


def test_the_console_follows_the_game_without_a_reload(host, bot, shots):
    host.goto(bot["url"] + "/console/g/friday")
    assert "Carol" not in host.inner_text("#wagons")
    page = _page(host.context.browser)
    page.goto(bot["url"] + "/signin")
    page.fill("input[name=name]", "Carol")
    page.fill("input[name=password]", bot["passwords"]["Carol"])
    page.click("form.signin button")
    page.goto(bot["url"] + "/t/friday/votes")
    page.fill("#body", "vote Alice")
    page.click("#reply button")
    host.wait_for_selector("#wagons:has-text('Carol')")   # the page reloaded itself
    host.screenshot(path=str(shots / "hosting-console-live.png"), full_page=True)


def test_the_host_closes_the_game_and_its_threads_lock(host, browser, bot, shots):
    host.goto(bot["url"] + "/console/g/friday")
    host.fill("#close-confirm", "friday")
    host.click("#do-close")
    host.wait_for_selector("p.notice:has-text('friday is ended')")
    page = _page(browser)
    page.goto(bot["url"] + "/signin")
    page.fill("input[name=name]", "Dave")
    page.fill("input[name=password]", bot["passwords"]["Dave"])
    page.click("form.signin button")
    page.goto(bot["url"] + "/t/friday/votes")
    assert "ended the game" in page.inner_text("#thread-state")
    assert page.locator("#reply").count() == 0 and page.locator("#locked").count() == 1
    page.screenshot(path=str(shots / "hosting-closed.png"), full_page=True)
