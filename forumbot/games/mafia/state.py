"""The Mafia state: an immutable value, stored as JSON after every step.

The day's votes are kept as one entry per (wagon, voter): a voter who leaves a wagon leaves a struck
entry behind, and coming back revives it. That is what a vote count shows, and it bounds the state to
players × (players + 1) entries however many posts a day has.
"""

from __future__ import annotations

from dataclasses import dataclass, field, is_dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from forumbot.games.mafia.options import MafiaOptions
from forumbot.model import format_time, parse_time

NO_LYNCH = "no_lynch"
KILL_KEY = "@kill"
GAME_KEY = "@game"
PRE_PHASES = ("signup", "roles")      # before the game: sign-ups, then role confirmation (signup.py)


def _phase_number(phase: str) -> int:
    """The number in a phase's name ("day3" → 3)."""
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
    edit_of: str = ""         # the post this vote's post is an edit of (the platform's edit policy "edited")
    edited: str = ""          # when this vote's post was edited, where the vote as first read still shows
    now: str | None = None    # what the edited post says now: a name, NO_LYNCH, "" (no vote); None: removed


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
    ended: str                # "deadline", "early" or "host" (the host ended it by command)
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
    host_ended: str = ""              # the phase the host ended by command (its end is told as theirs)
    errors: tuple[VoteError, ...] = ()
    error_total: int = 0
    immune: frozenset[str] = frozenset()   # cannot be hanged today (filled by roles)
    tie: tuple[str, ...] = ()         # a tie the host breaks by PM (option tie = "host"): who is tied
    # Posts in the game's threads (activity.py): player → phase → [posts, words, last post's time].
    activity: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    prodded: dict[str, str] = field(default_factory=dict)   # player → when they were last prodded
    countdown: str = ""               # while a majority's countdown runs: the day's own deadline before it
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
        return replace(self, **changes)


def _time_fields(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: (parse_time(v) if k in names and isinstance(v, str) else v) for k, v in data.items()}


_PLAIN = (str, int, float, bool, type(None))


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


def _entry_json(e: VoteEntry) -> list[Any]:
    # Vote entries are the bulk of a day's state: plain lists.
    row = [e.voter, e.target, e.seq, e.at, e.post, e.url, e.final, e.withdrawn]
    if e.edited:
        return [*row, e.edit_of, e.edited, e.now]
    return [*row, e.edit_of] if e.edit_of else row


def state_to_json(state: MafiaState) -> dict[str, Any]:
    data: dict[str, Any] = {key: _jsonable(value) for key, value in vars(state).items()
                            if key not in ("entries", "options")}
    data["options"] = _options_json(state.options)
    data["entries"] = [_entry_json(e) for e in state.entries]
    return data


@lru_cache(maxsize=32)
def _options_json(options: MafiaOptions) -> dict[str, Any]:
    """The options as JSON data: the same in every step of a game (the caller only reads it)."""
    return dict(_jsonable(options))


def _find(entries: tuple[VoteEntry, ...], voter: str, target: str) -> int | None:
    """Where the voter's entry on `target` is in `entries`, or None."""
    for at, e in enumerate(entries):
        if e.voter == voter and e.target == target:
            return at
    return None


def struck(entries: tuple[VoteEntry, ...], voter: str, target: str) -> tuple[VoteEntry, ...]:
    """`entries` with the voter's entry on `target` withdrawn (it stays, shown as withdrawn); `entries` when
    there is none."""
    at = _find(entries, voter, target)
    if at is None:
        return entries
    return (*entries[:at], replace(entries[at], withdrawn=True), *entries[at + 1:])


def voted(entries: tuple[VoteEntry, ...], entry: VoteEntry) -> tuple[VoteEntry, ...]:
    """`entries` with `entry` in place of the voter's entry on its target, or added at the end (the order of
    entries means nothing: every view orders them by seq)."""
    at = _find(entries, entry.voter, entry.target)
    if at is None:
        return (*entries, entry)
    return (*entries[:at], entry, *entries[at + 1:])


def moved(entries: tuple[VoteEntry, ...], left: str | None, entry: VoteEntry) -> tuple[VoteEntry, ...]:
    """A vote that moves a voter from wagon `left` (None: from none) to the entry's."""
    if left is not None:
        entries = struck(entries, entry.voter, left)
    return voted(entries, entry)


def _current_of(entries: list[list[Any]]) -> dict[str, str]:
    """Each voter's vote from the day's entries (one entry not withdrawn a voter, by the way votes are cast):
    for a stored state without `current`."""
    return {e[0]: e[1] for e in sorted(entries, key=lambda e: e[2]) if not e[7]}


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
        host_ended=data.get("host_ended", ""),
        errors=tuple(VoteError(**e) for e in data.get("errors", [])),
        error_total=data.get("error_total", 0),
        immune=frozenset(data.get("immune", [])),
        tie=tuple(data.get("tie", ())),
        activity={p: dict(v) for p, v in data.get("activity", {}).items()},
        prodded=dict(data.get("prodded", {})),
        countdown=data.get("countdown", ""),
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
