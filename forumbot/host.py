"""The host's commands by private message, for every game: extend the phase, end it now, pause and resume
the game, replace a player with another account, modkill. They change the schedule (through the game's
`shift`), are announced in the game thread, and are kept in the event log.

Pausing freezes the clock: no deadline fires while paused, and resuming moves every pending deadline
by the time the game was paused. Posts keep being read while paused. A replacement maps the new account
to the player: the new account's posts count as the player's, the old account's no longer count, and
the player's private messages go to the new account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from forumbot.games.base import Game, refusal
from forumbot.model import Event, Intent, format_time, parse_time

_NUMBER = re.compile(r"\s*(-?[0-9]+(?:[.,][0-9]+)?)")   # "12", "1.5", "12h", "12 часов"
HOST_KINDS = ("host_extend", "host_end_phase", "host_pause", "host_resume", "host_replace", "host_modkill")


@dataclass(frozen=True)
class HostState:
    """What the host layer keeps beside a game's own state."""

    paused_at: datetime | None = None
    accounts: dict[str, str] = field(default_factory=dict)   # account → the player it plays
    retired: tuple[str, ...] = ()                            # accounts whose posts no longer count

    def to_json(self) -> dict[str, Any]:
        return {"paused_at": format_time(self.paused_at) if self.paused_at else None,
                "accounts": dict(self.accounts), "retired": list(self.retired)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> HostState:
        data = data or {}
        paused = data.get("paused_at")
        return cls(parse_time(paused) if paused else None, dict(data.get("accounts", {})),
                   tuple(data.get("retired", ())))

    def player_of(self, account: str) -> str | None:
        """The player an account plays (itself when not replaced), or None for a retired account."""
        if account in self.accounts:
            return self.accounts[account]
        return None if account in self.retired else account

    def account_of(self, player: str) -> str:
        """Where the player's private messages go."""
        return next((a for a, p in self.accounts.items() if p == player), player)


def _notice(what: str, **fields: Any) -> Event:
    return Event("host_notice", {"thread": "game", "what": what, **fields})


def _refuse(intent: Intent, reason: str, code: str, params: dict[str, Any] | None = None) -> Event:
    return refusal(intent, reason, code=code, params=params, pm=True)


def apply_host(game: Game, state: Any, host: HostState, intent: Intent, host_name: str | None
               ) -> tuple[Any, HostState, list[Event]]:
    """One host command. A command from anyone but the host, or one that cannot apply now, is refused
    with a private answer and changes nothing."""
    if not host_name or intent.author != host_name:
        return state, host, [_refuse(intent, "only the host can do that", "host_only")]
    at = intent.at or datetime.min
    kind = intent.kind
    deadline = game.next_deadline(state)
    if kind == "host_extend":
        found = _NUMBER.match(str(intent.data.get("hours", "")))
        hours = float(found.group(1).replace(",", ".")) if found else 0.0
        if hours == 0 or deadline is None:
            return state, host, [_refuse(intent, "say by how many hours, during a phase with a deadline",
                                         "host_extend")]
        state = game.shift(state, timedelta(hours=hours))
        return state, host, [_notice("extended", hours=hours, deadline=_when(game.next_deadline(state)))]
    if kind == "host_end_phase":
        if deadline is None:
            return state, host, [_refuse(intent, "no phase is running", "host_nothing")]
        # Move the deadline to now: the runner fires it before reading the next post.
        return game.shift(state, at - deadline), host, [_notice("ended")]
    if kind == "host_pause":
        if host.paused_at is not None:
            return state, host, [_refuse(intent, "the game is already paused", "host_paused")]
        return state, replace(host, paused_at=at), [_notice("paused")]
    if kind == "host_resume":
        if host.paused_at is None:
            return state, host, [_refuse(intent, "the game is not paused", "host_not_paused")]
        state = game.shift(state, at - host.paused_at)
        return state, replace(host, paused_at=None), [_notice("resumed", deadline=_when(game.next_deadline(state)))]
    if kind == "host_replace":
        player, account = intent.data.get("target"), str(intent.data.get("account", "")).strip()
        if not player or not account:
            return state, host, [_refuse(intent, "write: replace PLAYER with ACCOUNT", "host_replace")]
        old = host.account_of(player)
        accounts = {a: p for a, p in host.accounts.items() if p != player}
        accounts[account] = player
        retired = tuple(a for a in (*host.retired, old) if a != account)
        return state, HostState(host.paused_at, accounts, retired), [_notice("replaced", player=player,
                                                                             account=account)]
    if kind == "host_modkill":
        player = intent.data.get("target")
        if not player:
            return state, host, [_refuse(intent, "write: modkill PLAYER", "host_modkill")]
        state, events = game.apply(state, replace(intent, kind="modkill"))
        if any(e.kind == "rejected" for e in events):
            return state, host, [replace(e, data={**e.data, "pm_to": intent.author}) for e in events]
        return state, host, events
    return state, host, [_refuse(intent, f"unknown host command {kind}", "host_unknown")]


def _when(value: datetime | None) -> str | None:
    return format_time(value) if value else None


def extend_deadline(value: datetime | None, delta: timedelta) -> datetime | None:
    """A helper for games' `shift`: a pending time moved by `delta` (None stays None)."""
    return value + delta if value is not None else None


__all__ = ["HOST_KINDS", "HostState", "apply_host", "extend_deadline"]
