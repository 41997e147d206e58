"""Where a browser matters, in a real headless Chromium (Debian's chromium, driven by Playwright), against the
web server on 127.0.0.1 over the host console's test bed: a sign-in link whose `next` points elsewhere
(a tab a browser drops, //another.site) lands on this forum's front page, and a path here is kept; the
host's one-time link opens a page with a button, which a link preview's fetch leaves unspent, and only the
button spends it. A screenshot of that page is saved.

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import pytest
from helpers import START

from forumbot.engine import corrections

console_browser = pytest.importorskip("test_console_browser")
browser, shots, bed = console_browser.browser, console_browser.shots, console_browser.bed
HOST = console_browser.HOST


@pytest.mark.parametrize(("target", "lands"), [("/\t/evil.example/", "/"), ("//evil.example/", "/"),
                                               ("/%09/evil.example/", "/"), ("https://evil.example/", "/"),
                                               ("/t/g/votes", "/t/g/votes")])
def test_a_sign_in_lands_on_this_site(browser, bed, target, lands):
    page = browser.new_context().new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{bed['url']}/signin?next={quote(target, safe='')}")
    page.fill("input[name=name]", "Мэрил Стрип")
    page.fill("input[name=password]", bed["player_password"])
    page.click("form.signin button")
    page.wait_for_selector(".me:text-is('Мэрил Стрип')")
    assert page.url == bed["url"] + lands


def test_the_hosts_link_is_spent_by_its_pages_button_not_by_opening_it(browser, bed, shots):
    token = corrections.new_link(bed["runner"].store, HOST, "g", START + timedelta(days=30))
    link = f"{bed['url']}/console/link/{token}"
    preview = browser.new_context().new_page()       # a chat app's link preview: fetches the page, presses nothing
    for _ in range(2):
        assert preview.goto(link).status == 200
    assert preview.goto(bed["url"] + "/console/g/g").status == 401
    page = browser.new_context(locale="ru-RU").new_page()
    page.set_default_timeout(20_000)
    page.goto(link)
    assert page.locator("form.console-link button").inner_text() == "Sign in with this link"
    page.screenshot(path=str(shots / "console-link-confirm.png"), full_page=True)
    page.click("form.console-link button")
    page.wait_for_selector(f".host-me:text-is('{HOST}')")
    assert page.url == bed["url"] + "/console/g/g"
    again = browser.new_context().new_page()
    again.set_default_timeout(20_000)
    again.goto(link)
    again.click("form.console-link button")
    again.wait_for_selector("text=This sign-in link is used, expired or unknown")
