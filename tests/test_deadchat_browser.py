"""The dead chat in a real headless Chromium, on the local web forum served on 127.0.0.1 with the bot's store:
a player hanged on day 1 finds the game's dead chat on the front page and writes in it; a spectator the host
adds by PM reads and answers; a living player sees no link, and the thread's address answers "not found".
Screenshots of each step are saved (their folder is printed at the end).

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

from __future__ import annotations

import pytest
from served import at, served_game, signed_in

from forumbot.config.game import GameConfig
from forumbot.model import PlayerRef
from forumbot.web.config import WebGame

web_browser = pytest.importorskip("test_web_browser")
browser, shots = web_browser.browser, web_browser.shots

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
HOST, SPECTATOR = "Host", "Sam"


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    config = GameConfig(name="g", game="mafia", lang="en", start=at(0), host=HOST, phase="day1",
                        players=tuple(PlayerRef(p) for p in PLAYERS), options={"votes_only": True})
    game = WebGame("g", {"votes": "g/votes", "game": "g/game"}, HOST, tuple(PLAYERS))
    with served_game(tmp_path_factory.mktemp("deadchat"), config, game, (*PLAYERS, HOST, SPECTATOR)) as served:
        yield served


def signed_in_as(browser, bed, name):
    page = signed_in(browser, bed, name)
    page.wait_for_selector(f".me:text-is('{name}')")
    return page


def test_the_dead_and_a_spectator_talk_in_the_dead_chat_the_living_never_see_it(browser, bed, shots):
    url, forum, runner, run = bed["url"], bed["forum"], bed["runner"], bed["run"]
    for hours, voter in ((1, "Alice"), (1.1, "Bob"), (1.2, "Carol")):   # 3 of 5: Dave is hanged at once
        forum.add_post("g/votes", voter, "vote Dave", at=at(hours))
    forum.add_pm(HOST, "forumbot", f"spectate {SPECTATOR}", at=at(1.3))
    bed["step"](2)
    assert "Dave" not in runner.state(run).alive

    dave = signed_in_as(browser, bed, "Dave")
    dave.goto(url + "/")
    dave.click("li.dead-chat a")
    dave.wait_for_selector("#reply textarea")
    assert "Dead chat" in dave.inner_text("main")
    dave.fill("#reply textarea", "The dead are watching you, Alice.")
    dave.click("#reply button")
    dave.wait_for_selector("article:has-text('The dead are watching you, Alice.')")
    dave.screenshot(path=str(shots / "deadchat-1-the-dead-write.png"), full_page=True)
    dave.goto(url + "/t/g/votes")                    # the dead post no more in the game's threads
    assert dave.locator("#reply").count() == 0

    sam = signed_in_as(browser, bed, SPECTATOR)
    sam.goto(url + "/t/g/dead-chat")
    sam.wait_for_selector("article:has-text('The dead are watching you, Alice.')")
    sam.fill("#reply textarea", "Spectating: Eve is the one.")
    sam.click("#reply button")
    sam.wait_for_selector("article:has-text('Spectating: Eve is the one.')")
    sam.screenshot(path=str(shots / "deadchat-2-a-spectator-answers.png"), full_page=True)

    alice = signed_in_as(browser, bed, "Alice")
    alice.goto(url + "/")
    assert alice.locator("li.dead-chat").count() == 0 and "dead chat" not in alice.inner_text("main").lower()
    answer = alice.goto(url + "/t/g/dead-chat")
    assert answer.status == 404
    assert "watching" not in alice.content() and "Eve is the one" not in alice.content()
    alice.screenshot(path=str(shots / "deadchat-3-the-living-find-nothing.png"), full_page=True)

    host = signed_in_as(browser, bed, HOST)
    host.goto(url + "/t/g/dead-chat")
    assert "The dead are watching you, Alice." in host.inner_text("main")
    assert "Spectating: Eve is the one." in host.inner_text("main")
