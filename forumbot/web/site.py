"""The web forum's shared state (one per app): the settings, one database connection per server thread,
the rate limiters (sign-ins; posts per account), and who may read or write what."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from flask import current_app

from forumbot.engine.chart import stored_chart
from forumbot.platforms.local import LocalForum
from forumbot.seating import Chart, Holder, Seat
from forumbot.storage import Store
from forumbot.web.accounts import Accounts, RateLimiter
from forumbot.web.config import WebGame, WebSettings
from forumbot.web.forumdb import ForumDB
from forumbot.web.posthtml import PostHTML


@dataclass
class Connections:
    forum: LocalForum
    db: ForumDB
    accounts: Accounts
    html: PostHTML


class Site:
    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.web = settings.web
        self.limiter = RateLimiter()         # sign-ins (accounts.sign_in_keys)
        self.posting = RateLimiter(60.0)     # replies, edits and PMs per account
        self._local = threading.local()
        self.game_of_thread = {key: game for game in settings.games for key in game.threads.values()}
        # Each game's dead chat: a private thread for its dead, its spectators and its hosts (the chart's
        # dead_chat); no game reads it, and nobody else sees that it has posts.
        self.dead_chats = {dead_chat_key(game.name): game for game in settings.games}

    def connections(self) -> Connections:
        """This thread's connections (SQLite connections are not shared between the server's threads)."""
        held = getattr(self._local, "held", None)
        if held is None:
            s = self.settings
            forum = LocalForum(s.forum_path, account=s.account, dialect=s.dialect, clock=s.clock,
                               base_url=s.web.url)
            accounts = Accounts(s.forum_path)
            held = self._local.held = Connections(forum, ForumDB(forum), accounts, PostHTML(accounts.db, s.dialect))
        return held

    def store(self) -> Store | None:
        """This thread's connection to the bot's store; None for a forum served without the bot."""
        path = self.settings.store
        if not path:
            return None
        held: dict[str, Store] = self._local.__dict__.setdefault("stores", {})
        if path not in held:
            held[path] = Store(path)
        return held[path]

    def open_game_threads(self) -> None:
        """Every game's threads exist from the start, so players can post before the bot has."""
        forum = self.connections().forum
        for game in self.settings.games:
            for purpose, key in game.threads.items():
                forum.ensure_thread(key, f"{game.name}: {purpose}")
            forum.ensure_thread(dead_chat_key(game.name), f"{game.name}: dead chat")

    # ---- who may do what: each game's seating chart (forumbot/seating.py) -------------------------
    def chart(self, game: WebGame) -> Chart:
        """The game's chart as the bot's store holds it (sign-ups, the deal and replacements included); for a
        forum served without the bot, or a game not started yet, the config's players and host."""
        store = self.store()
        row = store.game(game.name) if store is not None else None
        if row is not None:
            return stored_chart(row, game.host, game.cohosts)
        return Chart(game.name, game.host, tuple(Seat(p, (Holder(p),)) for p in game.players), cohosts=game.cohosts)

    def charts(self) -> list[Chart]:
        return [self.chart(game) for game in self.settings.games]

    def hosted_by(self, user: str | None) -> list[WebGame]:
        return [g for g in self.settings.games if user and self.chart(g).is_host(user)]

    def may_read(self, user: str | None, thread: str) -> bool:
        """Every thread is public but a game's dead chat: only its members read it (the chart's dead_chat)."""
        game = self.dead_chats.get(thread)
        return game is None or (bool(user) and user in self.chart(game).dead_chat())

    def may_post(self, user: str | None, thread: str) -> bool:
        """A game's threads take posts from the accounts that hold its seats now and its host; its dead chat
        from its members; other threads from anyone signed in."""
        if not user or user == self.settings.account:
            return False
        if thread in self.dead_chats:
            return self.may_read(user, thread)
        game = self.game_of_thread.get(thread)
        if game is None:
            return True
        chart = self.chart(game)
        return not chart.seats or chart.may_post(user)

    def pm_recipients(self, user: str) -> list[str]:
        """Whom `user` may write to: the bot and the hosts; a host also the accounts of their games' seats."""
        charts = self.charts()
        names = [self.settings.account, *sorted({h for c in charts for h in c.hosts()})]
        for chart in charts:
            if chart.is_host(user):
                names += [a for seat in chart.seats for a in seat.accounts() if a not in names]
        return [n for n in names if n != user]

    def watched(self, user: str) -> set[str]:
        """Whose private messages `user` may read: their own, and a host every account that holds or held a
        seat of their games."""
        people = {user}
        for chart in self.charts():
            people |= chart.watched_by(user)
        return people

    def may_read_pms(self, user: str | None, a: str, b: str) -> bool:
        """Their own conversations; a host or co-host also those of their games' seats' accounts and hosts with
        the bot or with a host of the game (not with another game's host: a host playing elsewhere sees there
        what a player sees)."""
        if not user:
            return False
        if user in (a, b):
            return True
        for chart in self.charts():
            if chart.is_host(user):   # (a co-host reads what the host reads: the hosts' conversations too)
                hosts = set(chart.hosts())
                seated = {account for seat in chart.seats for account in seat.every_account()} | hosts
                desk = {self.settings.account} | hosts
                if (a in seated and b in desk) or (b in seated and a in desk):
                    return True
        return False


def dead_chat_key(game: str) -> str:
    """The forum thread of a game's dead chat."""
    return f"{game}/dead-chat"


def site() -> Site:
    return current_app.extensions["forumbot"]   # type: ignore[no-any-return]
