"""The state of a Food Chain game: an immutable value, stored as JSON between steps."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.games.base import state_json
from forumbot.games.foodchain.options import FoodChainOptions
from forumbot.games.foodchain.rules import Animal
from forumbot.model import parse_time

SELECTION, ROUND, EC_VOTE, OVER = "selection", "round", "ec_vote", "over"


@dataclass(frozen=True)
class FCState:
    players: tuple[str, ...]
    options: FoodChainOptions
    host: str | None
    phase: str
    ends: datetime
    round: int = 0
    picks: dict[str, dict[str, str]] = field(default_factory=dict)      # selection drafts
    animals: dict[str, Animal] = field(default_factory=dict)
    randomized: dict[str, list[str]] = field(default_factory=dict)     # player → parts drawn from the seed
    location: dict[str, str] = field(default_factory=dict)             # where each living player is now
    dead: dict[str, str] = field(default_factory=dict)                 # player → cause
    moves: dict[str, str] = field(default_factory=dict)                # this round's submitted next location
    attacks: dict[str, list[str]] = field(default_factory=dict)        # this round's attacks
    attack_post: dict[str, str] = field(default_factory=dict)          # the post the attacks came from
    # this round's attempts on players in another location: they cannot kill, but, as every attempted
    # attack, they are revealed to the players in the attacker's location
    attempts: dict[str, list[str]] = field(default_factory=dict)
    touched: tuple[str, ...] = ()                                      # players owed a reply
    points: dict[str, int] = field(default_factory=dict)               # hidden until the end
    history: tuple[dict[str, Any], ...] = ()                           # one record per round
    result: dict[str, Any] = field(default_factory=dict)               # the end: outcome, penalties, EC
    ec_votes: dict[str, str] = field(default_factory=dict)

    def with_(self, **changes: Any) -> FCState:
        return replace(self, **changes)

    @property
    def alive(self) -> list[str]:
        return [p for p in self.players if p not in self.dead]

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.options.seed}:{purpose}")

    def touch(self, player: str) -> FCState:
        return self if player in self.touched else self.with_(touched=(*self.touched, player))


def state_to_json(state: FCState) -> dict[str, Any]:
    return state_json(state, {"animals": lambda v: {p: {"kind": a.kind, "main": a.main} for p, a in v.items()}})


def state_from_json(data: dict[str, Any]) -> FCState:
    values = dict(data)
    values["options"] = FoodChainOptions.from_dict(data["options"], "stored state")
    values["ends"] = parse_time(data["ends"])
    values["animals"] = {p: Animal(a["kind"], a["main"]) for p, a in data["animals"].items()}
    for name in ("players", "touched", "history"):
        values[name] = tuple(data[name])
    return FCState(**values)
