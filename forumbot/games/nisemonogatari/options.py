"""What a host sets for Nisemonogatari (config/rulesets/nisemonogatari.toml says why each default is what it
is). The charts themselves are in a file the `chart` option names (forumbot/games/nisemonogatari/chart.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.options import options_from, options_json, seed_text

CHOICES: dict[str, tuple[str, ...]] = {"missing_orders": ("idle", "repeat"), "universal_tiebreaker": ("draw", "host")}


@dataclass(frozen=True)
class NisemonoOptions:
    seed: str = ""                     # the secret seed of the Universal Tiebreaker's draw
    chart: str = ""                    # "example" or the path of the host's chart file; none: the game won't start
    rounds: int = 6
    round_hours: float = 48.0
    initiative: int = 5                # given to each player every round, not carried over
    crowd_cap: int = 9                 # A is capped at this
    crowd_counts_self: bool = True     # A counts the Character itself (the formula) or only the others (the prose)
    boost_cap: float = 1.5             # a boosted multiplier never goes above this
    hide_cost: int = 2                 # garnets to hide one Character's location for a round
    boost_cost: int = 2                # garnets to raise one confessing Character's multiplier one tier
    missing_orders: str = "idle"       # a Character without orders: idle at no location, or last round's repeated
    universal_tiebreaker: str = "draw"  # a seeded draw (its seed's hash posted at the start, the seed at the
    #                                     end), or "host": the host PMs "tiebreak NAME"
    tiebreak_hours: float = 24.0       # how long the host has; then the seeded draw decides
    sole_winner_tol: int = 2
    joint_winner_tol: int = 1
    garnets: dict[str, int] = field(default_factory=dict)   # each player's garnets at the start (the ledger's)
    game_thread: str = "game"

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "options") -> NisemonoOptions:
        options = options_from(cls, data, source, "Nisemonogatari", choices=CHOICES, converters={"seed": seed_text})
        if not options.seed:
            raise ConfigError("Nisemonogatari needs a secret seed for the Universal Tiebreaker", path=source,
                              fix='add seed = "..." to [game.options]')
        if options.rounds < 1 or options.initiative < 0 or not 1 <= options.crowd_cap <= 9:
            raise ConfigError("rounds must be at least 1, initiative at least 0, crowd_cap from 1 to 9", path=source)
        positive = min(options.round_hours, options.tiebreak_hours, options.boost_cap)
        if positive <= 0 or min(options.hide_cost, options.boost_cost) < 0:
            raise ConfigError("round_hours, tiebreak_hours and boost_cap must be positive, the garnet costs 0 or "
                              "more", path=source)
        if any(v < 0 for v in options.garnets.values()):
            raise ConfigError("a player's garnets cannot be negative", path=source, fix="write 0 or more")
        return options

    def to_json(self) -> dict[str, Any]:
        return options_json(self)
