"""A masked game from sign-up to day 1 in a real headless Chromium, on the local web forum served on 127.0.0.1
with the bot's store: the game thread announces the sign-ups, a player signs up by PM in the browser, the deal
makes the masks' accounts and the player reads the one-time password in their messages, signs in as the mask
once and sets its password; after the roles are confirmed and night 0 ends, the mask posts in day 1 and the
player's own account cannot. Screenshots of each step are saved (their folder is printed at the end).

Skips only when no Chromium can be found; fails instead when FORUMBOT_REQUIRE_BROWSER is set."""

from __future__ import annotations

import pytest
from helpers import START
from served import at, served_game, signed_in

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.web.config import WebGame

web_browser = pytest.importorskip("test_web_browser")
browser, shots = web_browser.browser, web_browser.shots

BS = load_ruleset("bodysnatchers", "mafia")
TABLE = {"1": "detective", "2": "maniac", "3": "inspector", "4": "writer"}
MASKS = ["Том Хэнкс", "Мэрил Стрип", "Брэд Питт", "Анджелина Джоли"]
HOST = "Ведущий"
NEW_PASSWORD = "the-masks-own-password"


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    config = GameConfig(name="g", game="mafia", lang="ru", start=at(0), host=HOST, phase="signup", players=(),
                        options={**BS, "role_table": TABLE, "signup_slots": 4})
    game = WebGame("g", {"votes": "g/votes", "game": "g/game"}, HOST)
    people = ("игрок1", "игрок2", "игрок3", "игрок4", HOST)
    with served_game(tmp_path_factory.mktemp("masked"), config, game, people) as served:
        yield served


def test_a_masked_game_from_sign_up_to_day_1(browser, bed, shots):
    url, forum, runner, run = bed["url"], bed["forum"], bed["runner"], bed["run"]
    # the front page and the game thread: sign-ups open, how to sign up and until when
    page = browser.new_context(locale="ru-RU").new_page()
    page.set_default_timeout(20_000)
    page.goto(url + "/")
    assert "sign-ups open: 0 signed up" in page.inner_text("main")
    page.goto(url + "/t/g/game")
    thread = page.inner_text("main")
    assert "Открыта запись: 4 игроков" in thread and "Записываюсь: 7, Том Хэнкс" in thread
    assert "Запись закроется" in thread
    page.screenshot(path=str(shots / "masked-1-signup-announced.png"), full_page=True)

    # a player signs up by PM in the browser; the others by PM too
    player = signed_in(browser, bed, "игрок1", locale="ru-RU")
    player.wait_for_selector(".me:text-is('игрок1')")
    player.goto(url + "/pm/forumbot")
    player.fill("#pm-form textarea", f"Записываюсь: 1, {MASKS[0]}")
    player.click("#pm-form button")
    for n, mask in enumerate(MASKS[1:], start=2):
        forum.add_pm(f"игрок{n}", "forumbot", f"Записываюсь: {n}, {mask}", at=at(0.5))
    bed["step"](1)
    page.goto(url + "/")
    assert "4 players" in page.inner_text("main")

    # the deal: the mask's one-time password is in the player's messages
    player.goto(url + "/pm/forumbot")
    text = player.inner_text("#messages")
    assert f"Аккаунт вашей маски на форуме: {MASKS[0]}" in text
    password = text.split("Одноразовый пароль: ")[1].split(" ")[0].strip()
    player.screenshot(path=str(shots / "masked-2-one-time-password.png"), full_page=True)

    # the player signs in as the mask with it, once, and sets the mask's password
    mask = signed_in(browser, bed, MASKS[0], password, locale="ru-RU")
    mask.wait_for_selector("#password-form")
    assert "one-time password" in mask.inner_text("main")
    mask.screenshot(path=str(shots / "masked-3-set-password.png"), full_page=True)
    mask.fill("input[name=new]", NEW_PASSWORD)
    mask.fill("input[name=again]", NEW_PASSWORD)
    mask.click("#password-form button")
    mask.wait_for_selector("text=Your password is changed")
    again = signed_in(browser, bed, MASKS[0], password, locale="ru-RU")   # the one-time password works no more
    assert "Wrong name or password" in again.inner_text("main")

    # the roles confirmed (night 0), night 0 ends: day 1
    for n in range(1, 5):
        forum.add_pm(f"игрок{n}", "forumbot", "Подтверждаю", at=at(1.5))
    bed["step"](2)
    assert runner.state(run).phase == "night0"
    ends = runner.state(run).phase_ends
    bed["step"]((ends - START).total_seconds() / 3600 + 0.1)
    assert runner.state(run).phase == "day1"

    # the mask posts in day 1; the player's own account has no reply form (it would unmask the seat)
    mask.goto(url + "/t/g/votes")
    mask.fill("#reply textarea", f"Голосую против {MASKS[1]}")
    mask.click("#reply button")
    mask.wait_for_selector(f"article:has-text('Голосую против {MASKS[1]}')")
    mask.goto(url + "/t/g/game")
    mask.screenshot(path=str(shots / "masked-4-day-1.png"), full_page=True)
    assert "День 1" in mask.inner_text("main") or "день 1" in mask.inner_text("main").lower()
    player.goto(url + "/t/g/votes")
    assert player.locator("#reply").count() == 0
    page.goto(url + "/")
    page.screenshot(path=str(shots / "masked-5-front-page.png"), full_page=True)
