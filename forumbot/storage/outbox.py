"""The outbox: messages decided by a step, delivered later, each once (a delivery is looked for on the
platform before a message is sent again)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from operator import itemgetter
from typing import Any

from forumbot.model import format_time
from forumbot.storage.base import StoreBase, now
from forumbot.storage.sqlite import Transaction

# pending()'s statement, for every game (False) or one (True).
_PENDING_SQL = {flag: f"SELECT * FROM outbox WHERE delivered IS NULL{' AND game = ?' if flag else ''} ORDER BY rowid"
                for flag in (False, True)}

# The outbox's columns, as `SELECT *` gives them.
_OUTBOX_COLUMNS = ["key", "game", "kind", "thread", "pm_to", "subject", "text", "created", "delivered", "platform_id",
                   "attempts", "last_error", "slot"]

# A message just queued, as pending() reads it back: these columns from commit_step's row, in this order...
_QUEUED_COLUMNS = ("key", "game", "kind", "thread", "pm_to", "subject", "text", "created", "slot")

# ... over a row not delivered, not tried (the columns in the order `SELECT *` gives them)
_UNTRIED = {column: 0 if column == "attempts" else None for column in _OUTBOX_COLUMNS}


def outbox_row(queued: tuple[Any, ...]) -> dict[str, Any]:
    """A message just queued (commit_step's row) as pending() reads it back."""
    row = _UNTRIED.copy()
    row.update(zip(_QUEUED_COLUMNS, queued, strict=True))
    return row


_KEY_OF_MARK = itemgetter(2)      # a mark's key

_KEY_OF_ROW = itemgetter("key")   # an outbox row's (pending)


class Outbox(StoreBase):
    """The messages the games decided, each delivered exactly once."""

    def pending(self, game: str | None = None, *, looked: bool = False) -> list[dict[str, Any]]:
        """Undelivered messages, in the order they were decided.

        `looked`: as in unprocessed_posts. While no other connection has committed since the outbox was last
        read, that read's messages less those delivered since plus those queued since are the answer, and
        the store is not asked."""
        owed = self._owed if looked else None
        if owed is not None and owed[0] == self._data_version:
            return [row for row in owed[1] if row["game"] == game] if game else list(owed[1])
        self.write_deliveries()
        cursor = self.db.conn.execute(_PENDING_SQL[bool(game)], [game] if game else [])
        columns = [c[0] for c in cursor.description]
        if not game:
            rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
            self._owed = (self._data_version, rows) if columns == _OUTBOX_COLUMNS else None
            return list(rows)
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def outbox(self, game: str | None = None) -> list[dict[str, Any]]:
        self.write_deliveries()
        return list(self.db["outbox"].rows_where("game = ?" if game else None, [game] if game else [],
                                                 order_by="rowid"))

    def last_delivered(self, game: str, kind: str) -> dict[str, Any] | None:
        """The game's last message of `kind` that was delivered (its `platform_id` says where), or None."""
        self.write_deliveries()
        cursor = self.db.conn.execute("SELECT * FROM outbox WHERE game = ? AND kind = ? AND delivered IS NOT NULL "
                                      "AND platform_id IS NOT NULL ORDER BY rowid DESC LIMIT 1", [game, kind])
        found = cursor.fetchone()
        return dict(zip([c[0] for c in cursor.description], found, strict=True)) if found else None

    def slot_holder(self, game: str, slot: str) -> str | None:
        """The platform id of the post that a slot's messages replace in place (the first one delivered)."""
        self.write_deliveries()
        row = self.db.conn.execute("SELECT platform_id FROM outbox WHERE game = ? AND slot = ? AND delivered IS NOT "
                                   "NULL AND platform_id NOT LIKE 'superseded:%' ORDER BY rowid LIMIT 1",
                                   [game, slot]).fetchone()
        return row[0] if row else None

    def newer_in_slot(self, game: str, slot: str, key: str) -> str | None:
        """The key of a later undelivered message of the same slot, if any (this one need not go out)."""
        self.write_deliveries()
        row = self.db.conn.execute("SELECT key FROM outbox WHERE game = ? AND slot = ? AND delivered IS NULL AND "
                                   "rowid > (SELECT rowid FROM outbox WHERE key = ?) ORDER BY rowid DESC LIMIT 1",
                                   [game, slot, key]).fetchone()
        return row[0] if row else None

    def bot_post_ids(self, game: str) -> set[str]:
        """The platform ids of the bot's own delivered posts for the game."""
        self.write_deliveries()
        return {r[0] for r in self.db.execute(
            "SELECT platform_id FROM outbox WHERE game = ? AND platform_id IS NOT NULL", [game]).fetchall()}

    def record_delivery(self, sent: Iterable[tuple[str, str]], at: datetime | None = None,
                        failed: tuple[str, str] | None = None, *, later: bool = False) -> None:
        """In one transaction: messages delivered, (key, platform id) each, and the one whose sending
        failed, (key, error). `attempts` counts the sends tried whose outcome was recorded.

        `later` (messages delivered, none failed): written by this connection's next transaction instead
        of one of their own (a runner's next poll writes one anyway), or before anything reads the outbox's
        delivered marks through this connection. A crash before that loses the marks, which costs what a
        crash just after a send costs: the platform is asked for the message (by its marker) before it is
        sent again."""
        sent = list(sent)
        if not sent and failed is None:
            return
        stamp = format_time(at) if at else now()
        marks = [(stamp, platform_id, key) for key, platform_id in sent]
        if later and failed is None:
            self.delivered(marks)
            return
        conn = self.db.conn
        with Transaction(conn) as nested:
            written = self._put_marks(nested, marks)
            if failed is not None:
                conn.execute("UPDATE outbox SET last_error = ?, attempts = attempts + 1 WHERE key = ?",
                             [failed[1], failed[0]])
        del self._marks[:written]
        if self._owed is not None:
            if nested:   # the caller's transaction may still roll back
                self._owed = None
                return
            gone = set(map(_KEY_OF_MARK, marks))
            rows = [row for row in self._owed[1] if row["key"] not in gone]
            if failed is not None:
                rows = [{**row, "last_error": failed[1], "attempts": row["attempts"] + 1} if row["key"] == failed[0]
                        else row for row in rows]
            self._owed = (self._owed[0], rows)

    def delivered(self, marks: list[tuple[str, str, str]]) -> None:
        """Messages delivered, (time, platform id, key) each, in the order pending() gave them: recorded
        `later`, as record_delivery records them."""
        self._marks += marks
        owed = self._owed
        if owed is None:
            return
        rows = owed[1]
        count = len(marks)
        if list(map(_KEY_OF_ROW, rows[:count])) == list(map(_KEY_OF_MARK, marks)):   # the first ones owed
            self._owed = (owed[0], rows[count:])
        else:
            gone = set(map(_KEY_OF_MARK, marks))
            self._owed = (owed[0], [row for row in rows if row["key"] not in gone])
