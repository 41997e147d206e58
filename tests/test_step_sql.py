"""A step's SQL: its processed posts and intents are the rows executemany wrote (several statements past
the rows one takes, all or none), tokens move with writes and other connections' commits, and the indexes
of a store from before (each reader's plan unchanged)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import forumbot.storage.base
import forumbot.storage.outbox
import forumbot.storage.posts
from forumbot.model import Intent, Outgoing, Post, format_time
from forumbot.storage import Store
from forumbot.storage.steps import _ROWS_A_STATEMENT

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


def _posts(count: int) -> list[Post]:
    return [Post(platform_id=f"local:{n}", thread="votes", author=f"P{n % 5}", created=T0 + timedelta(seconds=n),
                 body=f"vote P{n % 3}") for n in range(1, count + 1)]


def _intents(posts: list[Post], every: int) -> list[Intent]:
    """`every` intents a post, some with a time of their own (the step's time otherwise)."""
    return [Intent("vote", {"target": f"P{k}", "n": n}, post_id=post.platform_id,
                   at=post.created if k % 2 else None)
            for n, post in enumerate(posts) for k in range(every)]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 2 * _ROWS_A_STATEMENT + 3), st.integers(0, 3), st.booleans())
def test_a_steps_processed_posts_and_intents_are_the_rows_executemany_wrote(count: int, every: int,
                                                                             twice: bool) -> None:
    store = Store()
    posts = _posts(count)
    store.save_posts("local", posts)
    intents = _intents(posts, every)
    processed = [p.platform_id for p in posts] + ([posts[0].platform_id] if twice else [])   # a repeat: ignored
    at = T0 + timedelta(hours=1)
    store.commit_step("g", "mafia", {}, {}, processed=processed, intents=intents, at=at, expected_version=0)
    stamp = "2026-03-01T21:00:00Z"
    conn = store.db.conn
    # a post with an intent is read by its intents' rows alone; a post without one by a row of its own
    assert conn.execute("SELECT game, post, at FROM processed ORDER BY rowid").fetchall() == \
        ([("g", p.platform_id, stamp) for p in posts] if not every else [])
    assert [p.platform_id for p in store.processed_posts("g")] == [p.platform_id for p in posts]
    # the ids in the order the intents came (what intents_by_post and the console read them by)
    assert conn.execute("SELECT id, game, post, kind, data, at FROM intents ORDER BY id").fetchall() == \
        [(n, "g", i.post_id, "vote", forumbot.storage.base.dumps(i.data),
          format_time(i.at) if i.at else stamp) for n, i in enumerate(intents, start=1)]


def test_rows_past_one_statement_go_by_several_and_a_failure_in_any_leaves_none(tmp_path: Path) -> None:
    store = Store()
    posts = _posts(2 * _ROWS_A_STATEMENT + 1)
    store.save_posts("local", posts[:-1])   # the last post unknown: its intent breaks the foreign key
    with pytest.raises(sqlite3.IntegrityError):
        store.commit_step("g", "mafia", {}, {}, processed=[p.platform_id for p in posts],
                          intents=_intents(posts, 1), at=T0, expected_version=0)
    conn = store.db.conn
    assert [conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("processed", "intents", "games")] == [0, 0, 0]


def test_a_token_moves_with_a_write_or_another_connections_commit(tmp_path: Path) -> None:
    memory = Store()
    token = memory.token("cursors")
    memory.look()
    assert memory.token("cursors") == token
    memory.set_cursor("local", "posts", "1")   # its own writes still move its tokens
    assert memory.token("cursors") != token
    # a file: another connection's commit is seen at the next look
    path = tmp_path / "s.db"
    store, other = Store(path), Store(path)
    token = store.token("cursors")
    other.set_cursor("local", "posts", "2")
    store.look()
    assert store.token("cursors") != token


def _indexes(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}


def _plans(store: Store) -> list[list[str]]:
    """The query plans of the statements that read the posts and the outbox."""
    mark = forumbot.storage.posts._MARK
    columns = forumbot.storage.posts._POST_COLUMNS
    statements = [
        *forumbot.storage.outbox._PENDING_SQL.values(),
        "SELECT key FROM outbox WHERE game = ? AND slot = ? AND delivered IS NULL AND "
        "rowid > (SELECT rowid FROM outbox WHERE key = ?) ORDER BY rowid DESC LIMIT 1",
        forumbot.storage.base._MARK_SQL,
        f"SELECT {columns}, rowid FROM posts WHERE rowid > {mark} AND (0 OR (+thread IN (?) AND pm = 0) OR pm = 1) "
        "AND NOT EXISTS (SELECT 1 FROM processed WHERE processed.game = ? AND processed.post = posts.id) "
        "AND NOT EXISTS (SELECT 1 FROM intents WHERE intents.game = ? AND intents.post = posts.id) "
        "ORDER BY created, rowid",
        f"SELECT {columns} FROM posts WHERE (+thread IN (?, ?) AND pm = 0) ORDER BY created, rowid",
        f"SELECT {columns} FROM posts WHERE pm = 0 AND created >= ? AND id IN (SELECT post FROM intents WHERE "
        "game = ?) ORDER BY created, rowid",
    ]
    conn = store.db.conn
    return [[row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", ["x"] * sql.count("?")).fetchall()]
            for sql in statements]


def test_a_store_from_before_gets_the_new_indexes_and_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = Store(path)
    store.save_posts("local", _posts(3))
    store.commit_step("g", "mafia", {}, {}, processed=["local:1"], at=T0, expected_version=0,
                      outbox=[Outgoing(key=f"k{n}", kind="vote_count", thread="votes", text=f"count {n}")
                              for n in range(3)])
    store.record_delivery([("k1", "local:9")], T0)
    new = _indexes(store.db.conn)
    assert "idx_posts_thread_created" not in new and "idx_outbox_delivered" not in new
    assert "idx_outbox_undelivered" in new
    fresh_plans = _plans(store)
    assert all("SCAN outbox" not in step for plan in fresh_plans[:3] for step in plan)
    # the store as m001..m011 left it
    conn = store.db.conn
    conn.execute("DROP INDEX idx_outbox_undelivered")
    conn.execute("CREATE INDEX idx_outbox_delivered ON outbox (delivered)")
    conn.execute("CREATE INDEX idx_posts_thread_created ON posts (thread, created)")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name IN ('m012_posts_without_thread_index', "
                 "'m013_outbox_undelivered_index')")
    conn.commit()
    old_plans = _plans(store)
    before = (store.pending(), store.outbox(), store.posts())
    store.close()
    again = Store(path)
    assert _indexes(again.db.conn) == new
    assert (again.pending(), again.outbox(), again.posts()) == before
    assert [r["key"] for r in before[0]] == ["k0", "k2"]
    # every reader's plan as before, but for the index's name

    def named(plans: list[list[str]]) -> list[list[str]]:
        return [[step.replace("idx_outbox_undelivered", "idx_outbox_delivered") for step in plan] for plan in plans]
    assert named(_plans(again)) == old_plans == named(fresh_plans)
