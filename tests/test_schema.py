"""A new store's and forum's schema made at once (forumbot/schema.py) is what their migrations make."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.platforms.local import LocalForum, forum_migrations
from forumbot.schema import migrate
from forumbot.store import Store, migrations


def schema(conn: sqlite3.Connection) -> tuple[object, ...]:
    master = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    columns = {name: conn.execute(f"PRAGMA table_xinfo([{name}])").fetchall()
               for kind, name, _table, _sql in master if kind == "table"}
    indexes = {name: conn.execute(f"PRAGMA index_xinfo([{name}])").fetchall()
               for kind, name, _table, _sql in master if kind == "index"}
    applied = conn.execute("SELECT id, migration_set, name FROM _sqlite_migrations ORDER BY rowid").fetchall()
    return master, columns, indexes, applied, conn.execute("PRAGMA user_version").fetchone()


def by_migrations(chosen: Migrations) -> tuple[object, ...]:
    db = Database(memory=True)
    chosen.apply(db)
    return schema(db.conn)


@pytest.mark.parametrize("make", [lambda path: Store(path).db, lambda path: LocalForum(path).db])
@pytest.mark.parametrize("where", [":memory:", "file"])
def test_a_new_store_and_forum_read_as_their_migrations_made_them(tmp_path, make, where):
    path = tmp_path / "x.db" if where == "file" else where
    before = str(datetime.now(UTC))
    db = make(path)
    chosen = migrations if "games" in db.table_names() else forum_migrations
    assert schema(db.conn) == by_migrations(chosen)
    assert chosen.pending(db) == []
    assert all(row["applied_at"] >= before and datetime.fromisoformat(row["applied_at"]).utcoffset() == timedelta(0)
               for row in db["_sqlite_migrations"].rows)      # applied now, written as apply writes it
    if where == "file":          # opened again: nothing to migrate, nothing changed
        assert schema(make(path).conn) == by_migrations(chosen)


def test_a_new_store_walks_no_migration(monkeypatch):
    Store()
    ran: list[str] = []
    monkeypatch.setattr(Migrations, "_record_applied", lambda self, db, name: ran.append(name))
    store = Store()
    assert ran == [] and migrations.pending(store.db) == []


def test_a_store_of_an_older_schema_is_migrated_one_by_one(tmp_path):
    names = [m.name for m in migrations.pending(Database(memory=True))]
    Store()   # (the schema of a new store found)
    old = Database(sqlite3.connect(tmp_path / "old.db"))
    migrations.apply(old, stop_before=names[3:])
    old.conn.close()
    store = Store(tmp_path / "old.db")
    assert [m.name for m in migrations.applied(store.db)] == names
    assert schema(store.db.conn)[1] == by_migrations(migrations)[1]       # the same columns


def test_migrations_that_write_rows_are_applied_as_they_are():
    seeded = Migrations("seeded")

    @seeded()
    def m001(db: Database) -> None:
        db["kinds"].insert({"id": 1, "name": "vote"}, pk="id")

    @seeded()
    def m002(db: Database) -> None:
        db.execute("PRAGMA user_version = 7")

    for _ in range(2):
        db = Database(memory=True)
        migrate(seeded, db)
        assert list(db["kinds"].rows) == [{"id": 1, "name": "vote"}]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 7
        assert [m.name for m in seeded.applied(db)] == ["m001", "m002"]


def test_a_migration_registered_later_is_made_too():
    growing = Migrations("growing")

    @growing()
    def m001(db: Database) -> None:
        db["a"].create({"id": int}, pk="id")

    migrate(growing, Database(memory=True))

    @growing()
    def m002(db: Database) -> None:
        db["b"].create({"id": int}, pk="id")

    db = Database(memory=True)
    migrate(growing, db)
    assert db.table_names() == ["_sqlite_migrations", "a", "b"] and growing.pending(db) == []


def test_two_connections_to_a_new_file_make_it_once(tmp_path):
    path = tmp_path / "bot.db"
    first, second = Database(sqlite3.connect(path)), Database(sqlite3.connect(path))
    migrate(migrations, first)
    migrate(migrations, second)
    assert schema(second.conn) == by_migrations(migrations)
