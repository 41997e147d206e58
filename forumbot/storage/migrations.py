"""The store's schema, migration by migration: a new store runs them all, an old one those it lacks. Old
migrations stay as they were, so a store of any age upgrades."""

from __future__ import annotations

import json
from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("forumbot")


@migrations()
def m001_initial(db: Database) -> None:
    db.table("posts").create({"id": str, "platform": str, "thread": str, "author": str, "created": str,
                        "edited": str, "body": str, "edited_body": str, "dialect": str, "url": str,
                        "pm": int, "fetched": str}, pk="id", not_null={"thread", "author", "created", "body"})
    db.table("posts").create_index(["thread", "created"])
    db.table("games").create({"name": str, "game": str, "setup": str, "state": str, "event_seq": int,
                        "updated": str}, pk="name")
    db.table("processed").create({"game": str, "post": str, "at": str}, pk=("game", "post"))
    db.table("intents").create({"id": int, "game": str, "post": str, "kind": str, "data": str, "at": str},
                         pk="id", foreign_keys=[("post", "posts", "id")])
    db.table("intents").create_index(["game", "post"])
    db.table("flags").create({"id": int, "game": str, "post": str, "author": str, "reason": str,
                        "candidates": str, "line": str, "at": str}, pk="id")
    db.table("events").create({"game": str, "seq": int, "kind": str, "data": str, "post": str, "at": str},
                        pk=("game", "seq"))
    db.table("outbox").create({"key": str, "game": str, "kind": str, "thread": str, "pm_to": str, "subject": str,
                         "text": str, "created": str, "delivered": str, "platform_id": str,
                         "attempts": int, "last_error": str}, pk="key")
    db.table("outbox").create_index(["delivered"])
    db.table("cursors").create({"platform": str, "name": str, "value": str}, pk=("platform", "name"))


@migrations()
def m002_game_version(db: Database) -> None:
    """A counter bumped by every step, so a runner can trust the state it holds, and the rowid of the last
    post a game has read, so finding new posts does not scan every post of the game."""
    db.table("games").add_column("version", int, not_null_default=0)
    db.table("games").add_column("post_mark", int, not_null_default=0)


@migrations()
def m003_platform_status(db: Database) -> None:
    """How each platform's polls went, for `forumbot status`."""
    db.table("platform_status").create({"platform": str, "last_ok": str, "last_error": str, "last_error_at": str,
                                        "failures": int, "next_try": str}, pk="platform")


@migrations()
def m004_host_state(db: Database) -> None:
    """The host layer's state beside each game's own (pause, replaced accounts)."""
    db.table("games").add_column("host", str)


@migrations()
def m005_outbox_slot(db: Database) -> None:
    """A message that replaces an earlier one in place (a vote count kept up to date in one post)."""
    db.table("outbox").add_column("slot", str)


@migrations()
def m006_tournament_ledger(db: Database) -> None:
    """The tournament ledger (forumbot/games/tournament.py): Tokens of Life, garnets, Elimination Candidates."""
    db.table("ledger").create({"tournament": str, "game": str, "seq": int, "player": str, "tol": int,
                               "garnets": int, "ec": int, "reason": str, "at": str},
                              pk=("tournament", "game", "seq"))


@migrations()
def m007_flags_resolved(db: Database) -> None:
    """When the host resolved a flag (`forumbot flags --resolve`); NULL while it is open."""
    db.table("flags").add_column("resolved", str)
    db.table("flags").create_index(["resolved"])


@migrations()
def m008_carry_progress(db: Database) -> None:
    """A store from before m002 kept a game's progress only in `processed`; m002 gave every game a post mark
    of 0, so the game would read every stored post again. Carry that progress forward: the mark is the newest
    post the game has processed (before m002 a step read every stored post of its threads, so nothing older
    waits)."""
    db.execute("UPDATE games SET post_mark = coalesce((SELECT max(posts.rowid) FROM processed JOIN posts "
               "ON posts.id = processed.post WHERE processed.game = games.name), 0) WHERE post_mark = 0")


