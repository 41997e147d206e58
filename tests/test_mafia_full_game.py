"""The full 12-player Body Snatchers sample (samples/bodysnatchers-full.toml), night by night: beyond its
[expect] (deaths, days, winner), the resolved actions the story depends on."""

from __future__ import annotations

from typing import Any

import pytest

from forumbot.config.paths import data_dir
from forumbot.engine.replay import ReplayResult, replay


@pytest.fixture(scope="module")
def played() -> ReplayResult:
    return replay(data_dir("samples") / "bodysnatchers-full.toml")


def act(played: ReplayResult, night: int, actor: str, action: str) -> dict[str, Any]:
    record = played.state["nights"][night]
    assert record["night"] == night
    return next(a for a in record["actions"] if a["actor"] == actor and a["action"] == action)


def pm(played: ReplayResult, name: str) -> str:
    return "\n".join(m["text"] for m in played.messages if m.get("pm") == name)


def test_all_twelve_roles_play_and_the_town_wins(played: ReplayResult):
    assert len(set(played.state["roles"].values())) == 12
    assert played.state["winner"] == "town" and played.differences() == []


def test_the_maniac_rotates_his_bypass(played: ReplayResult):
    assert [act(played, n, "Джонни Депп", "kill")["bypass"] for n in range(4)] == \
        ["block", "protect", "redirect", "block"]
    assert not act(played, 0, "Николь Кидман", "block")["succeeded"]      # block bypassed
    assert "Леонардо Ди Каприо" in played.state["nights"][1]["deaths"]   # protection bypassed
    assert not act(played, 2, "Джонни Депп", "kill")["succeeded"]         # not the block tonight


def test_night_one_power_actions(played: ReplayResult):
    kill = act(played, 1, "Том Хэнкс", "kill")
    assert kill["final_target"] == "Джонни Депп" and not kill["succeeded"]   # moved, then his shield
    assert not act(played, 1, "Одри Хепбёрн", "block")["succeeded"]          # а) beats б)
    assert not act(played, 1, "Киану Ривз", "check")["succeeded"]            # the bouncer's block


def test_sole_mafioso_kills_and_blocks(played: ReplayResult):
    assert act(played, 2, "Анджелина Джоли", "kill")["succeeded"]
    assert act(played, 2, "Анджелина Джоли", "block")["succeeded"]
    assert not act(played, 2, "Хью Джекман", "protect")["succeeded"]


def test_private_results_carry_the_information(played: ReplayResult):
    assert "Брэд Питт ходил к Киану Ривзу, НД (+)" in pm(played, "Том Хэнкс")   # declined, in his gender
    assert "Роль Киану Ривза: Инспектор" in pm(played, "Брэд Питт")
    assert "Мирных игроков в конце Ночи 1: 7" in pm(played, "Мерилин Монро")
    assert "Предыдущее НД заменено" not in pm(played, "Анджелина Джоли")
