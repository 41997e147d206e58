"""The flags raised for the host, and the tournament ledger (forumbot/games/tournament.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from forumbot.model import Flag, format_time
from forumbot.storage.base import StoreBase, dumps, now
from forumbot.storage.sqlite import Transaction


class Ledger(StoreBase):
    """The flags for the host and the tournament ledger."""

    def add_flags(self, game: str, flags: Iterable[Flag]) -> None:
        with Transaction(self.db.conn):
            self.db.conn.executemany(
                "INSERT INTO flags (game, post, author, reason, candidates, line, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game, f.post_id, f.author, f.reason, dumps(list(f.candidates)), f.line,
                  format_time(f.at) if f.at else now()) for f in flags])

    def flags(self, game: str | None = None) -> Iterator[dict[str, Any]]:
        yield from self.db["flags"].rows_where("game = ?" if game else None, [game] if game else [],
                                               order_by="id")

    def has_open_flag(self, game: str, reason: str) -> bool:
        """Whether an open flag of the game already says `reason` (a failure that repeats every poll is
        flagged once)."""
        return self.db.conn.execute("SELECT 1 FROM flags WHERE game = ? AND reason = ? AND resolved IS NULL LIMIT 1",
                                    [game, reason]).fetchone() is not None

    def flag_list(self, game: str | None = None, *, include_resolved: bool = False,
                  limit: int | None = None) -> list[dict[str, Any]]:
        """Flags newest first, with a link to the post each is about (its url, when the platform gave one)."""
        where = ["1"]
        params: list[Any] = []
        if game:
            where.append("f.game = ?")
            params.append(game)
        if not include_resolved:
            where.append("f.resolved IS NULL")
        sql = (f"SELECT f.*, p.url AS url FROM flags f LEFT JOIN posts p ON p.id = f.post "
               f"WHERE {' AND '.join(where)} ORDER BY f.at DESC, f.id DESC" + (f" LIMIT {int(limit)}" if limit else ""))
        cursor = self.db.execute(sql, params)
        columns = [c[0] for c in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def resolve_flags(self, ids: Iterable[int], at: datetime) -> list[int]:
        """Mark flags resolved; returns the ids that were open (unknown or already resolved ids are left)."""
        done = []
        with self.db.atomic():
            for flag_id in ids:
                cursor = self.db.execute("UPDATE flags SET resolved = ? WHERE id = ? AND resolved IS NULL",
                                         [format_time(at), flag_id])
                if cursor.rowcount:
                    done.append(flag_id)
        return done

    def record_ledger(self, tournament: str, game: str, entries: Iterable[Any], at: datetime | None = None, *,
                      by: str = "") -> int:
        """A game's ledger entries (forumbot.games.tournament.Entry), in one transaction: recording the same
        again changes nothing; entries that differ from those recorded (a host's correction of a finished
        round read the game again) replace them, and the tournament's log says who changed what. Returns how
        many entries are new or changed."""
        when = format_time(at) if at else now()
        rows = [(tournament, game, seq, e.player, e.tol, e.garnets, e.ec, e.reason, when,
                 getattr(e, "forum", ""), getattr(e, "penalty", 0), getattr(e, "warning", 0), getattr(e, "place", 0))
                for seq, e in enumerate(entries, start=1)]
        fields = ("player", "tol", "garnets", "ec", "reason", "forum", "penalty", "warning", "place")
        with self.db.atomic():
            before = [tuple(r[f] for f in fields) for r in self.db["ledger"].rows_where(
                "tournament = ? AND game = ?", [tournament, game], order_by="seq")]
            after = [(r[3], *r[4:8], *r[9:]) for r in rows]
            if before == after:
                return 0
            if after[:len(before)] == before:   # (a game that records as it goes: only the new ones)
                rows = rows[len(before):]
            else:
                self.db.execute("DELETE FROM ledger WHERE tournament = ? AND game = ?", [tournament, game])
                self.db.execute("INSERT INTO tournament_log (tournament, at, by, kind, game, data) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                [tournament, when, by or "the bot", "ledger_changed", game,
                                 dumps({"before": [dict(zip(fields, b, strict=True)) for b in before],
                                        "after": [dict(zip(fields, a, strict=True)) for a in after]})])
            self.db.conn.executemany("INSERT INTO ledger (tournament, game, seq, player, tol, garnets, ec, reason, "
                                     "at, forum, penalty, warning, place) VALUES "
                                     "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return len([a for a in after if a not in before])

    def ledger(self, tournament: str) -> list[dict[str, Any]]:
        """The tournament's entries, in the order they were recorded."""
        return list(self.db["ledger"].rows_where("tournament = ?", [tournament], order_by="rowid"))

    def tournaments(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT tournament FROM ledger UNION "
                                              "SELECT name FROM tournaments ORDER BY 1")]

    # ---- tournaments that run themselves (forumbot/engine/tournament.py) -----------------------------
    def save_plan(self, name: str, plan: dict[str, Any], at: datetime) -> bool:
        """Keep a tournament's plan the first time it runs (the same plan again changes nothing). False when
        another plan of that name is kept already."""
        with self.db.atomic():
            row = self.db.execute("SELECT plan FROM tournaments WHERE name = ?", [name]).fetchone()
            if row is None:
                self.db.execute("INSERT INTO tournaments (name, plan, at) VALUES (?, ?, ?)",
                                [name, dumps(plan), format_time(at)])
                return True
            return bool(json.loads(row[0]) == plan)

    def plan(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT plan FROM tournaments WHERE name = ?", [name]).fetchone()
        return json.loads(row[0]) if row else None

    def log_tournament(self, tournament: str, kind: str, at: datetime, *, by: str = "", game: str = "",
                       data: dict[str, Any] | None = None) -> int:
        with self.db.atomic():
            cursor = self.db.execute("INSERT INTO tournament_log (tournament, at, by, kind, game, data) "
                                     "VALUES (?, ?, ?, ?, ?, ?)",
                                     [tournament, format_time(at), by, kind, game, dumps(data or {})])
            return int(cursor.lastrowid or 0)

    def tournament_log(self, tournament: str, kind: str | None = None) -> list[dict[str, Any]]:
        """The tournament's log, oldest first (`kind`: only those)."""
        where, params = "tournament = ?", [tournament]
        if kind:
            where, params = where + " AND kind = ?", [tournament, kind]
        rows = list(self.db["tournament_log"].rows_where(where, params, order_by="id"))
        return [{**r, "data": json.loads(r["data"] or "{}")} for r in rows]
