"""Day voting by section 6 of the Body Snatchers rules: the tally, the two majority rules, final votes.

While fewer than `no_lynch_limit` no-lynch results have happened, a lynch needs an absolute majority of
the living (50% + 1). After that the player or players with the most votes at the deadline hang, all of them on
a tie, and final votes ("Окончательно против X") lock a voter so the day can end early.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from forumbot.games.mafia import modifiers
from forumbot.games.mafia.state import NO_LYNCH, MafiaState, VoteEntry
from forumbot.model import Event, format_time


@dataclass(frozen=True)
class Wagon:
    target: str                        # a player or NO_LYNCH
    voters: tuple[VoteEntry, ...]      # current votes, in order
    reached: int                       # seq of the vote that brought it to its count (ties: lower first)
    entries: tuple[VoteEntry, ...] = ()   # voters and withdrawn together, in order (what a count lists)
    count: int = 0                     # the votes it holds: each voter's weight (modifiers.py), summed

    @property
    def withdrawn(self) -> tuple[VoteEntry, ...]:
        """The votes that left this wagon, in order."""
        return tuple(e for e in self.entries if e.withdrawn)


def rule(state: MafiaState) -> str:
    """"absolute" while the no-lynch limit is not used up, then "simple"."""
    return "absolute" if state.no_lynch_used < state.options.no_lynch_limit else "simple"


def needed(state: MafiaState) -> int:
    """Votes for an absolute majority of the living: 50% + 1."""
    return len(state.alive) // 2 + 1


def needed_for(state: MafiaState, target: str) -> int:
    """Votes that hang this target under the absolute rule: the majority, one more for a loved player and
    one fewer for a hated one (never fewer than one)."""
    if target == NO_LYNCH:
        return needed(state)
    return max(1, needed(state) + modifiers.offset(state, target))


def counts(state: MafiaState) -> dict[str, int]:
    """Current votes per target (players and NO_LYNCH), each voter's vote weighed (modifiers.py)."""
    tally: Counter[str] = Counter()
    for voter, target in state.current.items():
        tally[target] += modifiers.weight(state, voter)
    return dict(tally)


def wagons(state: MafiaState) -> list[Wagon]:
    """Every wagon of the day, biggest first; equal wagons in the order they reached their size, then by
    their first vote (and by target, for two votes with one seq, which the game never makes)."""
    by_target: dict[str, list[VoteEntry]] = {}
    for entry in sorted(state.entries, key=lambda e: e.seq):
        by_target.setdefault(entry.target, []).append(entry)
    made = []
    for target, entries in by_target.items():
        voters = tuple(e for e in entries if not e.withdrawn)
        reached = voters[-1].seq if voters else entries[0].seq
        count = sum(modifiers.weight(state, e.voter) for e in voters)
        made.append(Wagon(target, voters, reached, tuple(entries), count))
    return sorted(made, key=lambda w: (-w.count, w.reached, w.entries[0].seq, w.target))


def not_voting(state: MafiaState) -> list[str]:
    """The living who could vote and have not (a voteless player is not listed)."""
    return [name for name in state.alive if name not in state.current and modifiers.weight(state, name) > 0]


def majority_reached(state: MafiaState) -> str | None:
    """Under the absolute rule, the target (a player or NO_LYNCH) holding 50% + 1 of the living (its own
    number for a loved or hated player), if any."""
    if not state.alive:
        return None
    for target, count in counts(state).items():
        if count >= needed_for(state, target) and (target != NO_LYNCH or state.options.early_no_lynch):
            return target
    return None


def majorities(state: MafiaState) -> tuple[str, ...]:
    """Every player holding their majority now, in the order their wagons reached their counts (several
    only with vote modifiers, at a deadline when early endings are off)."""
    return tuple(w.target for w in sorted(wagons(state), key=lambda w: w.reached)
                 if w.target != NO_LYNCH and w.count >= needed_for(state, w.target))


def most_voted(state: MafiaState) -> tuple[str, ...]:
    """Under the simple rule: the player or players with the most votes (no-lynch votes count for nothing)."""
    player_counts = {t: c for t, c in counts(state).items() if t != NO_LYNCH}
    if not player_counts:
        return ()
    top = max(player_counts.values())
    return tuple(name for name in state.alive if player_counts.get(name) == top)


def decided_by_final_votes(state: MafiaState) -> tuple[str, ...] | None:
    """Under the simple rule: who hangs if the locked votes already decide it whatever the others do.

    With U voters still free, player x is certain to be the only one with the most votes when its locked
    votes exceed every other player's locked votes plus U. With nobody free the locked votes are the
    result (ties hang everyone tied). None while it is still open.
    """
    if not state.locked:
        return None
    alive = set(state.alive)
    locked_counts: dict[str, int] = {}
    for voter in state.locked:
        target = state.current.get(voter)
        if voter in alive and target and target != NO_LYNCH:
            locked_counts[target] = locked_counts.get(target, 0) + modifiers.weight(state, voter)
    if not locked_counts:
        return None
    free = sum(modifiers.most(state, voter) for voter in state.alive if voter not in state.locked)
    if free == 0:
        top = max(locked_counts.values())
        return tuple(name for name in state.alive if locked_counts.get(name) == top)
    leader, lead = max(locked_counts.items(), key=lambda item: item[1])
    runner_up = max((c for t, c in locked_counts.items() if t != leader), default=0)
    return (leader,) if lead > runner_up + free else None


def phase_start(state: MafiaState) -> Event:
    """The post that opens a phase: its times, the living, and the day's voting rule."""
    day_rule = rule(state)
    return Event("phase_start", {
        "phase": state.phase, "kind": "day" if state.is_day else "night", "number": state.number,
        "started": format_time(state.phase_started),
        "ends": "" if state.is_day and state.options.untimed_days else format_time(state.phase_ends),
        "alive": list(state.alive), "rule": day_rule,
        "needed": needed(state) if day_rule == "absolute" else None,
        "no_lynch_used": state.no_lynch_used, "no_lynch_limit": state.options.no_lynch_limit,
        "vote_threads": list(state.options.vote_threads),
        **({"tie": state.options.tie} if state.options.tie != "all" else {}),
    })
