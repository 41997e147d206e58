"""One round of Nisemonogatari, resolved from the orders and the host's chart: pure functions on plain data.
Adoration is kept in hundredths (whole numbers), so "rounded to the hundredths" is exact: a product is
rounded half up once, where it is made.

The order of resolution (README "Nisemonogatari"): blocks, then moves (both on where everyone was sent),
then the Adoration formula on where everyone ends up, then added Adoration, then multiplied Adoration,
then Initiative for the next round, Rob's lessons and reveals, then the confessions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from forumbot.games.nisemonogatari.chart import boosted, multiplier

A_CAP = 9
BASE = 10


def round_hundredths(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def earned(crowd: int, initiative: int, cap: int = A_CAP) -> int:
    """Adoration Earned = (10 - A) x (B / 5) in hundredths; A capped at 9, B floored at 0."""
    return (BASE - min(crowd, cap)) * max(initiative, 0) * 20


def scaled(hundredths: int, factor: float) -> int:
    return round_hundredths(Decimal(hundredths) * Decimal(str(factor)))


def owner(char: str) -> str:
    """The player of a Character id ("Ana:A" → "Ana")."""
    return char.rsplit(":", 1)[0]


@dataclass
class Round:
    """What a round's resolution works on and produces."""

    orders: Mapping[str, Mapping[str, Any]]       # char → location, event, initiative, confess, target
    events: Mapping[str, Mapping[str, Any]]       # event key → the chart's event
    bonus: Mapping[str, int]                      # char → Initiative added this round by last round's events
    place: dict[str, str] = field(default_factory=dict)
    blocked: list[str] = field(default_factory=list)
    moved: dict[str, str] = field(default_factory=dict)
    gain: dict[str, int] = field(default_factory=dict)
    bonus_next: dict[str, int] = field(default_factory=dict)
    lessons: dict[str, int] = field(default_factory=dict)
    reveals: list[dict[str, Any]] = field(default_factory=list)

    def here(self, location: str) -> list[str]:
        return [c for c, p in self.place.items() if p == location]

    def event_of(self, char: str) -> Mapping[str, Any]:
        return self.events[self.orders[char]["event"]]

    def targets(self, char: str, effect: Mapping[str, Any]) -> list[str]:
        where = self.place.get(char)
        to = effect["to"]
        if to == "self":
            return [char]
        if to in ("others_here", "all_here"):
            return [c for c in self.here(where or "") if to == "all_here" or c != char]
        target = self.orders[char].get("target")
        if not target or (self.event_of(char)["target"] == "here" and self.place.get(target) != where):
            return []   # no target, or it is not (or no longer) at this location: the effect fizzles
        return [target]

    def applies(self, char: str, effect: Mapping[str, Any]) -> bool:
        count = len(self.here(self.place[char]))
        return effect.get("min_here", 0) <= count <= effect.get("max_here", count)


# A "call" effect's function: (the round, the Character triggering it, the effect) → Adoration added
# (hundredths) by Character. The chart names it; add new ones here.
Function = Callable[[Round, str, Mapping[str, Any]], dict[str, int]]


def per_confessor(rnd: Round, char: str, effect: Mapping[str, Any]) -> dict[str, int]:
    """`amount` Adoration for each other Character at the location that confesses this round."""
    others = [c for c in rnd.here(rnd.place[char]) if c != char and rnd.orders[c].get("confess")]
    return {char: round_hundredths(Decimal(str(effect.get("amount", 0.5))) * 100 * len(others))}


FUNCTIONS: dict[str, Function] = {"per_confessor": per_confessor}


def _effects(rnd: Round, chars: list[str], kinds: tuple[str, ...]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(c, e) for c in chars for e in rnd.event_of(c)["effects"] if e["do"] in kinds and rnd.applies(c, e)]


