"""The store's own work in a step that reads a vote and posts a count (issue 16): rows made once in their
final form, statement texts fixed, the posts a game reads next held in its read, tokens looked up in a dict.
Counted in bytecodes (the same on every machine, unlike time), and what it relies on pinned."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from helpers import START, bytecodes
from test_pipeline import NOW, PLAYERS, build

import forumbot.store
from forumbot.model import Post
from forumbot.store import Store

STORE = forumbot.store.__file__


def _store_bytecodes(work: Any) -> int:
    """Python bytecodes executed in store.py while `work` runs."""
    return bytecodes(work, lambda code: code.co_filename == STORE)


def test_a_vote_and_count_step_stays_under_its_budget_of_bytecodes_in_the_store(tmp_path: Path,
                                                                                 monkeypatch: Any) -> None:
    # The store's wall clock held on one second: its time text is written once a second (_second_text), and a
    # step that crossed a second counted those few bytecodes more, now and then (the budget measured 1,199 or
    # 1,208 by the clock, not by the code).
    monkeypatch.setattr(forumbot.store, "time", lambda: 1_764_590_400.0)
    forum, store, _, runner = build(tmp_path)
    runner.start(START)
    runner.step(NOW)
    counts = []
    results: list[Any] = []
    for number in range(6):
        voter, target = PLAYERS[number % 3], PLAYERS[3 + number % 2]
        forum.add_post("g/votes", voter, f"vote {target}", at=START + timedelta(minutes=number + 1))
        counts.append(_store_bytecodes(lambda: results.append(runner.step(NOW))))
        assert results[-1].intents == 1 and [m["kind"] for m in results[-1].delivered] == ["vote_count"]
    # 1,743 a step here before this budget (1,637 in the replay's worst mix): every row's parameters flattened
    # into a new list, the game's row and the cursors' statements put together per step, a step's writes
    # behind two calls of sixteen arguments, the stored posts kept in one list that every read walked and
    # trimmed, a token built per question; 1,151 once rows and statements were made as they are written
    # (the rest: the step's rows themselves, and the delivery marks and outbox kept in memory)
    assert max(counts[1:]) <= 1200, counts


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
