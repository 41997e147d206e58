"""The host's commands by PM (extend, end now, pause/resume, replace, modkill) and the reminders."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

LATER = START + timedelta(days=60)
PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def make(lang="en", players=PLAYERS, **options):
    cfg = GameConfig(name="g", game="mafia", lang=lang, start=START, host="Host",
                     players=tuple(PlayerRef(n) for n in players), options={"day_hours": 24, **options},
                     phase="day1")
    forum = LocalForum(clock=lambda: LATER)
    run = GameRun.build(cfg)
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    return forum, run, runner


def at(hours: float):
    return START + timedelta(hours=hours)


def bot_posts(forum, thread="g/game"):
    return [p["body"] for p in forum.thread_posts(thread) if p["author"] == forum.account]


def bot_pms(forum, to):
    return [p["body"] for p in forum.pms_to(to)]


def test_host_extends_the_phase_and_everyone_is_told():
    forum, run, runner = make()
    forum.add_pm("Host", forum.account, "extend 12h", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase_ends == at(36)
    assert any("extended by 12 h" in p and "2026-03-03 08:00 UTC" in p for p in bot_posts(forum))
    assert runner.store.db["events"].count >= 2   # logged


def test_only_the_host_may_command():
    forum, run, runner = make()
    forum.add_pm("Alice", forum.account, "extend 12", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase_ends == at(24)
    assert any("only the host" in p for p in bot_pms(forum, "Alice"))
    assert any("only the host" in f["reason"] for f in runner.store.flags("g"))


def test_host_ends_the_phase_now():
    forum, run, runner = make()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    forum.add_pm("Host", forum.account, "end day", at=at(3))
    forum.add_post("g/votes", "Carol", "vote Bob", at=at(4))      # after the end: not counted
    runner.step(at(5))
    state = runner.state(run)
    assert state.phase == "night1" and state.days[0].tally == {"Bob": 1}
    assert state.days[0].at == at(3)
    assert state.days[0].ended == "host"
    day_end = [p for p in forum.thread_posts("g/votes")
               if p["author"] == forum.account and "Day 1 is over" in p["body"]]
    assert len(day_end) == 1 and "(ended by the host)" in day_end[0]["body"], day_end


def test_a_day_that_runs_out_is_still_told_as_ended_at_the_deadline():
    forum, run, runner = make()
    forum.add_pm("Host", forum.account, "extend 2", at=at(1))     # a host's command that does not end the day
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(3))
    runner.step(at(30))
    state = runner.state(run)
    assert state.phase == "night1" and state.days[0].ended == "deadline"
    assert any("(ended at the deadline)" in p["body"] for p in forum.thread_posts("g/votes"))


def test_pause_freezes_the_clock_and_resume_moves_the_deadline():
    forum, run, runner = make()
    forum.add_pm("Host", forum.account, "pause", at=at(10))
    runner.step(at(11))
    runner.step(at(30))                                           # past the deadline, but paused
    assert runner.state(run).phase == "day1"
    forum.add_pm("Host", forum.account, "resume", at=at(40))
    runner.step(at(41))
    state = runner.state(run)
    assert state.phase == "day1" and state.phase_ends == at(54)   # 30 h paused, 14 h were left
    runner.step(at(55))
    assert runner.state(run).phase == "night1"
    notices = [p for p in bot_posts(forum) if p.startswith("**Host:**")]
    assert len(notices) == 2 and "paused" in notices[0] and "goes on" in notices[1]


def test_resume_without_pause_is_refused():
    forum, run, runner = make()
    forum.add_pm("Host", forum.account, "resume", at=at(1))
    runner.step(at(2))
    assert any("not paused" in f["reason"] for f in runner.store.flags("g"))


def test_replacement_plays_on_under_the_same_name():
    forum, run, runner = make()
    forum.add_pm("Host", forum.account, "replace Bob with bob_sub", at=at(1))
    forum.add_post("g/votes", "Bob", "vote Alice", at=at(2))          # the old account: not counted
    forum.add_post("g/votes", "bob_sub", "vote Carol", at=at(3))      # counts as Bob's
    runner.step(at(4))
    state = runner.state(run)
    assert state.current == {"Bob": "Carol"}
    assert any("replaced" in f["reason"] for f in runner.store.flags("g"))
    assert any("Bob is now played by bob\\_sub" in p for p in bot_posts(forum))


def test_modkill_removes_the_player_and_the_votes_on_them():
    forum, run, runner = make()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    forum.add_post("g/votes", "Bob", "vote Carol", at=at(1.5))
    forum.add_pm("Host", forum.account, "modkill Bob", at=at(2))
    forum.add_post("g/votes", "Bob", "vote Dave", at=at(3))
    runner.step(at(4))
    state = runner.state(run)
    assert "Bob" not in state.alive and state.dead[-1].cause == "modkill"
    assert state.current == {}
    assert any("Bob has been removed" in p for p in bot_posts(forum))
    assert any("dead and cannot vote" in f["reason"] for f in runner.store.flags("g"))


@pytest.mark.parametrize("text,check", [
    ("продлить на 6 часов", lambda s: s.phase_ends == at(30)),
    ("Закончить день", lambda s: s.phase == "night1"),
    ("модкилл Боба", lambda s: "Боб" not in s.alive),
])
def test_russian_host_commands(text, check):
    forum, run, runner = make(lang="ru", players=["Алиса", "Боб", "Вера", "Глеб"])
    forum.add_pm("Host", forum.account, text, at=at(1))
    runner.step(at(2))
    assert check(runner.state(run))


def test_day_reminder_names_who_has_not_voted():
    forum, run, runner = make(remind_hours=[2], remind_by_pm=True)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    runner.step(at(21))
    assert not any("h left" in p for p in bot_posts(forum, "g/votes"))
    runner.step(at(22.5))
    reminders = [p for p in bot_posts(forum, "g/votes") if "h left" in p]
    assert len(reminders) == 1 and "2 h left in Day 1" in reminders[0]
    assert "Not voting (4): Bob, Carol, Dave, Eve" in reminders[0]
    assert any("you have not voted" in p for p in bot_pms(forum, "Bob"))
    assert not bot_pms(forum, "Alice")
    runner.step(at(23))
    assert len([p for p in bot_posts(forum, "g/votes") if "h left" in p]) == 1   # once


def test_no_stale_reminder_after_the_deadline():
    forum, run, runner = make(remind_hours=[2])
    runner.step(at(30))                          # the bot was down through the reminder and the deadline
    assert not any("h left" in p for p in bot_posts(forum, "g/votes"))
    assert runner.state(run).phase == "night1"


def test_a_vote_at_night_is_answered_by_pm():
    forum, run, runner = make(lang="ru", players=["Алиса", "Боб", "Вера", "Глеб"])
    forum.add_post("g/votes", "Алиса", "Голосую против Боба", at=at(25))      # the day ended at 24 h
    forum.add_post("g/votes", "Зритель", "Голосую против Боба", at=at(25.5))  # not a player: no PM
    runner.step(at(26))
    pms = bot_pms(forum, "Алиса")
    assert len(pms) == 1 and pms[0].startswith("Не принято: голоса считаются только днём, сейчас Ночь 1")
    assert bot_pms(forum, "Зритель") == []


@pytest.mark.parametrize("lang, over, count", [
    ("en", "No-lynch results: 3 (the limit of 2 is used up).", "No-lynch results used: 3 of 2"),
    ("ru", "Итогов ННВ: 3 (лимит 2 исчерпан).", "Итогов ННВ: 3 из 2"),
])
def test_no_lynch_results_past_the_limit_are_not_told_as_more_of_it_than_there_is(lang, over, count):
    cfg = GameConfig(name="g", game="mafia", lang=lang, start=START, host="Host", phase="day1",
                     players=tuple(PlayerRef(n) for n in PLAYERS), options={"day_hours": 24, "no_lynch_limit": 2},
                     state={"no_lynch_used": 2})
    forum = LocalForum(clock=lambda: LATER)
    run = GameRun.build(cfg)
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    runner.step(at(30))                          # nobody voted: under the simple rule, nobody hangs
    assert runner.state(run).no_lynch_used == 3
    posts = "\n".join(p["body"] for p in forum.thread_posts("g/votes") + forum.thread_posts("g/game"))
    assert over in posts and count not in posts