def resolve(orders: Mapping[str, Mapping[str, Any]], events: Mapping[str, Mapping[str, Any]],
            bonus: Mapping[str, int], adoration: Mapping[str, int], *, cap: int = A_CAP,
            counts_self: bool = True) -> tuple[Round, dict[str, int]]:
    """The round's events and Adoration before the confessions: the Round record, and each Character's
    Adoration after it (never below 0). Characters without orders are idle: at no location."""
    rnd = Round(orders, events, bonus)
    chars = list(orders)
    rnd.place = {c: orders[c]["location"] for c in chars}
    for c, e in _effects(rnd, chars, ("block",)):
        rnd.blocked += [t for t in rnd.targets(c, e) if t not in rnd.blocked]
    free = [c for c in chars if c not in rnd.blocked]
    moves: dict[str, str] = {}
    for c, e in _effects(rnd, free, ("move",)):
        for t in rnd.targets(c, e):
            moves.setdefault(t, e["location"])      # the first move in order of the Characters wins
    rnd.moved = {t: p for t, p in moves.items() if p != rnd.place[t]}
    rnd.place.update(rnd.moved)
    for c in chars:
        crowd = len(rnd.here(rnd.place[c])) - (0 if counts_self else 1)
        rnd.gain[c] = earned(crowd, int(orders[c]["initiative"]) + bonus.get(c, 0), cap)
    # A blocked Character's event does nothing; a moved one is no longer where its event is.
    active = [c for c in chars if c not in rnd.blocked and c not in rnd.moved]
    for c, e in _effects(rnd, active, ("adoration_add", "call")):
        if e["do"] == "call":
            for t, amount in FUNCTIONS[e["function"]](rnd, c, e).items():
                rnd.gain[t] = rnd.gain.get(t, 0) + amount
            continue
        for t in rnd.targets(c, e):
            rnd.gain[t] = rnd.gain.get(t, 0) + round_hundredths(Decimal(str(e["amount"])) * 100)
    for c, e in _effects(rnd, active, ("adoration_multiply",)):
        for t in rnd.targets(c, e):
            rnd.gain[t] = scaled(rnd.gain.get(t, 0), e["amount"])
    for c, e in _effects(rnd, active, ("initiative_next", "rob_lesson", "reveal")):
        if e["do"] == "rob_lesson":
            rnd.lessons[owner(c)] = rnd.lessons.get(owner(c), 0) + 1
            continue
        for t in rnd.targets(c, e):
            if e["do"] == "initiative_next":
                rnd.bonus_next[t] = rnd.bonus_next.get(t, 0) + e["amount"]
            else:
                rnd.reveals.append({"to": owner(c), "by": c, "about": t, "location": rnd.place.get(t),
                                    "event": orders[t]["event"] if t in orders else None})
    after = dict(adoration)
    for c, gain in rnd.gain.items():
        after[c] = max(0, after.get(c, 0) + gain)
    return rnd, after


def confess(orders: Mapping[str, Mapping[str, Any]], adoration: Mapping[str, int], boosts: Mapping[str, str],
            tiers: list[dict[str, Any]], boost_cap: float) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The end of the round: every confessing Character's Adoration times the multiplier for the number of
    Characters confessing this round (all players'), a boosted one one tier up on its own; the stored
    amount per player (each part rounded to hundredths). Returns the confessions and the amounts stored."""
    confessing = [c for c, o in orders.items() if o.get("confess")]
    base = multiplier(tiers, len(confessing))
    rows, parts = [], {}
    for c in confessing:
        is_boosted = boosts.get(owner(c)) == c
        mult = boosted(tiers, base, boost_cap) if is_boosted else base
        rows.append({"character": c, "adoration": adoration.get(c, 0), "multiplier": mult, "boosted": is_boosted})
        key = (owner(c), is_boosted)
        parts[key] = parts.get(key, 0) + adoration.get(c, 0)
    stored: dict[str, int] = {}
    for (player, is_boosted), total in parts.items():
        mult = boosted(tiers, base, boost_cap) if is_boosted else base
        stored[player] = stored.get(player, 0) + scaled(total, mult)
    return rows, stored


@dataclass(frozen=True)
class Outcome:
    winners: tuple[str, ...]
    tol: dict[str, int]
    ec: str
    decided_by: dict[str, str]          # "winner"/"ec" → "hearts", "lessons" or "draw"


def _pick(tied: list[str], lessons: Mapping[str, int], fewest: bool,
          draw: Callable[[list[str]], str]) -> tuple[str, str]:
    """More than one tied: the most (for the EC, the fewest) lessons taught to Rob, then the Universal
    Tiebreaker (`draw`)."""
    best = (min if fewest else max)(lessons.get(p, 0) for p in tied)
    left = [p for p in tied if lessons.get(p, 0) == best]
    return (left[0], "lessons") if len(left) == 1 else (draw(left), "draw")


def outcome(players: list[str], hearts: Mapping[str, int], lessons: Mapping[str, int],
            draw: Callable[[list[str]], str], *, sole_tol: int = 2, joint_tol: int = 1) -> Outcome:
    """The end: a sole leader wins two Tokens of Life, two tied leaders one each, more than two go to Rob's
    lessons and then the Universal Tiebreaker; the Elimination Candidate is the sole lowest, any tie going
    to the same tiebreakers (the fewest lessons)."""
    top = max(hearts.get(p, 0) for p in players)
    leaders = [p for p in players if hearts.get(p, 0) == top]
    how = {"winner": "hearts", "ec": "hearts"}
    if len(leaders) == 2:
        winners, tol = tuple(leaders), {p: joint_tol for p in leaders}
    else:
        winner = leaders[0]
        if len(leaders) > 2:
            winner, how["winner"] = _pick(leaders, lessons, False, draw)
        winners, tol = (winner,), {winner: sole_tol}
    low = min(hearts.get(p, 0) for p in players)
    lowest = [p for p in players if hearts.get(p, 0) == low and p not in winners] or \
        [p for p in players if hearts.get(p, 0) == low]
    ec = lowest[0]
    if len(lowest) > 1:
        ec, how["ec"] = _pick(lowest, lessons, True, draw)
    return Outcome(winners, tol, ec, how)
