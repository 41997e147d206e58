"""One game as the runner drives it: its rules, parser, renderer and threads on the platform, built from
its config (or from a lobby's record of a game it started)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from forumbot.config.game import GameConfig
from forumbot.errors import ConfigError
from forumbot.games import Game, GameSetup, get_game
from forumbot.model import PlayerRef, parse_time
from forumbot.render import Renderer
from forumbot.render.renderer import DIALECTS
from forumbot.seating import name_key
from forumbot.text.grammar import Grammar, grammar_path, load_grammar
from forumbot.text.names import Roster
from forumbot.text.nicknames import NicknameBook, Taught, taught_names
from forumbot.text.parse import PostParser


def shared_grammar(game: str, lang: str) -> Grammar:
    """The game's grammar with the host's commands, compiled once for every game of that kind and language
    (a bot with 100 games held 100 copies: about a third of its memory). A Grammar is not changed once
    built. An edit of either file makes a new one, so a host's edits still apply to games built after."""
    return _compiled_grammar(game, lang, _stamp(grammar_path(game, lang)), _stamp(grammar_path("host", lang)))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None   # load_grammar says what is missing (an error is not cached)
    return found.st_mtime_ns, found.st_size


@lru_cache(maxsize=16)
def _compiled_grammar(game: str, lang: str, *stamps: tuple[int, int] | None) -> Grammar:
    grammar = load_grammar(game, lang)
    return grammar.with_commands(load_grammar("host", lang).commands, "host commands")


def setup_of(config: GameConfig) -> GameSetup:
    return GameSetup(game=config.game, players=config.players, start=config.start, options=config.options,
                     phase=config.phase, lang=config.lang, host=config.host, dead=config.dead,
                     state=config.state)


def check_setup(config: GameConfig) -> Any:
    """The game's first state, or ConfigError when the rules refuse the setup or the game could never be
    played to its end (a one-player roster, Mafia players without roles). A live game without a seed
    gets a secret one when it starts, so the check lends it one."""
    game = get_game(config.game)
    options = config.options if "seed" in config.options else {**config.options, "seed": 1}
    state = game.new(GameSetup(game=config.game, players=config.players, start=config.start, options=options,
                               phase=config.phase, lang=config.lang, host=config.host, dead=config.dead,
                               state=config.state))
    unplayable = getattr(game, "unplayable", None)
    problem = unplayable(state) if unplayable else None
    if problem:
        raise ConfigError(problem[0], path=config.source or None, fix=problem[1])
    return state


