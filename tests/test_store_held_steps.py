"""A replay's store in memory writes its steps in one transaction (Store.hold_steps, issue 16), not one each: in
memory SQLite copies each page a transaction changes (its journal) and frees the copies at commit, and a step's
BEGIN and COMMIT are two statements more. Held, a replay must come out exactly as before (its messages, flags,
state and every row of its store), a game's own error still costs only that game's step, and a step that fails
part-way (which can no longer be undone alone) stops the replay with a StoreError instead of going on from a
store that lost what it had written."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import START
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.errors import StoreError
from forumbot.games.mafia.game import MafiaGame
from forumbot.model import Outgoing, Post, format_time
from forumbot.paths import data_dir
from forumbot.replay import replay
from forumbot.stateparts import BASE, StateChange, item_key
from forumbot.store import Store

BENCH = Path(__file__).resolve().parent.parent / "bench"
SAMPLES = ["mafia-night-ru.toml", "bodysnatchers-full.toml", "foodchain-game.toml", "mafia-day-en.toml"]


def _rows(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the store (but the migrations' own, stamped by the wall clock), with its
    rowid where it has one (the outbox's order is its rowids')."""
    conn = store.db.conn
    tables = conn.execute("SELECT name, sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE type = 'table' AND "
                          "name NOT LIKE 'sqlite_%' AND name != '_sqlite_migrations' ORDER BY name").fetchall()
    return {name: conn.execute(f"SELECT * FROM [{name}] ORDER BY 1, 2" if without else
                               f"SELECT rowid, * FROM [{name}] ORDER BY rowid").fetchall()
            for name, without in tables}


def _replayed(source: Any, monkeypatch: pytest.MonkeyPatch, *, held: bool) -> tuple[Any, dict[str, list]]:
    """The replay of `source`, with its store holding its steps or (`held` False) committing each, and the rows
    its store ends with; the store's clock (when a post was fetched) stands still, as the two runs differ in it."""
    with monkeypatch.context() as patched:
        patched.setattr("forumbot.store._now", lambda: "2026-12-01T00:00:00Z")
        if not held:
            patched.setattr(Store, "hold_steps", lambda self: None)
        result = replay(source)
        result.store.write_deliveries()   # (those recorded `later`: written before the outbox is read)
        return result, _rows(result.store)


def _day(posts: int, **kwargs: Any) -> Any:
    import bench_replay
    return bench_replay.generated_day(posts, **kwargs)


@pytest.mark.parametrize("name", [*SAMPLES, "generated-poll", "generated-every-post"])
def test_a_store_holding_its_steps_ends_as_one_committing_each(name, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    source: Any = (_day(240, poll=60) if name == "generated-poll" else
                   _day(150, players=30, every=2) if name == "generated-every-post" else data_dir("samples") / name)
    held, held_rows = _replayed(source, monkeypatch, held=True)
    alone, alone_rows = _replayed(source, monkeypatch, held=False)
    assert held.messages and held.messages == alone.messages
    assert held.flags == alone.flags and held.state == alone.state
    assert held_rows == alone_rows and held_rows["games"] and held_rows["outbox"]
    assert not held.store.db.conn.in_transaction   # written when the replay ended


class _Failing:
    """The store's kept cursor, but its `at`-th statement starting with `what` fails (as a full disk would)."""

    def __init__(self, cursor: sqlite3.Cursor, what: str, at: int) -> None:
        self.cursor, self.what, self.left = cursor, what, at

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith(self.what):
            self.left -= 1
            if self.left == 0:
                raise sqlite3.OperationalError("database or disk is full")
        return self.cursor.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)


def _failing_at(monkeypatch: pytest.MonkeyPatch, what: str, at: int, *, held: bool) -> list[Store]:
    """Replays from here on have their store's `at`-th `what` statement fail; the stores made, in a list."""
    made: list[Store] = []
    hold = Store.hold_steps

    def failing(self: Store) -> None:
        if held:
            hold(self)
        self._cur = _Failing(self._cur, what, at)
        made.append(self)

    monkeypatch.setattr(Store, "hold_steps", failing)
    return made


