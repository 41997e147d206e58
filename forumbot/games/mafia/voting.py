"""Day voting by section 6 of the Body Snatchers rules: the tally, the two majority rules, final votes.

While fewer than `no_lynch_limit` no-lynch results have happened, a lynch needs an absolute majority of
the living (50% + 1). After that the player(s) with the most votes at the deadline hang, all of them on
a tie, and final votes ("Окончательно против X") lock a voter so the day can end early.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import compress, filterfalse, groupby, islice
from operator import attrgetter, is_not

from forumbot.games.mafia.state import NO_LYNCH, MafiaState, VoteEntry, made_from
from forumbot.kept import ByIdentity


@dataclass(frozen=True)
class Wagon:
    target: str                        # a player or NO_LYNCH
    voters: tuple[VoteEntry, ...]      # current votes, in order
    reached: int                       # seq of the vote that brought it to its count (ties: lower first)
    entries: tuple[VoteEntry, ...] = ()   # voters and withdrawn together, in order (what a count lists)
    # Where it stands among the wagons: biggest first, then the first to reach its size. The first vote of
    # each breaks what else would tie (as when the wagons were made in the order of it); the target only what
    # two votes with one seq (never from the game) would leave to chance. Made once: sorted by in C.
    order: tuple[int, int, int, str] = (0, 0, 0, "")

    @property
    def count(self) -> int:
        return len(self.voters)

    @property
    def withdrawn(self) -> tuple[VoteEntry, ...]:
        """The votes that left this wagon, in order: asked for seldom (a count shows `entries`), so not
        made with each wagon (a vote count after every vote makes two)."""
        return tuple(filter(_WITHDRAWN, self.entries))


def rule(state: MafiaState) -> str:
    """"absolute" while the no-lynch limit is not used up, then "simple"."""
    return "absolute" if state.no_lynch_used < state.options.no_lynch_limit else "simple"


def needed(state: MafiaState) -> int:
    """Votes for an absolute majority of the living: 50% + 1."""
    return len(state.alive) // 2 + 1


def counts(state: MafiaState) -> dict[str, int]:
    """Current votes per target (players and NO_LYNCH)."""
    return dict(Counter(state.current.values()))   # counted in C: a majority check after every vote


# ---- what a vote check needs, kept from one vote to the next --------------------------------------------
# A vote moves one voter between two wagons: the votes per target are kept beside the `current` dict they
# count (as state.py keeps the entries' index), so the check after a vote does not count every voter again.
# A `current` not seen before (a state read back) is counted once.


@dataclass(eq=False)
class _Tally:
    current: dict[str, str]       # the voter → target dict counted (the same object, never changed)
    counts: dict[str, int]        # votes per target, NO_LYNCH included
    top: int                      # at least the biggest player wagon (exact after a majority check)

    def refreshed(self) -> _Tally:
        """With `top` exact again: the biggest player wagon, from the wagons (not the voters)."""
        self.top = max((c for t, c in self.counts.items() if t != NO_LYNCH), default=0)
        return self


_TALLIES: dict[int, _Tally] = {}


def _tally(current: dict[str, str]) -> _Tally:
    found = _TALLIES.get(id(current))
    if found is not None and found.current is current:
        return found
    return _keep(_Tally(current, dict(Counter(current.values())), 0)).refreshed()


def _keep(tally: _Tally) -> _Tally:
    if len(_TALLIES) > 64:   # only the newest states are ever voted in
        _TALLIES.clear()
    _TALLIES[id(tally.current)] = tally
    return tally


def moved(old: dict[str, str], new: dict[str, str], voter: str) -> None:
    """`new` is `old` with only `voter`'s vote changed: new's tally is old's, moved by one vote (old's own
    is given up; asked for again, it is counted again)."""
    tally = _TALLIES.pop(id(old), None)
    if tally is None or tally.current is not old:
        return
    counts = tally.counts
    before, after = old.get(voter), new.get(voter)
    if before is not None:
        left = counts[before] - 1
        if left:
            counts[before] = left
        else:
            del counts[before]
    if after is not None:
        size = counts[after] = counts.get(after, 0) + 1
        if size > tally.top and after != NO_LYNCH:
            tally.top = size     # a wagon that shrinks leaves `top` above the biggest: it stays a bound
    tally.current = new
    _TALLIES[id(new)] = tally   # (_keep's, without its frame: one was taken out above)


def members(names: tuple[str, ...]) -> frozenset[str]:
    """`names` as a set, kept while the same tuple is in use (the roster and the living change seldom):
    `name in state.alive` would look through the whole roster at every vote."""
    found = _MEMBERS.get(names)
    if found is None:
        found = frozenset(names)
        _MEMBERS.put(names, found)
    return found


_MEMBERS: ByIdentity[frozenset[str]] = ByIdentity(64)


_new = object.__new__
_SEQ, _TARGET, _WITHDRAWN = attrgetter("seq"), attrgetter("target"), attrgetter("withdrawn")
_ORDER = attrgetter("order")
_CHANGES = 8          # entries changed since the wagons last made, beyond which they are made afresh


def _wagon(target: str, entries: tuple[VoteEntry, ...]) -> Wagon:
    voters = tuple(filterfalse(_WITHDRAWN, entries))
    reached = voters[-1].seq if voters else entries[0].seq
    wagon = _new(Wagon)    # model.filled's, without its frame (a count makes one or two)
    vars(wagon).update(target=target, voters=voters, reached=reached, entries=entries,
                       order=(-len(voters), reached, entries[0].seq, target))
    return wagon


def _made(entries: tuple[VoteEntry, ...]) -> dict[str, Wagon]:
    """The wagons of `entries`, by target. Two sorts in C (by seq, then stably by target) bring each
    wagon's entries together in vote order."""
    ordered = sorted(sorted(entries, key=_SEQ), key=_TARGET)
    return {target: _wagon(target, tuple(group)) for target, group in groupby(ordered, _TARGET)}


