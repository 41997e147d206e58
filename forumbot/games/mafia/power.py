"""The power actions of a night (blocks, thefts, redirects, status changes) resolved together.

The rules: "все силовые НД выполняются одновременно" — every power action happens at once, and any can
beat another aimed the right way; the priority order (а–д) matters only for actions aimed at each other;
"в случае сложных коллизий, провалятся все силовые НД, для которых нельзя однозначно указать, успех
или провал".

Only blocks and redirects change other actions, so they are the unknowns. An outcome (which of them are
active) is *consistent* when the active ones, applied at once, cancel exactly the inactive ones. Actions
that are not aimed at each other have exactly one consistent outcome (the simultaneous one). When several
are consistent, the one that leaves the highest-priority actions as their senders wrote them wins; when
that still leaves a tie, or when no outcome is consistent (a paradox), the actions in the collision fail.
The theft is not an unknown (it stops nothing), so its place before the redirect is kept directly: a
redirect does not move a higher-priority action aimed at the taxi himself (see _comes_first).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product


@dataclass
class Act:
    """One night action as it is resolved."""

    actor: str
    action: str                  # block, steal, redirect, status, trace, check, weapon, kill, protect, heal
    target: str
    to: str | None = None        # a redirect's destination
    source: str = "own"          # own, kill (the mafia's shared kill), stolen (the thief's loot)
    kind: str = "info"           # plus, minus, info: what the private detective sees
    level: int = 0               # power priority: 1 blocks, 2 the thief's block, 3 theft, 4 redirect, 5 status
    final: str = ""              # the target after redirects
    cancelled: bool = False      # blocked, or failed in a collision: it went nowhere
    collision: bool = False
    redirected: bool = False
    bypass: str = ""             # the maniac's kill tonight ignores: block, protect or redirect
    ignored: bool = False        # arrived, but the target shrugged it off (a block on the unblockable)

    @property
    def altered(self) -> bool:
        return self.cancelled or self.final != self.target


def _comes_first(other: Act, redirect: Act) -> bool:
    """Whether `other`, aimed at the taxi who moves its sender, happens before the redirect can move it.

    Aimed at each other, the higher priority goes first: the theft (в) lands on the taxi before his
    redirect (г) could move it (the theft does not block, so the redirect then has nothing to move).
    Blocks (а, б) are settled the same way by the outcome search; not moving them changes nothing there.
    """
    return 0 < other.level < redirect.level and other.target == redirect.actor


def _apply(acts: list[Act], active: dict[int, bool], forced: set[int], unblockable: set[str]) -> dict[int, bool]:
    """Set finals and cancellations for an assumed outcome; return the outcome it implies."""
    for act in acts:
        act.final, act.redirected, act.cancelled, act.ignored = act.target, False, False, False
    for index, act in enumerate(acts):
        if act.action == "redirect" and active.get(index, False) and act.to:
            for other in acts:
                if other is act or other.actor != act.target:
                    continue
                if other.bypass == "redirect" or _comes_first(other, act):
                    act.ignored = True
                    continue
                other.final, other.redirected = act.to, True
    for index, act in enumerate(acts):
        if act.action == "block" and active.get(index, False):
            victims = [o for o in acts if o.actor == act.final and o is not act]
            if act.final in unblockable or any(o.bypass == "block" for o in victims):
                act.ignored = True
            for other in victims:
                if other.actor not in unblockable and other.bypass != "block":
                    other.cancelled = True
    for index in forced:
        acts[index].cancelled, acts[index].collision = True, True
    return {index: not acts[index].cancelled for index in active}


def _variables(acts: list[Act]) -> list[int]:
    return [i for i, a in enumerate(acts) if a.action in ("block", "redirect")]


def _cycles(acts: list[Act], variables: Iterable[int]) -> set[int]:
    """The blocks and redirects that could, through some outcome, come back to themselves."""
    variables = list(variables)
    redirect_to = {a.target: a.to for a in acts if a.action == "redirect" and a.to}
    edges: dict[int, set[int]] = {}
    for i in variables:
        act = acts[i]
        reach = {act.target}
        if act.action == "block" and act.actor in redirect_to:
            reach.add(redirect_to[act.actor] or act.target)
        edges[i] = {j for j in variables if acts[j].actor in reach and j != i}
    found = set()
    for start in variables:
        seen, stack = set(), list(edges[start])
        while stack:
            node = stack.pop()
            if node == start:
                found.add(start)
                break
            if node not in seen:
                seen.add(node)
                stack.extend(edges[node])
    return found


def _score(acts: list[Act]) -> tuple[int, ...]:
    """How many power actions of each priority level kept their target (higher levels count first)."""
    return tuple(sum(1 for a in acts if a.level == level and not a.altered) for level in range(1, 6))


def resolve_power(acts: list[Act], unblockable: set[str]) -> None:
    """Settle every act's final target and cancellation in place. `unblockable`: players no block stops."""
    variables = _variables(acts)
    forced: set[int] = set()
    while True:
        free = [i for i in variables if i not in forced]
        stable: list[tuple[tuple[int, ...], dict[int, bool]]] = []
        for values in product((True, False), repeat=len(free)):
            assumed = {**dict(zip(free, values, strict=True)), **{i: False for i in forced}}
            implied = _apply(acts, assumed, forced, unblockable)
            if all(implied[i] == assumed[i] for i in free):
                stable.append((_score(acts), assumed))
        if stable:
            best = max(score for score, _ in stable)
            top = [outcome for score, outcome in stable if score == best]
            differ = {i for i in free if len({o[i] for o in top}) > 1}
            if not differ:
                _apply(acts, top[0], forced, unblockable)
                return
            forced |= differ
        else:
            looping = _cycles(acts, free)
            forced |= looping or set(free)
