"""Replaying a scenario: the real runner, store and local forum, on a virtual clock.

Posts are put on the local forum at their own times; the runner steps at every post time (or on a
poll grid with poll_seconds) and at every deadline, exactly as the live bot would. Without [run] until,
the replay ends when the phase of the last post is over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from forumbot.config.game import Scenario, load_scenario
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import format_time
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store


class VirtualClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@dataclass
class ReplayResult:
    scenario: Scenario
    messages: list[dict[str, Any]] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    store: Store | None = None
    forum: LocalForum | None = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.scenario.config.name, "messages": self.messages, "flags": self.flags,
                "state": self.state}

    def close(self) -> None:
        """Close the store and the local forum (their files may then be removed)."""
        if self.store is not None:
            self.store.close()
        if self.forum is not None:
            self.forum.db.close()

    def differences(self) -> list[str]:
        """How the result differs from the scenario's [expect] (`flags` there is a count; `days` entries
        are compared on the fields they name)."""
        problems = []
        for key, want in self.scenario.expect.items():
            if key == "flags":
                if len(self.flags) != want:
                    problems.append(f"flags: expected {want!r}, got {len(self.flags)!r}")
                continue
            have = self.state.get(key)
            if key == "days" and isinstance(want, list):
                days = have if isinstance(have, list) else []
                for index, day in enumerate(want):
                    got = days[index] if index < len(days) else {}
                    for field_name, value in day.items():
                        if got.get(field_name) != value:
                            problems.append(f"days[{index}].{field_name}: expected {value!r}, "
                                            f"got {got.get(field_name)!r}")
            elif have != want:
                problems.append(f"{key}: expected {want!r}, got {have!r}")
        return problems


def _grid(start: datetime, at: datetime, poll: int) -> datetime:
    """The first time of the poll grid (every `poll` seconds from `start`) at or after `at`."""
    if poll <= 0 or at <= start:
        return at
    tick = timedelta(0, poll)
    return start + tick * -((start - at) // tick)   # (a ceiling in whole ticks: whole numbers, exact)


class _Grid:
    """_grid's times for one start and poll, the last one kept: the next post is most often due at the grid's
    next time, one addition away (no division of times a step)."""

    __slots__ = ("start", "poll", "tick", "point", "following")

    def __init__(self, start: datetime, poll: int) -> None:
        self.start, self.poll, self.tick = start, poll, timedelta(0, poll)
        self.point = self.following = start   # (no time is after the one and at or before the other)

    def time(self, at: datetime) -> datetime:
        """_grid(start, at, poll)."""
        point, following = self.point, self.following
        if point < at <= following:
            return following
        after = following + self.tick
        if following < at <= after:
            self.point, self.following = following, after
            return after
        at = _grid(self.start, at, self.poll)
        if at > self.start:   # (a time at or before the start is its own: no time of the grid)
            self.point, self.following = at - self.tick, at
        return at


def replay(source: str | Path | Scenario, *, poll_seconds: int | None = None,
           on_message: Callable[[dict[str, Any]], None] | None = None,
           on_post: Callable[[dict[str, Any]], None] | None = None,
           store_path: str | Path = ":memory:", forum_path: str | Path = ":memory:",
           base_url: str = "", keep_messages: bool = True) -> ReplayResult:
    """Play a scenario to its end. `on_message` sees each bot message as it is delivered, `on_post`
    each player's post as it goes on the forum. `base_url`: the web forum serving the local forum (links).
    `keep_messages` False: the messages go to `on_message` only (a long replay's memory stays flat).

    Raises ConfigError for a bad scenario, grammar, ruleset or template.
    """
    scenario = source if isinstance(source, Scenario) else load_scenario(source)
    config = scenario.config
    poll = scenario.poll_seconds if poll_seconds is None else poll_seconds
    clock = VirtualClock(config.start)
    forum = LocalForum(forum_path, clock=clock, dialect=config.dialect, base_url=base_url)
    store = Store(store_path)
    run = GameRun.build(config, dialect=config.dialect)
    runner = Runner(store, forum, [run])
    result = ReplayResult(scenario, store=store, forum=forum)

    names: dict[str, str] = {}   # the scenario's name of each thread id (run.thread_name's, asked once)

    def step(now: datetime) -> None:
        clock.now = now
        for row in runner.step(now).delivered:
            message = _message(run, row, now, names)
            if keep_messages:
                result.messages.append(message)
            if on_message:
                on_message(message)

    runner.start(config.start)
    step(config.start)
    posts = scenario.posts
    count, until, start = len(posts), scenario.until, config.start
    phase_before_last = _phase(run, runner)
    index = 0   # the next post to put on the forum (an index: popping the head of a long list costs a copy)
    # The platform id of each scenario thread, asked of the run once (run.thread_ids stays the same in a replay:
    # its run opens no threads of its own).
    thread_ids: dict[str, str] = {}
    grid = _Grid(start, poll) if poll > 0 else None
    # Posts their authors edit later: (the edit's time, the post's index), and each one's id once it is made.
    edits = sorted((p.edited_at, i) for i, p in enumerate(posts) if p.edited_at is not None)
    made: dict[int, str] = {}
    edited = 0
    while index < count or edited < len(edits):
        deadline = runner.next_deadline(held=True)   # the replay is its store's only writer
        upcoming = [posts[index].at] if index < count else []
        upcoming += [edits[edited][0]] if edited < len(edits) else []
        next_post = min(upcoming)
        if grid is not None:
            next_post = grid.time(next_post)
        now = next_post if not deadline or next_post < deadline else deadline   # (the earlier one)
        if until is not None and now > until:
            break
        due: list[tuple[str, str, str, datetime]] = []   # the thread posts due now, put on the forum together
        while index < count:
            post = posts[index]
            if post.at > now:
                break
            index += 1
            if on_post:
                on_post({"at": format_time(post.at), "author": post.author, "text": post.text,
                         **({"pm": True} if post.pm else {"thread": post.thread})})
            if post.pm:
                forum.add_pm(post.author, forum.account, post.text, at=post.at)
            else:
                name = post.thread or ""
                thread = thread_ids.get(name) or thread_ids.setdefault(name, run.thread_id(name))
                if post.edit is not None:   # (its id is needed for the edit: put on the forum by itself)
                    forum.add_posts(due)
                    due = []
                    made[index - 1] = forum.add_post(thread, post.author, post.text, post.at)
                elif due or (index < count and posts[index].at <= now):   # (not the only one due)
                    due.append((thread, post.author, post.text, post.at))
                else:
                    forum.add_post(thread, post.author, post.text, post.at)
        if due:
            forum.add_posts(due)
        while edited < len(edits) and edits[edited][0] <= now:
            at, which = edits[edited]
            edited += 1
            forum.edit_post(made[which], str(posts[which].edit), at=at)
        if index == count:   # the last step with posts: the phase they were in (see below)
            phase_before_last = _phase(run, runner)
        step(now)
    if scenario.until is not None:
        while (deadline := runner.next_deadline()) is not None and deadline <= scenario.until:
            step(deadline)
    elif _phase(run, runner) == phase_before_last and (deadline := runner.next_deadline()):
        step(deadline)   # end the phase the last post was in
    result.flags = [{"post": f["post"], "author": f["author"], "reason": f["reason"], "at": f["at"]}
                    for f in store.flags(run.name)]
    result.state = run.game.summary(runner.state(run))
    return result


def _phase(run: GameRun, runner: Runner) -> Any:
    """The game's phase (the Game protocol leaves the state's shape to the game: a state without a `phase`
    attribute is asked through its summary)."""
    state = runner.state(run, check=False)   # the replay is the only writer
    phase = getattr(state, "phase", None)
    return phase if phase is not None else run.game.summary(state).get("phase")


def _message(run: GameRun, row: dict[str, Any], now: datetime, names: dict[str, str]) -> dict[str, Any]:
    message: dict[str, Any] = {"at": format_time(now), "kind": row["kind"], "key": row["key"]}
    if row["pm_to"]:
        message["pm"] = row["pm_to"]
    else:
        thread = row["thread"]
        message["thread"] = names.get(thread) or names.setdefault(thread, run.thread_name(thread))
    message["text"] = row["text"]
    return message
