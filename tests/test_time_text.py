"""A time's canonical text (model.format_time): the time in UTC to the second, with a Z."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from forumbot.model import format_time

ZONES = st.none() | st.just(UTC) | st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)))


def _isoformat_text(value: datetime) -> str:
    """The aware time's isoformat in UTC, its offset cut off."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="seconds")[:19] + "Z"


@given(st.datetimes(timezones=ZONES))
def test_a_times_text_is_its_utc_isoformat_to_the_second(value):
    try:
        want = _isoformat_text(value)
    except (OverflowError, ValueError):   # (a time that has no UTC form: neither way makes a text)
        return
    assert format_time(value) == want


def test_a_times_text_in_another_zone_is_the_same_moment_in_utc():
    assert format_time(datetime(2026, 3, 2, 22, 59, 59, 999999, tzinfo=timezone(timedelta(hours=2)))) \
        == "2026-03-02T20:59:59Z"
    assert format_time(datetime(2026, 3, 2, 20, 5, 7, 123456, tzinfo=UTC)) == "2026-03-02T20:05:07Z"
