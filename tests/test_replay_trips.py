"""What a replay step costs in round trips (issue 16): the forum runs one statement a post and one read of
the posts a step (no BEGIN/COMMIT, no PM read while none can be due), and the replay's own loop asks the
store nothing between steps (the step looked; the replay is its store's only writer)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from forumbot.platforms.local import LocalForum
from forumbot.replay import replay
from forumbot.runner import Runner
from forumbot.store import Store

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _traced(monkeypatch, cls: type, seen: list[str]) -> None:
    init = cls.__init__

    def traced_init(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)
        self.db.conn.set_trace_callback(seen.append)

    monkeypatch.setattr(cls, "__init__", traced_init)


def test_a_replay_step_costs_the_forum_and_the_store_no_extra_trip(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    from bench_replay import generated_day
    forum: list[str] = []
    store: list[str] = []
    _traced(monkeypatch, LocalForum, forum)
    _traced(monkeypatch, Store, store)
    steps = [0]
    step = Runner.step

    def counted_step(self, now):
        steps[0] += 1
        return step(self, now)

    monkeypatch.setattr(Runner, "step", counted_step)
    day = generated_day(300, players=12, every=1)
    result = replay(day)
    kinds = Counter(" ".join(s.split()[:3]) for s in forum)
    assert steps[0] >= len(day.posts)   # a step at every post's time (and the day's deadlines)
    assert kinds["INSERT INTO forum_posts"] == len(day.posts) + len(result.messages)
    # the posts are read once, by the first step: after it only this connection writes the forum (a step
    # read them every time before), and the forum in memory has no data version to look at
    assert kinds["SELECT id, thread,"] == 1 and not [s for s in forum if s.startswith("PRAGMA")]
    reads = [s.split()[:3] for s in forum if not s.startswith(("INSERT INTO forum_posts", "BEGIN", "COMMIT",
                                                                  "SAVEPOINT", "RELEASE",
                                                                  "INSERT OR IGNORE INTO forum_threads"))]
    assert len(reads) <= 4, reads   # the first step's PMs, posts (two statements), the deadline's recheck
    # the forum in memory takes the replay's posts in one transaction (LocalForum.hold_writes), not one each
    assert kinds["BEGIN"] == kinds["COMMIT"] == 1
    assert kinds["SAVEPOINT forumbot"] == kinds["RELEASE SAVEPOINT forumbot"] <= 2   # the two threads' first posts
    assert not [s for s in forum if "forum_pms" in s][1:]   # the PMs read once: none came, nothing due
    # the store is looked at once a step (Runner.step), not again by the replay for the next deadline
    assert Counter(store)["PRAGMA data_version"] <= steps[0] + 2
    # the store in memory takes the replay's steps in one transaction (Store.hold_steps), not one each
    assert Counter(store)["BEGIN IMMEDIATE"] == Counter(store)["COMMIT"] == 1