@migrations()
def m009_ledger_forum_penalty(db: Database) -> None:
    """The forums' penalty points in the tournament ledger (Mafia's warnings, section 8 of seed 002)."""
    db.table("ledger").add_column("forum", str, not_null_default="")
    db.table("ledger").add_column("penalty", int, not_null_default=0)


@migrations()
def m010_host_console(db: Database) -> None:
    """The host console (forumbot/web/console.py): the host's corrections with their audit trail, read by
    every step of the game (forumbot/engine/corrections.py), and one-time sign-in links."""
    db.table("corrections").create({"id": int, "game": str, "post": str, "kind": str, "data": str, "reason": str,
                                    "by": str, "at": str, "undone": str, "undone_by": str, "applied": str,
                                    "outcome": str}, pk="id")
    db.table("corrections").create_index(["game", "applied"])
    db.table("host_links").create({"token": str, "host": str, "game": str, "expires": str, "used": str},
                                  pk="token")


@migrations()
def m011_state_parts(db: Database) -> None:
    """A game's state in parts, one row a field or list item (its `state` column NULL then). m014 puts
    every such state back together as one text and drops the table."""
    db.execute("CREATE TABLE state_parts (game TEXT NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, "
               "text TEXT NOT NULL, PRIMARY KEY (game, field, key)) WITHOUT ROWID")


@migrations()
def m012_posts_without_thread_index(db: Database) -> None:
    """No statement reads the posts by thread through an index (every one that picks threads says `+thread`:
    a game's new posts are a rowid range, a step's few), so the (thread, created) index only cost an insert
    a post stored."""
    db.execute("DROP INDEX IF EXISTS idx_posts_thread_created")


@migrations()
def m013_outbox_undelivered_index(db: Database) -> None:
    """The outbox's index holds only the messages not delivered yet (what every reader of it asks for:
    `delivered IS NULL`, by rowid): a delivery takes its message out of a small index instead of moving it
    within one that grows with every message ever sent. Each statement's plan is the same as before."""
    db.execute("DROP INDEX IF EXISTS idx_outbox_delivered")
    db.execute("CREATE INDEX idx_outbox_undelivered ON outbox (delivered) WHERE delivered IS NULL")


@migrations()
def m014_state_whole(db: Database) -> None:
    """Every game's state as one JSON text again: a state kept in parts (m011's table, its `state` NULL) is
    put together (each field's own value, key "", then a list's items in key order) and the table dropped."""
    states: dict[str, dict[str, Any]] = {}
    for game, field, key, text in db.execute("SELECT game, field, key, text FROM state_parts "
                                             "ORDER BY game, field, key").fetchall():
        state = states.setdefault(game, {})
        if key == "":
            state[field] = json.loads(text)
        else:
            state[field].append(json.loads(text))
    db.conn.executemany("UPDATE games SET state = ? WHERE name = ? AND state IS NULL",
                        [(json.dumps(state, ensure_ascii=False), game) for game, state in states.items()])
    db.execute("DROP TABLE state_parts")


@migrations()
def m015_tournaments(db: Database) -> None:
    """Tournaments that run themselves (forumbot/engine/tournament.py): each one's plan (roster with masks,
    schedule), its log (games started and ended, the host's confirmations, approvals and corrections, every
    change of a game's ledger entries: who changed what), and warnings and best-player places in the ledger."""
    db.table("tournaments").create({"name": str, "plan": str, "at": str}, pk="name")
    db.table("tournament_log").create({"id": int, "tournament": str, "at": str, "by": str, "kind": str,
                                       "game": str, "data": str}, pk="id")
    db.table("tournament_log").create_index(["tournament", "kind"])
    db.table("ledger").add_column("warning", int, not_null_default=0)
    db.table("ledger").add_column("place", int, not_null_default=0)
