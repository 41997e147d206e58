"""The Mafia clock beyond the phase end: reminders before a deadline, the host moving a deadline
(`shift`), and the host's modkill."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from forumbot.games.calendar import phase_end as calendar_end
from forumbot.games.calendar import weekday_numbers
from forumbot.games.mafia import voting
from forumbot.games.mafia.actions import refuse, role_of
from forumbot.games.mafia.newspaper import game_over, winner
from forumbot.games.mafia.options import MafiaOptions
from forumbot.games.mafia.state import KILL_KEY, NO_LYNCH, Death, MafiaState
from forumbot.model import Event, Intent, format_time, parse_time

# An untimed day's deadline: far enough never to come; the host ends the day ("end day").
UNTIMED = timedelta(days=3650)


def phase_end(options: MafiaOptions, start: datetime, day: bool) -> datetime:
    """When a day or a night that starts at `start` ends: the one place a phase's deadline is worked out,
    by the game's calendar (its length, the weekdays it skips, untimed days)."""
    if day and options.untimed_days:
        return start + UNTIMED
    hours = options.day_hours if day else options.night_hours
    return calendar_end(start, hours, weekday_numbers(options.skip_weekdays), options.calendar_tz)


def untimed(state: MafiaState) -> bool:
    """Whether the running phase is a day without a deadline."""
    return state.is_day and state.options.untimed_days


def shift(state: MafiaState, delta: timedelta) -> MafiaState:
    """The current phase's deadline moved by `delta` (the host extended, ended or paused the phase); a
    majority's countdown keeps the day's own deadline, moved alike."""
    if state.phase == "over":
        return state
    countdown = format_time(parse_time(state.countdown) + delta) if state.countdown else ""
    return state.with_(phase_ends=state.phase_ends + delta, countdown=countdown)


# ---- reminders ----------------------------------------------------------------------------------
def _pending(state: MafiaState) -> list[tuple[datetime, str]]:
    """Reminders of this phase not sent yet: (when, key), soonest first."""
    out = []
    for hours in sorted(state.options.remind_hours, reverse=True):
        key = f"{state.phase}:{hours:g}"
        when = state.phase_ends - timedelta(hours=hours)
        if key not in state.reminded and when > state.phase_started:
            out.append((when, key))
    return out


def next_reminder(state: MafiaState) -> datetime | None:
    pending = _pending(state)
    return pending[0][0] if pending and state.phase != "over" else None


def must_act(state: MafiaState) -> list[str]:
    """Living players who have a night action to send and have not sent one (a mafioso while the
    mafia's kill is not sent); the carrier of the mafia's kill has sent theirs."""
    out = []
    carrier = state.orders.get(KILL_KEY, {}).get("actor")
    for name in state.alive:
        role = role_of(state, name)
        # the mafia's kill is carried instead of the carrier's own action (a sole survivor may do both)
        if role is None or name in state.orders or name == carrier:
            continue
        if role.action or (role.team == "mafia" and KILL_KEY not in state.orders):
            out.append(name)
    return out


def remind(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Every reminder due at `at` (several at once count as one: the latest is sent)."""
    due = [key for when, key in _pending(state) if when <= at]
    if not due:
        return state, []
    state = state.with_(reminded=state.reminded + tuple(due))
    left = state.phase_ends - at
    hours = round(left.total_seconds() / 3600, 1)
    base = {"phase": state.phase, "number": state.number, "hours_left": hours,
            "ends": format_time(state.phase_ends)}
    if state.is_day:
        missing = voting.not_voting(state)
        events = [Event("reminder", {**base, "thread": "votes", "kind": "day", "missing": missing})]
        if state.options.remind_by_pm:
            events += [Event("reminder", {**base, "pm_to": name, "kind": "day_pm", "missing": [name],
                                          "subject": "reminder"}) for name in missing]
        return state, events
    return state, [Event("reminder", {**base, "pm_to": name, "kind": "night_pm", "missing": [name],
                                      "subject": "reminder"}) for name in must_act(state)]


# ---- modkill ------------------------------------------------------------------------------------
def modkill(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host removes a living player: their vote and the votes on them are withdrawn, tonight's
    action is dropped, and the game may end."""
    target = intent.data.get("target")
    if not isinstance(target, str) or target not in state.alive:
        return state, [refuse(intent, "dead_target", target=target)]
    entries = tuple(replace(e, withdrawn=True) if (e.voter == target or e.target == target) and not e.withdrawn
                    else e for e in state.entries)
    current = {v: t for v, t in state.current.items() if v != target and t != target}
    orders: dict[str, dict[str, Any]] = {k: v for k, v in state.orders.items()
                                         if k != target and v.get("actor") != target}
    role = role_of(state, target)
    state = state.with_(alive=tuple(n for n in state.alive if n != target),
                        dead=state.dead + (Death(target, state.phase, "modkill", state.roles.get(target)),),
                        entries=entries, current=current, orders=orders,
                        locked=state.locked - {target}, changes=state.changes + 1)
    shown_role = role.name(state.lang) if role and state.options.reveal_roles else None
    events = [Event("modkill", {"thread": "game", "name": target, "role": shown_role,
                                "alive": list(state.alive)})]
    side = winner(state)
    if side is not None:
        over, final = game_over(state, side, intent.at or state.phase_started)
        return over, events + final
    return state, events


__all__ = ["NO_LYNCH", "modkill", "must_act", "next_reminder", "remind", "shift"]
