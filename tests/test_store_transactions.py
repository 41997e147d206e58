"""The store's two public transactions: a runner's step (Store.step: what it fetched goes in with its first
game's step, or at the end) and a block of writes all or none (Store.transaction)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.model import Intent, Post
from forumbot.storage import Store

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


def _post(number: int) -> Post:
    return Post(platform_id=f"local:{number}", thread="votes", author="Alice", created=T0, body="vote Bob")


def test_what_a_step_fetched_is_committed_with_its_first_game_step(tmp_path: Path) -> None:
    store, other = Store(tmp_path / "bot.db"), Store(tmp_path / "bot.db")
    with store.step() as written:
        store.save_posts("local", [_post(1)], "1", read_at=T0, hold=True)
        assert other.posts() == [] and other.cursor("local") is None   # held, not committed yet
        store.commit_step("g", "mafia", {}, {"n": 1}, processed=["local:1"], at=T0, expected_version=0)
        assert [p.platform_id for p in other.posts()] == ["local:1"] and other.cursor("local") == "1"
    assert written.kept


def test_a_step_where_no_game_writes_commits_what_it_fetched_at_its_end(tmp_path: Path) -> None:
    store, other = Store(tmp_path / "bot.db"), Store(tmp_path / "bot.db")
    with store.step() as written:
        store.save_posts("local", [_post(1)], "1", hold=True)
        assert other.cursor("local") is None
    assert written.kept and other.cursor("local") == "1"


def test_a_failed_write_in_a_step_rolls_back_what_it_fetched(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.db")
    with store.step() as written:
        store.save_posts("local", [_post(1)], "1", hold=True)
        with pytest.raises(sqlite3.IntegrityError):   # an intent of a post never stored: a foreign key fails
            store.commit_step("g", "mafia", {}, {}, processed=["local:2"], at=T0, expected_version=0,
                              intents=[Intent("vote", {"target": "Bob"}, post_id="local:2")])
    assert not written.kept
    again = Store(tmp_path / "bot.db")
    assert again.posts() == [] and again.cursor("local") is None and again.game("g") is None


def test_a_transaction_writes_all_of_its_block_or_none(tmp_path: Path) -> None:
    store = Store(tmp_path / "bot.db")
    store.commit_step("g", "mafia", {}, {"n": 1}, at=T0, expected_version=0)
    correction = store.add_correction("g", "", "modkill", "{}", "", "host", T0, None)
    with pytest.raises(RuntimeError), store.transaction():
        store.mark_corrections([correction], T0)
        store.commit_step("g", "mafia", None, {"n": 2}, at=T0, expected_version=1)
        raise RuntimeError("the step broke")
    assert store.game("g").state == {"n": 1} and store.correction_rows(correction_id=correction)[0][10] is None
    with store.transaction():
        store.mark_corrections([correction], T0)
        store.commit_step("g", "mafia", None, {"n": 2}, at=T0, expected_version=1)
    again = Store(tmp_path / "bot.db")
    assert again.game("g").state == {"n": 2} and again.correction_rows(correction_id=correction)[0][10] is not None
