"""The Mafia state: an immutable value, stored in parts after every step (forumbot/stateparts.py): a step
writes the fields and vote entries it changed.

The day's votes are kept as one entry per (wagon, voter): a voter who leaves a wagon leaves a struck
entry behind, and coming back revives it. That is what a vote count shows, and it bounds the state to
players × (players + 1) entries however many posts a day has.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from datetime import datetime
from functools import lru_cache, partial
from itertools import compress
from json.encoder import encode_basestring as _string  # what jsontext's encoder escapes text with
from operator import attrgetter, is_not
from typing import Any, NamedTuple

from forumbot.games.mafia.options import MafiaOptions
from forumbot.jsontext import dumps as _dumps
from forumbot.model import format_time, parse_time
from forumbot.stateparts import BASE, StateChange, item_key, whole_parts

NO_LYNCH = "no_lynch"
KILL_KEY = "@kill"
GAME_KEY = "@game"
PRE_PHASES = ("signup", "roles")      # before the game: sign-ups, then role confirmation (signup.py)


@lru_cache(maxsize=64)
def _phase_number(phase: str) -> int:
    """The number in a phase's name ("day3" → 3): asked at every vote count, of a few names a game."""
    digits = "".join(ch for ch in phase if ch.isdigit())
    return int(digits) if digits else 0


@dataclass(frozen=True)
class VoteEntry:
    voter: str
    target: str               # a player's name or NO_LYNCH
    seq: int                  # order of the vote in the day
    at: str                   # when it was cast (canonical text: only shown, never computed with)
    post: str = ""
    url: str = ""
    final: bool = False
    withdrawn: bool = False


@dataclass(frozen=True)
class Death:
    name: str
    phase: str
    cause: str                # "lynch", "night", "modkill", ...
    role: str | None = None


@dataclass(frozen=True)
class DayResult:
    day: int
    result: str               # "lynch" or "no_lynch"
    lynched: tuple[str, ...]
    rule: str                 # "absolute" or "simple"
    needed: int | None        # votes needed under the absolute rule; None under the simple rule
    ended: str                # "deadline" or "early"
    at: datetime
    tally: dict[str, int] = field(default_factory=dict)
    saved: tuple[str, ...] = ()   # would have hanged but were immune (the roles' hook)


@dataclass(frozen=True)
class VoteError:
    author: str
    reason: str               # English text, for flags and logs
    post: str = ""
    url: str = ""
    code: str = ""            # what went wrong, for the post's language (phrases error_<code>)
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MafiaState:
    players: tuple[str, ...]
    alive: tuple[str, ...]
    phase: str                        # "day1", "night1", ..., "over"
    phase_started: datetime
    phase_ends: datetime
    options: MafiaOptions = MafiaOptions()
    roles: dict[str, str] = field(default_factory=dict)
    dead: tuple[Death, ...] = ()
    no_lynch_used: int = 0
    days: tuple[DayResult, ...] = ()
    entries: tuple[VoteEntry, ...] = ()
    current: dict[str, str] = field(default_factory=dict)   # voter -> target
    locked: frozenset[str] = frozenset()
    seq: int = 0
    count_number: int = 0
    changes: int = 0                  # vote changes since the last vote count
    errors: tuple[VoteError, ...] = ()
    error_total: int = 0
    immune: frozenset[str] = frozenset()   # cannot be hanged today (filled by roles)
    # ---- nights: plain JSON data (dicts and lists), copied before any change -------------------------
    host: str | None = None
    lang: str = "en"
    # Tonight's actions: an actor's name → {"action", "target", "to", "source", "at", "post"}; the mafia's
    # shared kill is under KILL_KEY with its carrier in "actor".
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: tuple[dict[str, Any], ...] = ()       # {"id", "author", "night", "text", "rejected"}
    # What roles remember between nights, per player (last targets, charges, the thief's loot, ...), and
    # the game's own memory under GAME_KEY (the writer's count, the politician's protégé).
    memory: dict[str, dict[str, Any]] = field(default_factory=dict)
    nights: tuple[dict[str, Any], ...] = ()      # each resolved night, for the host and the replay JSON
    winner: str | None = None
    reminded: tuple[str, ...] = ()               # "<phase>:<hours>" of every reminder already sent
    # ---- before and after the game (signup.py, ledger.py, bestplayer.py): plain JSON data ----------
    signup: dict[str, dict[str, Any]] = field(default_factory=dict)   # account → {"number", "mask", "at"}
    masks: dict[str, str] = field(default_factory=dict)      # mask (the player's name in the game) → account
    confirmed: tuple[str, ...] = ()                          # players who confirmed their role
    forums: dict[str, str] = field(default_factory=dict)     # player → their home forum
    genders: dict[str, str] = field(default_factory=dict)    # mask → "f"/"m", as signed up (for Russian posts)
    ledger: tuple[dict[str, Any], ...] = ()                  # warnings and penalties (ledger.py)
    best: dict[str, Any] = field(default_factory=dict)       # the best-player vote (bestplayer.py)

    @property
    def is_day(self) -> bool:
        return self.phase.startswith("day")

    @property
    def number(self) -> int:
        return _phase_number(self.phase)

    def with_(self, **changes: Any) -> MafiaState:
        """The state with some fields changed. A vote changes a few of 40 fields: the others are copied as
        they are (dataclasses.replace would pass all 40 through __init__, several times a vote)."""
        if not _FIELD_NAMES.issuperset(changes):
            return replace(self, **changes)           # raises its TypeError for the unknown field
        # The copy of the fields' dict is made in C (dict.copy) and handed to the object whole: filling the
        # object's own __dict__ key by key cost twice as much (a state has more fields than an instance dict
        # shares keys for: it is converted half way). The same keys in the same order as __init__'s.
        values = vars(self).copy()
        values.update(changes)
        new = _new(type(self))
        _set_dict(new, "__dict__", values)
        # Kept for state_change: the fields given, so that the change a step writes is read off the states the
        # step made instead of comparing 40 fields (_given_since).
        made = _MADE
        if len(made) >= _MADE_KEPT:
            made.clear()
        made[id(new)] = (new, self, changes)
        return new


