"""The tournament ledger: Tokens of Life, garnets, Elimination Candidate designations, forums' penalty points,
warnings and best-player places per player, kept across the games of one tournament. Pure data; the store
keeps the entries (forumbot/storage/ledger.py, table `ledger`), games award and charge through them,
`forumbot tournament` shows the standings. The tournament itself (its roster under masks and its schedule)
is a `Plan` (forumbot/config/tournament.py reads it from TOML; forumbot/engine/tournament.py runs it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import IllegalIntent
from forumbot.model import Event
from forumbot.text.decline import counted

KINDS = ("tol", "garnets", "ec")
CORRECTIONS = "host corrections"   # the ledger's "game" of a tournament host's own corrections (not a game)


@dataclass(frozen=True)
class Entry:
    """One change of one player's account: + an award, - a charge. `key` makes it once per game."""

    player: str
    tol: int = 0
    garnets: int = 0
    ec: int = 0
    reason: str = ""
    forum: str = ""             # the player's home forum, for the forums' penalty table (Mafia's warnings)
    penalty: int = 0            # penalty points to that forum
    warning: int = 0            # 1 when the entry is a warning (a violation charged without one is 0)
    place: int = 0              # a best-player place (1, 2, 3) the player took in the game

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "tol": self.tol, "garnets": self.garnets, "ec": self.ec,
                               "reason": self.reason}
        if self.forum or self.penalty:
            out.update(forum=self.forum, penalty=self.penalty)
        if self.warning:
            out["warning"] = self.warning
        if self.place:
            out["place"] = self.place
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(str(data["player"]), int(data.get("tol", 0)), int(data.get("garnets", 0)),
                   int(data.get("ec", 0)), str(data.get("reason", "")), str(data.get("forum") or ""),
                   int(data.get("penalty") or 0), int(data.get("warning") or 0), int(data.get("place") or 0))


@dataclass(frozen=True)
class Standing:
    player: str
    tol: int = 0
    garnets: int = 0
    ec: int = 0
    places: tuple[int, ...] = ()    # best-player places taken, in the order of the games

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "tol": self.tol, "garnets": self.garnets, "ec": self.ec}
        if self.places:
            out["places"] = list(self.places)
        return out


def standings(entries: Iterable[Entry]) -> list[Standing]:
    """Each player's totals, most Tokens of Life first, then most garnets, then by name. Best-player places
    are listed beside them (they count in the table; a penalty alone is the forum's, not a standing)."""
    totals: dict[str, list[int]] = {}
    places: dict[str, list[int]] = {}
    for entry in entries:
        if entry.place:
            places.setdefault(entry.player, []).append(entry.place)
            totals.setdefault(entry.player, [0, 0, 0])
        if not (entry.tol or entry.garnets or entry.ec or entry == Entry(entry.player)):
            continue   # (an entry of nothing at all is a member of the roster listed as they are)
        row = totals.setdefault(entry.player, [0, 0, 0])
        row[0] += entry.tol
        row[1] += entry.garnets
        row[2] += entry.ec
    rows = [Standing(p, *v, tuple(places.get(p, ()))) for p, v in totals.items()]
    return sorted(rows, key=lambda s: (-s.tol, -s.garnets, s.player))


def holdings(entries: Iterable[Entry], players: Iterable[str]) -> dict[str, Standing]:
    """What each of `players` holds now (Tokens of Life, garnets): what a game reads at its start."""
    found = {s.player: s for s in standings(entries)}
    return {p: found.get(p, Standing(p)) for p in players}


def warnings(entries: Iterable[Entry]) -> dict[str, int]:
    """How many warnings each player was given over the tournament's games."""
    out: dict[str, int] = {}
    for entry in entries:
        if entry.warning:
            out[entry.player] = out.get(entry.player, 0) + entry.warning
    return out


def forum_places(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """Each forum's best-player places over the tournament's games (first places first)."""
    totals: dict[str, list[int]] = {}
    for entry in entries:
        if entry.place:
            totals.setdefault(entry.forum or f"@{entry.player}", [0, 0, 0, 0])[min(entry.place, 4) - 1] += 1
    rows = [{"forum": f, "first": v[0], "second": v[1], "third": v[2]} for f, v in totals.items()]
    return sorted(rows, key=lambda r: (-r["first"], -r["second"], -r["third"], r["forum"]))


def forum_penalties(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """Each forum's penalty points over the tournament's games, most first."""
    totals: dict[str, int] = {}
    for entry in entries:
        if entry.forum and entry.penalty:
            totals[entry.forum] = totals.get(entry.forum, 0) + entry.penalty
    return [{"forum": f, "penalty": p} for f, p in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))]


def charge(entries: Iterable[Entry], player: str, *, garnets: int = 0, tol: int = 0, reason: str = "") -> Entry:
    """The entry that charges a player, or IllegalIntent saying why when it would take them below zero."""
    if garnets < 0 or tol < 0:
        raise IllegalIntent("a charge is a positive amount")
    have = next((s for s in standings(entries) if s.player == player), Standing(player))
    if garnets > have.garnets:
        raise IllegalIntent(f"{player} has {counted(have.garnets, 'garnet/garnets')} and cannot pay {garnets}")
    if tol > have.tol:
        raise IllegalIntent(f"{player} has {counted(have.tol, 'Token of Life/Tokens of Life')} and cannot pay {tol}")
    return Entry(player, tol=-tol, garnets=-garnets, reason=reason)


