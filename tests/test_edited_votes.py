"""Edited votes in the count: under the edit policy "edited", a vote's post edited before the deadline is
read again as of its edit; the count marks the new vote with the edit's time and what the post said
before (linked to it), and strikes the old vote as edited away. Under "first_seen" the count is as read."""

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


def run(policy: str, lang: str = "en", game_policy: str | None = None) -> list[str]:
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
    forum.edit_post(first, "vote Carol", at=START + timedelta(minutes=30))
    runner.step(START + timedelta(hours=4, minutes=1))
    return [row[0] for row in store.db.conn.execute("SELECT text FROM outbox WHERE kind = 'day_end'")]


def test_an_edited_vote_is_marked_with_its_time_and_what_it_said_before():
    [end] = run("edited")
    assert "[Alice](local://g/votes#p1) (edited 2026-03-01 20:30 UTC, was: [Bob](local://g/votes#p1))" in end
    assert "~~[Alice](local://g/votes#p1) (edited away)~~" in end


def test_under_first_seen_the_count_is_as_read():
    [end] = run("first_seen")
    assert "edited" not in end and "**Bob** (2/3" in end


def test_a_game_chooses_its_own_edit_policy():
    [end] = run("first_seen", game_policy="edited")
    assert "(edited 2026-03-01 20:30 UTC, was: [Bob]" in end
    [end] = run("edited", game_policy="first_seen")
    assert "edited" not in end


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


def test_the_stored_vote_keeps_what_it_edits():
    from forumbot.games.mafia.state import VoteEntry, state_from_json, state_to_json
    from helpers import new_game
    state = new_game(5).with_(entries=(VoteEntry("P01", "P02", 1, "t", "local:1@x", "u", edit_of="local:1"),))
    assert state_from_json(state_to_json(state)).entries == state.entries
