"""What the web forum serves: `[web]` in the bot config, and the games whose threads it shows.

    [web]
    listen = "127.0.0.1:8080"       # host:port; loopback by default (see the README for a reverse proxy)
    base_url = "https://forum.example.org"   # the public address, for links in the bot's posts
    platform = "local"              # which [platforms.NAME] (kind = "local") it serves
    per_page = 50                   # posts a page
    private = false                 # true: only signed-in people read the threads
    trusted_proxies = 0             # reverse proxies in front that set X-Forwarded-For/-Proto/-Host
    proxy_addresses = ["127.0.0.1", "::1"]   # where they connect from: those headers are read from them only
    posts_per_minute = 10           # replies, edits and PMs an account may send a minute (0: no limit)
    lang = "en"                     # the forum's and the console's words: "en" or "ru" (a game's console page
                                    # speaks the game's language)

    [web.hosts]                     # the host console (/console): each game's host, by name
    Alice = "scrypt$16384$8$1$..."  # the hash `forumbot passwd` prints

This module does not import Flask, so the bot config can be read without the web stack.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from forumbot.config.tomlfile import TomlFile

if TYPE_CHECKING:
    from forumbot.engine.cycle import Runner

WEB_KEYS = ("listen", "base_url", "platform", "per_page", "private", "trusted_proxies", "proxy_addresses",
            "posts_per_minute", "hosts", "lang")
LOOPBACK = ("127.0.0.1", "::1")
WEB_LANGS = ("en", "ru")     # the languages of forumbot/web/words


@dataclass(frozen=True)
class WebGame:
    """A game as the web forum shows it: its threads (purpose → forum thread key), host and players."""

    name: str
    threads: dict[str, str]
    host: str | None = None
    players: tuple[str, ...] = ()
    lang: str = "en"


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    base_url: str = ""
    platform: str = "local"
    per_page: int = 50
    private: bool = False
    trusted_proxies: int = 0
    hosts: dict[str, str] = field(default_factory=dict)   # host console: name → password hash (`forumbot passwd`)
    proxy_addresses: tuple[str, ...] = LOOPBACK
    posts_per_minute: int = 10
    lang: str = "en"

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") or f"http://{self.host}:{self.port}"


@dataclass
class WebSettings:
    """Everything the app needs: the local forum's file and how it is marked up, the games, the clock."""

    forum_path: str
    web: WebConfig = field(default_factory=WebConfig)
    dialect: str = "markdown"
    account: str = "forumbot"
    games: tuple[WebGame, ...] = ()
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    store: str = ""                                          # the bot's store, for the host console
    game_hosts: dict[str, str] = field(default_factory=dict)  # every game of the bot (every platform) → its host


def parse_listen(text: str) -> tuple[str, int]:
    """'127.0.0.1:8080' or '[::1]:8080' → (host, port). Raises ValueError."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(text)
    return host, int(port)


def web_config(doc: TomlFile, local_platforms: list[str]) -> WebConfig | None:
    """The [web] table of a bot config, checked; None when there is none."""
    if "web" not in doc.data:
        return None
    table: dict[str, Any] = doc.table(doc.data["web"], WEB_KEYS, "web")
    try:
        host, port = parse_listen(str(table.get("listen", "127.0.0.1:8080")))
    except ValueError:
        raise doc.error("listen must be host:port", "listen", fix='listen = "127.0.0.1:8080"') from None
    platform = str(table.get("platform", local_platforms[0] if local_platforms else "local"))
    if platform not in local_platforms:
        raise doc.error(f"the web forum serves a local forum; '{platform}' is not one", "[web]",
                        fix='add [platforms.local] with kind = "local", or set platform = "<its name>"')
    per_page = table.get("per_page", 50)
    if not isinstance(per_page, int) or not 5 <= per_page <= 500:
        raise doc.error("per_page must be a whole number from 5 to 500", "per_page")
    proxies = table.get("trusted_proxies", 0)
    if not isinstance(proxies, int) or proxies < 0:
        raise doc.error("trusted_proxies must be 0 or more", "trusted_proxies")
    addresses = table.get("proxy_addresses", list(LOOPBACK))
    if not isinstance(addresses, list) or not all(isinstance(a, str) and a for a in addresses):
        raise doc.error("proxy_addresses must be a list of addresses", "proxy_addresses",
                        fix='proxy_addresses = ["127.0.0.1"]')
    posts_per_minute = table.get("posts_per_minute", 10)
    if not isinstance(posts_per_minute, int) or posts_per_minute < 0:
        raise doc.error("posts_per_minute must be 0 (no limit) or more", "posts_per_minute")
    lang = table.get("lang", "en")
    if lang not in WEB_LANGS:
        raise doc.error(f"lang must be one of {', '.join(WEB_LANGS)}", "lang", fix='lang = "ru"')
    base_url = str(table.get("base_url", "")).rstrip("/")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise doc.error("base_url must start with http:// or https://", "base_url")
    hosts = doc.table(table.get("hosts", {}), tuple(table.get("hosts", {})), "web.hosts")
    for name, hashed in hosts.items():
        if not isinstance(hashed, str) or not hashed.startswith("scrypt$"):
            raise doc.error(f"the password of host {name} must be a hash made by `forumbot passwd`", name,
                            fix=f'{name} = "scrypt$..." (run: forumbot passwd)')
    return WebConfig(host, port, base_url, platform, per_page, bool(table.get("private", False)), proxies,
                     dict(hosts), tuple(addresses), posts_per_minute, lang)


def web_games(runner: Runner) -> tuple[WebGame, ...]:
    """A runner's games as the web forum shows them; a game yet to start shows the threads it will have
    (games a lobby starts later are listed under "Other threads" until the bot restarts)."""
    from forumbot.engine.loading import setup_of

    started = runner.started()
    games = []
    for run in runner.runs:
        state = runner.state(run) if run in started else run.game.new(setup_of(run.config))
        threads = {purpose: run.thread_id(name) for purpose, name in run.game.threads(state).items()}
        games.append(WebGame(run.name, threads, run.config.host, tuple(p.name for p in run.config.players),
                             run.config.lang))
    return tuple(games)
