"""A time's canonical text (model.format_time, issue 16): every post brings a time of its own, so the text of a
time not asked before is made from the time without its zone, whose isoformat has no offset to format and cut
off (a third of the cost of the aware time's), and is still exactly the aware time's text."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

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


def test_the_text_of_a_new_time_formats_no_offset():
    """isoformat is asked of the time without its zone (fails on the code that formatted "+00:00" and cut it)."""
    asked: list[Any] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and getattr(arg, "__name__", "") == "isoformat":
            asked.append(arg.__self__)

    value = datetime(2026, 3, 2, 20, 5, 7, 123456, tzinfo=UTC)
    sys.setprofile(profile)
    try:
        text = format_time.__wrapped__(value)
    finally:
        sys.setprofile(None)
    assert text == "2026-03-02T20:05:07Z"
    assert asked and all(time.tzinfo is None for time in asked)
