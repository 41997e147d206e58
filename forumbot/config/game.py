"""Scenario and game config files (TOML) → frozen dataclasses, with errors naming the file, line and fix.

A scenario is a game config plus the posts to play ([[posts]]) and, optionally, what must come out
([expect], used by the tests and `forumbot replay --check`). The README documents every key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from forumbot.config.paths import data_dir
from forumbot.config.tomlfile import TomlFile, load_toml, unknown_key_fix
from forumbot.errors import ConfigError
from forumbot.model import PlayerRef, parse_time
from forumbot.platforms.base import EDIT_POLICIES
from forumbot.render.renderer import DIALECTS as POST_DIALECTS
from forumbot.text.grammar import READINGS, Command, commands_from_toml

GAME_KEYS = ("name", "ruleset", "lang", "start", "phase", "host", "cohosts", "options", "dialect", "templates",
             "no_lynch_used", "phrases", "tournament", "reading", "edit_policy")
PLAYER_KEYS = ("name", "role", "aliases", "alive", "forum", "gender")
POST_KEYS = ("at", "author", "thread", "pm", "text", "edit", "edited_at")
RUN_KEYS = ("until", "poll_seconds")
TOP_KEYS = ("game", "players", "posts", "run", "grammar", "expect")
LANGS = ("en", "ru")


@dataclass(frozen=True)
class GameConfig:
    name: str                       # this game's own name (the store's key)
    game: str                       # which rules: "mafia"
    lang: str
    start: datetime
    players: tuple[PlayerRef, ...]
    options: dict[str, Any] = field(default_factory=dict)
    ruleset: str | None = None
    phase: str | None = None
    host: str | None = None
    dead: tuple[str, ...] = ()
    cohosts: tuple[str, ...] = ()   # accounts with the host's powers, who read what the host reads
    state: dict[str, Any] = field(default_factory=dict)
    grammar: tuple[Command, ...] = ()
    dialect: str = "markdown"
    templates: str | None = None    # the host's template folder: <dialect>/<event>.j2 and/or <event>.j2
    phrases: dict[str, str] = field(default_factory=dict)
    source: str = ""
    tournament: str | None = None   # the tournament ledger the game's awards go to (forumbot/games/tournament.py)
    reading: str | None = None      # commands, bold, natural; None: the grammar's default for the dialect
    edit_policy: str | None = None  # what an edited post counts as in this game; None: the platform's

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "game": self.game, "lang": self.lang, "ruleset": self.ruleset,
                "source": self.source, "players": [p.name for p in self.players], "options": self.options,
                "host": self.host}


@dataclass(frozen=True)
class ScenarioPost:
    at: datetime
    author: str
    text: str
    thread: str | None = None       # a thread of the game ("votes", "game"); None for a PM
    pm: bool = False
    line: int | None = None         # where it stands in the scenario file
    edit: str | None = None         # the text its author edits it to, at `edited_at` (a thread post)
    edited_at: datetime | None = None


@dataclass(frozen=True)
class Scenario:
    config: GameConfig
    posts: tuple[ScenarioPost, ...]
    until: datetime | None = None
    poll_seconds: int = 0
    expect: dict[str, Any] = field(default_factory=dict)


def _time(doc: TomlFile, value: Any, key: str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else parse_time(value.isoformat())
    if isinstance(value, str):
        try:
            return parse_time(value)
        except ValueError:
            pass
    needle = f'"{value}"' if isinstance(value, str) else f"{key} ="
    raise doc.error(f"{key} = {value!r} is not a time", needle, fix='write it like "2026-03-01T20:00:00Z"')


def load_ruleset(name: str, game: str) -> dict[str, Any]:
    """The options of config/rulesets/<name>.toml. Raises ConfigError when missing or for another game."""
    path = data_dir("config") / "rulesets" / f"{name}.toml"
    if not path.exists():
        have = sorted(p.stem for p in path.parent.glob("*.toml"))
        raise ConfigError(f"no ruleset '{name}'", path=str(path), fix="rulesets: " + ", ".join(have))
    doc = load_toml(path)
    if doc.data.get("game", game) != game:
        raise doc.error(f"ruleset '{name}' is for game '{doc.data.get('game')}', not '{game}'", "game")
    options = doc.data.get("options", {})
    if not isinstance(options, dict):
        raise doc.error("[options] must be a table", "options")
    return dict(options)


def _players(doc: TomlFile, entries: Any, signup: bool = False) -> tuple[tuple[PlayerRef, ...], tuple[str, ...]]:
    if signup and entries is None:   # a game that starts with sign-ups has no roster yet
        return (), ()
    if not isinstance(entries, list) or not entries:
        raise doc.error("the game has no players", fix='add [[players]] tables with name = "..."')
    players, dead = [], []
    for entry in entries:
        doc.table(entry, PLAYER_KEYS, "players")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise doc.error("a player needs a name", "[[players]]", fix='add name = "..."')
        aliases = entry.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise doc.error(f"aliases of {name} must be a list of strings", name)
        role = entry.get("role")
        if role is not None and not isinstance(role, str):
            raise doc.error(f"role of {name} must be a string", name)
        forum, gender = entry.get("forum"), entry.get("gender")
        if not isinstance(forum, (str, type(None))) or gender not in (None, "f", "m"):
            raise doc.error(f"forum of {name} must be a string, gender \"f\" or \"m\"", name)
        players.append(PlayerRef(name.strip(), tuple(aliases), role, forum, gender))
        if entry.get("alive", True) is False:
            dead.append(name.strip())
    return tuple(players), tuple(dead)


def game_config_from(doc: TomlFile, default_name: str) -> GameConfig:
    """The [game], [[players]] and [grammar] parts of a scenario or game config."""
    game = doc.data.get("game")
    if game is None:
        raise doc.error("there is no [game] table", fix='start the file with [game] and name = "mafia"')
    doc.table(game, GAME_KEYS, "game")
    kind = game.get("name")
    if not isinstance(kind, str):
        raise doc.error("[game] needs name = \"mafia\" (the game to play)", "[game]")
    lang = game.get("lang", "en")
    if lang not in LANGS:
        raise doc.error(f"lang = '{lang}' is not supported", "lang", fix="use one of: " + ", ".join(LANGS))
    if "start" not in game:
        raise doc.error("[game] needs start = \"...\" (when the first phase starts)", "[game]",
                        fix='add start = "2026-03-01T20:00:00Z"')
    options: dict[str, Any] = {}
    ruleset = game.get("ruleset")
    if ruleset is not None:
        options.update(load_ruleset(str(ruleset), kind))
    overrides = game.get("options", {})
    if not isinstance(overrides, dict):
        raise doc.error("[game.options] must be a table", "options")
    options.update(overrides)
    players, dead = _players(doc, doc.data.get("players"), game.get("phase") == "signup")
    grammar_table = doc.data.get("grammar", {})
    doc.table(grammar_table, ("commands",), "grammar")
    extra = commands_from_toml(grammar_table.get("commands", []), doc, "grammar.commands")
    phrases = game.get("phrases", {})
    if not isinstance(phrases, dict) or not all(isinstance(v, str) for v in phrases.values()):
        raise doc.error("[game.phrases] must map phrase names to strings", "phrases")
    state = {"no_lynch_used": game["no_lynch_used"]} if "no_lynch_used" in game else {}
    dialect = game.get("dialect", "markdown")
    if dialect not in POST_DIALECTS:
        raise doc.error(f"dialect = {dialect!r} is not one the bot can post in", "dialect",
                        fix="use one of: " + ", ".join(POST_DIALECTS))
    cohosts = game.get("cohosts", [])
    if not isinstance(cohosts, list) or not all(isinstance(c, str) and c.strip() for c in cohosts):
        raise doc.error("cohosts must be a list of account names", "cohosts", fix='cohosts = ["Account"]')
    reading = game.get("reading")
    if reading is not None and reading not in READINGS:
        raise doc.error(f"reading = '{reading}' is not a reading mode", "reading",
                        fix="use one of: " + ", ".join(READINGS))
    edit_policy = game.get("edit_policy")
    if edit_policy is not None and edit_policy not in EDIT_POLICIES:
        raise doc.error(f"edit_policy = '{edit_policy}' is not an edit policy", "edit_policy",
                        fix="use one of: " + ", ".join(EDIT_POLICIES))
    return GameConfig(
        name=default_name, game=kind, lang=lang, start=_time(doc, game["start"], "start"), players=players,
        options=options, ruleset=ruleset, phase=game.get("phase"), host=game.get("host"), dead=dead,
        cohosts=tuple(c.strip() for c in cohosts), state=state, grammar=tuple(extra), dialect=dialect,
        templates=game.get("templates"), phrases=dict(phrases), source=doc.path,
        tournament=str(game["tournament"]) if game.get("tournament") else None, reading=reading,
        edit_policy=edit_policy)


def load_scenario(path: str | Path) -> Scenario:
    """A scenario file. Raises ConfigError naming the file, the line and the fix."""
    return scenario_from(load_toml(path), Path(path).stem)


def scenario_from(doc: TomlFile, name: str) -> Scenario:
    """A scenario or game file's parsed text (a file, or a game made in the host console), its game named
    `name`. Raises ConfigError naming the file, the line and the fix."""
    for key in doc.data:
        if key not in TOP_KEYS:
            raise doc.error(f"unknown table '{key}'", key, fix=unknown_key_fix(key, TOP_KEYS))
    config = game_config_from(doc, name)
    posts = []
    entries = doc.data.get("posts", [])
    if not isinstance(entries, list):
        raise doc.error("posts must be [[posts]] tables", "posts")
    lines = [n for n, text in enumerate(doc.text.splitlines(), 1) if text.strip() == "[[posts]]"]
    for index, entry in enumerate(entries):
        doc.table(entry, POST_KEYS, "posts")
        line = lines[index] if index < len(lines) else None
        missing = [k for k in ("at", "author", "text") if k not in entry]
        if missing:
            raise ConfigError(f"a post lacks {', '.join(missing)}", path=doc.path, line=line,
                              fix="every [[posts]] needs at, author and text")
        if not isinstance(entry["text"], str) or not isinstance(entry["author"], str):
            raise ConfigError("a post's author and text must be strings", path=doc.path, line=line)
        pm = bool(entry.get("pm", False))
        thread = entry.get("thread")
        if not pm and not isinstance(thread, str):
            raise ConfigError("a post needs thread = \"votes\" (or \"game\"), or pm = true", path=doc.path,
                              line=line, fix='add thread = "votes"')
        at = _time(doc, entry["at"], "at")
        edit, edited_at = entry.get("edit"), entry.get("edited_at")
        if (edit is None) != (edited_at is None) or (edit is not None and (pm or not isinstance(edit, str))):
            raise ConfigError("an edited post needs edit (its new text) and edited_at, in a thread", path=doc.path,
                              line=line, fix='add edit = "vote Bob" and edited_at = "..." to a thread post')
        when = _time(doc, edited_at, "edited_at") if edited_at is not None else None
        if when is not None and when <= at:
            raise ConfigError("a post is edited after it is made", path=doc.path, line=line,
                              fix="make edited_at later than at")
        posts.append(ScenarioPost(at, entry["author"], entry["text"], None if pm else thread, pm, line, edit, when))
    run = doc.data.get("run", {})
    doc.table(run, RUN_KEYS, "run")
    until = _time(doc, run["until"], "until") if "until" in run else None
    poll = run.get("poll_seconds", 0)
    if not isinstance(poll, int) or poll < 0:
        raise doc.error("poll_seconds must be a whole number ≥ 0", "poll_seconds")
    expect = doc.data.get("expect", {})
    if not isinstance(expect, dict):
        raise doc.error("[expect] must be a table", "expect")
    return Scenario(config, tuple(sorted(posts, key=lambda p: p.at)), until, poll, expect)


_QUOTED = re.compile(r"'([^']+)'")


def locate(err: ConfigError, path: str, doc: TomlFile | None = None) -> ConfigError:
    """A ConfigError raised without a file (by a game checking its options) pointed at `path`'s line (in
    `doc`, the text already read, when given)."""
    if err.path and err.path not in ("options", "stored state"):
        return err
    if doc is None:
        try:
            doc = load_toml(path)
        except ConfigError:
            return err
    found = _QUOTED.search(str(err))
    line = doc.line_of(found.group(1)) if found else None
    message = str(err).split("\n")[0]
    if err.path and message.startswith(f"{err.path}: "):
        message = message[len(err.path) + 2:]
    return ConfigError(message, path=path, line=line, fix=err.fix)
