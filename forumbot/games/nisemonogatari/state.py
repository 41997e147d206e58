"""The state of a Nisemonogatari game: an immutable value, stored as JSON between steps. Adoration and the
hearts are whole hundredths."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.games.base import state_json
from forumbot.games.nisemonogatari.options import NisemonoOptions
from forumbot.games.nisemonogatari.words import SLOTS, char_id, default_name
from forumbot.model import parse_time

ROUND, TIEBREAK, OVER = "round", "tiebreak", "over"


@dataclass(frozen=True)
class NMState:
    players: tuple[str, ...]
    options: NisemonoOptions
    chart: dict[str, Any]                                             # the host's chart, checked (chart.py)
    host: str | None
    phase: str
    ends: datetime
    round: int = 1
    names: dict[str, str] = field(default_factory=dict)              # Character id → its name now
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)  # this round's orders by Character id
    hides: dict[str, str] = field(default_factory=dict)              # player → the Character hidden this round
    boosts: dict[str, str] = field(default_factory=dict)             # player → the Character boosted this round
    spent: dict[str, int] = field(default_factory=dict)              # garnets charged so far
    adoration: dict[str, int] = field(default_factory=dict)          # per Character, until it confesses
    bonus: dict[str, int] = field(default_factory=dict)              # Initiative added this round by events
    hearts: dict[str, int] = field(default_factory=dict)             # stored in Sam senpai's heart, per player
    lessons: dict[str, int] = field(default_factory=dict)            # times a player's Characters taught Rob
    last_orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    tiebreaks: list[dict[str, Any]] = field(default_factory=list)     # the Universal Tiebreaker's choices made
    touched: tuple[str, ...] = ()
    history: tuple[dict[str, Any], ...] = ()
    result: dict[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> NMState:
        return replace(self, **changes)

    @property
    def characters(self) -> list[str]:
        return [char_id(p, s) for p in self.players for s in SLOTS]

    @property
    def events(self) -> dict[str, dict[str, Any]]:
        return {e["key"]: e for e in self.chart["events"]}

    def name(self, char: str) -> str:
        return self.names.get(char, default_name(char))

    def label(self, char: str) -> str:
        """A Character as posts show it: "Hitagi (Ana's CharA)" or "Ana's CharA"."""
        player, slot = char.rsplit(":", 1)
        base = f"{player}'s Char{slot}"
        return f"{self.names[char]} ({base})" if char in self.names else base

    def garnets_left(self, player: str) -> int:
        return self.options.garnets.get(player, 0) - self.spent.get(player, 0)

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.options.seed}:{purpose}")

    def touch(self, player: str) -> NMState:
        return self if player in self.touched else self.with_(touched=(*self.touched, player))


def state_to_json(state: NMState) -> dict[str, Any]:
    return state_json(state)


def state_from_json(data: dict[str, Any]) -> NMState:
    values = dict(data)
    values["options"] = NisemonoOptions.from_dict(data["options"], "stored state")
    values["ends"] = parse_time(data["ends"])
    for name in ("players", "touched", "history"):
        values[name] = tuple(data[name])
    return NMState(**values)
