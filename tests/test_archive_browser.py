"""The archive pages in a real headless Chromium, served by the web server on 127.0.0.1 over a store with
two finished games (one with a replacement) and a running one: the index lists only the finished games and
their players, a game's page its roles, days and log, a player's page their record. Screenshots are saved
(their folder is printed at the end of the run).

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

from __future__ import annotations

import pytest
from test_archive import played

from forumbot.web.config import WebConfig, WebSettings
from forumbot.web.server import WebServer

web_browser = pytest.importorskip("test_web_browser")
browser, shots = web_browser.browser, web_browser.shots


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("archive-web")
    store = played(folder)
    settings = WebSettings(str(folder / "web-forum.db"), WebConfig(port=0), store=str(store))
    server = WebServer(settings, threads=2).start()
    yield f"http://127.0.0.1:{server.port}"
    server.stop()


def test_archive_index_game_and_player_pages(browser, site, shots):
    page = browser.new_context(locale="ru-RU").new_page()
    page.set_default_timeout(20_000)
    page.goto(site + "/archive/")
    games = [a.inner_text() for a in page.locator("#games td:first-child a").all()]
    assert sorted(games) == ["bodysnatchers-ledger", "full-with-sub"]
    assert page.locator("#players a", has_text="kidman_sub").count() == 1
    page.screenshot(path=str(shots / "archive-index.png"), full_page=True)

    page.click("#games a:text-is('full-with-sub')")
    page.wait_for_selector("#roles")
    assert page.inner_text("#winner").startswith("Won by: town")
    kidman = page.locator("#roles tr[data-player='Николь Кидман']")
    assert "Массажист" in kidman.inner_text() and "kidman_sub" in kidman.inner_text()
    assert page.locator("section.day").count() == 4
    assert "Том Хэнкс hanged" in page.inner_text("#day-2 h3")
    page.click("#log summary")
    assert page.locator("#log td", has_text="game_over").count() == 1
    page.screenshot(path=str(shots / "archive-game.png"), full_page=True)

    kidman.locator("a:text-is('kidman_sub')").click()
    page.wait_for_selector("#record")
    assert "Came in as a replacement: 1" in page.inner_text("#summary")
    assert "won" in page.inner_text("#record")
    page.screenshot(path=str(shots / "archive-player.png"), full_page=True)
    page.goto(site + "/archive/player/" + "Киану Ривз")
    assert "2 games; town 2." in page.inner_text("#summary") and "Wins: town 2." in page.inner_text("#summary")
    page.screenshot(path=str(shots / "archive-player-2.png"), full_page=True)
