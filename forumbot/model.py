"""Value types shared by every part of forumbot. All are immutable and JSON-friendly."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forumbot.errors import ConfigError

T = TypeVar("T")


def parse_time(text: str) -> datetime:
    """An ISO-8601 time ("2026-03-01T20:00:00Z"); a time without a zone is taken as UTC.

    Raises ValueError when the text is not a time.
    """
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def format_time(value: datetime) -> str:
    """The canonical text of a time: UTC, seconds, trailing Z."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="seconds")[:19] + "Z"


@lru_cache(maxsize=64)
def zone(name: str) -> tzinfo:
    """The time zone of an IANA name ("UTC" and "" are UTC). Raises ConfigError for an unknown name."""
    if name in ("", "UTC", "utc"):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"'{name}' is not a time zone", fix='write an IANA name, like "Europe/Moscow"') from None


@dataclass(frozen=True)
class PlayerRef:
    """A player as the host wrote them in the roster."""

    name: str
    aliases: tuple[str, ...] = ()
    role: str | None = None
    forum: str | None = None           # the player's home community (inter-forum tournaments)
    gender: str | None = None          # "f" or "m", for Russian phrases


@dataclass(frozen=True)
class Post:
    """One post or private message as a platform gave it. Stored once, by `platform_id`."""

    platform_id: str            # unique on its platform: "local:17", "t1_abc12"
    thread: str                 # the game's name for the thread ("votes", "game"); "" for a PM
    author: str
    created: datetime
    body: str                   # raw text, markup included
    dialect: str = "plain"      # how to clean it: plain, markdown, bbcode, html
    edited: datetime | None = None
    url: str = ""               # a link to the post, for vote counts
    pm: bool = False            # a private message to the bot


@dataclass(frozen=True)
class Intent:
    """What one line of a post asks for: a vote, an unvote, a night action, a move, a host command."""

    kind: str                          # vote, unvote, no_lynch, action, move, note, ...
    data: dict[str, Any] = field(default_factory=dict)
    post_id: str = ""
    author: str = ""
    at: datetime | None = None
    line: str = ""                     # the cleaned line it was read from
    url: str = ""                      # a link to the post it came from

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, **self.data}
        if self.post_id:
            out["post"] = self.post_id
        if self.author:
            out["author"] = self.author
        if self.at is not None:
            out["at"] = format_time(self.at)
        if self.line:
            out["line"] = self.line
        return out


@dataclass(frozen=True)
class Flag:
    """Something the host should look at: an unknown name, an illegal vote, an edit after the fact."""

    reason: str
    post_id: str = ""
    author: str = ""
    at: datetime | None = None
    candidates: tuple[str, ...] = ()
    line: str = ""
    # The phrase that says it in the game's language (the renderer's `flag`), with its parameters; the
    # English `reason` stands where there is none.
    code: str = ""
    params: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"post": self.post_id, "author": self.author, "reason": self.reason}
        if self.candidates:
            out["candidates"] = list(self.candidates)
        if self.line:
            out["line"] = self.line
        if self.at is not None:
            out["at"] = format_time(self.at)
        return out


@dataclass(frozen=True)
class Event:
    """Something that happened in a game. The renderer turns events into posts and messages."""

    kind: str                       # vote_count, day_end, phase_start, flag, ...
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outgoing:
    """A message the bot owes: a post in a thread or a private message. `key` makes it exactly-once."""

    key: str
    text: str
    thread: str | None = None       # a game thread name, or None for a PM
    pm_to: str | None = None        # the recipient of a private message
    subject: str = ""
    at: datetime | None = None      # when it was decided (the virtual clock in a replay)
    kind: str = ""                  # the event kind it renders
    slot: str = ""                  # messages of one slot replace each other in place (edit, not post)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "text": self.text}
        if self.thread is not None:
            out["thread"] = self.thread
        if self.pm_to is not None:
            out["pm"] = self.pm_to
        if self.subject:
            out["subject"] = self.subject
        if self.at is not None:
            out["at"] = format_time(self.at)
        return out