_FIELD_NAMES = frozenset(f.name for f in fields(MafiaState))
# By the id of a state with_ made: (that state, the state it was made from, the fields given). Both states are
# held, so an id here is of a live object. Only the newest states are ever written: cleared when full.
_MADE: dict[int, tuple[MafiaState, MafiaState, dict[str, Any]]] = {}
_MADE_KEPT = 16
_ABSENT = object()   # (state_change: a field the old state's dict lacks is no value of the new one)
_new = object.__new__   # model.filled inline: the object, then its fields in its __dict__
_set_dict = object.__setattr__   # with_: a frozen dataclass's own __setattr__ refuses every field


def _time_fields(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: (parse_time(v) if k in names and isinstance(v, str) else v) for k, v in data.items()}


_PLAIN = (str, int, float, bool, type(None))
# Fields of plain names (tuples of names, a dict of name to name): JSON as they are.
_NAMES = {"players": list, "alive": list, "current": dict}


def _jsonable(value: Any) -> Any:
    """Plain JSON data from the state's values: shallow, without dataclasses.asdict's deep copies."""
    if type(value) in _PLAIN:
        return value
    if is_dataclass(value) and not isinstance(value, type):
        return {k: _jsonable(v) for k, v in vars(value).items()}
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        items = sorted(value) if isinstance(value, (frozenset, set)) else value
        return [_jsonable(v) for v in items]
    return value


def _head_json(state: MafiaState) -> dict[str, Any]:
    """The state as JSON data, all but the vote entries."""
    data: dict[str, Any] = {key: _jsonable(value) for key, value in vars(state).items()
                            if key not in ("entries", "options", "current", "players", "alive")}
    data.update(players=list(state.players), alive=list(state.alive), current=dict(state.current))
    data["options"] = _options_json(state.options)
    return data


def _entry_json(e: VoteEntry) -> list[Any]:
    # Vote entries are the bulk of a day's state and are written after every step: plain lists.
    return [e.voter, e.target, e.seq, e.at, e.post, e.url, e.final, e.withdrawn]


def state_to_json(state: MafiaState) -> dict[str, Any]:
    data = _head_json(state)
    data["entries"] = [_entry_json(e) for e in state.entries]
    return data


def _field_text(key: str, value: Any) -> str:
    """The JSON text of a field's value, kept while the value is the same object (a value a step did not
    change is the same object in the new state)."""
    if type(value) is int:   # the counters a vote moves (seq, changes): what json.dumps writes, without it
        return int.__repr__(value)
    cached = _FIELD_TEXT.get(key)
    if cached is None or cached[0] is not value:
        if key == "options":
            data = _options_json(value)
        else:
            data = _NAMES[key](value) if key in _NAMES else _jsonable(value)
        cached = _FIELD_TEXT[key] = (value, _dumps(data))
    return cached[1]


