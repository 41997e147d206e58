"""`forumbot demo --web`: the sample day played on the local forum while the web forum serves it.

The scenario's posts go on the forum at `pace`, all but the last one: that one is left to the person
watching, who signs in as its author (the demo prints the password) and posts it, or any vote, from the
browser; the bot then reads it like any other post. After the scripted posts the game's clock runs on in
real time from the last post's time, so the bot keeps polling (every second) until `stop` is set.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from forumbot.config.game import Scenario
from forumbot.engine.cycle import Runner
from forumbot.engine.loading import GameRun, setup_of
from forumbot.engine.replay import replay
from forumbot.errors import ConfigError
from forumbot.model import format_time, parse_time
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store, workdir
from forumbot.web.accounts import Accounts, hash_password
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.forumdb import ForumDB
from forumbot.web.server import WebServer

Printer = Callable[[dict[str, Any]], None]


class DemoClock:
    """The game's time: set to each scripted post's time, then running on in real time from there."""

    def __init__(self, start: datetime) -> None:
        self.set(start)

    def set(self, at: datetime) -> None:
        self.anchor, self.wall = at, time.monotonic()

    def __call__(self) -> datetime:
        return self.anchor + timedelta(seconds=time.monotonic() - self.wall)


@dataclass(frozen=True)
class DemoInfo:
    url: str
    player: str          # the account the person plays: the author of the scenario's last post
    password: str
    thread_url: str      # where that post belongs
    text: str            # the post the scenario has for them
    host: str | None
    host_password: str | None


def web_demo(scenario: Scenario, folder: str | Path, *, listen: tuple[str, int] = ("127.0.0.1", 8080),
             pace: float = 2.0, stop: threading.Event | None = None, on_ready: Callable[[DemoInfo], None] | None = None,
             on_post: Printer | None = None, on_message: Printer | None = None,
             on_live: Callable[[DemoInfo], None] | None = None, poll_seconds: float = 1.0,
             per_page: int = 50) -> DemoInfo:
    """Serve the demo until `stop` is set (never, without one: Ctrl-C ends it). Raises ConfigError for a
    scenario without a thread post to leave to the person, or a port already taken."""
    config = scenario.config
    last = scenario.posts[-1] if scenario.posts else None
    if last is None or last.pm:
        raise ConfigError("the web demo leaves the scenario's last post to you, so it must be a thread post",
                          path=config.source, fix="end the scenario with a post in a thread")
    stop = stop or threading.Event()
    folder = Path(folder)
    if workdir.claim(folder, "demo"):   # never delete what the bot did not make
        workdir.remove_databases(folder, ("forum.db", "forumbot.db"))
    forum_path, store_path = folder / "forum.db", folder / "forumbot.db"
    accounts = Accounts(forum_path)
    passwords = {name: accounts.add_user(name) for name in
                 [p.name for p in config.players] + ([config.host] if config.host else [])}
    run = GameRun.build(config, dialect=config.dialect)
    opening = run.game.new(setup_of(config))
    threads = {purpose: run.thread_id(name) for purpose, name in run.game.threads(opening).items()}
    clock = DemoClock(config.start)
    # the host signs in to the console (/console) with the same password as to the forum
    hosts = {config.host: hash_password(passwords[config.host])} if config.host else {}
    web = WebConfig(host=listen[0], port=listen[1], per_page=per_page, hosts=hosts)
    game = WebGame(config.name, threads, config.host, tuple(p.name for p in config.players))
    server = WebServer(WebSettings(str(forum_path), web, config.dialect, games=(game,), clock=clock,
                                   store=str(store_path), game_hosts={config.name: config.host or ""})).start()
    base = f"http://{server.host}:{server.port}"
    info = DemoInfo(base, last.author, passwords[last.author], f"{base}/t/{run.thread_id(last.thread or '')}",
                    last.text, config.host, passwords.get(config.host or ""))
    try:
        if on_ready:
            on_ready(info)

        def shown(printer: Printer | None, at_post: bool) -> Printer:
            def show(item: dict[str, Any]) -> None:
                if at_post:
                    clock.set(parse_time(item["at"]))
                if printer:
                    printer(item)
                if pace and not stop.is_set():
                    stop.wait(pace)
            return show

        scripted = scenario.posts[:-1]
        until = scripted[-1].at if scripted else config.start
        replay(replace(scenario, posts=scripted, until=until), on_post=shown(on_post, True),
               on_message=shown(on_message, False), store_path=store_path, forum_path=forum_path, base_url=base)
        clock.set(until)
        if on_live:
            on_live(info)
        forum = LocalForum(forum_path, clock=clock, dialect=config.dialect, base_url=base)
        runner = Runner(Store(store_path), forum, [GameRun.build(config, dialect=config.dialect)])
        written = ForumDB(forum)
        _, seen_post, seen_pm = written.written_since(0, 0)
        while not stop.wait(poll_seconds):
            now = clock()
            posts, seen_post, seen_pm = written.written_since(seen_post, seen_pm)
            for post in posts:   # what people wrote in the browser, as the terminal showed the scripted posts
                if on_post:
                    on_post({**post, "thread": run.thread_name(post["thread"])} if "thread" in post else post)
            for row in runner.step(now).delivered:
                if on_message:
                    where = {"pm": row["pm_to"]} if row["pm_to"] else {"thread": run.thread_name(row["thread"])}
                    on_message({"at": format_time(now), "kind": row["kind"], **where, "text": row["text"]})
    finally:
        server.stop()
    return info
