"""Day voting by section 6 of the Body Snatchers rules: the tally, the two majority rules, final votes.

While fewer than `no_lynch_limit` no-lynch results have happened, a lynch needs an absolute majority of
the living (50% + 1). After that the player(s) with the most votes at the deadline hang, all of them on
a tie, and final votes ("Окончательно против X") lock a voter so the day can end early.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import filterfalse, groupby
from operator import attrgetter

from forumbot.games.mafia.state import NO_LYNCH, MafiaState, VoteEntry


@dataclass(frozen=True)
class Wagon:
    target: str                        # a player or NO_LYNCH
    voters: tuple[VoteEntry, ...]      # current votes, in order
    withdrawn: tuple[VoteEntry, ...]   # votes that left this wagon
    reached: int                       # seq of the vote that brought it to its count (ties: lower first)
    entries: tuple[VoteEntry, ...] = ()   # voters and withdrawn together, in order (what a count lists)

    @property
    def count(self) -> int:
        return len(self.voters)


def rule(state: MafiaState) -> str:
    """"absolute" while the no-lynch limit is not used up, then "simple"."""
    return "absolute" if state.no_lynch_used < state.options.no_lynch_limit else "simple"


def needed(state: MafiaState) -> int:
    """Votes for an absolute majority of the living: 50% + 1."""
    return len(state.alive) // 2 + 1


def counts(state: MafiaState) -> dict[str, int]:
    """Current votes per target (players and NO_LYNCH)."""
    return dict(Counter(state.current.values()))   # counted in C: a majority check after every vote


_SEQ, _TARGET, _WITHDRAWN = attrgetter("seq"), attrgetter("target"), attrgetter("withdrawn")


def wagons(state: MafiaState) -> list[Wagon]:
    """Every wagon of the day, biggest first; equal wagons in the order they reached their size."""
    # Two sorts in C (by seq, then stably by target) bring each wagon's entries together in vote order: a
    # vote count after every vote does this each time.
    out = []
    for target, group in groupby(sorted(sorted(state.entries, key=_SEQ), key=_TARGET), _TARGET):
        entries = tuple(group)
        voters = tuple(filterfalse(_WITHDRAWN, entries))
        withdrawn = tuple(filter(_WITHDRAWN, entries))
        reached = voters[-1].seq if voters else entries[0].seq
        out.append(Wagon(target, voters, withdrawn, reached, entries))
    # the first vote of each breaks what else would tie (as when the wagons were made in the order of it)
    out.sort(key=lambda w: (-w.count, w.reached, w.entries[0].seq))
    return out


def not_voting(state: MafiaState) -> list[str]:
    return [name for name in state.alive if name not in state.current]


def majority_reached(state: MafiaState) -> str | None:
    """Under the absolute rule, the target (a player or NO_LYNCH) holding 50% + 1 of the living, if any."""
    if not state.alive:
        return None
    need = needed(state)
    for target, count in counts(state).items():
        if count >= need and (target != NO_LYNCH or state.options.early_no_lynch):
            return target
    return None


def most_voted(state: MafiaState) -> tuple[str, ...]:
    """Under the simple rule: the player(s) with the most votes (no-lynch votes count for nothing)."""
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
    locked_counts: dict[str, int] = {}
    for voter in state.locked:
        target = state.current.get(voter)
        if voter in state.alive and target and target != NO_LYNCH:
            locked_counts[target] = locked_counts.get(target, 0) + 1
    if not locked_counts:
        return None
    free = sum(1 for name in state.alive if name not in state.locked)
    if free == 0:
        top = max(locked_counts.values())
        return tuple(name for name in state.alive if locked_counts.get(name) == top)
    leader, lead = max(locked_counts.items(), key=lambda item: item[1])
    runner_up = max((c for t, c in locked_counts.items() if t != leader), default=0)
    return (leader,) if lead > runner_up + free else None
