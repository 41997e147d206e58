"""A game's deadline calendar: where a phase of N hours that starts at T ends.

The one place a phase's end is worked out from its length. A calendar may skip weekdays: a host who runs
no deadlines at weekends sets `skip_weekdays = ["sat", "sun"]`, and the hours of those days do not count,
in the calendar's time zone (`calendar_tz`, an IANA name such as "Europe/Moscow"; default UTC). A 48-hour
day that starts on Friday at 20:00 then ends on Tuesday at 20:00. Pure: no clock is read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from forumbot.errors import ConfigError
from forumbot.model import zone

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")




def weekday_numbers(names: tuple[str, ...], source: str = "options") -> frozenset[int]:
    """Weekday names ("sat", "Saturday") as numbers (Monday 0). Raises ConfigError for an unknown name."""
    out = set()
    for name in names:
        key = str(name).strip().lower()[:3]
        if key not in WEEKDAYS:
            raise ConfigError(f"skip_weekdays: '{name}' is not a weekday", path=source,
                              fix="write mon, tue, wed, thu, fri, sat or sun")
        out.add(WEEKDAYS.index(key))
    if len(out) == 7:
        raise ConfigError("skip_weekdays skips every day of the week", path=source, fix="leave at least one day")
    return frozenset(out)


def phase_end(start: datetime, hours: float, skip: frozenset[int] = frozenset(), tz: str = "UTC") -> datetime:
    """When a phase of `hours` that starts at `start` ends, the hours of the skipped weekdays not counted.
    A phase that starts on a skipped day begins counting at the next day that is not skipped."""
    if not skip:
        return start + timedelta(hours=hours)
    local_zone = zone(tz)
    left = timedelta(hours=hours)
    at = start.astimezone(local_zone)
    while True:
        midnight = datetime.combine(at.date() + timedelta(days=1), datetime.min.time(), local_zone)
        if at.weekday() in skip:
            at = midnight
            continue
        room = midnight.astimezone(UTC) - at.astimezone(UTC)
        if left <= room:
            return (at.astimezone(UTC) + left).astimezone(start.tzinfo or UTC)
        left -= room
        at = midnight
