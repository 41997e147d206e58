"""The tournament ledger: Tokens of Life, garnets and Elimination Candidate designations per player, kept
across the games of one tournament. Pure data; the store keeps the entries (forumbot/storage/ledger.py, table
`ledger`), games award and charge through them, `forumbot tournament` shows the standings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from forumbot.errors import IllegalIntent
from forumbot.model import Event

KINDS = ("tol", "garnets", "ec")


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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "tol": self.tol, "garnets": self.garnets, "ec": self.ec,
                               "reason": self.reason}
        if self.forum or self.penalty:
            out.update(forum=self.forum, penalty=self.penalty)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(str(data["player"]), int(data.get("tol", 0)), int(data.get("garnets", 0)),
                   int(data.get("ec", 0)), str(data.get("reason", "")), str(data.get("forum") or ""),
                   int(data.get("penalty") or 0))


@dataclass(frozen=True)
class Standing:
    player: str
    tol: int = 0
    garnets: int = 0
    ec: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "tol": self.tol, "garnets": self.garnets, "ec": self.ec}


def standings(entries: Iterable[Entry]) -> list[Standing]:
    """Each player's totals, most Tokens of Life first, then most garnets, then by name."""
    totals: dict[str, list[int]] = {}
    for entry in entries:
        if not (entry.tol or entry.garnets or entry.ec):   # a penalty alone is the forum's, not a standing
            continue
        row = totals.setdefault(entry.player, [0, 0, 0])
        row[0] += entry.tol
        row[1] += entry.garnets
        row[2] += entry.ec
    rows = [Standing(p, *v) for p, v in totals.items()]
    return sorted(rows, key=lambda s: (-s.tol, -s.garnets, s.player))


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
        raise IllegalIntent(f"{player} has {have.garnets} garnet(s) and cannot pay {garnets}")
    if tol > have.tol:
        raise IllegalIntent(f"{player} has {have.tol} Token(s) of Life and cannot pay {tol}")
    return Entry(player, tol=-tol, garnets=-garnets, reason=reason)


def standings_event(tournament: str, rows: Iterable[Mapping[str, Any]]) -> Event:
    """The standings post of a tournament from the store's ledger rows."""
    entries = [Entry.from_json(r) for r in rows]
    games = list(dict.fromkeys(str(r.get("game", "")) for r in rows))
    return Event("tournament_standings", {"tournament": tournament, "games": games,
                                          "standings": [s.to_json() for s in standings(entries)],
                                          "forums": forum_penalties(entries)})
