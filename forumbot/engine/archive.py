"""The archive: finished games as the store keeps them (roles, the day-by-day counts, the log) and each
player's record across them (games, wins by side, replacements, warnings). `forumbot archive` prints it
and the web forum serves it at /archive. Read-only: it asks each game's `record` and the seating chart.

A player is known by their account: the account that held a seat at the game's end is the one that played
it to the end (and won or lost with it); an account that was replaced keeps the game, as "replaced".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from forumbot.engine.chart import stored_chart
from forumbot.games import get_game
from forumbot.seating import name_key
from forumbot.storage import Store

# Events a game's log in the archive leaves out: a single vote is in the counts already.
QUIET_EVENTS = ("vote",)


@dataclass
class GameRecord:
    name: str
    game: str
    winner: str | None
    players: list[dict[str, Any]]              # the game's record, each with "accounts": who held the seat
    days: list[dict[str, Any]]
    counts: dict[int, dict[str, Any]] = field(default_factory=dict)   # day → the final count's view
    ended: str = ""


@dataclass
class PlayerRecord:
    name: str
    games: list[dict[str, Any]] = field(default_factory=list)   # {"game", "seat", "role", "team", "won", ...}

    @property
    def wins(self) -> dict[str, int]:
        """Wins by side."""
        out: dict[str, int] = {}
        for entry in self.games:
            if entry["won"] and entry["team"]:
                out[entry["team"]] = out.get(entry["team"], 0) + 1
        return out

    @property
    def played(self) -> dict[str, int]:
        """Games played by side."""
        out: dict[str, int] = {}
        for entry in self.games:
            side = entry["team"] or "-"
            out[side] = out.get(side, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "games": self.games, "played": self.played, "wins": self.wins,
                "replacements": sum(1 for g in self.games if g["came_in"]),
                "replaced": sum(1 for g in self.games if g["replaced"]),
                "warnings": sum(g["warnings"] for g in self.games)}


def finished(store: Store, host_of: dict[str, str | None] | None = None) -> list[GameRecord]:
    """Every finished game in the store, in the order the store lists them. `host_of`: each game's host
    account, where the bot config names it (the chart needs it only to tell hosts apart)."""
    out = []
    for row in store.games():
        rules = get_game(row.game)
        record_of = getattr(rules, "record", None)
        if record_of is None:
            continue
        record = record_of(rules.from_json(row.state))
        if record is None:
            continue
        chart = stored_chart(row, (host_of or {}).get(row.name))
        seats = {seat.name: seat for seat in chart.seats}
        players = []
        for player in record["players"]:
            seat = seats.get(player["name"])
            holders = [{"account": h.account, "since": h.since, "until": h.until} for h in seat.holders] if seat \
                else [{"account": player["name"], "since": "", "until": ""}]
            players.append({**player, "accounts": holders})
        counts = {}
        ended = ""
        for event in store.events(row.name):
            if event["kind"] == "day_end":
                data = json.loads(event["data"])
                counts[int(data.get("day", 0))] = data.get("view", {})
            if event["kind"] == "game_over":
                ended = event["at"] or ""
        out.append(GameRecord(row.name, row.game, record["winner"], players, record["days"], counts, ended))
    return out


def game_log(store: Store, name: str) -> list[dict[str, Any]]:
    """A game's events in order, without single votes: {"seq", "kind", "at", "data"}."""
    return [{"seq": e["seq"], "kind": e["kind"], "at": e["at"], "data": json.loads(e["data"] or "{}")}
            for e in store.events(name) if e["kind"] not in QUIET_EVENTS]


def players(records: list[GameRecord]) -> dict[str, PlayerRecord]:
    """Each account's record across the finished games, by account (keys compared as a reader sees them)."""
    out: dict[str, PlayerRecord] = {}
    for record in records:
        for player in record.players:
            holders = player["accounts"]
            for at, holder in enumerate(holders):
                last = at == len(holders) - 1
                key = name_key(holder["account"])
                entry = out.setdefault(key, PlayerRecord(holder["account"]))
                entry.games.append({"game": record.name, "seat": player["name"], "role": player["role"],
                                    "team": player["team"], "won": bool(player["won"]) and last,
                                    "alive": player["alive"] and last, "came_in": at > 0, "replaced": not last,
                                    "warnings": player["warnings"] if last else 0, "winner": record.winner})
    return out


def player(records: list[GameRecord], name: str) -> PlayerRecord | None:
    return players(records).get(name_key(name))
