"""Games and lobbies made at run time, in the host console: each is stored as the text of its game file
(or of its [[lobbies]] table), checked exactly as `forumbot check-config` checks a file
(forumbot/engine/checking.py), and the running bot takes it up at its next poll, with no restart; a game the
host ends (from a file or the console) is let go at the next poll. The store's `hosted_games` table is the
record: a restarted bot builds the same games from it.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.config.bot import PlatformConfig, lobbies_of
from forumbot.config.game import LANGS, GameConfig
from forumbot.config.tomlfile import parse_toml
from forumbot.engine.checking import check_game_text
from forumbot.engine.cycle import Runner
from forumbot.engine.loading import GameRun
from forumbot.errors import ConfigError
from forumbot.model import Flag, format_time
from forumbot.render.renderer import Renderer
from forumbot.storage import Store

log = logging.getLogger("forumbot.engine.hosting")
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
PHASES = ("day1", "night0", "night1", "signup")


def toml_value(value: Any) -> str:
    """`value` written as TOML (strings, numbers, booleans, times, lists and tables of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return json.dumps(format_time(value))
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


@dataclass(frozen=True)
class GameForm:
    """What the console's "new game" form says, to be written as a game file."""

    name: str
    game: str
    ruleset: str
    lang: str
    start: datetime
    host: str
    phase: str = "day1"
    options: dict[str, Any] | None = None
    players: tuple[tuple[str, str], ...] = ()     # (name, role or "")

    def toml(self) -> str:
        lines = ["[game]", f"name = {toml_value(self.game)}"]
        if self.ruleset:
            lines.append(f"ruleset = {toml_value(self.ruleset)}")
        lines += [f"lang = {toml_value(self.lang)}", f"start = {toml_value(self.start)}",
                  f"phase = {toml_value(self.phase)}", f"host = {toml_value(self.host)}"]
        if self.options:
            lines += ["", "[game.options]"] + [f"{_key(k)} = {toml_value(v)}" for k, v in self.options.items()]
        for player, role in self.players:
            lines += ["", "[[players]]", f"name = {toml_value(player)}"]
            if role:
                lines.append(f"role = {toml_value(role)}")
        return "\n".join(lines) + "\n"


def options_text(text: str) -> dict[str, Any]:
    """The options a host typed as TOML lines (`day_hours = 36`). Raises ConfigError naming the line."""
    return dict(parse_toml(text, "the options").data)


def roster_text(text: str) -> tuple[tuple[str, str], ...]:
    """Players typed one a line, `Name` or `Name | role`."""
    players = []
    for line in text.splitlines():
        name, _, role = line.partition("|")
        if name.strip():
            players.append((name.strip(), role.strip()))
    return tuple(players)


def lobby_toml(name: str, host: str, lang: str, ruleset: str, prefix: str, platform: str) -> str:
    """A lobby's [[lobbies]] table, with a secret seed for its games' draws (each game's own is made from it)."""
    return "\n".join(["[[lobbies]]", f"name = {toml_value(name)}", 'game = "infiltration"',
                      f"platform = {toml_value(platform)}", f"host = {toml_value(host)}",
                      f"lang = {toml_value(lang)}", f"ruleset = {toml_value(ruleset)}",
                      f"prefix = {toml_value(prefix)}", "[lobbies.options]",
                      f"seed = {toml_value(secrets.token_hex(16))}"]) + "\n"


def check_name(name: str, taken: Iterable[str]) -> str:
    """A new game's name: lower-case letters, digits, - and _, not any game's. Raises ConfigError."""
    if not NAME.fullmatch(name):
        raise ConfigError(f"'{name}' cannot name a game", fix="use lower-case letters, digits, - and _ "
                                                              "(at most 40), like my-game-7")
    if name in set(taken):
        raise ConfigError(f"there is a game named '{name}' already", fix="choose another name")
    return name


def check_hosted(kind: str, name: str, text: str, platforms: dict[str, PlatformConfig], platform: str,
                 dialect: str) -> GameConfig:
    """A game or lobby made in the console, checked as `check-config` checks its file. Raises ConfigError."""
    if kind == "lobby":
        found = lobbies_of(parse_toml(text, f"lobby {name}"), platforms)
        if len(found) != 1 or found[0].config.name != name or found[0].platform != platform:
            raise ConfigError(f"lobby {name}: one [[lobbies]] table named {name} on {platform}")
        if not NAME.fullmatch(str(found[0].config.options.get("prefix", ""))):
            raise ConfigError("a lobby's prefix names its games", path=f"lobby {name}",
                              fix="use lower-case letters, digits, - and _, like duel")
        return found[0].config
    config = check_game_text(text, name, dialect)
    if config.templates:   # a folder on the bot's machine: only a bot config may name one
        raise ConfigError("a game made in the console posts with the shipped templates", path=f"game {name}",
                          fix="leave out templates = ..., or put the game in a file of the bot config")
    return config


def threads_text(text: str) -> dict[str, str]:
    """[games.threads] as a host types it in the console: `votes = <the platform's thread id>`, one a line."""
    found = parse_toml(text, "the threads").data
    if not all(isinstance(v, str) and v.strip() for v in found.values()):
        raise ConfigError("each thread needs a thread id in quotes", path="the threads", fix='votes = "my-votes"')
    return {k: v.strip() for k, v in found.items()}


def check_threads(config: GameConfig, threads: dict[str, str]) -> None:
    """The threads a host named are threads the game has. Raises ConfigError."""
    from forumbot.engine.loading import setup_of
    from forumbot.games import get_game

    rules = get_game(config.game)
    known = set(rules.threads(rules.new(setup_of(config))).values())
    unknown = sorted(set(threads) - known)
    if unknown:
        raise ConfigError(f"the game has no thread {', '.join(unknown)}", path="the threads",
                          fix="its threads: " + ", ".join(sorted(known)))


def create(store: Store, kind: str, name: str, text: str, platforms: dict[str, PlatformConfig], platform: str,
           dialect: str, by: str, at: datetime, taken: Iterable[str],
           threads: dict[str, str] | None = None) -> GameConfig:
    """Check and store a game or lobby a host made (with the platform ids of the `threads` it names); the
    running bot takes it up at its next poll. Raises ConfigError naming the line and the fix."""
    check_name(name, [*taken, *(row["name"] for row in store.hosted_games())])
    config = check_hosted(kind, name, text, platforms, platform, dialect)
    if threads and kind == "game":
        check_threads(config, threads)
    if not store.add_hosted(name, platform, kind, text, by, at, threads if kind == "game" else None):
        raise ConfigError(f"there is a game named '{name}' already", fix="choose another name")
    return config


def export(store: Store, name: str) -> str:
    """The file of a game made in the console (a game file; a lobby's [[lobbies]] table): a host may keep it, or
    put it in the bot config instead."""
    row = store.hosted_game(name)
    if row is None or row["kind"] == "file":
        raise ConfigError(f"{name} was not made in the console", fix="its game file is in the bot config")
    head = (f"# {row['kind']} {name}, made in the host console by {row['by']} at {row['at']}.\n"
            f"# In a bot config: [[games]] config = \"{name}.toml\" name = \"{name}\""
            + "".join(f"\n#   [games.threads] {thread} = {toml_value(key)}" for thread, key in row["threads"].items())
            if row["kind"] == "game" else f"# lobby {name}, made in the host console: paste into the bot config")
    return head + "\n" + row["toml"]


def ended(store: Store) -> dict[str, dict[str, Any]]:
    """The games their hosts ended, by name."""
    return {row["name"]: row for row in store.hosted_games() if row["ended"]}


class Adopter:
    """Keeps one platform's runner in step with the hosted games: builds each new one (at most once: a game
    that fails its checks is flagged to its host and left), and lets an ended one go."""

    def __init__(self, platform: PlatformConfig, platforms: dict[str, PlatformConfig], dialect: str,
                 build: Callable[[GameConfig, dict[str, str]], GameRun]) -> None:
        self.platform = platform
        self.platforms = platforms
        self.dialect = dialect
        self.build = build
        self._seen: set[str] = set()
        self._token: tuple[int, int] | None = None

    def sync(self, runner: Runner, now: datetime) -> bool:
        """Add the new hosted games of this platform to the runner's, let the ended ones go (each says so in its
        thread first: Runner.let_go). True on a change."""
        runs, store = runner.runs, runner.store
        store.look()
        token = store.token("hosted")
        if token == self._token:
            return False
        self._token = token
        changed = False
        for row in store.hosted_games():   # (an ended game of the bot config may be on any platform)
            name = row["name"]
            if row["ended"]:
                if any(run.name == name for run in runs):
                    runner.let_go(name, now)
                    changed = True
                continue
            if row["platform"] != self.platform.name or name in self._seen or any(run.name == name for run in runs):
                continue
            self._seen.add(name)
            try:
                config = check_hosted(row["kind"], name, row["toml"], self.platforms, self.platform.name,
                                      self.dialect)
                runs.append(self.build(config, dict(row["threads"])))
                changed = True
                log.info("%s: took up %s %s made in the console by %s", self.platform.name, row["kind"], name,
                         row["by"])
            except ConfigError as err:   # (checked when it was made: a ruleset or grammar changed since)
                log.error("%s: %s %s cannot run: %s", self.platform.name, row["kind"], name, err)
                store.add_flags(name, [Renderer("markdown", _lang_of(row["toml"])).flag(Flag(
                    reason=f"the game made in the console cannot run: {err}", author=row["by"],
                    code="flag_console_game", params=(("error", str(err)),)))])
        return changed


def _lang_of(text: str) -> str:
    """The language a game's TOML text names ([game] lang), "en" when it names none or cannot be read."""
    try:
        game = tomllib.loads(text).get("game")
    except tomllib.TOMLDecodeError:
        return "en"
    lang = game.get("lang") if isinstance(game, dict) else None
    return lang if lang in LANGS else "en"
