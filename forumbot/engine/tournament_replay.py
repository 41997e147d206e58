"""Replaying a tournament sample: its plan run by the real runner, store and local forum on a virtual clock
(as forumbot/engine/replay.py does for one game). The file is a tournament file plus

    [[posts]]   at, author, game (the game's name in the plan), thread or pm = true, text
    [[host]]    at, do = "confirm" | "reveal" | "correct", game, player, tol / garnets / ec, why, by (the
                plan's host unless given: a refusal is kept in the result's `refused`)
    [run]       until (optional: otherwise the replay ends when nothing is left to happen)
    [expect]    keys of the result's state; `games` compares each game's summary on the fields it names
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from forumbot.config.game import _time
from forumbot.config.tomlfile import TomlFile, load_toml
from forumbot.config.tournament import plan_from
from forumbot.engine import tournament as tour
from forumbot.engine.cycle import Runner
from forumbot.engine.replay import VirtualClock
from forumbot.errors import ConfigError, IllegalIntent
from forumbot.games.tournament import Plan
from forumbot.model import format_time
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

TOP_KEYS = ("tournament", "players", "games", "posts", "host", "run", "expect")
POST_KEYS = ("at", "author", "game", "thread", "pm", "text")
HOST_KEYS = ("at", "do", "game", "player", "tol", "garnets", "ec", "why", "by")
MAX_STEPS = 10_000


@dataclass(frozen=True)
class TournamentScenario:
    plan: Plan
    posts: tuple[dict[str, Any], ...]
    host: tuple[dict[str, Any], ...]
    until: datetime | None
    expect: dict[str, Any]


@dataclass
class TournamentResult:
    scenario: TournamentScenario
    messages: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    store: Store | None = None

    def to_json(self) -> dict[str, Any]:
        return {"tournament": self.scenario.plan.name, "messages": self.messages, "state": self.state}

    def differences(self) -> list[str]:
        problems = []
        for key, want in self.scenario.expect.items():
            if key == "games" and isinstance(want, dict):
                for game, fields in want.items():
                    have = self.state["games"].get(game, {})
                    for name, value in fields.items():
                        if have.get(name) != value:
                            problems.append(f"games.{game}.{name}: expected {value!r}, got {have.get(name)!r}")
            elif self.state.get(key) != want:
                problems.append(f"{key}: expected {want!r}, got {self.state.get(key)!r}")
        return problems


def _entries(doc: TomlFile, key: str, known: tuple[str, ...]) -> list[dict[str, Any]]:
    entries = doc.data.get(key, [])
    if not isinstance(entries, list):
        raise doc.error(f"{key} must be [[{key}]] tables", key)
    lines = [n for n, text in enumerate(doc.text.splitlines(), 1) if text.strip() == f"[[{key}]]"]
    out = []
    for index, entry in enumerate(entries):
        doc.table(entry, known, key)
        if "at" not in entry:
            raise ConfigError(f"a [[{key}]] lacks at", path=doc.path, line=lines[index] if index < len(lines) else None)
        out.append({**entry, "at": _time(doc, entry["at"], "at"), "line": lines[index] if index < len(lines) else None})
    return out


def load_tournament_scenario(path: str | Path) -> TournamentScenario:
    doc = load_toml(path)
    for key in doc.data:
        if key not in TOP_KEYS:
            raise doc.error(f"unknown table '{key}'", key, fix="known: " + ", ".join(TOP_KEYS))
    plan = plan_from(doc)
    names = {s.name for s in plan.stages}
    posts = _entries(doc, "posts", POST_KEYS)
    for post in posts:
        if post.get("game") not in names or not isinstance(post.get("text"), str) or not post.get("author"):
            raise ConfigError("a post needs author, text and game = one of the tournament's games", path=doc.path,
                              line=post["line"], fix="games: " + ", ".join(sorted(names)))
        if not post.get("pm") and not isinstance(post.get("thread"), str):
            raise ConfigError('a post needs thread = "game" or pm = true', path=doc.path, line=post["line"])
    host = _entries(doc, "host", HOST_KEYS)
    for action in host:
        if action.get("do") not in ("confirm", "reveal", "correct"):
            raise ConfigError("do must be confirm, reveal or correct", path=doc.path, line=action["line"])
    run = doc.data.get("run", {})
    doc.table(run, ("until",), "run")
    expect = doc.data.get("expect", {})
    if not isinstance(expect, dict):
        raise doc.error("[expect] must be a table", "expect")
    return TournamentScenario(plan, tuple(sorted(posts, key=lambda p: p["at"])),
                              tuple(sorted(host, key=lambda h: h["at"])),
                              _time(doc, run["until"], "until") if "until" in run else None, expect)


def _act(store: Store, plan: Plan, action: dict[str, Any]) -> None:
    by, at, what = str(action.get("by") or plan.host or ""), action["at"], action["do"]
    if what == "confirm":
        tour.confirm(store, plan, str(action.get("game", "")), by, at)
    elif what == "reveal":
        tour.approve_reveal(store, plan, by, at)
    else:
        changes = {k: int(action[k]) for k in tour.FIELDS if k in action}
        tour.correct(store, plan, str(action.get("game", "")), str(action.get("player", "")), changes,
                     str(action.get("why", "")), by, at)


def replay_tournament(source: str | Path | TournamentScenario, *, store_path: str | Path = ":memory:",
                      forum_path: str | Path = ":memory:") -> TournamentResult:
    """Play a tournament sample to its end. Raises ConfigError for a bad file, a post for a game that has not
    started by its time, or a game that cannot start."""
    scenario = source if isinstance(source, TournamentScenario) else load_tournament_scenario(source)
    plan = scenario.plan
    first = plan.stages[0].start
    assert first is not None   # (plan_from: the first game has a start)
    clock = VirtualClock(first)
    forum = LocalForum(forum_path, clock=clock, dialect=plan.dialect)
    store = Store(store_path)
    runner = Runner(store, forum, [])
    driver = tour.TournamentDriver(plan, runner)
    driver.begin(first)
    result = TournamentResult(scenario, store=store)
    refused: list[dict[str, Any]] = []
    posts, actions = list(scenario.posts), list(scenario.host)

    def step(now: datetime) -> None:
        clock.now = now
        while actions and actions[0]["at"] <= now:
            action = actions.pop(0)
            try:
                _act(store, plan, action)
            except IllegalIntent as err:
                refused.append({"at": format_time(action["at"]), "do": action["do"], "why": str(err)})
        driver.step(now)
        delivered = runner.step(now).delivered
        driver.step(now)   # (a game that ended in this step: the next one may start at once; the end's posts)
        for row in [*delivered, *runner.deliver(now)]:
            run = next(r for r in runner.runs if r.name == row["game"])
            message = {"at": format_time(now), "game": row["game"], "kind": row["kind"]}
            if row["pm_to"]:
                message["pm"] = row["pm_to"]
            else:
                message["thread"] = run.thread_name(row["thread"])
            message["text"] = row["text"]
            result.messages.append(message)

    now = first
    for _ in range(MAX_STEPS):
        step(now)
        times = [t for t in (posts[0]["at"] if posts else None, actions[0]["at"] if actions else None,
                             runner.next_deadline(), driver.next_time()) if t is not None and t > now]
        # (a start already due is taken by the step above; a deadline at `now` fired in it)
        if not times:
            break
        now = min(times)
        if scenario.until is not None and now > scenario.until:
            break
        while posts and posts[0]["at"] <= now:
            post = posts.pop(0)
            run = next((r for r in runner.runs if r.name == post["game"]), None)
            if run is None:
                raise ConfigError(f"a post for {post['game']} at {format_time(post['at'])}, before it started",
                                  path=plan.source, line=post["line"], fix="move it after the game's start")
            if post.get("pm"):
                forum.add_pm(post["author"], forum.account, post["text"], at=post["at"])
            else:
                forum.add_post(run.thread_id(post["thread"]), post["author"], post["text"], post["at"])
    result.state = {**tour.view(store, plan), "refused": refused,
                    "games": {r.name: r.game.summary(runner.state(r)) for r in runner.runs
                              if store.game_version(r.name) is not None}}
    result.state["flags"] = [{"game": f["game"], "reason": f["reason"]} for f in store.flag_list(include_resolved=True)]
    return result
