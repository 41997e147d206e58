"""What a step's SQL copies: the bot's post binds the outbox's own text (its UTF-8 form made once), and the
store's kept cursor holds no read open."""

from __future__ import annotations

import sqlite3
import sys
from datetime import timedelta

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.platforms.local import LocalForum
from forumbot.storage import Store


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython keeps a str's UTF-8 form on it")
def test_the_bots_post_binds_the_outbox_text_itself_not_a_copy():
    forum = LocalForum(clock=lambda: START)
    text = "**День 1 — подсчёт голосов #3**\n\n* **Боб** (1/5): Алиса\n\n"
    sizes = [sys.getsizeof(text)]
    first = forum.post("g/votes", text, key="g:7")
    sizes.append(sys.getsizeof(text))
    forum.post("g/votes", text, key="g:8")
    sizes.append(sys.getsizeof(text))
    # the text itself was bound (SQLite took its UTF-8 form, which Python then keeps on it), and the second
    # post used that form again (a new string, text.rstrip() + marker, would leave the text as it was)
    assert sizes[0] < sizes[1] == sizes[2]
    bodies = [row["body"] for row in forum.thread_posts("g/votes")]
    assert bodies == [text.rstrip("\n") + forum.marker("g:7"), text.rstrip("\n") + forum.marker("g:8")]
    assert forum.find_sent("g:7", thread="g/votes") == first


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n\r\tя—\x00🙂"), max_size=12), st.sampled_from(["markdown", "bbcode"]),
       st.sampled_from(["", "k:1"]))
def test_a_post_reads_back_as_its_text_less_trailing_newlines_and_its_marker(text, dialect, key):
    forum = LocalForum(clock=lambda: START, dialect=dialect)
    forum.post("t", text, key=key)
    forum.add_post("t", "Alice", text, at=START + timedelta(minutes=1))
    assert [row["body"] for row in forum.thread_posts("t")] == [text.rstrip("\n") + forum.marker(key), text]


def test_the_kept_cursor_holds_no_read_open(tmp_path):
    path = tmp_path / "store.db"
    store = Store(path)
    store.commit_step("g", "mafia", {}, {"phase": "day1"}, expected_version=0)
    store.look()
    store.commit_step("g", "mafia", None, {"phase": "day2"}, expected_version=1)
    store.look()
    again = Store(path)   # (reads the game's row before it writes: it did not write the version it read)
    again.commit_step("g", "mafia", None, {"phase": "day2"}, expected_version=2)
    again.look()
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("INSERT INTO cursors (platform, name, value) VALUES ('x', 'posts', '1')")
    # a reader on an older snapshot would keep the checkpoint from copying every frame back (busy = 1)
    assert other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    store.look()
    assert store.cursor("x") == "1" and store.game("g").state == {"phase": "day2"} and store.game("g").version == 3