# A wagon being remade by votes: [its entries, its voters, the changes to its entries (place, how many taken
# out there, the entry put there or None), the wagon it is made from or None]. The voters change with the
# entries, as they do (a vote struck leaves them, a new one joins them at the end): not picked again from
# every entry, and the changes tell a count which of its entries' views to keep (game.view).
_Group = list
# The wagons votes remade, each with the wagon it was made from (None: a new one) and the changes to its entries.
Remade = list[tuple["Wagon", "Wagon | None", list[tuple[int, int, VoteEntry | None]]]]


def _voted(before: tuple[VoteEntry, ...], wagons: dict[str, Wagon], entries: tuple[VoteEntry, ...],
           positions: tuple[int, ...], groups: dict[str, _Group]) -> bool:
    """Puts in `groups` (target: its _Group) the wagons a vote's own change (state.made_from: the positions
    it changed, the added ones at the end) makes of `wagons` and `groups` as they were: an entry struck or
    revived in its place (its seq kept), or a vote with a new seq, the last of its wagon, in place of the
    voter's struck entry on that wagon or added. False for any other change (then `groups` is of no use).
    Several votes' changes are put one after the other."""
    count = len(before)
    for at in positions:
        new = entries[at]
        target = new.target
        group = groups.get(target)
        if group is None:
            old = wagons.get(target)
            group = groups[target] = [old.entries, old.voters, [], old] if old is not None else [(), (), [], None]
        got, voters, changes, _ = group
        if at < count:
            gone = before[at]
            if gone.target != target:
                return False
            seq = gone.seq
            place = bisect_left(got, seq, key=_SEQ)
            if place == len(got) or got[place] is not gone:
                return False
            if not gone.withdrawn:           # it leaves the voters (in the order of seq too; it is one of them)
                known = bisect_left(voters, seq, key=_SEQ)
                if voters[known] is not gone:
                    return False   # two votes with one seq
                voters = voters[:known] + voters[known + 1:]
            if new.seq == seq:               # struck or revived: it keeps its place
                if place + 1 < len(got) and got[place + 1].seq == seq:
                    return False   # two votes with one seq: only the sorts know their order
                group[0] = got[:place] + (new,) + got[place + 1:]
                if not new.withdrawn:
                    known = bisect_left(voters, new.seq, key=_SEQ)
                    voters = voters[:known] + (new,) + voters[known:]
                group[1] = voters
                changes.append((place, 1, new))
                continue
            got = got[:place] + got[place + 1:]
            changes.append((place, 1, None))
        if got and got[-1].seq >= new.seq:
            return False
        group[0] = got + (new,)
        group[1] = voters if new.withdrawn else voters + (new,)
        changes.append((len(got), 0, new))
    return True


