"""The bot's own config for `forumbot run`: where the store is, which platforms to poll, which games.

    [bot]
    store = "forumbot.db"            # paths are relative to this file
    [platforms.local]                # a name of your choice; kind says what it is
    kind = "local"
    path = "forum.db"
    poll_seconds = 30
    [[games]]
    config = "games/mafia-1.toml"    # a game config: the [game] and [[players]] of a scenario
    platform = "local"
    tournament = "liar-game"         # optional: the tournament ledger its awards go to
    [games.threads]                  # optional: the game's thread → the platform's thread id (on Reddit
                                     # and phpBB the bot opens the threads left out, at the game's start)
    votes = "mafia-1/votes"
    [[tournaments]]                  # a tournament that runs itself: its games start as their turns come
    config = "cup.toml"              # a tournament file (docs/tournaments.md)
    platform = "local"
    [hosting]                        # optional: games and lobbies made in the host console
    creators = ["Alice"]             # the console's hosts ([web.hosts]) who may make them
    platform = "local"               # where they are played (default: the web forum's platform)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forumbot.config.game import POST_DIALECTS, GameConfig, load_ruleset, load_scenario, locate
from forumbot.config.tomlfile import TomlFile, load_toml
from forumbot.config.tournament import load_plan
from forumbot.engine.loading import check_setup
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.games.tournament import Plan
from forumbot.web.config import WebConfig, web_config

PLATFORM_KINDS = ("local", "reddit", "phpbb", "discourse")
BOT_KEYS = ("store", "log_level", "retry_max_seconds")
# reddit: site (a praw.ini section), subreddit, user_agent, inbox_every (read PMs every N polls),
# edit_policy (first_seen, edited, flag); credentials stay in praw.ini or praw_* environment variables.
PLATFORM_KEYS = ("kind", "path", "account", "dialect", "poll_seconds", "site", "subreddit", "user_agent",
                 "inbox_every", "edit_policy", "settle_seconds",
                 # local: mask_accounts (default true: the bot makes masks' web forum accounts at the deal)
                 "mask_accounts",
                 # phpbb: url, forum (new topics), password_env or password_file (never the password itself),
                 # min_interval (seconds between requests), form_wait, timeout, max_chars, timezone (the account's),
                 # bbcode_extra (the board's BBCodes beyond stock phpBB's, e.g. ["s", "vote"])
                 "url", "forum", "password_env", "password_file", "min_interval", "form_wait", "timeout", "max_chars",
                 "timezone", "bbcode_extra",
                 # discourse: url, account, category (new topics), api_key_env or api_key_file (never the key
                 # itself), requests_per_minute, timeout, short_posts (pad, refuse), min_post_length,
                 # min_pm_length, min_title_length, max_chars (the site's settings)
                 "category", "api_key_env", "api_key_file", "requests_per_minute", "short_posts", "min_post_length",
                 "min_pm_length", "min_title_length")
GAME_KEYS = ("config", "platform", "name", "threads", "tournament")
LOBBY_KEYS = ("game", "platform", "name", "host", "lang", "ruleset", "prefix", "options", "threads")
HOSTING_KEYS = ("creators", "platform")
TOP_KEYS = ("bot", "platforms", "games", "lobbies", "web", "tournaments", "hosting")
TOURNAMENT_KEYS = ("config", "platform")
# Where a lobby's spawned games get threads of their own (Platform.open_thread, forumbot/engine/threads.py).
LOBBY_PLATFORMS = PLATFORM_KINDS


@dataclass(frozen=True)
class PlatformConfig:
    name: str
    kind: str
    options: dict[str, Any]
    poll_seconds: float = 60.0


@dataclass(frozen=True)
class BotGame:
    config: GameConfig
    platform: str
    threads: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HostingConfig:
    """[hosting]: who may make games and lobbies in the host console, and on which platform they are played."""

    creators: tuple[str, ...]
    platform: str


@dataclass(frozen=True)
class BotConfig:
    path: str
    store: Path
    platforms: dict[str, PlatformConfig]
    games: tuple[BotGame, ...]
    retry_max_seconds: float = 900.0
    log_level: str = "info"
    web: WebConfig | None = None        # [web]: the web forum over a local forum (forumbot/web/)
    tournaments: tuple[tuple[Plan, str], ...] = ()   # [[tournaments]]: each plan and its platform
    hosting: HostingConfig | None = None   # [hosting]: games made in the host console (engine/hosting.py)


def load_bot_config(path: str | Path) -> BotConfig:
    """Read a bot config and every game config it names. Raises ConfigError naming the file, line and fix."""
    doc = load_toml(path)
    base = Path(path).resolve().parent
    doc.table(doc.data, TOP_KEYS, "top level")
    bot = doc.table(doc.data.get("bot", {}), BOT_KEYS, "bot")
    platforms: dict[str, PlatformConfig] = {}
    platform_tables = doc.data.get("platforms", {})
    if not isinstance(platform_tables, dict):
        raise doc.error("[platforms] must be a table of platforms", "platforms")
    for name, table in platform_tables.items():
        doc.table(table, PLATFORM_KEYS, f"platforms.{name}")
        kind = table.get("kind", name)
        if kind not in PLATFORM_KINDS:
            raise doc.error(f"platform kind '{kind}' is not known", f"[platforms.{name}]",
                            fix="kinds: " + ", ".join(PLATFORM_KINDS))
        poll = table.get("poll_seconds", 60)
        if not isinstance(poll, (int, float)) or poll <= 0:
            raise doc.error("poll_seconds must be a positive number", "poll_seconds")
        if table.get("dialect", "markdown") not in POST_DIALECTS:
            raise doc.error(f"dialect = {table['dialect']!r} is not one the bot can post in", "dialect",
                            fix="use one of: " + ", ".join(POST_DIALECTS))
        options = {k: v for k, v in table.items() if k not in ("kind", "poll_seconds")}
        if "path" in options:
            options["path"] = str(base / options["path"])
        platforms[name] = PlatformConfig(name, kind, options, float(poll))
    if not platforms:
        raise doc.error("no platforms", fix='add [platforms.local] with kind = "local"')
    games = lobbies_of(doc, platforms)
    tournaments = _tournaments(doc, base, platforms)
    entries = doc.data.get("games", [])
    hosting = _hosting(doc, platforms)
    if not isinstance(entries, list) or not (entries or games or tournaments or hosting):
        raise doc.error("no games", fix='add [[games]] with config = "my-game.toml" and platform = "local", '
                                        'or [hosting] to make games in the host console')
    names: set[str] = {g.config.name for g in games}
    for entry in entries:
        doc.table(entry, GAME_KEYS, "games")
        platform = _entry_platform(doc, entry, platforms, "game")
        scenario = load_scenario(base / entry["config"])
        config = scenario.config
        if "name" in entry:
            config = GameConfig(**{**config.__dict__, "name": str(entry["name"])})
        if "tournament" in entry:   # the tournament ledger the game's awards go to (forumbot/games/tournament.py)
            config = GameConfig(**{**config.__dict__, "tournament": str(entry["tournament"])})
        if config.name in names:
            raise doc.error(f"two games are named '{config.name}'", str(entry["config"]),
                            fix="give one of them name = \"...\"")
        names.add(config.name)
        threads = entry.get("threads", {})
        if not isinstance(threads, dict) or not all(isinstance(v, str) for v in threads.values()):
            raise doc.error("[games.threads] maps a game thread to a platform thread id", "threads")
        try:   # a game that could never be played to its end is refused before the bot starts
            state = check_setup(config)
        except ConfigError as err:
            raise locate(err, str(base / entry["config"])) from None
        missing = set(get_game(config.game).threads(state).values()) - set(threads)
        if missing:
            _can_open(doc, platforms[platform], f"game {config.name}'s threads {', '.join(sorted(missing))}",
                      ", or name them in [games.threads]")
        games.append(BotGame(config, platform, dict(threads)))
    for plan, _ in tournaments:   # a tournament's games are games of the store like any other
        for stage in plan.stages:
            if stage.name in names:
                raise doc.error(f"tournament {plan.name}'s game '{stage.name}' has the name of another game",
                                "[[tournaments]]", fix="rename one of them")
            names.add(stage.name)
    retry = bot.get("retry_max_seconds", 900)
    web = web_config(doc, [n for n, p in platforms.items() if p.kind == "local"])
    if web is not None:   # the bot's links on the served forum open its pages
        platforms[web.platform].options["base_url"] = web.url
    if hosting is not None and web is not None and hosting.platform == "":
        hosting = HostingConfig(hosting.creators, web.platform)
    elif hosting is not None and hosting.platform == "":
        raise doc.error("[hosting] needs the platform its games are played on", "[hosting]",
                        fix='add platform = "local", or a [web] table (its platform is the default)')
    if hosting is not None and web is not None:
        unknown = [name for name in hosting.creators if name not in web.hosts]
        if unknown:
            raise doc.error(f"[hosting] creators {', '.join(unknown)} cannot sign in to the console", "creators",
                            fix="give each a password in [web.hosts] (forumbot passwd)")
    return BotConfig(str(path), base / bot.get("store", "forumbot.db"), platforms, tuple(games),
                     float(retry), str(bot.get("log_level", "info")), web, tournaments, hosting)


def _hosting(doc: TomlFile, platforms: dict[str, PlatformConfig]) -> HostingConfig | None:
    """[hosting]: who may make games in the host console, and where they are played ("" until [web] says)."""
    if "hosting" not in doc.data:
        return None
    table = doc.table(doc.data["hosting"], HOSTING_KEYS, "hosting")
    creators = table.get("creators", [])
    if not isinstance(creators, list) or not all(isinstance(c, str) and c.strip() for c in creators):
        raise doc.error("[hosting] creators must be a list of host names", "creators", fix='creators = ["Alice"]')
    platform = str(table.get("platform", ""))
    if platform and platform not in platforms:
        raise doc.error(f"[hosting] names platform '{platform}', which is not configured", "platform",
                        fix="platforms: " + ", ".join(platforms))
    return HostingConfig(tuple(c.strip() for c in creators), platform)


def _entry_platform(doc: TomlFile, entry: dict[str, Any], platforms: dict[str, PlatformConfig], what: str) -> str:
    """The platform a [[games]] or [[tournaments]] entry runs on (the first configured unless it names one);
    the entry must name its file."""
    if "config" not in entry:
        raise doc.error(f"a {what} needs config = \"<{what} file>\"", f"[[{what}s]]")
    platform = str(entry.get("platform", next(iter(platforms))))
    if platform not in platforms:
        raise doc.error(f"{what} {entry['config']} names platform '{platform}', which is not configured",
                        str(entry["config"]), fix="platforms: " + ", ".join(platforms))
    return platform


def _tournaments(doc: TomlFile, base: Path, platforms: dict[str, PlatformConfig]) -> tuple[tuple[Plan, str], ...]:
    """[[tournaments]]: tournament files (forumbot/config/tournament.py), each run on one platform."""
    entries = doc.data.get("tournaments", [])
    if not isinstance(entries, list):
        raise doc.error("tournaments must be [[tournaments]] tables", "tournaments")
    out = []
    for entry in entries:
        doc.table(entry, TOURNAMENT_KEYS, "tournaments")
        platform = _entry_platform(doc, entry, platforms, "tournament")
        _can_open(doc, platforms[platform], f"tournament {entry['config']}'s games' threads")
        out.append((load_plan(base / entry["config"]), str(platform)))
    return tuple(out)


# Where Platform.open_thread opens threads, by platform kind (the local forum needs nothing).
OPEN_IN = {"reddit": ("subreddit", 'subreddit = "yoursubreddit"'), "phpbb": ("forum", "forum = <forum id>"),
           "discourse": ("category", "category = <category id>")}


def _can_open(doc: TomlFile, platform: PlatformConfig, what: str, otherwise: str = "") -> None:
    """The bot opens `what` on `platform` (forumbot/engine/threads.py): refused when the platform has no place
    to open them in."""
    key, fix = OPEN_IN.get(platform.kind, ("", ""))
    if key and not platform.options.get(key):
        raise doc.error(f"the bot opens {what} on [platforms.{platform.name}], which has no {key}",
                        f"[platforms.{platform.name}]", fix=f"add {fix}{otherwise}")


def lobbies_of(doc: TomlFile, platforms: dict[str, PlatformConfig]) -> list[BotGame]:
    """[[lobbies]]: threads where players challenge each other and every accepted challenge starts a game (of a
    bot config, or a lobby made in the host console), checked."""
    out = []
    entries = doc.data.get("lobbies", [])
    if not isinstance(entries, list):
        raise doc.error("lobbies must be [[lobbies]] tables", "lobbies")
    for entry in entries:
        doc.table(entry, LOBBY_KEYS, "lobbies")
        if entry.get("game", "infiltration") != "infiltration":
            raise doc.error(f"no lobby for game '{entry.get('game')}'", "[[lobbies]]", fix='game = "infiltration"')
        platform = entry.get("platform", next(iter(platforms)))
        if platform not in platforms or platforms[platform].kind not in LOBBY_PLATFORMS:
            raise doc.error(f"a lobby needs a platform where the bot can open threads ({', '.join(LOBBY_PLATFORMS)})",
                            "[[lobbies]]", fix="platforms: " + ", ".join(platforms))
        _can_open(doc, platforms[platform], "a lobby's games")
        options = load_ruleset(str(entry["ruleset"]), "infiltration") if "ruleset" in entry else {}
        overrides = entry.get("options", {})
        if not isinstance(overrides, dict):
            raise doc.error("[lobbies.options] must be a table", "options")
        threads = entry.get("threads", {})
        lobby_options = {"game_options": {**options, **overrides}, "prefix": str(entry.get("prefix", "duel"))}
        config = GameConfig(name=str(entry.get("name", "lobby")), game="infiltration-lobby",
                            lang=str(entry.get("lang", "en")), start=datetime(2000, 1, 1, tzinfo=UTC), players=(),
                            options=lobby_options, host=entry.get("host"), source=doc.path)
        out.append(BotGame(config, platform, dict(threads)))
    return out
