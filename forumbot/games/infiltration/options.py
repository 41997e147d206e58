"""What a host can set for an Infiltration game (config/rulesets/infiltration.toml says why each default
is what it is). Each reading of the rules we had to choose is an option here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.options import options_from, options_json, seed_text

CHOICES: dict[str, tuple[str, ...]] = {
    "spy_reveal": ("public", "private"),
    "mimic_limit": ("per_defeated", "any"),
}


@dataclass(frozen=True)
class InfiltrationOptions:
    seed: str = ""                    # the secret seed of every random draw; its hash is posted at the start
    first: str = "random"             # who moves first: "random" (by the seed) or a player's name
    setup_hours: float = 72.0
    turn_hours: float = 24.0
    prize: int = 25                   # millions of yen, between players who have never won
    prize_after_wins: int = 10        # between players who have won before
    stalemate_penalty: int = 5        # each player pays prize + this when the host ends a stalemate
    stalemate_grace_turns: int = 2    # turns after the host's warning before a stalemate may be declared
    info_points: int = 5              # information points on each half
    spy_reveal: str = "public"        # public: the spied piece is revealed to both; private: to the spy's owner
    spy_reveal_once: bool = True      # a Spy's reveal can be used once (it reveals itself doing it)
    teleport_fixed: bool = False      # whether Teleport may move the Jewel and Deadly Traps
    mimic_limit: str = "per_defeated"  # per_defeated: one Mimic per defeated piece of a kind; any: no limit
    enforce_tiers: bool = True        # only players with the same number of wins may play each other
    game_thread: str = "game"
    wins: dict[str, int] = field(default_factory=dict)     # wins before this game, by player
    money: dict[str, int] = field(default_factory=dict)    # money before this game (millions), by player

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "options") -> InfiltrationOptions:
        """Options from a ruleset/overrides table. Raises ConfigError for an unknown key or a wrong type."""
        options = options_from(cls, data, source, "Infiltration", choices=CHOICES, converters={"seed": seed_text})
        if options.setup_hours <= 0 or options.turn_hours <= 0:
            raise ConfigError("setup_hours and turn_hours must be positive", path=source)
        if not 0 <= options.info_points <= 18:
            raise ConfigError("info_points must be between 0 and 18", path=source)
        return options

    def to_json(self) -> dict[str, Any]:
        return options_json(self)
