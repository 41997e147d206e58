"""Deadline calendars: skipped weekdays in a time zone, a majority's countdown, untimed days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import act, kinds, names, new_game
from hypothesis import given
from hypothesis import strategies as st

from forumbot.errors import ConfigError
from forumbot.games.calendar import phase_end, weekday_numbers
from forumbot.games.mafia import MAFIA
from forumbot.model import Intent
from forumbot.render.renderer import Renderer

WEEKEND = weekday_numbers(("sat", "sun"))
FRIDAY_8PM = datetime(2026, 5, 1, 20, 0, tzinfo=UTC)     # 2026-05-01 is a Friday


@pytest.mark.parametrize("start, hours, tz, end", [
    (FRIDAY_8PM, 48, "UTC", datetime(2026, 5, 5, 20, 0, tzinfo=UTC)),          # Fri 20 → Tue 20
    (FRIDAY_8PM, 4, "UTC", datetime(2026, 5, 2, 0, 0, tzinfo=UTC)),            # exactly the rest of Friday
    (FRIDAY_8PM, 3, "UTC", datetime(2026, 5, 1, 23, 0, tzinfo=UTC)),
    (datetime(2026, 5, 2, 12, 0, tzinfo=UTC), 24, "UTC", datetime(2026, 5, 5, 0, 0, tzinfo=UTC)),   # from Saturday
    # Moscow is UTC+3: Friday 20:00 UTC is 23:00 there; 1 h of Friday counts, then Monday from 00:00 MSK
    (FRIDAY_8PM, 48, "Europe/Moscow", datetime(2026, 5, 5, 20, 0, tzinfo=UTC)),
    (FRIDAY_8PM, 2, "Europe/Moscow", datetime(2026, 5, 3, 22, 0, tzinfo=UTC)),  # Mon 01:00 MSK
])
def test_weekends_do_not_count(start, hours, tz, end):
    assert phase_end(start, hours, WEEKEND, tz) == end


def test_no_skipped_days_is_plain_hours():
    assert phase_end(FRIDAY_8PM, 48) == FRIDAY_8PM + timedelta(hours=48)


def test_daylight_saving_in_the_calendar_zone():
    """Berlin goes to summer time on 2026-03-29 (a Sunday, skipped): a Saturday 12:00 UTC start with 1 hour
    ends at Monday 00:00 + 1 h local, 22:00 UTC on Sunday (UTC+2)."""
    start = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    assert phase_end(start, 1, WEEKEND, "Europe/Berlin") == datetime(2026, 3, 29, 23, 0, tzinfo=UTC)


@given(st.integers(0, 24 * 60), st.integers(1, 24 * 14), st.sets(st.integers(0, 6), max_size=6))
def test_the_counted_hours_add_up(offset, hours, skip):
    """However the days fall, the hours between start and end that lie on counted days are the phase's."""
    start = FRIDAY_8PM + timedelta(minutes=offset)
    end = phase_end(start, hours, frozenset(skip))
    counted, at = timedelta(0), start
    while at < end:
        step = min(end, datetime.combine(at.date() + timedelta(days=1), datetime.min.time(), UTC)) - at
        if at.weekday() not in skip:
            counted += step
        at += step
    assert counted == timedelta(hours=hours)
    assert end.weekday() not in skip or end.time() == datetime.min.time()


