"""The store's own work in a step: tokens that move with writes, and the marks of a step that leaves
some posts unread."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from helpers import START

from forumbot.model import Post
from forumbot.storage import Store


def test_a_token_moves_with_a_write_through_this_store_or_a_commit_by_another_connection(tmp_path: Path) -> None:
    store, other = Store(tmp_path / "s.db"), Store(tmp_path / "s.db")
    store.look()
    before = {what: store.token(what) for what in ("cursors", "game:g", "corrections")}
    store.look()
    assert {what: store.token(what) for what in before} == before   # nothing happened
    store.set_cursor("local", "posts", "1")
    store.look()
    assert store.token("cursors") != before["cursors"]
    assert store.token("game:g") == before["game:g"] and store.token("corrections") == before["corrections"]
    written = {what: store.token(what) for what in before}
    other.set_cursor("local", "posts", "2")
    assert {what: store.token(what) for what in before} == written   # seen at the next look only
    store.look()
    moved = {what: store.token(what) for what in before}
    assert all(moved[what] != written[what] for what in before), (written, moved)
    store.look()
    assert {what: store.token(what) for what in before} == moved


def test_a_step_that_leaves_some_posts_unread_marks_only_those_before_them(tmp_path: Path) -> None:
    """The mark stops before the first post handed out and not processed (by rowid), and the next read gives
    exactly those not processed: from memory as from the store."""
    store = Store(tmp_path / "s.db")
    store.commit_step("g", "mafia", {}, {}, expected_version=0)
    start = START
    posts = [Post(platform_id=f"p{n}", thread="t", author="Al", created=start + timedelta(minutes=n), body="hi")
             for n in range(5)]
    store.look()
    store.save_posts("local", posts[:1], "0")
    store.unprocessed_posts("g", ("t",), looked=True)
    store.save_posts("local", posts[1:], "4")   # put into the game's read
    handed = store.unprocessed_posts("g", ("t",), looked=True)
    assert [p.platform_id for p in handed] == ["p0", "p1", "p2", "p3", "p4"]
    store.commit_step("g", "mafia", None, None, processed=["p0", "p1", "p3"], expected_version=1)
    mark = store.db.execute("SELECT post_mark FROM games WHERE name = 'g'").fetchone()[0]
    rowids = dict(store.db.execute("SELECT id, rowid FROM posts").fetchall())
    assert mark == rowids["p1"]
    store.look()
    left = store.unprocessed_posts("g", ("t",), looked=True)
    assert [p.platform_id for p in left] == ["p2", "p4"]
    assert left == store.unprocessed_posts("g", ("t",))   # what SQL gives
    store.commit_step("g", "mafia", None, None, processed=["p2", "p4"], expected_version=2)
    assert store.db.execute("SELECT post_mark FROM games WHERE name = 'g'").fetchone()[0] == rowids["p4"]
    store.look()
    assert store.unprocessed_posts("g", ("t",), looked=True) == [] == store.unprocessed_posts("g", ("t",))
