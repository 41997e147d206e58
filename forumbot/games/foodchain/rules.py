"""The rules of Food Chain (seed 003) as pure functions: who may kill whom, one round's resolution (Hunter
attacks before Predator attacks, two killers, starvation), each round's points, and the end of the game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ANIMALS = ("predator", "prey", "scavenger", "hunter")
HABITATS = ("forest", "field", "river", "sky")
NEEDS_HABITAT = ("predator", "prey")


@dataclass(frozen=True)
class Animal:
    kind: str                  # one of ANIMALS
    main: str | None = None    # the Main Habitat (Predators and Prey)


def may_kill(attacker: Animal, target: Animal, where: str) -> tuple[bool, str]:
    """Whether an attack kills, with the rule that decides it (both are in `where`)."""
    if attacker.kind == "hunter":
        if target.kind in ("prey", "scavenger"):
            return True, "hunters kill prey and scavengers"
        return False, f"hunters never kill {target.kind}s"
    if attacker.kind != "predator":
        return False, f"{attacker.kind}s do not attack"
    if target.kind == "hunter":
        return True, "predators always kill hunters"
    if target.kind == "scavenger":
        return False, "predators never kill scavengers"
    if target.kind == "predator":
        if where == attacker.main and where != target.main:
            return True, "a predator in its main habitat kills a predator that is not in its own"
        if where != attacker.main:
            return False, "a predator kills another predator only in its own main habitat"
        return False, "the other predator is in its main habitat too"
    if where == target.main and where != attacker.main:
        return False, "prey in its main habitat is safe from a predator outside its own"
    return True, "predators kill prey"


@dataclass
class RoundResult:
    attacks: list[dict[str, Any]] = field(default_factory=list)    # attacker, target, location, succeeded, why
    deaths: list[dict[str, Any]] = field(default_factory=list)     # player, cause (hunted, eaten, starved)
    fed: dict[str, int] = field(default_factory=dict)              # predator → animals eaten as sole killer
    points: dict[str, int] = field(default_factory=dict)           # points gained this round, by survivor


def resolve_round(animals: Mapping[str, Animal], location: Mapping[str, str], alive: Sequence[str],
                  attacks: Mapping[str, Sequence[str]], prey_divisor: int = 4) -> RoundResult:
    """One round at the players' current locations: Hunter attacks, then Predator attacks on those still
    alive, then starvation, then the points of those alive at the end. `attacks` maps an attacker to its
    targets (already checked to be alive, other players in the attacker's location)."""
    out = RoundResult()
    dead: dict[str, str] = {}
    order = [p for p in alive if attacks.get(p)]

    def attack(attacker: str, target: str, succeeded: bool, why: str) -> None:
        out.attacks.append({"attacker": attacker, "target": target, "location": location[attacker],
                            "succeeded": succeeded, "why": why})

    for attacker in (p for p in order if animals[p].kind == "hunter"):
        for target in attacks[attacker]:
            ok, why = may_kill(animals[attacker], animals[target], location[attacker])
            attack(attacker, target, ok, why)
            if ok:
                dead.setdefault(target, "hunted")
    killers: dict[str, list[str]] = {}
    for attacker in (p for p in order if animals[p].kind == "predator"):
        for target in attacks[attacker]:
            if dead.get(target) == "hunted":
                attack(attacker, target, False, "already killed by a hunter this round")
                continue
            ok, why = may_kill(animals[attacker], animals[target], location[attacker])
            attack(attacker, target, ok, why)
            if ok:
                killers.setdefault(target, []).append(attacker)
    for target, by in killers.items():
        dead.setdefault(target, "eaten")
        if len(set(by)) == 1:
            out.fed[by[0]] = out.fed.get(by[0], 0) + 1
        else:
            for entry in out.attacks:
                if entry["target"] == target and entry["attacker"] in by:
                    entry["why"] += "; killed together with another predator: no reward"
    for player in alive:
        if animals[player].kind == "predator" and player not in dead and not out.fed.get(player):
            dead[player] = "starved"
    out.deaths = [{"player": p, "cause": dead[p]} for p in alive if p in dead]
    survivors = [p for p in alive if p not in dead]
    predators_alive = sum(1 for p in survivors if animals[p].kind == "predator")
    predators_died = sum(1 for p in dead if animals[p].kind == "predator")
    for player in survivors:
        kind = animals[player].kind
        if kind == "predator":
            gained = 1 + out.fed.get(player, 0)
        elif kind == "prey":
            others = sum(1 for p in survivors if p != player and location[p] == location[player])
            gained = 1 + -(-others // prey_divisor)
        elif kind == "scavenger":
            gained = len(dead)
        else:
            gained = predators_alive + predators_died
        out.points[player] = gained
    return out


def crowd_penalty(animals: Mapping[str, Animal], limit: int = 5) -> dict[str, int]:
    """What each player loses at the end because more than `limit` players chose their animal."""
    counts = {k: sum(1 for a in animals.values() if a.kind == k) for k in ANIMALS}
    return {p: max(0, counts[a.kind] - limit) for p, a in animals.items()}


def death_conditions(animals: Mapping[str, Animal], dead: Mapping[str, str], total_dead: int,
                     scavenger_min_dead: int = 9) -> dict[str, str]:
    """Who met their Death Condition by the end, and how, as an id: the cause of a death in a round (hunted,
    eaten, starved), or an end-of-game condition (few_dead: a Scavenger alive with fewer than
    `scavenger_min_dead` dead; predator_alive: a Hunter alive with a Predator alive)."""
    met = dict(dead)
    predators_alive = any(a.kind == "predator" and p not in dead for p, a in animals.items())
    for player, animal in animals.items():
        if player in met:
            continue
        if animal.kind == "scavenger" and total_dead < scavenger_min_dead:
            met[player] = "few_dead"
        elif animal.kind == "hunter" and predators_alive:
            met[player] = "predator_alive"
    return met


@dataclass(frozen=True)
class Outcome:
    case: str                          # survivors, all_dead, all_tied
    winners: tuple[str, ...]
    tol: dict[str, int]
    garnets: dict[str, int]
    ec_candidates: tuple[str, ...]     # who may be named Elimination Candidate
    ec_voters: tuple[str, ...]         # who names them (none when there is one candidate)


def outcome(players: Sequence[str], points: Mapping[str, int], met: Mapping[str, str], *, sole_winner_tol: int = 2,
            winner_tol: int = 1, all_dead_garnets: int = 4, garnet_divisor: int = 3) -> Outcome:
    """Winners, Tokens of Life, garnets and the Elimination Candidate's choice, from the final points
    (after the crowd penalty) and who met their Death Condition."""
    survivors = [p for p in players if p not in met]
    pool = survivors or list(players)
    best = max(points[p] for p in pool)
    winners = tuple(p for p in pool if points[p] == best)
    if survivors:
        garnets = {p: max(0, points[p]) // garnet_divisor for p in survivors}
    else:
        garnets = {p: all_dead_garnets for p in winners}
    if len(players) > 1 and len(winners) == len(players):
        # "If all players tie, then no ToLs are given and there is a majority vote for the EC": every player
        # wins (no one or everyone met their Death Condition, all with the same points); all of them vote.
        return Outcome("all_tied", winners, {}, garnets, tuple(players), tuple(players))
    tol = {p: sole_winner_tol if len(winners) == 1 else winner_tol for p in winners}
    if survivors and len(survivors) < len(players):
        candidates = tuple(p for p in players if p in met)
    else:
        # Everyone met their Death Condition, or no one did: the fewest points is the EC (ties: the winners'
        # choice among them).
        low = min(points[p] for p in players)
        candidates = tuple(p for p in players if points[p] == low)
    case = "survivors" if survivors else "all_dead"
    if len(survivors) == len(players):
        case = "none_dead"
    return Outcome(case, winners, tol, garnets, candidates, winners if len(candidates) > 1 else ())