def state_change(old: MafiaState | None, new: MafiaState) -> StateChange:
    """What to write to store `new` (stateparts.py): every part when `old` is None, else the parts that
    differ from `old`'s, which is what the store holds. The vote entries are stored one part each and
    `current` not at all (it is what the entries not withdrawn say: `state_from_json` makes it again), so a
    vote writes one or two entries and a few counters whatever the roster."""
    if old is None:
        return whole_parts(((key, _field_text(key, value)) for key, value in vars(new).items()
                            if key not in ("entries", "current")),
                           {"entries": _derived(new.entries).texts})
    change = _new(StateChange)     # as __init__ fills it (model.filled, without its frame: a step makes one)
    change.__dict__.update(whole=False, put=[], cut=[])
    was, now = vars(old), vars(new)
    keys: Any = _given_since(old, new)   # (the usual step: new made from old by with_; those given that changed)
    if keys is None:
        # A step changes a few of 40 fields: those found in C by identity (both states hold the fields in the
        # order of their declaration, which __init__ and with_ keep), else one by one.
        if list(now) == list(was):
            keys = list(compress(now, map(is_not, now.values(), was.values())))
        else:
            keys = [key for key, value in now.items() if value is not getattr(old, key)]
    put = change.put
    for key in keys:
        value = now[key]
        if value is was.get(key, _ABSENT):   # (given, and the same)
            continue
        if type(value) is int:   # the counters a vote moves (seq, changes): as _field_text writes them
            put.append((key, BASE, int.__repr__(value)))
        elif key == "entries":
            _entries_change(getattr(old, key), value, change)
        elif key != "current":
            put.append((key, BASE, _field_text(key, value)))
    return change


def _given_since(old: MafiaState, new: MafiaState) -> Iterable[str] | None:
    """Every field given to with_ on the way from `old` to `new` (those that differ among them), when `new` was
    made from `old` by with_ alone, as far as _MADE reaches; else None."""
    made = _MADE.get(id(new))
    if made is None or made[0] is not new:
        return None
    if made[1] is old:   # (one with_ since: a step of one vote)
        return made[2]
    given = dict(made[2])
    state = made[1]
    for _ in range(_MADE_KEPT):
        if state is old:
            return given
        made = _MADE.get(id(state))
        if made is None or made[0] is not state:
            return None
        given.update(made[2])
        state = made[1]
    return None


def _entries_change(before: tuple[VoteEntry, ...], after: tuple[VoteEntry, ...], change: StateChange) -> None:
    derived = _DERIVED.get(id(after))   # (_derived's look-up)
    if derived is None or derived.entries is not after:
        derived = _derived(after)
    texts = derived.texts
    # A step of one vote made `after` from `before` in one change (moved, voted, struck): its positions as kept.
    changed = derived.changed if derived.parent is before else _changed_since(before, after)
    if changed is None:   # not made from `before` by single changes (a new day): every entry again
        change.put += [("entries", item_key(index), text) for index, text in enumerate(texts)]
        change.cut.append(("entries", len(after)))
        return
    keys = _ITEM_KEYS
    change.put += [("entries", keys[index], texts[index]) for index in changed]   # (the order of parts is free)


class _ItemKeys(dict[int, str]):
    """item_key(index) by index, each made once (a vote writes two entries' parts); the first few thousand
    kept, so that a huge roster's day does not keep one a position."""

    def __missing__(self, index: int) -> str:
        key = item_key(index)
        if index < 4096:
            self[index] = key
        return key


_ITEM_KEYS = _ItemKeys()


def _changed_since(old: tuple[VoteEntry, ...], new: tuple[VoteEntry, ...]) -> set[int] | None:
    """The positions at which `new` differs from `old` when `new` was made from `old` by `struck` and `voted` (one
    entry replaced or added at a time, as far as the kept derivations reach); None when it was not."""
    changed: set[int] = set()
    entries = new
    for _ in range(_KEPT):
        if entries is old:
            return changed
        derived = _DERIVED.get(id(entries))
        if derived is None or derived.entries is not entries or derived.parent is None:
            return None
        changed.update(derived.changed)
        entries = derived.parent
    return None


# The text of each field's last value, by field name (values are immutable: the same object, the same text).
_FIELD_TEXT: dict[str, tuple[Any, str]] = {}


class _Derived(NamedTuple):
    """What is kept beside an entries tuple: where each (voter, target) entry is, each entry's JSON, and the
    tuple it was made from by changing the entry at `changed` (what a step writes, stateparts.py). A tuple:
    two are made a vote."""
    entries: tuple[VoteEntry, ...]
    index: dict[tuple[str, str], int]
    texts: tuple[str, ...]
    parent: tuple[VoteEntry, ...] | None = None
    changed: tuple[int, ...] = ()      # the positions changed from `parent` (a vote moves two entries)


