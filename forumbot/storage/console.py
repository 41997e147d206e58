"""The host console's rows (forumbot/engine/corrections.py keeps the rules)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from forumbot.model import format_time
from forumbot.storage.base import StoreBase


class Console(StoreBase):
    """The host's corrections with their audit trail, and one-time sign-in links."""

    def correction_rows(self, *, game: str | None = None, correction_id: int | None = None,
                        current: bool = False) -> list[tuple[Any, ...]]:
        """Corrections, oldest first: a game's (`current`: only those waiting to be applied or not undone),
        or one by id. Each row: id, game, post, kind, data, reason, by, at, undone, undone_by, applied,
        outcome."""
        if correction_id is not None:
            where, params = "id = ?", [correction_id]
        else:
            where = "game = ?" + (" AND (applied IS NULL OR undone IS NULL)" if current else "")
            params = [game]
        return self.db.execute(f"SELECT id, game, post, kind, data, reason, by, at, undone, undone_by, applied, "
                               f"outcome FROM corrections WHERE {where} ORDER BY id", params).fetchall()

    def add_correction(self, game: str, post: str, kind: str, data: str, reason: str, by: str, at: datetime,
                       applied: datetime | None) -> int:
        self._wrote("corrections")
        with self.db.atomic():
            cursor = self.db.execute("INSERT INTO corrections (game, post, kind, data, reason, by, at, applied) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                     [game, post, kind, data, reason, by, format_time(at),
                                      format_time(applied) if applied else None])
            return int(cursor.lastrowid or 0)

    def undo_correction(self, correction_id: int, by: str, at: datetime) -> bool:
        self._wrote("corrections")
        with self.db.atomic():
            cursor = self.db.execute("UPDATE corrections SET undone = ?, undone_by = ?, applied = NULL "
                                     "WHERE id = ? AND undone IS NULL", [format_time(at), by, correction_id])
            return bool(cursor.rowcount)

    def mark_corrections(self, ids: Iterable[int], at: datetime, outcome: str = "") -> None:
        """The corrections `ids` applied at `at`; an `outcome` ("not applied: …") is kept on those not undone."""
        self._wrote("corrections")
        with self.db.atomic():
            for correction_id in ids:
                if outcome:
                    self.db.execute("UPDATE corrections SET outcome = ? WHERE id = ? AND undone IS NULL",
                                    [outcome, correction_id])
                self.db.execute("UPDATE corrections SET applied = ? WHERE id = ?", [format_time(at), correction_id])

    def add_host_link(self, digest: str, host: str, game: str, expires: datetime) -> None:
        with self.db.atomic():
            self.db.execute("INSERT INTO host_links (token, host, game, expires) VALUES (?, ?, ?, ?)",
                            [digest, host, game, format_time(expires)])

    def use_host_link(self, digest: str, now: datetime) -> tuple[str, str] | None:
        """(host, game) of a link neither used nor expired, marking it used; None otherwise."""
        with self.db.atomic():
            row = self.db.execute("SELECT host, game, expires FROM host_links WHERE token = ? AND used IS NULL",
                                  [digest]).fetchone()
            if row is None or row[2] < format_time(now):
                return None
            self.db.execute("UPDATE host_links SET used = ? WHERE token = ?", [format_time(now), digest])
            return row[0], row[1]
