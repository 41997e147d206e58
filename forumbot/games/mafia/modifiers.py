"""Vote modifiers: passives that change how a day's votes count.

A role lists them in its `passives` (config/rulesets/*.toml); a game whose host keeps the roles
(`votes_only`) names them per player in the option `vote_modifiers` ({ "Alice" = "hated" }, several
separated by commas). They are:

- double_voter: the player's vote counts twice;
- voteless: the player cannot vote (and is not listed as not voting);
- mayor: the vote counts once until the player reveals (the `reveal` command in the voting thread),
  then twice, publicly;
- loved: one more vote than the majority is needed to hang the player;
- hated: one vote fewer is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forumbot.games.mafia.state import MafiaState

VOTE_PASSIVES = ("double_voter", "voteless", "mayor", "loved", "hated")
# Where a revealed mayor is remembered: the player's memory (kept between days).
REVEALED = "mayor_revealed"


def of(state: MafiaState, name: str) -> tuple[str, ...]:
    """The player's vote modifiers: their role's and the game's per-player option."""
    role = state.options.role(state.roles.get(name))
    found = [p for p in role.passives if p in VOTE_PASSIVES] if role is not None else []
    for player, text in state.options.vote_modifiers:
        if player == name:
            found += [w.strip() for w in str(text).split(",") if w.strip()]
    return tuple(dict.fromkeys(found))


def revealed(state: MafiaState, name: str) -> bool:
    return bool(state.memory.get(name, {}).get(REVEALED))


def weight(state: MafiaState, voter: str) -> int:
    """How many votes the player's vote is worth."""
    mods = of(state, voter)
    if "voteless" in mods:
        return 0
    if "double_voter" in mods or ("mayor" in mods and revealed(state, voter)):
        return 2
    return 1


def most(state: MafiaState, voter: str) -> int:
    """The most the player's vote may be worth this day: a mayor who has not revealed yet may still."""
    return 2 if "mayor" in of(state, voter) and weight(state, voter) == 1 else weight(state, voter)


def offset(state: MafiaState, target: str) -> int:
    """How many more (or fewer) votes than the majority the target needs to hang."""
    mods = of(state, target)
    return ("loved" in mods) - ("hated" in mods)


def labels(state: MafiaState, name: str) -> list[str]:
    """What a vote count says about a player's modifiers when they are public (show_modifiers): loved
    and hated on their wagon."""
    return [m for m in of(state, name) if m in ("loved", "hated")]
