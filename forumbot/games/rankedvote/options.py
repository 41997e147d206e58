"""What a host sets for a ranked vote (config/rulesets/cyoa.toml is the seed's)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.options import options_from, options_json, seed_text

CHOICES: dict[str, tuple[str, ...]] = {"final_tie": ("default_order", "random")}


@dataclass(frozen=True)
class RankedVoteOptions:
    choices: tuple[str, ...] = ()          # the options ranked, in the order the posts list them
    default_order: tuple[str, ...] = ()    # the ballot of a player who sends none (most preferred first)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)   # option → other spellings
    vote_hours: float = 48.0
    fill_last: bool = False                # a ranking missing only its last option counts, that one last
    final_tie: str = "default_order"       # when every option still in contention ties: the earliest in
    #                                        default_order wins, or a draw from the seed
    seed: str = ""
    game_thread: str = "game"

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "options") -> RankedVoteOptions:
        options = options_from(cls, data, source, "ranked-vote", choices=CHOICES,
                               converters={"aliases": _aliases, "seed": seed_text})
        if len(options.choices) < 2 or len(set(options.choices)) != len(options.choices):
            raise ConfigError("a ranked vote needs at least two different choices", path=source,
                              fix='write choices = ["Food Chain", "123 Game", ...]')
        if not options.default_order:
            options = replace(options, default_order=options.choices)
        if sorted(options.default_order) != sorted(options.choices):
            raise ConfigError("default_order must rank every choice once", path=source,
                              fix="list each of: " + ", ".join(options.choices))
        unknown = [a for a in options.aliases if a not in options.choices]
        if unknown:
            raise ConfigError(f"aliases name something that is not a choice: {', '.join(unknown)}", path=source)
        if options.vote_hours <= 0:
            raise ConfigError("vote_hours must be positive", path=source)
        if options.final_tie == "random" and not options.seed:
            raise ConfigError("final_tie = \"random\" needs a seed", path=source, fix='add seed = "..."')
        return options

    def to_json(self) -> dict[str, Any]:
        return options_json(self)


def _aliases(value: Any, source: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in value.values()):
        raise ConfigError("aliases must be a table of choice = [\"spelling\", ...]", path=source)
    return {str(k): tuple(v) for k, v in value.items()}
