"""The web forum's shared state (one per app): the settings, one database connection per server thread,
the rate limiters (sign-ins; posts per account), and who may read or write what."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from flask import current_app, g, has_request_context

from forumbot.engine.chart import stored_chart
from forumbot.platforms.local import LocalForum
from forumbot.seating import Chart, Holder, Seat
from forumbot.storage import Store
from forumbot.web.accounts import Accounts, RateLimiter
from forumbot.web.config import WebGame, WebSettings, web_game
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
        self._built: dict[tuple[str, str], object] = {}   # a console game's (name, file text) → its config

    # ---- the games: the bot config's, and those made in the console or by a lobby since the start ---------
    def games(self) -> tuple[WebGame, ...]:
        """Every game with threads on this forum (read from the bot's store once a request)."""
        if has_request_context() and "forumbot_games" in g:
            return g.forumbot_games   # type: ignore[no-any-return]
        found = self._games()
        if has_request_context():
            g.forumbot_games = found
        return found

    def _games(self) -> tuple[WebGame, ...]:
        from forumbot.engine.loading import setup_of
        from forumbot.games import get_game

        games = list(self.settings.games)
        store = self.store()
        if store is None:
            return tuple(games)
        known = {game.name for game in games}
        platform = self.web.platform
        rows = {row.name: row for row in store.games()}
        for hosted in store.hosted_games(platform):
            config = self.hosted_config(hosted)
            if config is None or hosted["name"] in known:
                continue
            rules = get_game(config.game)
            row = rows.get(config.name)
            state = rules.from_json(row.state) if row else rules.new(setup_of(config))
            named = hosted["threads"]
            games.append(web_game(config.name, config.host, config.players, rules.threads(state),
                                  lambda thread, name=config.name, named=named: named.get(thread) or f"{name}/{thread}",
                                  config.lang, config.cohosts))
            known.add(config.name)
        opened = {name.removeprefix("thread:"): value for where, name, value in store.cursors_starting("thread:")
                  if where == platform}
        for name, row in rows.items():   # games a lobby started: the threads the bot opened for them
            if name in known or not any(key.startswith(f"{name}:") for key in opened):
                continue
            rules = get_game(row.game)
            games.append(web_game(name, row.setup.get("host"), row.setup.get("players", ()),
                                  rules.threads(rules.from_json(row.state)),
                                  lambda thread, name=name: opened.get(f"{name}:{thread}"), row.setup.get("lang"),
                                  row.setup.get("cohosts", ())))
        return tuple(games)

    def hosted_config(self, hosted: dict[str, Any]) -> Any:
        """The config of a game or lobby made in the console (checked when made; None for a file's game, or one
        that no longer passes its checks)."""
        from forumbot.engine.hosting import check_hosted
        from forumbot.errors import ConfigError

        hosting = self.settings.hosting
        if hosted["kind"] == "file" or hosting is None:
            return None
        key = (hosted["name"], hosted["toml"])
        if key not in self._built:
            try:
                self._built[key] = check_hosted(hosted["kind"], hosted["name"], hosted["toml"], hosting.platforms,
                                                hosted["platform"], hosting.dialect)
            except ConfigError:
                self._built[key] = None
        return self._built[key]

    @property
    def game_of_thread(self) -> dict[str, WebGame]:
        return {key: game for game in self.games() for key in game.threads.values()}

    @property
    def dead_chats(self) -> dict[str, WebGame]:
        """Each game's dead chat: a private thread for its dead, its spectators and its hosts (the chart's
        dead_chat); no game reads it, and nobody else sees that it has posts."""
        return {dead_chat_key(game.name): game for game in self.games()}

    def game_hosts(self) -> dict[str, str]:
        """Every game of the bot (on every platform) → its host: the bot config's, the console's, a lobby's."""
        hosts = dict(self.settings.game_hosts)
        store = self.store()
        if store is None:
            return hosts
        for hosted in store.hosted_games():
            config = self.hosted_config(hosted)
            if config is not None:
                hosts.setdefault(config.name, config.host or "")
        for game in self.games():
            hosts.setdefault(game.name, game.host or "")
        return hosts

    def game_cohosts(self) -> dict[str, tuple[str, ...]]:
        """Every game of the bot → its co-hosts (the bot config's, and those of games made since)."""
        cohosts = dict(self.settings.game_cohosts)
        for game in self.games():
            cohosts.setdefault(game.name, game.cohosts)
        return cohosts

    def locked(self, game: WebGame) -> bool:
        """A game's threads lock when the game is over or its host ended it."""
        return self.thread_state(game)[0]

    def thread_state(self, game: WebGame | None) -> tuple[bool, str]:
        """(locked, what the thread page says) for a thread of `game` (None: a thread of no game, open)."""
        if game is None:
            return False, ""
        ended = self.ended().get(game.name)
        if ended is not None:
            when = str(ended["ended"]).replace("T", " ").replace("Z", " UTC")
            return True, f"Locked: the host ended the game ({when})."
        store = self.store()
        row = store.game(game.name) if store is not None else None
        if row is None:
            return False, "Open: the game has not started yet."
        from forumbot.games import get_game

        summary = get_game(row.game).summary(get_game(row.game).from_json(row.state))
        if summary.get("phase") == "over":
            winner = summary.get("winner")
            return True, "Locked: the game is over" + (f" ({winner} won)." if winner else ".")
        return False, "Open: players and the host post here."

    def ended(self) -> dict[str, dict[str, Any]]:
        """The games their hosts ended (or archived), by name."""
        store = self.store()
        return {row["name"]: row for row in store.hosted_games() if row["ended"]} if store is not None else {}

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
        for game in self.games():
            for purpose, key in game.threads.items():
                forum.ensure_thread(key, thread_title(game.name, purpose))
            forum.ensure_thread(dead_chat_key(game.name), thread_title(game.name, "dead-chat"))

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
        return [self.chart(game) for game in self.games()]

    def hosted_by(self, user: str | None) -> list[WebGame]:
        return [game for game in self.games() if user and self.chart(game).is_host(user)]

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
        if self.locked(game):
            return False
        chart = self.chart(game)
        purpose = next((p for p, key in game.threads.items() if key == thread), "")
        return not chart.seats or chart.may_post(user, purpose)

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

    def readable_pms(self, user: str, a: str, b: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages of the conversation between `a` and `b` that `user` reads: all of their own. A host or
        co-host reads only what belongs to a game they host: of a conversation with the bot, the messages such
        a game read or sent (the bot's store says which; a message no game of theirs read, another game's
        included, stays private); of a conversation with a host of the game, all of it (may_read_pms)."""
        if user in (a, b):
            return messages
        if not self.may_read_pms(user, a, b):
            return []
        if self.settings.account not in (a, b):
            return messages
        hosted = {chart.game for chart in self.charts() if chart.is_host(user)}
        store = self.store()
        if store is None or not messages:
            return []
        belongs = store.games_of_messages(LocalForum.pm_id(m["id"]) for m in messages)
        return [m for m in messages if belongs.get(LocalForum.pm_id(m["id"]), set()) & hosted]

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


# A thread's title on the web forum by its purpose in the game (a game's own purposes are shown as they are).
PURPOSE_TITLES = {"votes": "Voting thread", "game": "Game thread", "lobby": "Lobby", "signup": "Sign-ups",
                  "dead-chat": "Dead chat"}


def thread_title(game: str, purpose: str) -> str:
    """A game thread's title as people read it: "My game 7 · Voting thread", not the slug "my-game-7: votes"."""
    name = " ".join(game.replace("_", " ").replace("-", " ").split())
    what = PURPOSE_TITLES.get(purpose, purpose.replace("_", " ").capitalize())
    return f"{name[:1].upper()}{name[1:]} · {what}"


def dead_chat_key(game: str) -> str:
    """The forum thread of a game's dead chat."""
    return f"{game}/dead-chat"


def site() -> Site:
    return current_app.extensions["forumbot"]   # type: ignore[no-any-return]
