"""A post with an intent is read by its intents' rows alone: a vote writes one row, not a row in
`processed` and a row in `intents`. Every reader of the posts a game has read (its new posts, the posts a
recount plays, the edited texts the console shows) takes the posts of the game's intents too, so it reads
what it read when each processed post had its own row (a store written before keeps those rows)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.model import Intent, Post
from forumbot.storage import Store

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
THREADS = ("votes",)


def _post(n: int, body: str = "") -> Post:
    return Post(platform_id=f"local:{n}", thread="votes", author=f"P{n % 4}", created=T0 + timedelta(seconds=n),
                body=body or f"vote P{n % 3}")


def test_a_step_of_votes_writes_no_row_in_processed_and_still_reads_them() -> None:
    store = Store()
    posts = [_post(n) for n in (1, 2)]
    store.save_posts("local", posts)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    store.commit_step("g", "mafia", {}, {}, processed=[p.platform_id for p in posts],
                      intents=[Intent("vote", {"target": "P1"}, post_id=p.platform_id) for p in posts],
                      at=T0, expected_version=0)
    store.db.conn.set_trace_callback(None)
    assert not [s for s in statements if "processed" in s], statements      # (one statement and two rows less)
    assert [p.platform_id for p in store.processed_posts("g")] == ["local:1", "local:2"]
    assert store.unprocessed_posts("g", THREADS) == []   # asked of the store: nothing read again


def test_intents_of_a_post_the_step_did_not_read_are_refused_and_nothing_is_written() -> None:
    store = Store()
    store.save_posts("local", [_post(1), _post(2)])
    with pytest.raises(ValueError, match="did not read"):
        store.commit_step("g", "mafia", {}, {}, processed=["local:1"],
                          intents=[Intent("vote", {}, post_id="local:2")], at=T0, expected_version=0)
    assert store.game("g") is None and store.unprocessed_posts("g", THREADS) == [_post(1), _post(2)]


# A day: per step, the new posts (each with 0-2 intents, perhaps edited after it was read) and how many of
# them (from the end) the step leaves unread, as a step before a deadline that cannot fire yet does.
steps = st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=4), st.integers(0, 2)),
                 min_size=1, max_size=6)


def _readers(store: Store) -> tuple[object, ...]:
    return ([p.platform_id for p in store.processed_posts("g")], store.edited_texts("g"),
            [p.platform_id for p in store.unprocessed_posts("g", THREADS)],
            [p.platform_id for p in store.command_posts("g", T0)])


@settings(max_examples=40, deadline=None)
@given(steps)
def test_every_reader_reads_what_it_read_when_each_processed_post_had_its_row(day: list) -> None:
    store = Store()
    number, read, waiting = 0, [], []
    edited: dict[str, str] = {}
    for version, (arriving, left) in enumerate(day):
        new = []
        for intents, edit in arriving:
            number += 1
            new.append((_post(number), intents, edit))
        store.save_posts("local", [post for post, _, _ in new])
        handed = [*waiting, *new]
        taken, waiting = handed[:len(handed) - left] if left else handed, handed[len(handed) - left:] if left else []
        store.commit_step("g", "mafia", {}, {}, processed=[post.platform_id for post, _, _ in taken],
                          intents=[Intent("vote", {"k": k}, post_id=post.platform_id)
                                   for post, count, _ in taken for k in range(count)],
                          at=T0 + timedelta(minutes=version), expected_version=version)
        read += [post.platform_id for post, _, _ in taken]
        for post, _, edit in new:   # an edit seen later (the recheck stores it)
            if edit:
                store.save_posts("local", [replace(post, body=post.body + " (edited)",
                                                   edited=post.created + timedelta(hours=1))])
                edited[post.platform_id] = post.body + " (edited)"
        now = _readers(store)
        assert sorted(now[0]) == sorted(read) and now[2] == [post.platform_id for post, _, _ in waiting]
        assert now[1] == {key: text for key, text in edited.items() if key in read}
        # the same store with a row in `processed` for every post read (as written before): the same answers
        old = Store()
        store.db.conn.backup(old.db.conn)
        old.db.conn.execute("INSERT OR IGNORE INTO processed (game, post, at) SELECT game, post, at FROM intents")
        assert _readers(old) == now
