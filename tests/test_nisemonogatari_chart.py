"""The host's chart for Nisemonogatari as a data file: the ruleset's example, a host's own file, and every
mistake named with the file, the line and the fix."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from forumbot.config.paths import data_dir
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.games.base import GameSetup
from forumbot.games.nisemonogatari.chart import EXAMPLE, LOCATIONS, load_chart
from forumbot.games.nisemonogatari.rules import FUNCTIONS, resolve
from forumbot.model import PlayerRef

FUNCS = tuple(FUNCTIONS)


def example_text() -> str:
    """The ruleset's [example_chart] as a host's file of its own (the tables at the top level)."""
    text = (data_dir("config") / "rulesets" / "nisemonogatari.toml").read_text(encoding="utf-8")
    body = text[text.index("\n[example_chart]\n") + 1:]
    return re.sub(r"\[(\[?)example_chart\.", r"[\1", body.replace("[example_chart]\n", ""))


def write(tmp_path, text: str):
    path = tmp_path / "chart.toml"
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_example_chart_is_marked_as_an_example_and_has_two_events_per_location():
    chart = load_chart(EXAMPLE, FUNCS)
    assert chart["example"] is True
    assert sorted(e["location"] for e in chart["events"]) == sorted(LOCATIONS * 2)
    assert chart["tiers"][0] == {"characters": 1, "multiplier": 1.5}


def test_a_hosts_chart_file_is_loaded_from_its_path_and_is_not_an_example(tmp_path):
    text = example_text().replace("example = true", "example = false").replace('"Lunch Alone"', '"Stargazing"')
    chart = load_chart(str(write(tmp_path, text)), FUNCS)
    assert chart["example"] is False and "stargazing" in {e["key"] for e in chart["events"]}
    state = get_game("nisemonogatari").new(GameSetup(
        "nisemonogatari", (PlayerRef("A"), PlayerRef("B")), datetime(2026, 9, 1, tzinfo=UTC),
        options={"seed": "s", "chart": str(tmp_path / "chart.toml")}))
    assert state.chart == chart


@pytest.mark.parametrize(("change", "message", "needle", "fix"), [
    (('location = "rooftop"\nname = "Lunch Alone"', 'location = "roof"\nname = "Lunch Alone"'),
     "event 'Lunch Alone' is at location 'roof'", 'name = "Lunch Alone"', "location is one of"),
    (('name = "Wait for Senpai"', 'name = "Lunch Alone"'), "two events are named 'Lunch Alone'",
     'name = "Lunch Alone"', "give every event a different name"),
    (('location = "rooftop"\nname = "Wait for Senpai"', 'location = "classroom"\nname = "Wait for Senpai"'),
     "the Classroom has 3 events", 'location = "classroom"', 'location = "classroom"'),
    (('do = "rob_lesson"', 'do = "rob_a_lesson"'), "has an effect do = 'rob_a_lesson'", '"rob_a_lesson"',
     "did you mean 'rob_lesson'?"),
    (('function = "per_confessor"', 'function = "per_confession"'), "calls an unknown function 'per_confession'",
     '"call"', "functions: per_confessor"),
    (('target = "here"\n', ''), "event 'Food Fight' has an effect on its target but no target", "Food Fight",
     'target = "here"'),
    (("multiplier = 0.75", "multiplier = -1"), "the tier from 10 Characters has multiplier = -1", "multiplier",
     "write a positive number"),
    (("characters = 1\n", "characters = 2\n"), "the tiers must start at characters = 1 and grow", "characters",
     "list the tiers from 1"),
    (('amount = 1 }]', 'amount = 1.5 }]'), "Initiative is whole, not 1.5", '"initiative_next"', "whole number"),
    (('{ do = "move", location = "schoolyard" }', '{ do = "move" }'), "move needs location", '"move"',
     "location is one of"),
    (('name = "Share Lunch"', 'name = "Share Lunch, Maybe"'), "orders are split at , ; and :", "Share Lunch, Maybe",
     "without them"),
    (('name = "Share Lunch"', 'nmae = "Share Lunch"'), "unknown key 'nmae'", "nmae", "did you mean 'name'?"),
])
def test_a_mistake_in_the_chart_names_the_file_the_line_and_the_fix(tmp_path, change, message, needle, fix):
    text = example_text()
    assert change[0] in text
    text = text.replace(change[0], change[1], 1)
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_chart(str(path), FUNCS)
    assert message in str(err.value) and fix in (err.value.fix or "")
    assert err.value.path == str(path) and err.value.line == line_of(text, needle)


def test_a_chart_without_tiers_or_events_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="no confession multipliers"):
        load_chart(str(write(tmp_path, "[[events]]\nname = 'x'\n")), FUNCS)
    with pytest.raises(ConfigError, match="the chart has no events"):
        load_chart(str(write(tmp_path, "[[tiers]]\ncharacters = 1\nmultiplier = 1.0\n")), FUNCS)
    with pytest.raises(ConfigError, match="not valid TOML") as err:
        load_chart(str(write(tmp_path, "[[tiers]\n")), FUNCS)
    assert err.value.line == 1


def test_a_block_cancels_the_targets_event_and_conditions_count_the_characters_present():
    events = {"lock": {"name": "Lock", "key": "lock", "location": "rooftop", "target": "here",
                       "effects": [{"do": "block", "to": "target"}]},
              "cheer": {"name": "Cheer", "key": "cheer", "location": "rooftop", "target": "none",
                        "effects": [{"do": "adoration_add", "to": "all_here", "amount": 2.0, "min_here": 3}]}}
    orders = {"A:A": {"location": "rooftop", "event": "lock", "initiative": 5, "confess": False, "target": "B:A"},
              "B:A": {"location": "rooftop", "event": "cheer", "initiative": 5, "confess": False, "target": None}}
    rnd, after = resolve(orders, events, {}, {})
    assert rnd.blocked == ["B:A"] and after == {"A:A": 800, "B:A": 800}        # A = 2: no cheer anyway
    three = {**orders, "C:A": {**orders["B:A"]}}
    rnd, after = resolve(three, events, {}, {"A:A": 100})
    # B's cheer is blocked; C's counts, for everyone there (B included).
    assert after == {"A:A": 100 + 700 + 200, "B:A": 700 + 200, "C:A": 700 + 200}
