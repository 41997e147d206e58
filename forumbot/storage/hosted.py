"""The games hosts made or closed at run time (forumbot/engine/hosting.py keeps the rules)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from forumbot.model import format_time
from forumbot.storage.base import StoreBase

_COLUMNS = ("name", "platform", "kind", "toml", "threads", "by", "at", "ended", "ended_by", "archived")


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    found = dict(zip(_COLUMNS, row, strict=True))
    found["threads"] = json.loads(found["threads"] or "{}")
    return found


class Hosted(StoreBase):
    """One row a game: `kind` "game" or "lobby" with its file's text (made in the console), or "file" for a
    game of the bot config that the host ended or archived."""

    def hosted_games(self, platform: str | None = None) -> list[dict[str, Any]]:
        where, params = ("WHERE platform = ?", [platform]) if platform is not None else ("", [])
        rows = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM hosted_games {where} ORDER BY at, name",
                               params).fetchall()
        return [_row(row) for row in rows]

    def hosted_game(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM hosted_games WHERE name = ?", [name]).fetchone()
        return _row(row) if row else None

    def add_hosted(self, name: str, platform: str, kind: str, toml: str, by: str, at: datetime,
                   threads: dict[str, str] | None = None) -> bool:
        """False when a game of that name is there already. `threads`: the game's threads → platform ids (as
        [games.threads]; those left out get the platform's default)."""
        self._wrote("hosted")
        with self.db.atomic():
            cursor = self.db.execute("INSERT OR IGNORE INTO hosted_games (name, platform, kind, toml, threads, by, at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                     [name, platform, kind, toml, json.dumps(threads or {}, ensure_ascii=False), by,
                                      format_time(at)])
            return bool(cursor.rowcount)

    def end_hosted(self, name: str, platform: str, by: str, at: datetime, *, archive: bool = False) -> None:
        """The game ends now (a game of the bot config gets a row of its own); `archive`: and leaves the lists."""
        self._wrote("hosted")
        when = format_time(at)
        with self.db.atomic():
            self.db.execute("INSERT OR IGNORE INTO hosted_games (name, platform, kind, toml, by, at) "
                            "VALUES (?, ?, 'file', '', ?, ?)", [name, platform, by, when])
            self.db.execute("UPDATE hosted_games SET ended = ?, ended_by = ? WHERE name = ? AND ended IS NULL",
                            [when, by, name])
            if archive:
                self.db.execute("UPDATE hosted_games SET archived = ? WHERE name = ? AND archived IS NULL",
                                [when, name])
