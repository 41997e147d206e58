"""What a host sets for Food Chain (config/rulesets/foodchain.toml says why each default is what it is)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.options import options_from, options_json, seed_text


@dataclass(frozen=True)
class FoodChainOptions:
    seed: str = ""                     # the secret seed of every random default (selections, moves, EC draws)
    rounds: int = 4
    selection_hours: float = 48.0
    round_hours: float = 24.0
    ec_hours: float = 24.0             # how long the winners have to name the Elimination Candidate
    max_attacks: int = 2               # attacks a Hunter or Predator may make per round
    prey_divisor: int = 4              # Prey: + (others in the room after deaths) / this, rounded up
    crowd_limit: int = 5               # more than this many of one animal: each loses (count - limit)
    scavenger_min_dead: int = 9        # Scavengers alive at the end die when fewer animals died
    sole_winner_tol: int = 2
    winner_tol: int = 1
    all_dead_garnets: int = 4          # each winner's garnets when every player met their Death Condition
    garnet_divisor: int = 3
    game_thread: str = "game"
    channels: bool = True              # a thread per habitat ("forest", ...) and one for the dead ("dead"),
    #                                    moderated by the bot: a post by someone not there is flagged and removed
    tokens: dict[str, int] = field(default_factory=dict)   # each player's Tokens of Life at the start (the
    #                                    tournament ledger's), shown in the opening post

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "options") -> FoodChainOptions:
        options = options_from(cls, data, source, "Food Chain", converters={"seed": seed_text})
        if not options.seed:
            raise ConfigError("Food Chain needs a secret seed for its random defaults", path=source,
                              fix='add seed = "..." to [game.options]')
        if options.rounds < 1 or options.max_attacks < 0 or options.prey_divisor < 1 or options.garnet_divisor < 1:
            raise ConfigError("rounds, prey_divisor and garnet_divisor must be at least 1, max_attacks at least 0",
                              path=source)
        if min(options.selection_hours, options.round_hours, options.ec_hours) <= 0:
            raise ConfigError("selection_hours, round_hours and ec_hours must be positive", path=source)
        if any(not isinstance(v, int) or v < 0 for v in options.tokens.values()):
            raise ConfigError("a player's Tokens of Life are a whole number, 0 or more", path=source)
        return options

    def to_json(self) -> dict[str, Any]:
        return options_json(self)