_DERIVED: dict[int, _Derived] = {}
_KEPT = 64   # derivations kept: only the newest states are ever worked on


def _entry_text(entry: VoteEntry) -> str:
    """_dumps(_entry_json(entry)), written out for an entry of the usual types in field order (text, an int,
    two bools; one is made a vote): the C encoder's list machinery costs more than the text. The strings are
    escaped by the very function the encoder escapes them with (json.encoder.encode_basestring)."""
    voter, target, seq, at, post, url, final, withdrawn = _ENTRY_VALUES(entry)
    if (type(seq), type(final), type(withdrawn)) == _USUAL_TYPES:
        # The texts are not looked at here: _string takes any str (a subclass too, escaped as the encoder escapes
        # it) and raises TypeError for anything else, which the encoder then writes as it would.
        try:
            return (f"[{_string(voter)}, {_string(target)}, {seq}, {_string(at)}, {_string(post)}, {_string(url)}, "
                    f"{'true' if final else 'false'}, {'true' if withdrawn else 'false'}]")
        except TypeError:
            pass
    return _dumps(_entry_json(entry))


_USUAL_TYPES = (int, bool, bool)   # (seq, final, withdrawn: the values that are not text)
_ENTRY_VALUES = attrgetter(*(f.name for f in fields(VoteEntry)))   # _entry_json's values, in one C call


def _derived(entries: tuple[VoteEntry, ...]) -> _Derived:
    found = _DERIVED.get(id(entries))
    if found is not None and found.entries is entries:
        return found
    index = {(e.voter, e.target): i for i, e in enumerate(entries)}
    return _keep(_new_derived((entries, index, tuple(_entry_text(e) for e in entries), None, ())))


# _Derived(...) made by tuple.__new__ itself, without the frame of the NamedTuple's __new__ (two are made a vote):
# _new_derived((entries, index, texts, parent, changed)), every field given.
_new_derived = partial(tuple.__new__, _Derived)