def _voted_wagons(wagons: dict[str, Wagon], groups: dict[str, _Group], remade: Remade) -> dict[str, Wagon]:
    """`wagons` with the wagons of `groups` (made by _voted: never empty) made again, each added to `remade`
    with the wagon it was made from and the changes to its entries."""
    made = dict(wagons)
    for target, (got, voters, changes, old) in groups.items():
        reached = voters[-1].seq if voters else got[0].seq
        wagon = _new(Wagon)    # as _wagon makes it, its voters given
        wagon.__dict__.update(target=target, voters=voters, reached=reached, entries=got,
                           order=(-len(voters), reached, got[0].seq, target))
        made[target] = wagon
        remade.append((wagon, old, changes))
    return made


def _regrouped(wagons: dict[str, Wagon], groups: dict[str, tuple[VoteEntry, ...]]) -> dict[str, Wagon]:
    """`wagons` with the wagons of `groups` (target: its entries, in seq order) made again, or gone when empty."""
    made = dict(wagons)
    for target, group in groups.items():
        if group:
            made[target] = _wagon(target, group)
        else:
            del made[target]
    return made


def _remade(before: tuple[VoteEntry, ...], wagons: dict[str, Wagon], entries: tuple[VoteEntry, ...],
            fresh: list[VoteEntry]) -> dict[str, Wagon] | None:
    """The wagons of `entries` from `wagons`, those of `before`, when `entries` is `before` with a few
    entries replaced or added (what votes do: a vote replaces or adds one entry, and its withdrawal
    replaces one), found in C; only the wagons those entries left or joined are made again, and those
    entries added to `fresh`. None when `entries` is not such a change of `before`."""
    added = len(entries) - len(before)
    if not 0 <= added <= _CHANGES:
        return None
    changed = list(islice(compress(range(len(before)), map(is_not, before, entries)), _CHANGES + 1))
    if len(changed) + added > _CHANGES:
        return None
    # Only the wagons those entries left or joined are looked at: the others are copied as they are, in C.
    # A group is in the order of seq (as the sorts leave it); a place in it is found by bisection, in C.
    groups: dict[str, tuple[VoteEntry, ...]] = {}
    joined = list(entries[len(before):])
    for at in changed:               # every entry that left first: a withdrawn vote keeps its seq
        gone, new = before[at], entries[at]
        target = gone.target
        group = groups[target] if target in groups else wagons[target].entries if target in wagons else ()
        place = bisect_left(group, gone.seq, key=_SEQ)
        if place == len(group) or group[place] is not gone:
            return None
        if new.seq == gone.seq and new.target == target:     # struck: it keeps its place
            if place + 1 < len(group) and group[place + 1].seq == new.seq:
                return None   # two votes with one seq: only the sorts know their order
            groups[target] = group[:place] + (new,) + group[place + 1:]
        else:
            groups[target] = group[:place] + group[place + 1:]
            joined.append(new)
    for new in joined:
        target = new.target
        group = groups[target] if target in groups else wagons[target].entries if target in wagons else ()
        if not group or group[-1].seq < new.seq:    # a new vote: the last of its wagon
            groups[target] = group + (new,)
            continue
        place = bisect_left(group, new.seq, key=_SEQ)
        if group[place].seq == new.seq:
            return None      # two votes with one seq: only the sorts know their order
        groups[target] = group[:place] + (new,) + group[place:]
    fresh.extend(map(entries.__getitem__, changed))
    fresh.extend(entries[len(before):])
    return _regrouped(wagons, groups)


def _after_votes(entries: tuple[VoteEntry, ...], parent: tuple[tuple[VoteEntry, ...], tuple[int, ...]],
                 remade: Remade) -> dict[str, Wagon] | None:
    """The wagons of a step's entries after several votes (a poll of a minute reads a few): those it was
    made from were never counted; the entries counted last are a few votes further back (made_from again).
    Each vote's own change is put on the wagons counted last, the oldest first, as _voted puts one vote's;
    only the wagons they changed are made again. None when they are not that near."""
    links = [(parent[0], entries, parent[1])]     # (before, after, the positions changed), the newest first
    before = parent[0]
    for _ in range(_CHANGES):
        parent = made_from(before)
        if parent is None:
            return None
        links.append((parent[0], before, parent[1]))
        before = parent[0]
        kept = _RECENT.get(id(before))
        if kept is not None and kept[0] is before:
            wagons = kept[1]
            groups: dict[str, _Group] = {}
            for before, after, positions in reversed(links):
                if not _voted(before, wagons, after, positions, groups):
                    return None
            return _voted_wagons(wagons, groups, remade)
    return None


