"""A time's canonical text (model.format_time, issue 16): every post brings a time of its own, so the text of a
time not asked before is its hour's text (kept, made once from the hour without its zone, whose isoformat has no
offset to format and cut off) and its second's in that hour, with no printf of every field, and is still exactly
the aware time's text."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from forumbot import model
from forumbot.model import format_time

ZONES = st.none() | st.just(UTC) | st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)))


def _isoformat_text(value: datetime) -> str:
    """The text as it was made before: the aware time's isoformat, its offset cut off."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="seconds")[:19] + "Z"


@given(st.datetimes(timezones=ZONES))
def test_a_times_text_is_its_utc_isoformat_to_the_second(value):
    try:
        want = _isoformat_text(value)
    except (OverflowError, ValueError):   # (a time that has no UTC form: neither way makes a text)
        return
    assert format_time.__wrapped__(value) == want
    assert format_time(value) == want


def _isoformats(work: Any) -> list[Any]:
    """The times isoformat is asked of while `work` runs."""
    asked: list[Any] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == "isoformat":
            asked.append(arg.__self__)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return asked


def test_a_new_time_in_an_hour_met_before_is_formatted_by_no_isoformat():
    """Only an hour not met before asks isoformat, of the hour without its zone (fails on the code that asked
    isoformat for every new time); the text is the same either way."""
    model._HOURS.clear()
    texts: list[str] = []
    first = datetime(2026, 3, 2, 20, 5, 7, 123456, tzinfo=UTC)
    asked = _isoformats(lambda: texts.append(format_time.__wrapped__(first)))
    assert len(asked) == 1 and asked[0] == datetime(2026, 3, 2, 20) and asked[0].tzinfo is None
    later = datetime(2026, 3, 2, 22, 59, 59, 999999, tzinfo=timezone(timedelta(hours=2)))   # 20:59:59 UTC
    assert _isoformats(lambda: texts.append(format_time.__wrapped__(later))) == []
    assert texts == ["2026-03-02T20:05:07Z", "2026-03-02T20:59:59Z"] == [_isoformat_text(first), _isoformat_text(later)]


def test_the_hours_kept_are_bounded():
    """A long-lived process keeps at most _MOST_HOURS hours' texts (each new hour past that starts them afresh)."""
    model._HOURS.clear()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for hour in range(model._MOST_HOURS + 5):
        value = start + timedelta(hours=hour, seconds=hour % 3600)
        assert format_time.__wrapped__(value) == _isoformat_text(value)
        assert len(model._HOURS) <= model._MOST_HOURS
    assert len(model._HOURS) == 5