def _keep(derived: _Derived) -> _Derived:
    if len(_DERIVED) > _KEPT:   # the oldest half goes (dicts keep their insertion order)
        for key in list(_DERIVED)[:_KEPT // 2]:
            del _DERIVED[key]
    _DERIVED[id(derived.entries)] = derived
    return derived


def made_from(entries: tuple[VoteEntry, ...]) -> tuple[tuple[VoteEntry, ...], tuple[int, ...]] | None:
    """The entries `entries` was made from by one change (a vote, a withdrawal) and the positions it changed,
    while that is kept; else None."""
    found = _DERIVED.get(id(entries))
    if found is None or found.entries is not entries or found.parent is None:
        return None
    return found.parent, found.changed


def entry_index(entries: tuple[VoteEntry, ...]) -> dict[tuple[str, str], int]:
    """Where each (voter, target) entry is in `entries` (kept, not rebuilt, from one vote to the next)."""
    return _derived(entries).index


def _put(old: _Derived, at: int | None, entry: VoteEntry, text: str) -> tuple[VoteEntry, ...]:
    entries = old.entries
    if at is None:
        new = (*entries, entry)
        return _keep(_new_derived((new, {**old.index, (entry.voter, entry.target): len(entries)},
                                   (*old.texts, text), entries, (len(entries),)))).entries
    new = entries[:at] + (entry,) + entries[at + 1:]
    return _keep(_new_derived((new, old.index, old.texts[:at] + (text,) + old.texts[at + 1:], entries, (at,)))).entries


def new_entry(voter: str, target: str, seq: int, at: str, post: str = "", url: str = "", final: bool = False,
              withdrawn: bool = False) -> VoteEntry:
    """VoteEntry(...) as __init__ makes it (model.filled: two are made a vote)."""
    entry = _new(VoteEntry)    # model.filled's, without its frame
    entry.__dict__.update(voter=voter, target=target, seq=seq, at=at, post=post, url=url, final=final,
                          withdrawn=withdrawn)
    return entry


def struck(entries: tuple[VoteEntry, ...], voter: str, target: str) -> tuple[VoteEntry, ...]:
    """`entries` with the voter's entry on `target` withdrawn (it stays, shown as withdrawn); `entries` when
    there is none. A vote moves one entry: the others are not looked at."""
    old = _derived(entries)
    at = old.index.get((voter, target))
    if at is None:
        return entries
    gone, text = _withdrawn(old, at)
    return _put(old, at, gone, text)


def _withdrawn(old: _Derived, at: int) -> tuple[VoteEntry, str]:
    """The entry at `at` withdrawn, and its JSON."""
    e = old.entries[at]
    gone = _new(VoteEntry)   # e's fields but the last (new_entry's, without its frame and e's eight reads)
    vars(gone).update(vars(e), withdrawn=True)
    text = old.texts[at]
    # The entry's JSON but for its last value: written again only if it is not what _entry_text wrote.
    return gone, (text[:-7] + " true]" if not e.withdrawn and text.endswith(", false]") else _entry_text(gone))


def voted(entries: tuple[VoteEntry, ...], entry: VoteEntry) -> tuple[VoteEntry, ...]:
    """`entries` with `entry` in place of the voter's entry on its target, or added at the end (the order of
    entries means nothing: every view orders them by seq)."""
    old = _derived(entries)
    return _put(old, old.index.get((entry.voter, entry.target)), entry, _entry_text(entry))


def moved(entries: tuple[VoteEntry, ...], left: str | None, entry: VoteEntry) -> tuple[VoteEntry, ...]:
    """voted(struck(entries, entry.voter, left), entry) as one change (one new tuple, one derivation): a vote
    that moves a voter from wagon `left` (None: from none) to the entry's."""
    old = _DERIVED.get(id(entries))   # (_derived's look-up, without its frame: one a vote)
    if old is None or old.entries is not entries:
        old = _derived(entries)
    index = old.index
    at_left = None if left is None else index.get((entry.voter, left))
    at = index.get((entry.voter, entry.target))
    if at_left is None or at_left == at:    # from no wagon: only the new entry
        return _put(old, at, entry, _entry_text(entry))
    gone, gone_text = _withdrawn(old, at_left)
    items, texts = list(entries), list(old.texts)
    items[at_left], texts[at_left] = gone, gone_text
    if at is None:     # the voter's first vote on this wagon: added at the end
        at = len(entries)
        index = {**index, (entry.voter, entry.target): at}
        items.append(entry)
        texts.append(_entry_text(entry))
    else:
        items[at], texts[at] = entry, _entry_text(entry)
    return _keep(_new_derived((tuple(items), index, tuple(texts), entries, (at_left, at)))).entries


@lru_cache(maxsize=32)
def _options_json(options: MafiaOptions) -> dict[str, Any]:
    return dict(_jsonable(options))


def _current_of(entries: list[list[Any]]) -> dict[str, str]:
    """Each voter's vote from the day's entries (one entry not withdrawn a voter, by the way votes are cast;
    a stored state in parts does not keep `current` beside them)."""
    return {voter: target for voter, target, _, _, _, _, _, withdrawn in sorted(entries, key=lambda e: e[2])
            if not withdrawn}


def state_from_json(data: dict[str, Any]) -> MafiaState:
    return MafiaState(
        players=tuple(data["players"]),
        alive=tuple(data["alive"]),
        phase=data["phase"],
        phase_started=parse_time(data["phase_started"]),
        phase_ends=parse_time(data["phase_ends"]),
        options=MafiaOptions.from_dict(data.get("options", {}), "stored state"),
        roles=dict(data.get("roles", {})),
        dead=tuple(Death(**d) for d in data.get("dead", [])),
        no_lynch_used=data.get("no_lynch_used", 0),
        days=tuple(DayResult(**{**_time_fields(d, ("at",)), "lynched": tuple(d["lynched"]),
                                "saved": tuple(d.get("saved", ()))}) for d in data.get("days", [])),
        entries=tuple(VoteEntry(*e) for e in data.get("entries", [])),
        current=dict(data["current"]) if "current" in data else _current_of(data.get("entries", [])),
        locked=frozenset(data.get("locked", [])),
        seq=data.get("seq", 0),
        count_number=data.get("count_number", 0),
        changes=data.get("changes", 0),
        errors=tuple(VoteError(**e) for e in data.get("errors", [])),
        error_total=data.get("error_total", 0),
        immune=frozenset(data.get("immune", [])),
        host=data.get("host"),
        lang=data.get("lang", "en"),
        orders=dict(data.get("orders", {})),
        notes=tuple(data.get("notes", [])),
        memory=dict(data.get("memory", {})),
        nights=tuple(data.get("nights", [])),
        winner=data.get("winner"),
        reminded=tuple(data.get("reminded", ())),
        signup=dict(data.get("signup", {})),
        masks=dict(data.get("masks", {})),
        confirmed=tuple(data.get("confirmed", ())),
        forums=dict(data.get("forums", {})),
        genders=dict(data.get("genders", {})),
        ledger=tuple(data.get("ledger", ())),
        best=dict(data.get("best", {})),
    )
