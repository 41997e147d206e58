"""What every game is: a pure state machine. No I/O, no clock (time arrives as an argument), no randomness
except from a seeded generator kept in the state."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any, Protocol

from forumbot.errors import IllegalIntent
from forumbot.model import Event, Intent, PlayerRef, format_time


@dataclass(frozen=True)
class GameSetup:
    """Everything a game needs to start: from a scenario or a game config."""

    game: str
    players: tuple[PlayerRef, ...]
    start: datetime
    options: dict[str, Any] = field(default_factory=dict)   # the ruleset merged with the host's overrides
    phase: str | None = None
    lang: str = "en"
    host: str | None = None
    dead: tuple[str, ...] = ()          # players who start dead (a game resumed mid-way)
    state: dict[str, Any] = field(default_factory=dict)    # more starting state, game-specific


class Refused(IllegalIntent):
    """Why a game does not take an intent: the English text (flags' fallback, logs), a `code` naming the
    phrase refuse_<code> in the post's language, and its `params`."""

    def __init__(self, text: str, code: str = "", **params: Any) -> None:
        super().__init__(text)
        self.code, self.params = code, params


def refused(intent: Intent, why: Refused, subject: str) -> Event:
    """The private answer to an intent a game refused with `why`."""
    return refusal(intent, str(why), code=why.code, params=why.params, pm=True, subject=subject)


def refusal(intent: Intent, reason: str, *, code: str = "", params: dict[str, Any] | None = None,
            pm: bool = False, subject: str = "") -> Event:
    """The "rejected" event every game and the host layer answer a refused intent with: the English
    `reason` for flags and logs, a `code` and its `params` for the post's language, and, with `pm`, a
    private answer to the author (the runner also flags every refusal for the host)."""
    data: dict[str, Any] = {"author": intent.author, "reason": reason, "code": code, "params": dict(params or {}),
                            "post": intent.post_id, "url": intent.url, "line": intent.line}
    if pm:
        data["pm_to"] = intent.author
        if subject:
            data["subject"] = subject
    return Event("rejected", data)


def state_json(state: Any, convert: Mapping[str, Callable[[Any], Any]] = {}) -> dict[str, Any]:
    """A game's frozen state dataclass as JSON: `options` by its to_json, `ends` as time text, tuples as
    lists, the fields named in `convert` by their own function."""
    out: dict[str, Any] = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if f.name in convert:
            value = convert[f.name](value)
        elif f.name == "options":
            value = value.to_json()
        elif f.name == "ends":
            value = format_time(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


class Game(Protocol):
    """A game's rules. `State` is the game's own immutable value; the runner stores it as JSON."""

    name: str

    def new(self, setup: GameSetup) -> Any:
        """The state at the start. Raises ConfigError when the setup breaks the rules."""

    def apply(self, state: Any, intent: Intent) -> tuple[Any, list[Event]]:
        """The state after one player's intent, and what happened. A refused intent is an event, never
        an exception."""

    def on_deadline(self, state: Any, at: datetime, now: datetime | None = None) -> tuple[Any, list[Event]]:
        """The state after the deadline `at` passed (`now` is when the bot noticed: later when it was down,
        so a game can drop what has gone stale, such as a reminder for a phase that has ended since)."""

    def next_deadline(self, state: Any) -> datetime | None:
        """When the current phase ends, or None when nothing is pending."""

    def shift(self, state: Any, delta: timedelta) -> Any:
        """The state with every pending deadline moved by `delta` (the host extended, ended early or
        paused the game)."""

    def report(self, state: Any, at: datetime) -> tuple[Any, list[Event]]:
        """A progress report (a vote count) when the last batch of intents changed something worth
        reporting; no events when nothing changed."""

    def tally(self, state: Any, at: datetime) -> Event | None:
        """The current count for `forumbot tally` (not posted, not counted), or None."""

    def start_events(self, state: Any) -> list[Event]:
        """What the bot announces when the game starts."""

    def threads(self, state: Any) -> dict[str, str]:
        """The game's threads by purpose ("game", "votes", ...) → the thread's name in the game."""

    def command_threads(self, state: Any) -> tuple[str, ...]:
        """The threads whose posts carry commands; posts elsewhere are stored but not parsed."""

    def to_json(self, state: Any) -> dict[str, Any]:
        """The whole state as JSON-able data (for the store)."""

    def from_json(self, data: dict[str, Any]) -> Any:
        """The state back from `to_json`'s data."""

    def summary(self, state: Any) -> dict[str, Any]:
        """The public view of the state, as `forumbot replay --json` prints it."""

    def eliminated(self, state: Any) -> tuple[str, ...]:
        """The players the game has put out so far (killed, starved, lynched, modkilled...), by their names in
        the game; () for a game that puts nobody out. The seating chart marks their seats dead from it (the
        dead chat, the right to post)."""

    # Optional, asked with getattr where a game has them:
    #   dead_threads(state) -> tuple of purposes: the game's own threads where its dead talk (and the living
    #   do not), now (Food Chain's dead channel during the rounds);
    #   end_by_host(state, at) -> state: the host ends the running phase at `at` (else `shift` is used);
    #   phase_window(state) -> (started, ends) | None: the running phase's span; before its end the runner
    #   re-reads for edits only the phase's own command posts, and not before a reminder.
