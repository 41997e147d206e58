"""A time's canonical text (model.format_time): UTC, to the second, a trailing Z."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from forumbot.model import format_time, parse_time


def test_a_times_text_is_utc_to_the_second():
    assert format_time(datetime(2026, 3, 2, 20, 5, 7, 999999, tzinfo=UTC)) == "2026-03-02T20:05:07Z"
    two_hours_east = timezone(timedelta(hours=2))
    assert format_time(datetime(2026, 3, 2, 0, 59, 59, tzinfo=two_hours_east)) == "2026-03-01T22:59:59Z"


def test_a_times_text_reads_back_as_the_same_time():
    value = datetime(2026, 12, 31, 23, 0, 1, tzinfo=UTC)
    assert parse_time(format_time(value)) == value