# The wagons of the last few entries counted, by the identity of the entries, oldest first (a game counting
# after every vote finds its own count before).
_RECENT: dict[int, tuple[tuple[VoteEntry, ...], dict[str, Wagon]]] = {}
_KEEP_RECENT = 16    # the newest half of them are kept when it is full: never fewer than the newest 8


def wagons(state: MafiaState) -> list[Wagon]:
    """Every wagon of the day, biggest first; equal wagons in the order they reached their size."""
    return counted(state)[0]


def counted(state: MafiaState) -> tuple[list[Wagon], Remade | None, list[VoteEntry] | None]:
    """wagons(state); the wagons votes remade since the wagons they were made from, each with the wagon it
    was made from and the changes to its entries (_Group), or None when not known; and then the entries put
    in them since (a count makes the view of each entry once, when it is new), or None when they were made
    afresh (any may be new)."""
    entries = state.entries
    kept = _RECENT.get(id(entries))
    if kept is not None and kept[0] is entries:
        return sorted(kept[1].values(), key=_ORDER), [], None
    found = None
    remade: Remade | None = []
    fresh: list[VoteEntry] | None = None
    parent = made_from(entries)       # a vote's entries: the wagons of those it was made from, if kept
    if parent is not None:
        before, changed = parent
        kept = _RECENT.get(id(before))
        if kept is not None and kept[0] is before:
            groups: dict[str, _Group] = {}
            if _voted(before, kept[1], entries, changed, groups):
                found = _voted_wagons(kept[1], groups, remade)
        else:
            found = _after_votes(entries, parent, remade)
    if found is None:
        remade, fresh = None, []
        # Copied in C before it is looked through: games on other platforms run in other threads.
        for before, made in reversed(tuple(_RECENT.values())):   # the newest first
            found = _remade(before, made, entries, fresh)
            if found is not None:
                break
        else:
            found = _made(entries)
            fresh = None
    if len(_RECENT) >= _KEEP_RECENT:
        # The oldest half goes (a copy of the keys, in C: games on other platforms run in other threads).
        for key in tuple(_RECENT)[:_KEEP_RECENT // 2]:
            _RECENT.pop(key, None)
    _RECENT[id(entries)] = (entries, found)
    return sorted(found.values(), key=_ORDER), remade, fresh


def not_voting(state: MafiaState) -> list[str]:
    return list(filterfalse(state.current.__contains__, state.alive))   # in C: in every vote count


def majority_reached(state: MafiaState) -> str | None:
    """Under the absolute rule, the target (a player or NO_LYNCH) holding 50% + 1 of the living, if any."""
    if not state.alive:
        return None
    need = len(state.alive) // 2 + 1   # needed(state), without its frame (a check after every vote)
    current = state.current
    tally = _TALLIES.get(id(current))   # (_tally's look-up, without its frame)
    if tally is None or tally.current is not current:
        tally = _tally(current)
    if tally.top >= need:   # perhaps a wagon that has shrunk since
        tally.refreshed()
    if tally.top < need and (tally.counts.get(NO_LYNCH, 0) < need or not state.options.early_no_lynch):
        return None   # no wagon is big enough: the usual answer, without counting every vote
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
    if not state.locked:
        return None
    alive = members(state.alive)
    locked_counts: dict[str, int] = {}
    for voter in state.locked:
        target = state.current.get(voter)
        if voter in alive and target and target != NO_LYNCH:
            locked_counts[target] = locked_counts.get(target, 0) + 1
    if not locked_counts:
        return None
    free = len(state.alive) - sum(1 for voter in state.locked if voter in alive)
    if free == 0:
        top = max(locked_counts.values())
        return tuple(name for name in state.alive if locked_counts.get(name) == top)
    leader, lead = max(locked_counts.items(), key=lambda item: item[1])
    runner_up = max((c for t, c in locked_counts.items() if t != leader), default=0)
    return (leader,) if lead > runner_up + free else None