@dataclass
class GameRun:
    """One game the runner drives: its rules, its parser and renderer, its threads on the platform."""

    config: GameConfig
    game: Game
    parser: PostParser
    renderer: Renderer
    thread_prefix: str = ""          # platform thread id = prefix + the game's thread name ...
    thread_ids: dict[str, str] = field(default_factory=dict)   # ... unless the config names it here
    open_threads: bool = False       # threads not named are opened on the platform (forumbot/engine/threads.py)
    opened: datetime | None = field(default=None, compare=False, repr=False)   # PMs sent before are not its own
    # Nicknames the host confirmed ((word, player), in order), and those the thread teaches, not confirmed
    # (folded word → player; forumbot/text/nicknames.py): the host layer keeps both, the run reads with them.
    nicknames: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    taught: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    book: NicknameBook | None = field(default=None, compare=False, repr=False)
    players_now: tuple[PlayerRef, ...] | None = field(default=None, compare=False, repr=False)   # use_roster's

    @classmethod
    def build(cls, config: GameConfig, dialect: str = "markdown", thread_prefix: str | None = None,
              thread_ids: dict[str, str] | None = None, open_threads: bool = False,
              bbcode_extra: Collection[str] | None = None) -> GameRun:
        """Everything a game needs, from its config. Raises ConfigError for a bad grammar or template.
        `bbcode_extra`: the BBCodes the board has beyond stock phpBB's (None: as a board with [s])."""
        game = get_game(config.game)
        grammar = shared_grammar(config.game, config.lang)
        if config.grammar:
            grammar = grammar.with_commands(config.grammar, config.source)
        roster = Roster(config.players, lang=config.lang)
        renderer = Renderer(dialect if dialect in DIALECTS else "markdown", config.lang,
                            template_dir=config.templates, overrides=config.phrases,
                            genders={p.name: p.gender for p in config.players if p.gender},
                            bbcode_extra=bbcode_extra, zone=str(config.options.get("calendar_tz", "UTC")))
        prefix = f"{config.name}/" if thread_prefix is None else thread_prefix
        return cls(config, game, PostParser(grammar, roster, config.reading, config.host),
                   renderer, prefix, dict(thread_ids or {}), open_threads)

    @property
    def name(self) -> str:
        """The game's name (its config's)."""
        return self.config.name

    def use_roster(self, players: tuple[PlayerRef, ...] | None) -> None:
        """Read names against `players`, and write with their genders (a game that makes its roster as it
        goes: Mafia's sign-ups); None leaves it all as it is. The parser is rebuilt only on a change."""
        if players is None or tuple(p.name for p in players) == self.parser.roster.names:
            return
        self.players_now = players
        self._read_with(players)
        self.renderer.genders.update({p.name: p.gender for p in players if p.gender})

    def use_nicknames(self, nicknames: tuple[tuple[str, str], ...]) -> None:
        """Read names with the nicknames the host confirmed, (word, player) each, as aliases."""
        if nicknames != self.nicknames:
            self.nicknames = nicknames
            self._read_with(self.players_now)

    def learn(self, taught: Taught, text: str, dialect: str) -> Taught:
        """Read names with what the thread has taught so far (`taught`, before this post), and what it has
        taught once this post is read too."""
        if self.book is None or self.book.names != self.parser.roster.names:
            roster = self.parser.roster
            self.book = NicknameBook(roster.names, roster.names_whole(), suggest=roster.suggest)
        names = taught_names(self.book, taught)
        if names != self.taught:
            self.taught = names
            self.parser.roster.teach(names)
        return self.book.read(taught, text, dialect)

    def _read_with(self, players: tuple[PlayerRef, ...] | None) -> None:
        """The same reading mode and host as the game was built with: only the roster is new."""
        roster = _roster_with(tuple(self.config.players if players is None else players), self.nicknames,
                              self.config.lang)
        self.parser = PostParser(self.parser.grammar, roster, self.config.reading, self.config.host)
        roster.teach(self.taught)

    def thread_id(self, thread: str) -> str:
        return self.thread_ids.get(thread) or f"{self.thread_prefix}{thread}"

    def thread_name(self, thread_id: str) -> str:
        for name, platform_id in self.thread_ids.items():
            if platform_id == thread_id:
                return name
        return thread_id[len(self.thread_prefix):] if thread_id.startswith(self.thread_prefix) else thread_id


def _roster_with(players: tuple[PlayerRef, ...], nicknames: tuple[tuple[str, str], ...], lang: str) -> Roster:
    """A roster whose players also answer to the confirmed nicknames; one that is already someone's name or
    alias (a roster refuses a clash) is left out."""
    taken = {name_key(n) for p in players for n in (p.name, *p.aliases)}
    extra: dict[str, list[str]] = {}
    for word, player in nicknames:
        if name_key(word) not in taken:
            taken.add(name_key(word))
            extra.setdefault(player, []).append(word)
    return Roster(tuple(replace(p, aliases=(*p.aliases, *extra.get(p.name, ()))) for p in players), lang=lang)


def spawned_config(lobby: GameRun, entry: dict[str, Any]) -> GameConfig:
    """The config of a game a lobby spawned, from the lobby's record of it."""
    return GameConfig(name=entry["name"], game=entry["game"], lang=lobby.config.lang,
                      start=parse_time(entry["start"]), players=tuple(PlayerRef(p) for p in entry["players"]),
                      options=dict(entry["options"]), host=entry.get("host"), dialect=lobby.config.dialect,
                      source=f"lobby {lobby.name}")