def standings_event(tournament: str, rows: Iterable[Mapping[str, Any]], roster: Iterable[str] = ()) -> Event:
    """The standings post of a tournament from the store's ledger rows (`roster`: every member is listed,
    those without an entry with nothing)."""
    rows = list(rows)
    entries = [Entry.from_json(r) for r in rows] + [Entry(p) for p in roster]
    games = [g for g in dict.fromkeys(str(r.get("game", "")) for r in rows) if g != CORRECTIONS]
    return Event("tournament_standings", {"tournament": tournament, "games": games,
                                          "standings": [s.to_json() for s in standings(entries)],
                                          "forums": forum_penalties(entries), "places": forum_places(entries),
                                          "warnings": warnings(entries)})


# ---- the tournament: its roster under masks and its schedule ------------------------------------------
@dataclass(frozen=True)
class Member:
    """One member of the roster: the mask every game knows them by, who plays it and their home forum (the
    host's secret until the masks are revealed at the tournament's end)."""

    mask: str
    player: str = ""
    forum: str = ""


@dataclass(frozen=True)
class Choice:
    """What a ranked vote's option starts: a game and its options (the ruleset's, then the file's)."""

    game: str
    options: dict[str, Any]


@dataclass(frozen=True)
class Stage:
    """One game of the schedule. Its game is `game`, or the one the ranked vote `picked_by` chose among
    `choices`. It starts at `start`, or `start_hours` after the game before it (`after`) ended, or on the
    host's confirmation (`confirm`), never before the game before it ended."""

    name: str
    game: str = ""
    options: dict[str, Any] | None = None
    after: str | None = None
    picked_by: str | None = None
    choices: dict[str, Choice] | None = None
    start: datetime | None = None
    start_hours: float | None = None
    confirm: bool = False

    def chosen(self, winner: str | None) -> Choice:
        """The game this stage plays, once the ranked vote before it has its `winner`. IllegalIntent when the
        winner is not one of its choices (the host is told; the tournament waits)."""
        if not self.picked_by:
            return Choice(self.game, dict(self.options or {}))
        if winner is None or winner not in (self.choices or {}):
            raise IllegalIntent(f"{self.picked_by} chose {winner!r}, which {self.name} has no game for "
                                f"(choices: {', '.join(self.choices or {})})")
        return (self.choices or {})[winner]

    def start_time(self, before_ended: datetime | None, confirmed: datetime | None) -> datetime | None:
        """When the stage starts, as far as is known; None while it waits for its predecessor or the host."""
        if self.after and before_ended is None:
            return None
        if self.confirm:
            return None if confirmed is None else max(confirmed, before_ended or confirmed)
        if self.start is not None:
            return max(self.start, before_ended) if before_ended else self.start
        if self.start_hours is not None and before_ended is not None:
            return before_ended + timedelta(hours=self.start_hours)
        return before_ended


@dataclass(frozen=True)
class Plan:
    """A tournament: a name, its host, the roster (with masks), the games in order, and how masks end."""

    name: str
    host: str | None
    lang: str
    dialect: str
    members: tuple[Member, ...]
    stages: tuple[Stage, ...]
    reveal: str = "host"            # "host": masks revealed at the end on the host's approval; "never"
    source: str = ""

    def stage(self, name: str) -> Stage:
        found = next((s for s in self.stages if s.name == name), None)
        if found is None:
            raise IllegalIntent(f"{self.name} has no game {name!r} (games: {', '.join(s.name for s in self.stages)})")
        return found

    def masks(self) -> tuple[str, ...]:
        return tuple(m.mask for m in self.members)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "host": self.host, "lang": self.lang, "dialect": self.dialect,
                "reveal": self.reveal, "source": self.source,
                "members": [{"mask": m.mask, "player": m.player, "forum": m.forum} for m in self.members],
                "stages": [{"name": s.name, "game": s.game, "options": s.options, "after": s.after,
                            "picked_by": s.picked_by,
                            "choices": {k: {"game": c.game, "options": c.options}
                                        for k, c in (s.choices or {}).items()},
                            "start": s.start.isoformat() if s.start else None, "start_hours": s.start_hours,
                            "confirm": s.confirm} for s in self.stages]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        stages = tuple(Stage(s["name"], s.get("game") or "", s.get("options"), s.get("after"), s.get("picked_by"),
                             {k: Choice(c["game"], dict(c["options"])) for k, c in s["choices"].items()}
                             if s.get("choices") else None,
                             datetime.fromisoformat(s["start"]) if s.get("start") else None, s.get("start_hours"),
                             bool(s.get("confirm"))) for s in data["stages"])
        return cls(data["name"], data.get("host"), data.get("lang", "en"), data.get("dialect", "markdown"),
                   tuple(Member(m["mask"], m.get("player", ""), m.get("forum", "")) for m in data["members"]),
                   stages, data.get("reveal", "host"), data.get("source", ""))


# What each game reads from the ledger when it starts, as the option it takes it in.
LEDGER_READS = {"nisemonogatari": "garnets", "foodchain": "tokens"}


def start_options(game: str, options: Mapping[str, Any], entries: Iterable[Entry],
                  players: Iterable[str]) -> dict[str, Any]:
    """A game's options at its start with what it reads from the ledger: Nisemonogatari each player's
    garnets, Food Chain each player's Tokens of Life (the ledger is the authority: a number the file gave is
    replaced). Players holding none are left out."""
    out = dict(options)
    read = LEDGER_READS.get(game)
    if read is None:
        return out
    held = holdings(list(entries), players)
    out[read] = {p: (s.garnets if read == "garnets" else s.tol) for p, s in held.items()
                 if (s.garnets if read == "garnets" else s.tol) > 0}
    return out


def reveal_rows(plan: Plan) -> list[dict[str, str]]:
    """The masks with the players behind them and their forums, alphabetically by mask (seed 002 section 1:
    "по итогам турнира список масок будет сопровождаться указанием игроков")."""
    return [{"mask": m.mask, "player": m.player, "forum": m.forum}
            for m in sorted(plan.members, key=lambda m: m.mask.casefold())]
