"""A game's step: the posts it processed, the intents and flags read from them, the events, the
new state and the messages, written in one transaction, so a crash leaves all of it or none."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from itertools import chain
from operator import itemgetter
from typing import Any

from forumbot.errors import StaleState
from forumbot.model import Event, Flag, Intent, Outgoing, Post, format_time
from forumbot.storage.base import dumps, now
from forumbot.storage.outbox import outbox_row
from forumbot.storage.posts import _POST_ID_OF, _POST_OF, _ROWID_OF, Posts
from forumbot.storage.sqlite import Transaction


@dataclass(frozen=True)
class GameRow:
    name: str
    game: str
    setup: dict[str, Any]
    state: dict[str, Any]
    event_seq: int
    version: int = 0
    host: dict[str, Any] | None = None


# A step's write of the game's row, only if it is still the version read: (game, event_seq, updated, version,
# post_mark, whether the state is written, the state, the host or NULL to keep it, the setup or NULL to keep
# it, name, and the event_seq, version and post_mark read).
_UPDATE_GAME_SQL = ("UPDATE games SET game = ?, event_seq = ?, updated = ?, version = ?, post_mark = ?, "
                    "state = CASE WHEN ? THEN ? ELSE state END, host = coalesce(?, host), setup = coalesce(?, setup) "
                    "WHERE name = ? AND event_seq = ? AND version = ? AND post_mark = ?")

_STEP_GAME_SQL = ("UPDATE games SET game = ?, event_seq = ?, updated = ?, version = ?, post_mark = ? "
                  "WHERE name = ? AND event_seq = ? AND version = ? AND post_mark = ?")   # (the others kept)

# A game's first step.
_INSERT_GAME_SQL = ("INSERT INTO games (name, game, event_seq, updated, version, post_mark, state, host, setup) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")

# A step's rows of one table go in by one statement (up to _ROWS_A_STATEMENT of them; more, by several), not
# a statement run per row: SQLite then opens the table and its indexes once, and the game's name (and the
# step's time) is bound once, not once a row (each text bound is copied by SQLite into memory of its own).
_ROWS_A_STATEMENT = 16


def _events_text(count: int) -> str:
    """`count` events written: ?1 the game's name, ?2 the step's time, then (seq, kind, data, post) each."""
    rows = ", ".join(f"(?1, ?{3 + 4 * i}, ?{4 + 4 * i}, ?{5 + 4 * i}, ?{6 + 4 * i}, ?2)" for i in range(count))
    return f"INSERT INTO events (game, seq, kind, data, post, at) VALUES {rows}"


def _processed_text(count: int) -> str:
    """`count` posts processed: ?1 the game's name, ?2 the step's time, then each post's id."""
    rows = ", ".join(f"(?1, ?{3 + i}, ?2)" for i in range(count))
    return f"INSERT OR IGNORE INTO processed (game, post, at) VALUES {rows}"


def _intents_text(count: int) -> str:
    """`count` intents written, in turn (their ids in that order): ?1 the game's name, then (post, kind, data,
    at) each."""
    rows = ", ".join(f"(?1, ?{2 + 4 * i}, ?{3 + 4 * i}, ?{4 + 4 * i}, ?{5 + 4 * i})" for i in range(count))
    return f"INSERT INTO intents (game, post, kind, data, at) VALUES {rows}"


# Each number of rows' statement text, by the number (1 to _ROWS_A_STATEMENT), made at import: no step pays
# for making one, whatever its number of rows (nor a test for the order steps came in). One statement of a
# step's rows, not executemany's statement run per row: SQLite opens the table and its indexes once.
_EVENTS_SQL = ("", *map(_events_text, range(1, _ROWS_A_STATEMENT + 1)))

_PROCESSED_SQL = ("", *map(_processed_text, range(1, _ROWS_A_STATEMENT + 1)))

_INTENTS_SQL = ("", *map(_intents_text, range(1, _ROWS_A_STATEMENT + 1)))

# A message queued (a key queued already is left as it is).
_OUTBOX_SQL = ("INSERT OR IGNORE INTO outbox (key, game, kind, thread, pm_to, subject, text, created, attempts, slot) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)")


