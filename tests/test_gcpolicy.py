"""The cycle collector's pace in a process that runs games (forumbot/gcpolicy.py)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from forumbot import gcpolicy
from forumbot.platforms.local import LocalForum
from forumbot.runner import Runner
from forumbot.store import Store


@pytest.fixture
def threshold() -> Iterator[None]:
    saved = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def test_a_runner_collects_the_young_generation_less_often(threshold: None) -> None:
    gc.set_threshold(700, 10, 10)   # CPython's default
    store, forum = Store(":memory:"), LocalForum(":memory:")
    try:
        Runner(store, forum, [])
    finally:
        store.close()
    assert gc.get_threshold() == (gcpolicy.YOUNG, 10, 10)   # the older generations keep their thresholds
    assert gcpolicy.YOUNG > 700


@pytest.mark.parametrize("set_before", [(0, 10, 10), (100_000, 5, 5)])
def test_a_threshold_the_program_chose_is_kept(threshold: None, set_before: tuple[int, int, int]) -> None:
    gc.set_threshold(*set_before)   # collection switched off, or already rarer than ours
    gcpolicy.tune()
    assert gc.get_threshold() == set_before


def test_cycles_are_collected_later_but_still_collected(threshold: None) -> None:
    gc.set_threshold(700, 10, 10)
    gcpolicy.tune()

    class Node:
        other: object = None

    gc.collect(0)   # the young generation's count starts at 0
    a, b = Node(), Node()
    a.other, b.other = b, a   # a cycle: only the collector frees it
    ref = weakref.ref(a)
    del a, b
    kept = [[] for _ in range(gcpolicy.YOUNG // 2)]   # more new containers than the default's 700
    assert ref() is not None   # no young collection yet
    kept += [[] for _ in range(gcpolicy.YOUNG)]
    assert ref() is None       # one ran on its own, and freed the cycle
