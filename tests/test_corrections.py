"""The host's corrections (forumbot/engine/corrections.py) through the runner: a misread post corrected changes the
next vote count, which says the host corrected it; the state stays equal to a recount of the store; a
restart reads the same; an undo puts the count back; a correction of an ended day is not applied."""

from __future__ import annotations

from datetime import timedelta

from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def at(hours: float):
    return START + timedelta(hours=hours)


def make(store_path=":memory:", forum=None):
    cfg = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host",
                     players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24}, phase="day1")
    forum = forum or LocalForum(clock=lambda: at(100))
    run = GameRun.build(cfg)
    runner = Runner(Store(store_path), forum, [run])
    runner.start(START)
    return forum, run, runner


def votes(runner, run):
    return run.game.summary(runner.state(run))["votes"]


def misread_day(forum, runner):
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    forum.add_post("g/votes", "Carol", "vote Bobby the Great", at=at(2))   # an unknown name: no vote
    runner.step(at(3))
    return forum.thread_posts("g/votes")[1]


def post_id(runner, author):
    return next(p.platform_id for p in runner.store.posts(["g/votes"]) if p.author == author)


def test_a_misread_post_corrected_changes_the_next_count_and_equals_a_recount():
    forum, run, runner = make()
    misread_day(forum, runner)
    assert votes(runner, run) == {"Bob": ["Alice"]}
    corrections.add(runner.store, "g", post_id(runner, "Carol"), "vote_for", {"target": "Bob"}, "meant Bob",
                    "Host", at(4))
    runner.step(at(4))
    assert votes(runner, run) == {"Bob": ["Alice", "Carol"]}
    assert run.game.summary(runner.recount(run, at(4))) == run.game.summary(runner.state(run))
    last = [p["body"] for p in forum.thread_posts("g/votes") if p["author"] == forum.account][-1]
    assert "Corrected by the host." in last and "Carol" in last
    assert not corrections.waiting(runner.store, "g")


def test_not_a_vote_and_undo_put_the_count_back():
    forum, run, runner = make()
    misread_day(forum, runner)
    cid = corrections.add(runner.store, "g", post_id(runner, "Alice"), "not_a_vote", {}, "a joke", "Host", at(4))
    runner.step(at(4))
    assert votes(runner, run) == {}
    assert corrections.undo(runner.store, cid, "Host", at(5))
    assert not corrections.undo(runner.store, cid, "Host", at(5))     # once
    runner.step(at(5))
    assert votes(runner, run) == {"Bob": ["Alice"]}
    assert [c.undone for c in corrections.listing(runner.store, "g")] == ["2026-03-02T01:00:00Z"]


def test_a_manual_vote_and_a_host_command_are_read_in_their_place():
    forum, run, runner = make()
    misread_day(forum, runner)
    post = corrections.console_post(runner.store, "g", "Host", at(4), "vote by Dave for Eve")
    corrections.add(runner.store, "g", post.platform_id, "manual_vote", {"player": "Dave", "target": "Eve"},
                    "voted by mail", "Host", at(4))
    command = corrections.console_post(runner.store, "g", "Host", at(4.5), "extend 12")
    corrections.add(runner.store, "g", command.platform_id, "command", {"intent": "host_extend",
                                                                        "data": {"hours": "12"}}, "", "Host", at(4.5))
    runner.step(at(5))
    assert votes(runner, run) == {"Bob": ["Alice"], "Eve": ["Dave"]}
    assert runner.state(run).phase_ends == at(36)
    assert run.game.summary(runner.recount(run, at(5))) == run.game.summary(runner.state(run))
    assert not any("no command found" in p["body"] for p in forum.pms_to("Host"))


def test_a_correction_survives_a_restart(tmp_path):
    forum, run, runner = make(tmp_path / "bot.db")
    misread_day(forum, runner)
    corrections.add(runner.store, "g", post_id(runner, "Carol"), "vote_for", {"target": "Alice"}, "", "Host", at(4))
    runner.step(at(4))
    runner.store.close()
    forum.add_post("g/votes", "Eve", "vote Alice", at=at(5))
    _, run2, again = make(tmp_path / "bot.db", forum)
    again.step(at(6))
    assert votes(again, run2) == {"Bob": ["Alice"], "Alice": ["Carol", "Eve"]}
    assert run2.game.summary(again.recount(run2, at(6))) == run2.game.summary(again.state(run2))


def test_a_correction_that_would_change_an_ended_day_is_not_applied():
    forum, run, runner = make()
    for voter in ("Alice", "Carol", "Dave"):
        forum.add_post("g/votes", voter, "vote Bob", at=at(1))
    runner.step(at(25))                     # day 1 ended: Bob lynched
    assert "Bob" not in runner.state(run).alive
    corrections.add(runner.store, "g", post_id(runner, "Dave"), "not_a_vote", {}, "", "Host", at(26))
    corrections.add(runner.store, "g", post_id(runner, "Carol"), "not_a_vote", {}, "", "Host", at(26))
    runner.step(at(26))
    assert [d["name"] for d in run.game.summary(runner.state(run))["dead"]] == ["Bob"]
    outcomes = [c.outcome for c in corrections.listing(runner.store, "g")]
    assert all(o and o.startswith("not applied: it would change how an ended phase came out") for o in outcomes)
    assert any("a correction was not applied" in f["reason"] for f in runner.store.flags("g"))
    assert corrections.active(runner.store, "g") == {}


def test_a_failed_write_leaves_the_correction_waiting(monkeypatch):
    import sqlite3

    import pytest

    forum, run, runner = make()
    misread_day(forum, runner)
    corrections.add(runner.store, "g", post_id(runner, "Carol"), "vote_for", {"target": "Bob"}, "", "Host", at(4))
    real = runner.store.commit_step

    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(runner.store, "commit_step", broken)
    with pytest.raises(sqlite3.OperationalError):
        runner.step(at(4))
    assert corrections.waiting(runner.store, "g")                  # not marked applied without its state
    monkeypatch.setattr(runner.store, "commit_step", real)
    runner.step(at(5))
    assert votes(runner, run) == {"Bob": ["Alice", "Carol"]} and not corrections.waiting(runner.store, "g")
