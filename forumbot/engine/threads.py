"""Threads the bot opens for a game through `Platform.open_thread`: every game a lobby spawns, and a game
on Reddit or phpBB whose bot config leaves out [games.threads] (or some of its threads).

Exactly once, even across a crash: before a thread is opened the store records that it is being opened
(`opening:GAME:THREAD`), and after, the thread's id (`thread:GAME:THREAD`), both in the store's cursors of
the platform. A bot that died in between finds the attempt recorded and no id: it asks the platform for
the thread whose first post carries the attempt's invisible marker (`find_thread`) and opens one only if
there is none. The game itself is created only once all its threads have ids, so every post of the game
goes to them."""

from __future__ import annotations

import logging
from typing import Any

from forumbot.engine.crashpoints import crashpoint
from forumbot.engine.loading import GameRun
from forumbot.model import Event
from forumbot.platforms.base import Platform
from forumbot.storage import Store

log = logging.getLogger("forumbot.engine.threads")


def _id_mark(game: str, thread: str) -> str:
    return f"thread:{game}:{thread}"


def _attempt_mark(game: str, thread: str) -> str:
    return f"opening:{game}:{thread}"


def title_of(run: GameRun, thread: str, several: bool) -> str:
    """A new thread's title: the game's name, and the thread's when the game has several."""
    return f"{run.name}: {thread}" if several else run.name


def open_threads(store: Store, platform: Platform, run: GameRun, state: Any) -> dict[str, str]:
    """Give `run` an id for every thread its game has in `state` that the config did not name: the one
    recorded in the store, or a thread opened now. Returns the threads opened now (name → id). Raises
    PlatformError when the platform refuses or fails (the game then waits for the next poll)."""
    names = sorted(set(run.game.threads(state).values()))
    opened: dict[str, str] = {}
    for name in names:
        if name in run.thread_ids:
            continue
        found = store.cursor(platform.name, _id_mark(run.name, name))
        if found is None:
            found = _open_once(store, platform, run, name, title_of(run, name, len(names) > 1))
            opened[name] = found
        run.thread_ids[name] = found
    return opened


def _open_once(store: Store, platform: Platform, run: GameRun, name: str, title: str) -> str:
    key = f"{run.name}:thread:{name}"
    found = None
    if store.cursor(platform.name, _attempt_mark(run.name, name)) is not None:
        found = platform.find_thread(key, title)
        if found is not None:
            log.info("%s: thread %s had been opened before a restart (%s); not opening it again",
                     run.name, name, found)
    if found is None:
        store.set_cursor(platform.name, _attempt_mark(run.name, name), key)
        text = run.renderer.text(Event("thread_opened", {
            "game": run.name, "thread": name, "title": title,
            "players": [p.name for p in run.config.players]}), run.game.name)
        found = platform.open_thread(title, text, key)
        crashpoint("thread_opened")
        log.info("%s: opened thread %s as %s", run.name, name, found)
    store.set_cursor(platform.name, _id_mark(run.name, name), found)
    return found


def recorded(store: Store) -> dict[str, list[tuple[str, str, str]]]:
    """Every thread the bot opened, by game: (platform, thread name, platform id), for `forumbot status`."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for platform, mark, value in store.cursors_starting("thread:"):
        game, _, thread = mark.removeprefix("thread:").rpartition(":")
        out.setdefault(game, []).append((platform, thread, value))
    return out


def thread_url(kind: str, options: dict[str, Any], thread_id: str) -> str:
    """Where a player finds a thread the bot opened ("" where the bot config does not say)."""
    if kind == "reddit":
        return f"https://www.reddit.com/comments/{thread_id}/"
    if kind == "phpbb" and options.get("url"):
        return f"{str(options['url']).rstrip('/')}/viewtopic.php?t={thread_id}"
    if kind == "discourse" and options.get("url"):
        return f"{str(options['url']).rstrip('/')}/t/{thread_id}"
    if kind == "local" and options.get("base_url"):
        return f"{str(options['base_url']).rstrip('/')}/t/{thread_id}"
    return ""
