"""A new database's schema in one transaction (issue 16: a replay, and the web console's replay of a game per
page, made a new store and forum each time: sqlite-utils walked each migration, asking SQLite about every
table it touched, ~5 ms a replay).

What a set of migrations makes of an empty database is the same each time: the first time in a process it
is made on a scratch database in memory by the migrations themselves, and the statements SQLite kept for
it (sqlite_master, in the order they were made) are what every later empty database is given, with the
migrations table's rows as `Migrations.apply` writes them. A database that is not empty is migrated by
`Migrations.apply`, as ever; so is every database when the migrations do more than make a schema (rows in
a table, a user_version, a migration outside a transaction).
"""

from __future__ import annotations

import datetime
import sqlite3
import threading
from typing import NamedTuple

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.sqlite import Transaction, in_memory


class _Made(NamedTuple):
    statements: tuple[str, ...]    # sqlite_master's statements, in the order SQLite made them
    names: tuple[str, ...]         # the migrations, in the order apply records them
    image: sqlite3.Connection      # the scratch database itself (copied whole into a new one in memory)


_EMPTY = "SELECT 1 FROM sqlite_master LIMIT 1"
_made: dict[tuple[object, ...], _Made | None] = {}
_lock = threading.Lock()


def migrate(migrations: Migrations, db: Database) -> None:
    """`migrations.apply(db)`: for an empty database, the schema its migrations make, in one transaction."""
    conn = db.conn
    if conn.execute(_EMPTY).fetchone() is None:
        pending = migrations.pending(db)
        made = _schema(migrations, tuple((m.name, m.fn, m.transactional) for m in pending))
        if made is not None and conn.execute("PRAGMA database_list").fetchone()[2] == "" and not conn.in_transaction:
            # A database in memory (no other connection sees it): the scratch copied page by page, which is
            # much cheaper than its statements (SQLite reads its whole schema again after each one).
            with _lock:
                made.image.backup(conn)
            with Transaction(conn):
                conn.execute(f"UPDATE [{migrations.migrations_table}] SET applied_at = ? WHERE migration_set = ?",
                             [_now(), migrations.name])
            return
        if made is not None:
            with Transaction(conn, "BEGIN IMMEDIATE"):
                fresh = conn.execute(_EMPTY).fetchone() is None    # (not made by another connection meanwhile)
                if fresh:
                    _write(conn, migrations, made)
            if fresh:
                return
    migrations.apply(db)


def _write(conn: sqlite3.Connection, migrations: Migrations, made: _Made) -> None:
    for statement in made.statements:
        conn.execute(statement)
    conn.executemany(f"INSERT INTO [{migrations.migrations_table}] (migration_set, name, applied_at) "
                     "VALUES (?, ?, ?)", [(migrations.name, name, _now()) for name in made.names])


def _now() -> str:
    return str(datetime.datetime.now(datetime.UTC))     # as Migrations._record_applied writes it


def _schema(migrations: Migrations, key: tuple[tuple[object, ...], ...]) -> _Made | None:
    """What `migrations` (as `key` lists them) make of an empty database, found once; None when that is
    more than a schema."""
    with _lock:
        if (migrations, key) in _made:
            return _made[(migrations, key)]
        made = _made[(migrations, key)] = _scratch(migrations, key)
        return made


def _scratch(migrations: Migrations, key: tuple[tuple[object, ...], ...]) -> _Made | None:
    if not all(transactional for _name, _fn, transactional in key):
        return None
    scratch = Database(in_memory(sqlite3.connect(":memory:", check_same_thread=False)))   # (used under _lock)
    made = None
    try:
        made = _made_of(migrations, key, scratch)
        return made
    finally:
        if made is None:
            scratch.close()


def _made_of(migrations: Migrations, key: tuple[tuple[object, ...], ...], scratch: Database) -> _Made | None:
    migrations.apply(scratch)
    conn = scratch.conn
    if conn.execute("PRAGMA user_version").fetchone()[0] != 0:
        return None
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    for kind, name, _sql in rows:
        if kind == "table" and name != migrations.migrations_table and \
                conn.execute(f"SELECT 1 FROM [{name}] LIMIT 1").fetchone() is not None:
            return None
    names = tuple(m.name for m in migrations.applied(scratch))
    if names != tuple(name for name, _fn, _transactional in key):
        return None
    # (SQLite makes its own tables and a key's index itself, with the statement that needs them.)
    return _Made(tuple(sql for _kind, name, sql in rows if sql is not None and not name.startswith("sqlite_")),
                 names, conn)
