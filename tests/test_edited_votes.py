"""Edited votes in the count: under the edit policy "edited", a vote's post edited before the deadline is
read again as of its edit; the count marks the new vote with the edit's time and what the post said
before (linked to it), and strikes the old vote as edited away; an edit that takes the vote out withdraws
it (struck, with the edit's time). Under "first_seen" and "flag" the vote counts as first read, and the
count shows the edit's time and what the post says now (under "flag" the host has a flag too)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import Event, PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.render.renderer import Renderer
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def run(policy: str, lang: str = "en", game_policy: str | None = None, edit: str = "vote Carol",
        flags: list | None = None) -> list[str]:
    store = Store()
    forum = LocalForum(clock=lambda: START + timedelta(days=30), edit_policy=policy)
    config = GameConfig(name="g", game="mafia", lang=lang, start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                        options={"day_hours": 4, "night_hours": 2, "votes_only": True}, phase="day1",
                        edit_policy=game_policy)
    runner = Runner(store, forum, [GameRun.build(config)])
    runner.start(START)
    first = forum.add_post("g/votes", "Alice", "vote Bob", at=START + timedelta(minutes=5))
    forum.add_post("g/votes", "Dave", "vote Bob", at=START + timedelta(minutes=6))
    runner.step(START + timedelta(minutes=10))
    forum.edit_post(first, edit, at=START + timedelta(minutes=30))
    runner.step(START + timedelta(hours=4, minutes=1))
    if flags is not None:
        flags += [row[0] for row in store.db.conn.execute("SELECT reason FROM flags")]
    return [row[0] for row in store.db.conn.execute("SELECT text FROM outbox WHERE kind = 'day_end'")]


def test_an_edited_vote_is_marked_with_its_time_and_what_it_said_before():
    [end] = run("edited")
    assert "[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC, was: [Bob](local://g/votes#p1))" in end
    assert "~~[Alice](local://g/votes#p1) (edited away)~~" in end


@pytest.mark.parametrize("policy", ["first_seen", "flag"])
def test_under_first_seen_and_flag_the_vote_counts_as_read_and_the_edit_shows(policy):
    flags: list[str] = []
    [end] = run(policy, flags=flags)
    assert "**Bob** (2/3" in end and "**Carol**" not in end
    assert "[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC, now: [Carol](local://g/votes#p1))" in end
    assert "~~" not in end
    told = [f for f in flags if "edited" in f]
    assert (len(told) == 1) if policy == "flag" else not told


@pytest.mark.parametrize("policy", ["first_seen", "flag"])
def test_an_edit_that_takes_the_vote_out_shows_no_vote_but_counts_under_first_seen(policy):
    [end] = run(policy, edit="I take it back")
    assert "**Bob** (2/3" in end
    assert "[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC, now: no vote)" in end


def test_under_edited_an_edit_that_takes_the_vote_out_withdraws_it():
    [end] = run("edited", edit="I take it back")
    assert "**Bob** (1/3" in end
    assert "~~[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC: the vote taken out)~~" in end
    [end] = run("edited", edit="unvote")
    assert "~~[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC: the vote taken out)~~" in end


def test_an_edit_that_keeps_the_vote_shows_only_its_time():
    [end] = run("first_seen", edit="vote Bob, firmly")
    assert "[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC)" in end and "now:" not in end


def test_an_edit_is_not_counted_as_a_post_of_its_own():
    from forumbot.games.mafia.game import MafiaGame
    store = Store()
    forum = LocalForum(clock=lambda: START + timedelta(days=30), edit_policy="first_seen")
    config = GameConfig(name="g", game="mafia", lang="en", start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                        options={"day_hours": 4, "night_hours": 2, "votes_only": True}, phase="day1")
    runner = Runner(store, forum, [GameRun.build(config)])
    runner.start(START)
    first = forum.add_post("g/votes", "Alice", "vote Bob", at=START + timedelta(minutes=5))
    runner.step(START + timedelta(minutes=10))
    forum.edit_post(first, "vote Carol", at=START + timedelta(minutes=30))
    runner.step(START + timedelta(hours=4, minutes=1))
    state = MafiaGame().from_json(store.game("g").state)
    assert state.activity["Alice"]["day1"][0] == 1


def test_a_game_chooses_its_own_edit_policy():
    [end] = run("first_seen", game_policy="edited")
    assert "(edited 2026-03-01 20:30 UTC, was: [Bob]" in end
    [end] = run("edited", game_policy="first_seen")
    assert "was:" not in end and "now: [Carol]" in end


def test_a_bad_edit_policy_in_a_game_file_names_the_fix(tmp_path):
    from forumbot.config.game import load_scenario
    from forumbot.errors import ConfigError
    path = tmp_path / "g.toml"
    path.write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-03-01T20:00:00Z"\nedit_policy = "never"\n'
                    '[game.options]\nvotes_only = true\n[[players]]\nname = "A"\n[[players]]\nname = "B"\n'
                    '[[players]]\nname = "C"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="first_seen"):
        load_scenario(path)


def test_the_marks_in_russian():
    view = {"day": 1, "count": 1, "at": "2026-03-01T21:00:00Z", "deadline": "2026-03-02T00:00:00Z",
            "rule": "absolute", "alive": 5, "needed": 3, "no_lynch_used": 0, "no_lynch_limit": 2,
            "wagons": [{"target": "Carol", "no_lynch": False, "count": 1, "needed": 3, "l_minus": 2,
                        "voters": [{"name": "Alice", "url": "u2", "final": False, "withdrawn": False,
                                    "edited": "2026-03-01T20:30:00Z", "was": "Bob", "was_url": "u1"}]},
                       {"target": "Bob", "no_lynch": False, "count": 0, "needed": 3, "l_minus": 3,
                        "voters": [{"name": "Alice", "url": "u1", "final": False, "withdrawn": True,
                                    "edited_away": True}]}],
            "not_voting": [], "locked": [], "errors": [], "error_total": 0}
    text = Renderer("markdown", "ru").text(Event("vote_count", view))
    assert "[Alice](u2) (изменено 2026-03-01 20:30 UTC, было: [Bob](u1))" in text
    assert "~~[Alice](u1) (изменено позже)~~" in text


@pytest.mark.parametrize(("lang", "now", "removed", "expected"), [
    ("en", "Carol", False, "[Alice](u1) (edited 2026-03-01 20:30 UTC, now: [Carol](u1))"),
    ("en", "", False, "[Alice](u1) (edited 2026-03-01 20:30 UTC, now: no vote)"),
    ("en", "no_lynch", False, "[Alice](u1) (edited 2026-03-01 20:30 UTC, now: [No lynch](u1))"),
    ("en", None, True, "~~[Alice](u1) (edited 2026-03-01 20:30 UTC: the vote taken out)~~"),
    ("ru", "Carol", False, "[Alice](u1) (изменено 2026-03-01 20:30 UTC, теперь: [Carol](u1))"),
    ("ru", "", False, "[Alice](u1) (изменено 2026-03-01 20:30 UTC, теперь: без голоса)"),
    ("ru", None, True, "~~[Alice](u1) (изменено 2026-03-01 20:30 UTC: голос убран)~~"),
])
def test_the_marks_of_a_kept_or_removed_vote(lang, now, removed, expected):
    voter = {"name": "Alice", "url": "u1", "final": False, "withdrawn": removed, "edited": "2026-03-01T20:30:00Z"}
    voter.update({"removed": True} if removed else {"now": now})
    view = {"day": 1, "count": 1, "at": "2026-03-01T21:00:00Z", "deadline": "2026-03-02T00:00:00Z",
            "rule": "absolute", "alive": 5, "needed": 3, "no_lynch_used": 0, "no_lynch_limit": 2,
            "wagons": [{"target": "Bob", "no_lynch": False, "count": 0 if removed else 1, "needed": 3,
                        "l_minus": 3 if removed else 2, "voters": [voter]}],
            "not_voting": [], "locked": [], "errors": [], "error_total": 0}
    assert expected in Renderer("markdown", lang).text(Event("vote_count", view))


def test_the_russian_game_marks_an_edit_under_first_seen():
    [end] = run("first_seen", lang="ru")
    assert "[Alice](local://g/votes#p1) (изменено 2026-03-01 20:30 UTC, теперь: [Carol](local://g/votes#p1))" in end


def test_the_stored_vote_keeps_what_it_edits():
    from helpers import new_game

    from forumbot.games.mafia.state import VoteEntry, state_from_json, state_to_json
    state = new_game(5).with_(entries=(VoteEntry("P01", "P02", 1, "t", "local:1@x", "u", edit_of="local:1"),
                                       VoteEntry("P03", "P02", 2, "t", "local:2", "u", edited="t2", now="P04"),
                                       VoteEntry("P04", "P02", 3, "t", "local:3", "u", True, True, edited="t3")))
    assert state_from_json(state_to_json(state)).entries == state.entries


# ---- the samples: a scenario's posts may be edited ----------------------------------------------------
def _day_end(name: str) -> str:
    from forumbot.config.paths import data_dir
    from forumbot.engine.replay import replay

    result = replay(data_dir("samples") / name)
    [end] = [m["text"] for m in result.messages if m["kind"] == "day_end"]
    result.close()
    return end


def test_the_english_sample_under_flag():
    end = _day_end("mafia-edits-en.toml")
    assert "**Bob** (2/3, L-1): [Alice](local://mafia-edits-en/votes#p2) (edited 2026-05-01 19:45 UTC, now: " \
           "[Carol](local://mafia-edits-en/votes#p2)), [Dave](local://mafia-edits-en/votes#p4) (edited " \
           "2026-05-01 20:10 UTC, now: no vote)" in end
    assert "[Eve](local://mafia-edits-en/votes#p6) (edited 2026-05-01 19:05 UTC)" in end


def test_the_russian_sample_under_edited():
    end = _day_end("mafia-edits-ru.toml")
    assert "[Мэрил Стрип](local://mafia-edits-ru/votes#p2) (изменено 2026-05-02 09:30 UTC, было: " \
           "[Том Хэнкс](local://mafia-edits-ru/votes#p2))" in end
    assert "~~[Джонни Депп](local://mafia-edits-ru/votes#p4) (изменено 2026-05-02 10:15 UTC: голос убран)~~" in end
    assert "**Никто не повешен" in end


@pytest.mark.parametrize(("post", "words"), [
    ('edit = "vote Bob"\n', "needs edit"),
    ('edit = "vote Bob"\nedited_at = "2026-03-01T19:00:00Z"\n', "edited after it is made"),
])
def test_a_bad_edit_in_a_scenario_names_the_line_and_the_fix(tmp_path, post, words):
    from forumbot.config.game import load_scenario
    from forumbot.errors import ConfigError
    path = tmp_path / "s.toml"
    path.write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-03-01T20:00:00Z"\n[game.options]\n'
                    'votes_only = true\n[[players]]\nname = "A"\n[[players]]\nname = "B"\n[[players]]\nname = "C"\n'
                    '[[posts]]\nat = "2026-03-01T20:30:00Z"\nauthor = "A"\nthread = "votes"\ntext = "vote B"\n'
                    + post, encoding="utf-8")
    with pytest.raises(ConfigError, match=words) as err:
        load_scenario(path)
    assert err.value.line == 13   # (the post's [[posts]] line)
