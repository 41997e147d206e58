"""The archive: finished games as the store keeps them (roles, the day-by-day counts, the log) and each
player's record across them and the tournaments (games, wins by side, replacements, warnings; each
tournament's place, Tokens of Life, garnets, Elimination Candidacies and best-player places). `forumbot
archive` prints it and the web forum serves it at /archive. Read-only: it asks each game's `record`, the
seating chart and the tournaments' ledger.

A player is known by their account: the account that held a seat at the game's end is the one that played
it to the end (and won or lost with it); an account that was replaced keeps the game, as "replaced".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from forumbot.engine.chart import stored_chart
from forumbot.engine.tournament import revealed
from forumbot.errors import ForumbotError
from forumbot.games import get_game
from forumbot.games.tournament import Entry, Plan, standings_event, warnings
from forumbot.model import Event
from forumbot.render.renderer import Renderer
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
class TournamentRecord:
    """A tournament as the archive shows it: its games, whether it finished and its masks are revealed, and
    each member's line of the table: {"mask", "player" (who played it, once revealed, else ""), "place" (in
    the table: most Tokens of Life, then garnets), "tol", "garnets", "ec", "places" (best-player places),
    "warnings"}."""

    name: str
    games: list[str]
    finished: bool
    revealed: bool
    table: list[dict[str, Any]]

    def holder(self, mask: str) -> str:
        """Who a mask's record belongs to in the archive: the player behind it once the masks are revealed,
        else the mask itself (the tournament keeps the secret)."""
        found = next((row for row in self.table if row["mask"] == mask), None)
        return found["player"] if found is not None and found["player"] else mask


@dataclass
class PlayerRecord:
    name: str
    games: list[dict[str, Any]] = field(default_factory=list)   # {"game", "seat", "role", "team", "won", ...}
    tournaments: list[dict[str, Any]] = field(default_factory=list)   # {"tournament", "mask", "place", ...}

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
                "warnings": sum(g["warnings"] for g in self.games)
                + sum(t["warnings"] for t in self.tournaments if not t["games_warned"]),
                "tournaments": self.tournaments,
                "tournament_wins": sum(1 for t in self.tournaments if t["finished"] and t["place"] == 1)}


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
    """A game's events in order, without single votes: {"seq", "kind", "at", "data", "text", "thread",
    "pm_to", "flag"}. `text` is
    the message the event made as it went out (the outbox keeps it: the players' and the host's words, in the
    game's language and the platform's markup); an event that went out as part of a gathered reply, or only
    as a flag, is rendered again in the game's language (Markdown). Where it went: the thread, a private
    message to `pm_to`, or a flag for the host (`flag`)."""
    row = store.game(name)
    setup = row.setup if row is not None else {}
    game = row.game if row is not None else ""
    renderer = Renderer("markdown", str(setup.get("lang") or "en"))
    sent = {key: (thread, pm_to, text) for key, thread, pm_to, text in store.db.execute(
        "SELECT key, thread, pm_to, text FROM outbox WHERE game = ?", [name]).fetchall()}
    out = []
    for e in store.events(name):
        if e["kind"] in QUIET_EVENTS:
            continue
        data = json.loads(e["data"] or "{}")
        thread, pm_to, text = sent.get(f"{name}:{e['seq']}", (None, None, None))
        told = {"text": text, "thread": thread or "", "pm_to": pm_to or "", "flag": False} if text is not None \
            else _told(renderer, Event(e["kind"], data), game)
        out.append({"seq": e["seq"], "kind": e["kind"], "at": e["at"], "data": data, **told})
    return out


def _told(renderer: Renderer, event: Event, game: str) -> dict[str, Any]:
    """An event that made no message of its own, in the game's language, and to whom: a flag's reason for
    the host, else its template's text (a PM to whom it names)."""
    if event.kind in ("moderation", "rejected") and not event.data.get("pm_to"):
        return {"text": renderer.flag_reason(event), "thread": "", "pm_to": "", "flag": True}
    try:
        text = renderer.text(event, game)
    except ForumbotError:
        text = ""
    pm_to = event.data.get("pm_to")
    return {"text": text, "thread": "", "pm_to": pm_to if isinstance(pm_to, str) else "", "flag": False}


def tournaments(store: Store) -> list[TournamentRecord]:
    """Every tournament the store runs (those with a plan), with its table."""
    out = []
    for name in store.tournaments():
        kept = store.plan(name)
        if kept is None:
            continue
        plan = Plan.from_json(kept)
        rows = store.ledger(name)
        shown = revealed(store, plan)
        behind = {m.mask: m.player for m in plan.members} if shown else {}
        standing = standings_event(name, rows, plan.masks()).data
        told = warnings([Entry.from_json(r) for r in rows])
        ranked = standing["standings"]   # (most Tokens of Life, then most garnets: equals share a place)
        table = [{"mask": s["player"], "player": behind.get(s["player"], ""),
                  "place": 1 + sum(1 for o in ranked if (o["tol"], o["garnets"]) > (s["tol"], s["garnets"])),
                  "tol": s["tol"], "garnets": s["garnets"], "ec": s["ec"], "places": s.get("places", []),
                  "warnings": told.get(s["player"], 0)} for s in ranked]
        out.append(TournamentRecord(name, [stage.name for stage in plan.stages],
                                    bool(store.tournament_log(name, "finished")), shown, table))
    return out


def players(records: list[GameRecord], cups: Sequence[TournamentRecord] = ()) -> dict[str, PlayerRecord]:
    """Each account's record across the finished games and the tournaments, by account (keys compared as a
    reader sees them). A game of a tournament counts for the player behind its mask once the masks are
    revealed (until then, for the mask)."""
    out: dict[str, PlayerRecord] = {}
    cup_of = {game: cup for cup in cups for game in cup.games}
    for record in records:
        cup = cup_of.get(record.name)
        for player in record.players:
            holders = player["accounts"]
            for at, holder in enumerate(holders):
                last = at == len(holders) - 1
                account = cup.holder(holder["account"]) if cup is not None else holder["account"]
                entry = out.setdefault(name_key(account), PlayerRecord(account))
                entry.games.append({"game": record.name, "seat": player["name"], "role": player["role"],
                                    "team": player["team"], "won": bool(player["won"]) and last,
                                    "alive": player["alive"] and last, "came_in": at > 0, "replaced": not last,
                                    "warnings": player["warnings"] if last else 0, "winner": record.winner,
                                    "tournament": cup.name if cup is not None else ""})
    for cup in cups:
        for row in cup.table:
            account = row["player"] or row["mask"]
            entry = out.setdefault(name_key(account), PlayerRecord(account))
            # (a Mafia game of the tournament gives its warnings in the game's record and in the ledger:
            # counted once)
            warned = any(g["tournament"] == cup.name and g["warnings"] for g in entry.games)
            entry.tournaments.append({"tournament": cup.name, "mask": row["mask"], "place": row["place"],
                                      "of": len(cup.table), "finished": cup.finished, "tol": row["tol"],
                                      "garnets": row["garnets"], "ec": row["ec"], "places": row["places"],
                                      "warnings": row["warnings"], "games_warned": warned})
    return out


def player(records: list[GameRecord], name: str, cups: Sequence[TournamentRecord] = ()) -> PlayerRecord | None:
    return players(records, cups).get(name_key(name))
