"""The flags raised for the host, and the tournament ledger (forumbot/games/tournament.py)."""

from __future__ import annotations

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

    def record_ledger(self, tournament: str, game: str, entries: Iterable[Any], at: datetime | None = None) -> int:
        """A game's ledger entries (forumbot.games.tournament.Entry), once: recording them again changes nothing.
        Returns how many were new."""
        rows = [(tournament, game, seq, e.player, e.tol, e.garnets, e.ec, e.reason, format_time(at) if at else now(),
                 getattr(e, "forum", ""), getattr(e, "penalty", 0)) for seq, e in enumerate(entries, start=1)]
        with self.db.atomic():
            before = self.db.execute("SELECT count(*) FROM ledger WHERE tournament = ? AND game = ?",
                                     [tournament, game]).fetchone()[0]
            self.db.conn.executemany("INSERT OR IGNORE INTO ledger (tournament, game, seq, player, tol, garnets, ec, "
                                     "reason, at, forum, penalty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return max(0, len(rows) - before)

    def ledger(self, tournament: str) -> list[dict[str, Any]]:
        """The tournament's entries, in the order they were recorded."""
        return list(self.db["ledger"].rows_where("tournament = ?", [tournament], order_by="rowid"))

    def tournaments(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT tournament FROM ledger ORDER BY tournament")]