def _write_rows(cur: sqlite3.Cursor, texts: tuple[str, ...], shared: tuple[str, ...],
                rows: list[tuple[Any, ...]]) -> None:
    """`rows` written by texts[count] statements, each bound to `shared` and then its rows' values in turn."""
    for start in range(0, len(rows), _ROWS_A_STATEMENT):
        batch = rows[start:start + _ROWS_A_STATEMENT]
        cur.execute(texts[len(batch)], (*shared, *chain.from_iterable(batch)))


_POST_OF_ROW = itemgetter(0)   # an intent's row's post (commit_step)


class Steps(Posts):
    """The games' rows and their steps: each written in one transaction."""

    def game(self, name: str) -> GameRow | None:
        row = self.db.conn.execute("SELECT name, game, setup, state, event_seq, version, host FROM games "
                                   "WHERE name = ?", [name]).fetchone()
        if row is None:
            return None
        return GameRow(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5],
                       json.loads(row[6]) if row[6] else None)

    def games(self) -> list[GameRow]:
        names = [row[0] for row in self.db.execute("SELECT name FROM games ORDER BY name").fetchall()]
        return [g for g in (self.game(n) for n in names) if g is not None]

    def event_seq(self, name: str) -> int:
        row = self.db.conn.execute("SELECT event_seq FROM games WHERE name = ?", [name]).fetchone()
        return row[0] if row else 0

    def game_version(self, name: str) -> int | None:
        """The game's step counter (cheap: no JSON), or None for an unknown game."""
        row = self.db.conn.execute("SELECT version FROM games WHERE name = ?", [name]).fetchone()
        return row[0] if row else None

    def game_updated(self, game: str) -> str | None:
        """When the game's last step was written."""
        row = self.db.execute("SELECT updated FROM games WHERE name = ?", [game]).fetchone()
        return row[0] if row else None

    def commit_step(self, name: str, game: str, setup: dict[str, Any] | None,
                    state: dict[str, Any] | str | None,
                    *, processed: Iterable[str] = (), intents: Iterable[Intent] = (),
                    flags: Iterable[Flag] = (), events: Iterable[tuple[Event, str]] = (),
                    outbox: Iterable[Outgoing] = (), at: datetime | None = None,
                    expected_seq: int | None = None, expected_version: int | None = None,
                    host: dict[str, Any] | None = None) -> int:
        """Write one step of a game atomically. `events` pairs each event with the post that caused it.
        `setup` or `state` None keeps the stored one; `state` may come as JSON text already. Returns the
        game's new event count.

        `expected_version` is the version of the state the step was computed from (0: a game not created
        yet); it is checked inside the write transaction, so a step never commits over a state it did not
        read. Raises StaleState when another writer moved the game on (nothing is written).

        While save_posts `hold` holds a transaction, the step is written in it and commits it (so a caller
        must not wrap this in a transaction of its own then: write_held first)."""
        processed = list(processed)
        handed = self._handed.get(name) if processed else None
        if handed:   # the posts handed out that this step leaves unprocessed, and the mark they allow
            done = set(processed)
            if done.issuperset(map(_POST_ID_OF, map(_POST_OF, handed))):   # all of them (the usual step)
                left: list[tuple[str, int, Post]] | None = []
                top = max(map(_ROWID_OF, handed))
            else:
                left = [row for row in handed if row[2].platform_id not in done]
                top = self._mark_after(handed, left)
        else:
            left, top = None, 0
        stamp = format_time(at) if at else now()
        conn, cur = self.db.conn, self._cur
        known = self._written.pop(name, None)   # set again below once this step is committed
        # In the transaction holding the step's fetch (committed with it), or in one of its own (a savepoint
        # within a caller's: `nested`).
        held = self._held is not None
        writing = False
        try:
            with nullcontext(False) if held else Transaction(conn, "BEGIN IMMEDIATE") as nested:
                marks = 0 if held else self._put_marks(nested)
                if known is not None and expected_version == known[0]:
                    # This connection wrote that version: no read; the write below checks that it is still there.
                    version, seq, mark = known
                    row: tuple[int, int, int] | None = known
                    if expected_seq is not None and seq != expected_seq:
                        raise StaleState(f"game {name} changed under us (events {seq}, expected {expected_seq})")
                else:
                    if nested:   # a deferred transaction: take the write lock first, so the row read is the newest
                        cur.execute("UPDATE games SET version = version WHERE 0")
                    row = next(iter(cur.execute("SELECT event_seq, version, post_mark FROM games WHERE name = ?",
                                                [name]).fetchall()), None)
                    seq, version, mark = row if row else (0, 0, 0)
                    if expected_seq is not None and seq != expected_seq:
                        raise StaleState(f"game {name} changed under us (events {seq}, expected {expected_seq})")
                    if expected_version is not None and version != expected_version:
                        raise StaleState(f"game {name} changed under us (version {version}, read {expected_version})")
                before = (seq, version, mark)
                # Every row is made before the first statement that writes: in the held transaction, a failure
                # before that (or StaleState, raised only where nothing was written) leaves the held posts for the
                # next commit; a failure after it rolls the whole transaction back (no part of a game's step is
                # ever committed without the rest).
                event_rows = []   # (seq, kind, data, post): the game's name and the time are bound once
                for event, post in events:
                    seq += 1
                    event_rows.append((seq, event.kind, dumps(event.data), post))
                if top > mark:
                    mark = top
                # The game's row, by one statement text whatever the step changed: the state's text only with
                # `put_state`, the host's and the setup's only when given.
                put_state, state_text = 0, None
                if state is not None or row is None:
                    put_state, state_text = 1, state if isinstance(state, str) else dumps(state or {})
                host_text = dumps(host) if host is not None else None
                setup_text = dumps(setup or {}) if setup is not None or row is None else None
                # (an empty list is not walked: most steps have no flags, a talk post no intents, a vote no message)
                intent_rows = [(i.post_id, i.kind, dumps(i.data), format_time(i.at) if i.at else stamp)
                               for i in intents] if intents else ()
                flag_rows = [(name, f.post_id, f.author, f.reason, dumps(list(f.candidates)), f.line,
                              format_time(f.at) if f.at else stamp) for f in flags] if flags else ()
                queued = [(o.key, name, o.kind, o.thread, o.pm_to, o.subject, o.text,
                           format_time(o.at) if o.at else stamp, o.slot or None) for o in outbox] if outbox else []
                writing = True
                # The game's row first: an existing one only if it is still the version read (checked in the
                # write itself, so a step never commits over a state it did not read).
                if row is None:
                    cur.execute(_INSERT_GAME_SQL, (name, game, seq, stamp, version + 1, mark, state_text, host_text,
                                                    setup_text))
                else:
                    if put_state or host_text is not None or setup_text is not None:
                        updated = cur.execute(_UPDATE_GAME_SQL, (game, seq, stamp, version + 1, mark, put_state,
                                                                  state_text, host_text, setup_text, name, *before))
                    else:   # the state, the host and the setup kept
                        updated = cur.execute(_STEP_GAME_SQL, (game, seq, stamp, version + 1, mark, name, *before))
                    if updated.rowcount != 1:
                        raise StaleState(f"game {name} changed under us (not at version {version} any more)")
                # A step's rows of a table by one statement (several past _ROWS_A_STATEMENT rows), the game's
                # name (and the step's time) bound once: not sqlite-utils' insert_all, which inspects the schema
                # on every call, nor executemany, which runs its statement once a row.
                # (IndexError: only from the texts' tuple, when there are more rows than one statement takes)
                # A post the step writes an intent of is not written here as well: its intents say the game
                # read it (every reader of `processed` takes the posts of the game's intents too), so a vote
                # writes one row, not two. Only the posts without an intent (talk, a PM with nothing in it, a
                # post that did not count) get a row of their own.
                unread = processed
                if intent_rows:
                    said = set(map(_POST_OF_ROW, intent_rows))
                    if said == set(processed):   # (the usual step: each post a command)
                        unread = []
                    elif said.issubset(processed):
                        unread = [post for post in processed if post not in said]
                    else:   # (never: a game's intents come from the posts its step read)
                        raise ValueError(f"game {name}: intents of posts the step did not read "
                                         f"({sorted(said.difference(processed))})")
                if unread:
                    try:
                        cur.execute(_PROCESSED_SQL[len(unread)], (name, stamp, *unread))
                    except IndexError:
                        _write_rows(cur, _PROCESSED_SQL, (name, stamp), [*zip(unread)])
                if intent_rows:
                    try:
                        cur.execute(_INTENTS_SQL[len(intent_rows)], (name, *chain.from_iterable(intent_rows)))
                    except IndexError:
                        _write_rows(cur, _INTENTS_SQL, (name,), intent_rows)
                if flag_rows:
                    cur.executemany("INSERT INTO flags (game, post, author, reason, candidates, line, at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?)", flag_rows)
                if event_rows:   # (a step's few: one statement, written out here)
                    try:
                        cur.execute(_EVENTS_SQL[len(event_rows)], (name, stamp, *chain.from_iterable(event_rows)))
                    except IndexError:
                        _write_rows(cur, _EVENTS_SQL, (name, stamp), event_rows)
                if queued:   # (a step's one or two)
                    added = cur.executemany(_OUTBOX_SQL, queued).rowcount
                else:
                    added = 0
                writing = False
                if held:
                    self._commit_held()   # (a failure rolls back what it held, and forgets it)
        except BaseException as err:
            if held and writing and not isinstance(err, StaleState):   # (StaleState: the game's row was not written)
                self._drop_held()
            self._reads.pop(name, None)   # another writer may have moved the game on: its posts are read again
            raise
        if marks:
            del self._marks[:marks]   # (written: committed)
        self._wrote(f"game:{name}")
        if queued:
            self._wrote("outbox")
            if self._owed is not None:   # a key already there (not queued again) or a rollback to come: read it
                if nested or added != len(queued):
                    self._owed = None
                else:
                    self._owed[1].extend(map(outbox_row, queued))
        if nested:   # the caller's transaction may still roll back
            if processed:
                self._reads.pop(name, None)
            return seq
        self._written[name] = (version + 1, seq, mark)   # known only once committed
        if left is not None:   # only what is still unprocessed is kept for the next mark (not every Post
            self._handed[name] = left   # handed out: a backlog's posts would stay in memory, a batch a game)
        if processed:
            read = self._reads.get(name)
            if read is not None:
                if left is not None and read.rows is handed:
                    read.rows = left
                else:
                    done = set(processed)
                    read.rows = [row for row in read.rows if row[2].platform_id not in done]
        return seq

    def games_of_messages(self, platform_ids: Iterable[str]) -> dict[str, set[str]]:
        """Which games each message belongs to, by platform id: a post or private message a game acted on (it
        took an intent from it, flagged it or answered it: an event of its came of it), and a message a game sent
        (its outbox). A message a game only passed over (one for another game, `processed` alone) is not that
        game's; one no game acted on or sent is in none."""
        self.write_deliveries()
        ids = sorted(set(platform_ids))
        found: dict[str, set[str]] = {}
        for start in range(0, len(ids), 400):
            chunk = ids[start:start + 400]
            marks = ",".join("?" * len(chunk))
            rows = self.db.conn.execute(
                f"SELECT post, game FROM events WHERE post IN ({marks}) "
                f"UNION SELECT post, game FROM intents WHERE post IN ({marks}) "
                f"UNION SELECT post, game FROM flags WHERE post IN ({marks}) "
                f"UNION SELECT platform_id, game FROM outbox WHERE platform_id IN ({marks})",
                chunk * 4).fetchall()
            for message, game in rows:
                found.setdefault(message, set()).add(game)
        return found

    def events(self, game: str) -> list[dict[str, Any]]:
        return list(self.db["events"].rows_where("game = ?", [game], order_by="seq"))

    def intents_by_post(self, game: str) -> dict[str, list[dict[str, Any]]]:
        """The intents the parser read, by post, in order: {"kind", "data"}."""
        out: dict[str, list[dict[str, Any]]] = {}
        for post, kind, data in self.db.execute("SELECT post, kind, data FROM intents WHERE game = ? ORDER BY id",
                                                [game]).fetchall():
            out.setdefault(post, []).append({"kind": kind, "data": json.loads(data or "{}")})
        return out
