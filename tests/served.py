"""One game on the local web forum, served on 127.0.0.1 with the bot's store, for the browser tests: a runner
over the forum, the people's accounts, and a step that moves the clock, steps the bot and delivers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.server import WebServer


def at(hours: float) -> datetime:
    return START + timedelta(hours=hours)


@contextmanager
def served_game(folder: Path, config: GameConfig, game: WebGame, people: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """The game `config` started at START on a forum in `folder`, shown as `game`, with an account (and its
    password) for each of `people`; the clock stands at START + 30 minutes until a step moves it."""
    clock = {"now": at(0.5)}
    forum = LocalForum(folder / "forum.db", clock=lambda: clock["now"], accounts=True)
    run = GameRun.build(config)
    runner = Runner(Store(folder / "bot.db"), forum, [run])
    runner.start(START)
    runner.deliver(START)
    accounts = Accounts(folder / "forum.db")
    passwords = {name: accounts.add_user(name) for name in people}
    settings = WebSettings(str(folder / "forum.db"), WebConfig(port=0), games=(game,), clock=lambda: clock["now"],
                           store=str(folder / "bot.db"), game_hosts={config.name: config.host or ""})
    server = WebServer(settings, threads=2).start()

    def step(hours: float) -> None:
        clock["now"] = at(hours)
        runner.step(at(hours))
        runner.deliver(at(hours))
    try:
        yield {"url": f"http://127.0.0.1:{server.port}", "forum": forum, "run": run, "runner": runner,
               "step": step, "passwords": passwords}
    finally:
        server.stop()


def signed_in(browser: Any, bed: dict[str, Any], name: str, password: str | None = None, locale: str = "en-US") -> Any:
    """A page of a new browser context, signed in to the forum as `name` (its password from the bed)."""
    page = browser.new_context(locale=locale).new_page()
    page.set_default_timeout(20_000)
    page.goto(bed["url"] + "/signin")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", password or bed["passwords"][name])
    page.click("form.signin button")
    return page
