"""The store reads posts by column position (store._POST_COLUMNS) and opens its transactions itself
(sqlite.Transaction): a post read back is the post stored, by every path that reads posts, and a failed
write leaves nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.model import Intent, Post
from forumbot.storage import Store
from forumbot.storage.sqlite import Transaction

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)

POSTS = [
    # every column set, each to a value no other column has
    Post(platform_id="local:1", thread="votes", author="Alice", created=T0, body="vote Bob", dialect="bbcode",
         edited=T0 + timedelta(minutes=3), url="https://forum.example/t/votes#p1"),
    # the defaults: no edit, no url, plain text
    Post(platform_id="local:2", thread="votes", author="Bob", created=T0 + timedelta(seconds=1), body="vote Alice"),
    # a private message
    Post(platform_id="local-pm:1", thread="", author="Carol", created=T0 + timedelta(seconds=2), body="kill Bob",
         dialect="markdown", url="local://pm/1", pm=True),
]


def test_a_post_read_back_is_the_post_stored_by_every_reader():
    store = Store()
    store.save_posts("local", POSTS)
    assert store.posts() == POSTS
    assert store.posts(["votes"], pm_authors=["Carol"]) == POSTS
    assert store.unprocessed_posts("g", ["votes"], pm_authors=["Carol"]) == POSTS
    assert store.unprocessed_posts("g", ["votes"], also=lambda author: author == "Carol") == POSTS
    assert store.unprocessed_posts("g", ["votes"]) == POSTS[:2]   # a PM from nobody the game reads
    store.commit_step("g", "mafia", {}, {}, processed=[p.platform_id for p in POSTS], at=T0,
                      intents=[Intent("vote", {"target": "Bob"}, post_id="local:1", at=T0)], expected_version=0)
    assert store.unprocessed_posts("g", ["votes"], pm_authors=["Carol"]) == []
    assert store.processed_posts("g") == POSTS
    assert store.command_posts("g", T0) == POSTS[:1]


def test_a_failed_write_leaves_nothing_and_a_failed_nested_one_only_its_own_part():
    store = Store()
    conn = store.db.conn
    with pytest.raises(RuntimeError), Transaction(conn):
        store.save_posts("local", POSTS[:1])
        raise RuntimeError
    assert not conn.in_transaction and store.posts() == []
    with Transaction(conn) as nested:
        assert nested is False
        store.save_posts("local", POSTS[:1])
        with pytest.raises(RuntimeError), Transaction(conn) as inner:
            assert inner is True
            store.save_posts("local", POSTS[1:])
            raise RuntimeError
    assert not conn.in_transaction and store.posts() == POSTS[:1]