def test_bad_calendar_options_are_config_errors():
    with pytest.raises(ConfigError, match="weekday"):
        new_game(5, skip_weekdays=["caturday"])
    with pytest.raises(ConfigError, match="every day"):
        new_game(5, skip_weekdays=["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
    with pytest.raises(ConfigError, match="time zone"):
        new_game(5, calendar_tz="Mars/Olympus")


def test_the_games_phases_follow_the_calendar():
    state = new_game(5, votes_only=True, skip_weekdays=["sat", "sun"], day_hours=24, night_hours=12)
    # helpers' START is Sunday 2026-03-01 20:00 UTC: the day counts from Monday 00:00
    assert state.phase_ends == datetime(2026, 3, 3, 0, 0, tzinfo=UTC)
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    assert state.phase == "night1" and state.phase_ends == datetime(2026, 3, 3, 12, 0, tzinfo=UTC)


P = names(5)


def test_majority_starts_a_countdown_that_a_broken_majority_stops():
    state = new_game(5, votes_only=True, majority_countdown_hours=2, day_hours=24)
    own = state.phase_ends
    for voter in P[:2]:
        state, _ = act(state, voter, "vote", P[4])
    state, events = act(state, P[2], "vote", P[4])                 # 3 of 5
    assert state.phase == "day1" and kinds(events)[-1] == "countdown"
    reached_at = state.phase_started + timedelta(minutes=3)
    assert state.phase_ends == reached_at + timedelta(hours=2)
    text = Renderer("markdown", "en").text(events[-1])
    assert "P05 has a majority: the day ends in 2 h" in text
    assert "набрано большинство" in Renderer("markdown", "ru").text(events[-1])
    state, events = act(state, P[2], "unvote")
    assert state.phase_ends == own and kinds(events)[-1] == "countdown" and events[-1].data["target"] is None
    state, events = act(state, P[3], "vote", P[4])                 # again: a new countdown
    assert state.countdown
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    day = state.days[-1]
    assert (day.result, day.lynched, day.ended) == ("lynch", (P[4],), "countdown")
    assert "ended when the majority's countdown ran out" in Renderer("markdown", "en").text(events[0])


def test_countdown_survives_storage_and_moves_with_an_extension():
    state = new_game(5, votes_only=True, majority_countdown_hours=2)
    for voter in P[:3]:
        state, _ = act(state, voter, "vote", P[4])
    stored = MAFIA.from_json(MAFIA.to_json(state))
    assert stored.countdown == state.countdown
    moved = MAFIA.shift(stored, timedelta(hours=5))
    assert moved.phase_ends == state.phase_ends + timedelta(hours=5)
    assert moved.countdown != state.countdown


def test_untimed_day_ends_only_by_the_host():
    state = new_game(5, votes_only=True, untimed_days=True).with_(host="Host")
    assert state.phase_ends - state.phase_started > timedelta(days=3000)
    text = Renderer("markdown", "en").text(MAFIA.tally(state, state.phase_started))
    assert "This day has no deadline: the host ends it." in text and "Deadline:" not in text
    assert "нет срока" in Renderer("markdown", "ru").text(MAFIA.start_events(state)[0])
    at = state.phase_started + timedelta(days=9)
    state = MAFIA.end_by_host(state, at)
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    assert state.phase == "night1" and state.days[-1].ended == "host"
    assert state.phase_ends == at + timedelta(hours=24)             # nights keep their hours
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    assert state.phase == "day2" and state.phase_ends - state.phase_started > timedelta(days=3000)



def test_a_modkill_that_breaks_the_majority_stops_the_countdown():
    state = new_game(5, votes_only=True, majority_countdown_hours=2).with_(host="Host")
    own = state.phase_ends
    for voter in P[:3]:
        state, _ = act(state, voter, "vote", P[4])
    assert state.countdown
    state, events = MAFIA.apply(state, Intent("modkill", {"target": P[0]}, author="Host",
                                              at=state.phase_started + timedelta(minutes=30)))
    assert not state.countdown and state.phase_ends == own and kinds(events) == ["modkill", "countdown"]


@pytest.mark.parametrize(("lang", "zone", "shown"), [
    ("ru", "Europe/Moscow", "2026-05-04 23:00 MSK"),
    ("en", "America/New_York", "2026-05-04 16:00 EDT"),
    ("en", "UTC", "2026-05-04 20:00 UTC"),
])
def test_the_bots_posts_show_deadlines_in_the_games_calendar_zone(lang, zone, shown):
    from forumbot.engine.checking import check_game_text
    from forumbot.engine.loading import GameRun
    from forumbot.model import Event

    text = (f'[game]\nname = "mafia"\nstart = "2026-05-01T20:00:00Z"\nlang = "{lang}"\n'
            f'[game.options]\nvotes_only = true\ncalendar_tz = "{zone}"\n'
            + "".join(f'[[players]]\nname = "{p}"\n' for p in ("Ann", "Bob", "Cid", "Dan")))
    run = GameRun.build(check_game_text(text, "g", "markdown"))
    said = run.renderer.render(Event("host_notice", {"thread": "game", "what": "resumed",
                                                     "deadline": "2026-05-04T20:00:00Z"}),
                               key="k", threads={"game": "g/game"}, at=datetime(2026, 5, 2, tzinfo=UTC))
    assert shown in said[0].text
