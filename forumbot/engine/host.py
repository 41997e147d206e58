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
from forumbot.seating import name_key, name_taken

_NUMBER = re.compile(r"\s*(-?[0-9]{1,6}(?:[.,][0-9]{1,3})?)(?![0-9])")   # "12", "1.5", "12h", "12 часов"
HOST_KINDS = ("host_extend", "host_end_phase", "host_pause", "host_resume", "host_replace", "host_modkill",
              "host_game", "host_spectate", "host_unspectate")
# The most an `extend` may move a deadline, either way: a year (a bigger number is a typo, and past
# datetime's range it would crash the game).
MAX_EXTEND_HOURS = 24 * 366
_DIGITS = re.compile(r"[0-9]+$")
# Account, game and phase names are compared as a reader sees them (forumbot/seating.py's name_key and
# same_name): "Hоst" with a Cyrillic о is not the host, but it is told so and the host is flagged.


@dataclass(frozen=True)
class HostState:
    """What the host layer keeps beside a game's own state."""

    paused_at: datetime | None = None
    accounts: dict[str, str] = field(default_factory=dict)   # account → the player it plays
    retired: tuple[str, ...] = ()                            # accounts whose posts no longer count
    history: tuple[tuple[str, str, str], ...] = ()           # each replacement: (player, new account, time)
    nicknames: tuple[tuple[str, str], ...] = ()              # (word, player) the host confirmed, in order
    taught: dict[str, list[Any]] = field(default_factory=dict)   # what the thread teaches (text/nicknames.py)
    spectators: tuple[str, ...] = ()                         # accounts the host let watch (the dead chat)
    masks_checked: tuple[str, ...] = ()                      # masks whose account the deal made or looked for
    masks_missing: tuple[str, ...] = ()                      # ... and found none (their seat reads as its player)
    masks_given: dict[str, str] = field(default_factory=dict)   # mask → the account the bot gave its password to
    # what the platform answered about a sign-up's mask, by the sign-up's post: [] it may be taken, [code,
    # holder] why not (kept, so a game read again gives each sign-up the answer it had)
    signup_masks: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"paused_at": format_time(self.paused_at) if self.paused_at else None,
                                "accounts": dict(self.accounts), "retired": list(self.retired)}
        if self.history:
            data["history"] = [list(entry) for entry in self.history]
        if self.nicknames:
            data["nicknames"] = [list(entry) for entry in self.nicknames]
        if self.taught:
            data["taught"] = {key: list(entry) for key, entry in self.taught.items()}
        if self.spectators:
            data["spectators"] = list(self.spectators)
        if self.masks_checked:
            data["masks"] = {"checked": list(self.masks_checked), "missing": list(self.masks_missing),
                             "given": dict(self.masks_given)}
        if self.signup_masks:
            data["signup_masks"] = {key: list(value) for key, value in self.signup_masks.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> HostState:
        data = data or {}
        paused = data.get("paused_at")
        return cls(parse_time(paused) if paused else None, dict(data.get("accounts", {})),
                   tuple(data.get("retired", ())), tuple(tuple(e) for e in data.get("history", ())),
                   tuple((str(w), str(p)) for w, p in data.get("nicknames", ())),
                   {str(k): list(v) for k, v in dict(data.get("taught", {})).items()},
                   tuple(data.get("spectators", ())), tuple(data.get("masks", {}).get("checked", ())),
                   tuple(data.get("masks", {}).get("missing", ())), dict(data.get("masks", {}).get("given", {})),
                   {str(k): list(v) for k, v in dict(data.get("signup_masks", {})).items()})

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


def closed_notice() -> Event:
    """What a game's thread is told when its host ends the game from the console."""
    return _notice("closed")


def _refuse(intent: Intent, reason: str, code: str, params: dict[str, Any] | None = None) -> Event:
    return refusal(intent, reason, code=code, params=params, pm=True, subject="host")


def apply_host(game: Game, state: Any, host: HostState, intent: Intent, host_name: str | None,
               roster: tuple[str, ...] = (), cohosts: tuple[str, ...] = ()) -> tuple[Any, HostState, list[Event]]:
    """One host command. A command from anyone but the host, or one that cannot apply now, is refused
    with a private answer and changes nothing. `roster` is the game's players (for `replace`); `cohosts` the
    co-hosts' accounts (whose commands reach here as the host's), names nobody else may take."""
    if not host_name or intent.author != host_name:
        return state, host, [_refuse(intent, "only the host can do that", "host_only")]
    at = intent.at or datetime.min
    kind = intent.kind
    if kind == "host_game":   # which game a PM is for: the reader (forumbot/engine/timeline.py) has used it
        return state, host, []
    deadline = game.next_deadline(state)
    if kind == "host_extend":
        found = _NUMBER.match(str(intent.data.get("hours", "")))
        hours = float(found.group(1).replace(",", ".")) if found else 0.0
        if hours == 0 or abs(hours) > MAX_EXTEND_HOURS or deadline is None:
            return state, host, [_refuse(intent, f"say by how many hours (at most {MAX_EXTEND_HOURS}), during a "
                                         "phase with a deadline", "host_extend", {"limit": MAX_EXTEND_HOURS})]
        state = game.shift(state, timedelta(hours=hours))
        return state, host, [_notice("extended", hours=hours, deadline=_when(game.next_deadline(state)))]
    if kind == "host_end_phase":
        if deadline is None:
            return state, host, [_refuse(intent, "no phase is running", "host_nothing")]
        refused = _wrong_phase(game, state, intent)
        if refused is not None:
            return state, host, [refused]
        # Move the deadline to now: the runner fires it before reading the next post. A game that tells a
        # phase the host ended from one that ran out (Mafia's "ended by the host") marks it as well.
        end_by_host = getattr(game, "end_by_host", None)
        ended = end_by_host(state, at) if end_by_host is not None else game.shift(state, at - deadline)
        return ended, host, [_notice("ended")]
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
        taken = _taken(host, account, (host_name, *cohosts), roster, cohosts)
        if taken is not None:
            return state, host, [_refuse(intent, f"{account} cannot take over {player}: {_TAKEN[taken]}",
                                         "host_replace_taken", {"account": account, "player": player, "taken": taken})]
        old = host.account_of(player)
        accounts = {a: p for a, p in host.accounts.items() if p != player}
        accounts[account] = player
        retired = tuple(a for a in (*host.retired, old) if a != account)
        history = (*host.history, (str(player), account, format_time(at)))
        return state, replace(host, accounts=accounts, retired=retired, history=history), [
            _notice("replaced", player=player, account=account)]
    if kind in ("host_spectate", "host_unspectate"):
        return state, *_spectate(host, intent, (host_name, *cohosts), roster)
    if kind == "host_modkill":
        player = intent.data.get("target")
        if not player:
            return state, host, [_refuse(intent, "write: modkill PLAYER", "host_modkill")]
        state, events = game.apply(state, replace(intent, kind="modkill"))
        if any(e.kind == "rejected" for e in events):
            return state, host, [replace(e, data={**e.data, "pm_to": intent.author}) for e in events]
        return state, host, events
    return state, host, [_refuse(intent, f"unknown host command {kind}", "host_unknown")]


def _spectate(host: HostState, intent: Intent, hosts: tuple[str | None, ...], roster: tuple[str, ...]
              ) -> tuple[HostState, list[Event]]:
    """`spectate ACCOUNT` lets an account read the game's dead chat; `unspectate ACCOUNT` ends it. An account
    that plays in the game (or the host) cannot be a spectator. Answered to the host by PM, not announced."""
    account = str(intent.data.get("account", "")).strip()
    adding = intent.kind == "host_spectate"
    if not account:
        return host, [_refuse(intent, "write: spectate ACCOUNT", "host_spectate")]
    if adding:
        playing = [a for a in (*roster, *host.accounts) if host.player_of(a) is not None]
        taken = name_taken(account, "", hosts=hosts, seated=playing, masks=roster)
        if taken is not None:
            return host, [_refuse(intent, f"{account} cannot watch: it plays in this game or hosts it",
                                        "host_spectate_taken", {"account": account})]
        spectators = tuple(dict.fromkeys((*host.spectators, account)))
    else:
        spectators = tuple(a for a in host.spectators if a != account)
    done = _notice("spectators", pm_to=intent.author, subject="spectators", account=account,
                   spectators=", ".join(spectators) or "-")
    return replace(host, spectators=spectators), [done]


def _wrong_phase(game: Game, state: Any, intent: Intent) -> Event | None:
    """A refusal when an "end" command does not name the phase running now ("end day" at night: the day
    it meant has already ended), or names none."""
    current = str(game.summary(state).get("phase") or "")
    kind = _DIGITS.sub("", current)
    named = name_key(str(intent.data.get("phase", "")))
    if named in (current, kind) and named:
        return None
    suggestion = f"end {kind}" if kind in ("day", "night") else f"end phase {current}"
    if not named:
        return _refuse(intent, f"say which phase you end: it is {current} now, so write \"{suggestion}\"",
                       "host_end_which", {"current": current, "command": suggestion, "end": kind or current})
    return _refuse(intent, f"it is {current} now, not {named}: nothing was ended (write \"{suggestion}\" to end "
                   f"{current})", "host_end_other", {"current": current, "named": named, "command": suggestion,
                                                        "end": kind or current})


def _taken(host: HostState, account: str, hosts: tuple[str | None, ...], roster: tuple[str, ...],
           cohosts: tuple[str, ...] = ()) -> str | None:
    """Why an account cannot take over a player, as an id of _TAKEN (it is or looks like the host, a co-host,
    or an account or a seat of the game), or None."""
    playing = [a for a in (*roster, *host.accounts) if host.player_of(a) is not None]
    taken = name_taken(account, "", hosts=hosts, seated=playing, masks=roster)
    if taken is None:
        return None
    if taken.code == "name_host":
        return "cohost" if taken.holder in cohosts else "host"
    return "seated"


# Why an account cannot take over a player, in English (phrase host_taken_<id> in the post's language).
_TAKEN = {"host": "that is the host", "cohost": "that is a co-host of the game, or looks like one",
          "seated": "that account already plays in this game"}


def _when(value: datetime | None) -> str | None:
    return format_time(value) if value else None


def extend_deadline(value: datetime | None, delta: timedelta) -> datetime | None:
    """A helper for games' `shift`: a pending time moved by `delta` (None stays None)."""
    return value + delta if value is not None else None


__all__ = ["HOST_KINDS", "MAX_EXTEND_HOURS", "HostState", "apply_host", "extend_deadline"]
