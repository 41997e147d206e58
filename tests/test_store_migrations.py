"""A store whose states were kept in parts (the `state_parts` table of m011 to m013) opens with every state
as one JSON text again, and the table gone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from forumbot.storage import Store, migrations

# A state in parts as the old code wrote it: (field, key, JSON text); key "" is a field's own value, a list's
# items follow its empty list, by zero-padded index.
PARTS = [
    ("phase", "", '"day1"'),
    ("seq", "", "7"),
    ("entries", "", "[]"),
    ("entries", "00000000", '["Alice", "Bob", 1]'),
    ("entries", "00000001", '["Carol", "Bob", 2]'),
    ("entries", "00000002", '["Том", "Alice", 3]'),
    ("players", "", '["Alice", "Bob", "Carol", "Том"]'),
]


def _old_store(path: Path) -> None:
    """A store made by the code before m014: one game kept in parts (state NULL), one kept whole."""
    conn = sqlite3.connect(path)
    migrations.apply(Database(conn), stop_before=["m014_state_whole"])
    conn.execute("INSERT INTO games (name, game, setup, state, event_seq, updated, version, post_mark) "
                 "VALUES ('parts', 'mafia', '{}', NULL, 3, '2026-03-01T20:00:00Z', 4, 0)")
    conn.execute("INSERT INTO games (name, game, setup, state, event_seq, updated, version, post_mark) "
                 "VALUES ('whole', 'mafia', '{}', '{\"phase\": \"night1\"}', 1, '2026-03-01T20:00:00Z', 2, 0)")
    # (in the table's key order, as a WITHOUT ROWID table keeps them: the migration must not rely on it)
    conn.executemany("INSERT INTO state_parts (game, field, key, text) VALUES ('parts', ?, ?, ?)", reversed(PARTS))
    conn.commit()
    conn.close()


def test_a_state_kept_in_parts_is_put_back_together_and_the_table_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    _old_store(path)
    store = Store(path)
    assert store.game("parts").state == {
        "entries": [["Alice", "Bob", 1], ["Carol", "Bob", 2], ["Том", "Alice", 3]],
        "phase": "day1", "players": ["Alice", "Bob", "Carol", "Том"], "seq": 7}
    assert store.game("whole").state == {"phase": "night1"}
    assert "state_parts" not in store.db.table_names()
    assert store.db.execute("SELECT count(*) FROM games WHERE state IS NULL").fetchone()[0] == 0
    text = store.db.execute("SELECT state FROM games WHERE name = 'parts'").fetchone()[0]
    assert "Том" in text and json.loads(text) == store.game("parts").state   # written as the store writes JSON
    # the game goes on from its state, and the next open has nothing left to migrate
    store.commit_step("parts", "mafia", None, {"phase": "day2"}, expected_version=4)
    store.close()
    again = Store(path)
    assert again.game("parts").state == {"phase": "day2"} and again.game("parts").version == 5


def test_a_new_store_has_no_state_parts_table() -> None:
    store = Store()
    assert "state_parts" not in store.db.table_names()
    store.commit_step("g", "mafia", {}, {"n": 1}, expected_version=0)
    assert store.game("g").state == {"n": 1}