def test_a_step_failing_part_way_while_held_stops_the_replay_and_keeps_nothing(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    made = _failing_at(monkeypatch, "INSERT INTO events", 20, held=True)
    with pytest.raises(StoreError, match=r"lost every step it held .*OperationalError: database or disk is full"):
        replay(_day(120, poll=60))
    store = made[0]
    # the game's row and its posts were written before the events' insert failed: all of it is undone, with
    # every step before it; the store is no longer held, nor in a transaction
    assert not store.db.conn.in_transaction and not store._steps and store.held_lost == 1
    assert _rows(store)["games"] == [] and _rows(store)["posts"] == [] and _rows(store)["outbox"] == []


def test_committing_each_step_the_same_failure_keeps_the_steps_before_it(monkeypatch):
    """What the held store gives up: committing each step, the failed one alone is undone (and the replay
    stops as well: the store's errors are never a game's)."""
    monkeypatch.syspath_prepend(str(BENCH))
    made = _failing_at(monkeypatch, "INSERT INTO events", 20, held=False)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        replay(_day(120, poll=60))
    rows = _rows(made[0])
    assert rows["games"] and len(rows["events"]) >= 19 and made[0].held_lost == 1


def test_a_games_own_error_while_held_costs_that_step_only(monkeypatch):
    """A game that raises (nothing written yet) is flagged and read again next poll, held or not: the same
    replay, the same flag."""
    monkeypatch.syspath_prepend(str(BENCH))
    apply = MafiaGame.apply
    failed: list[int] = []

    def apply_once_failing(self: MafiaGame, state: Any, intent: Any) -> Any:
        if intent.kind == "vote" and len(failed) < 2 and state.seq > 30 + 40 * len(failed):
            failed.append(state.seq)
            raise ValueError("a bug in the game")
        return apply(self, state, intent)

    monkeypatch.setattr(MafiaGame, "apply", apply_once_failing)
    held, held_rows = _replayed(_day(150, poll=60), monkeypatch, held=True)
    assert len(failed) == 2
    failed.clear()
    alone, alone_rows = _replayed(_day(150, poll=60), monkeypatch, held=False)
    assert len(failed) == 2
    assert [f["reason"] for f in held.flags] == [f["reason"] for f in alone.flags]
    assert any("a bug in the game" in f["reason"] for f in held.flags)
    assert held.messages == alone.messages and held_rows == alone_rows


def test_a_transaction_sqlite_ended_is_found_at_the_next_look():
    store = Store()
    store.hold_steps()
    assert store.db.conn.in_transaction
    store.db.conn.execute("ROLLBACK")   # as SQLite does on a full memory or disk (the statement that met it raised)
    with pytest.raises(StoreError, match="lost every step"):
        store.look()
    assert not store._steps
    store.look()   # from here on each step is a transaction of its own: nothing to lose
    store.hold_steps()
    store.db.conn.execute("ROLLBACK")
    with pytest.raises(StoreError, match="lost every step"):
        store.write_steps()


def test_only_a_store_in_memory_holds_its_steps(tmp_path):
    store = Store(tmp_path / "store.db")
    store.hold_steps()
    assert not store._steps and not store.db.conn.in_transaction
    store.close()
    memory = Store()
    memory.hold_steps()
    memory.hold_steps()   # (once)
    memory.close()        # commits what it held


# What a runner does to its store, as ops: a step (posts fetched and stored with the cursors, a game's step
# queueing messages, some of a slot, some under a key queued before), deliveries (recorded later, or one that
# failed), a host's cursor, and every reading of the outbox and the cursors.
OPS = st.one_of(
    st.tuples(st.just("step"), st.integers(0, 3), st.booleans(), st.booleans(),
              st.lists(st.tuples(st.sampled_from(["", "live"]), st.booleans()), max_size=3),
              st.sampled_from(["text", "whole", "parts", "parts", "parts", "cut"]), st.booleans()),
    st.tuples(st.just("deliver"), st.lists(st.booleans(), max_size=4)),
    st.tuples(st.just("fail"), st.integers(0, 3)),
    st.tuples(st.just("set_cursor"), st.integers(0, 99)),
    st.tuples(st.just("read"), st.sampled_from(["pending", "outbox", "slot", "newer", "ids", "cursors", "state"])),
)


def _state(form: str, number: int, items: list[int]) -> Any:
    """The state a step writes: as JSON text (`text`), or in parts: all of them (`whole`), a counter and a new
    item of a list (`parts`), or the list cut by one (`cut`). `items`: the list's length, kept up to date."""
    if form == "text":
        items[0] = 0
        return {"n": number}
    counter = ("n", BASE, str(number))
    if form == "whole" or items[0] < 0:
        items[0] = number % 3 + 1
        return StateChange(whole=True, put=[("items", BASE, "[]"), counter,
                                            *(("items", item_key(i), f'"{number}.{i}"') for i in range(items[0]))])
    if form == "cut" and items[0] > 0:
        items[0] -= 1
        return StateChange(whole=False, put=[counter], cut=[("items", items[0])])
    items[0] += 1
    return StateChange(whole=False, put=[counter, ("items", item_key(items[0] - 1), f'"{number}"')])


def _apply(store: Store, op: tuple[Any, ...], number: int, queued: list[str], items: list[int]) -> Any:
    """`op` done to `store` (its `number`-th), as a runner would; what a reading gives. `items`: the length of
    the state's list when it is kept in parts (-1: it is not)."""
    at = START + timedelta(minutes=number)
    kind = op[0]
    if kind == "step":
        _, count, moved, read, messages, form, fetched = op
        store.look()
        posts = [Post(f"local:{number}-{i}", "votes", "Alice", at, f"vote Bob {i}") for i in range(count)]
        if fetched:   # (else the game's step is written by a transaction of its own, as a step that starts a game)
            store.save_posts("local", posts, str(number) if moved else None, at if read else None, hold=True)
        else:
            posts = []
        out = []
        for index, (slot, again) in enumerate(messages):
            key = queued[index % len(queued)] if again and queued else f"g:{number}:{index}"
            queued.append(key)
            out.append(Outgoing(key=key, kind="vote_count", thread="g/votes", text=f"count {number}", at=at,
                                slot=slot))
        state = _state(form, number, items)
        store.commit_step("g", "mafia", {}, state, processed=[p.platform_id for p in posts], outbox=out, at=at)
        if form == "text":
            items[0] = -1
        store.write_held()
        return None
    if kind == "deliver":
        owed = store.pending(looked=True)
        store.delivered([(format_time(at), f"id-{row['key']}", row["key"])
                         for row, pick in zip(owed, op[1], strict=False) if pick])
        return owed
    if kind == "fail":
        owed = store.pending(looked=True)
        if owed:
            store.record_delivery([], at, failed=(owed[op[1] % len(owed)]["key"], "the forum said no"))
        return owed
    if kind == "set_cursor":
        store.set_cursor("local", "posts", str(op[1]))
        return None
    what = op[1]
    if what == "pending":
        return store.pending(), store.pending("g")
    if what == "outbox":
        return store.outbox()
    if what == "slot":
        return store.slot_holder("g", "live")
    if what == "newer":
        return [store.newer_in_slot("g", "live", key) for key in queued]
    if what == "ids":
        return store.bot_post_ids("g")
    if what == "state":
        return store.game("g")
    return store.cursor("local"), store.cursor("local", "read_until"), store.cursors_starting("re")


@settings(max_examples=150, deadline=None)
@given(st.lists(OPS, max_size=30), st.sampled_from([2, 256]))
# (a delivery recorded, then a step of its own: its marks were written before the message they mark)
@example([("deliver", []), ("step", 0, False, True, [("", False)], "text", True), ("deliver", [True]),
          ("step", 0, False, False, [], "text", False)], 2)
def test_a_store_holding_its_steps_answers_as_one_committing_each(ops, parts_kept):
    held, alone = Store(), Store()
    held.hold_steps()
    queued: dict[int, list[str]] = {id(held): [], id(alone): []}
    items: dict[int, list[int]] = {id(held): [-1], id(alone): [-1]}
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr("forumbot.store._now", lambda: "2026-12-01T00:00:00Z")
        patched.setattr("forumbot.store._PARTS_KEPT", parts_kept)   # (2: the parts kept are written at once)
        for number, op in enumerate(ops):
            answers = [_apply(store, op, number, queued[id(store)], items[id(store)]) for store in (held, alone)]
            assert answers[0] == answers[1], op
        held.write_steps()
        for store in (held, alone):   # (the deliveries recorded `later`: written before the outbox is read)
            store.write_deliveries()
    assert not held.db.conn.in_transaction
    assert _rows(held) == _rows(alone)
