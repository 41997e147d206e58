"""Before the game (Body Snatchers sections 1-3): sign-ups by PM with a number and a mask, the roles dealt
from the host's secret table, role confirmation by PM, and the start (night 0).

Phases: "signup" (until the sign-up deadline, or until every number is taken), then "roles" (until every
player has confirmed, or the host starts the game anyway), then "night0". A player signs up from their
real account; from the deal on they play under the mask, an account named after the actor, and the
mask → account map (`state.masks`) is the host's secret. Until the night is announced the bot writes to
the real account (the mask account may not exist yet); from night 0 on, to the mask.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from forumbot.games.mafia.actions import refuser
from forumbot.games.mafia.roles import find_role
from forumbot.games.mafia.schedule import phase_end
from forumbot.games.mafia.state import MafiaState
from forumbot.games.mafia.voting import phase_start
from forumbot.model import Event, Intent, format_time
from forumbot.seating import Taken, name_taken
from forumbot.text.normalize import fold

SIGNUP_KINDS = ("signup", "signup_withdraw", "confirm_role", "deal_roles", "start_game")
MASK_MAX = 60
# "Записываюсь: 7, Мэрил Стрип, ж" / "sign up: 7, Meryl Streep (f)": the mask's grammatical gender.
_GENDER = re.compile(r"\s*[,(]\s*(ж|жен|м|муж|f|female|m|male)\.?\s*\)?\s*$", re.IGNORECASE)

REFUSALS = {
    "signup_closed": "sign-ups are closed",
    "signup_number": "the number must be between 1 and {slots}",
    "number_taken": "number {number} is taken",
    "mask_taken": "the mask {mask} is taken",
    "mask_bad": "write an actor's or actress's name as the mask",
    "name_host": "{name} is the host's name or looks like it: choose another",
    "name_bot": "{name} is the bot's name or looks like it: choose another",
    "name_seated": "{name} looks like the account {holder}, which plays in this game: choose another",
    "name_mask": "{name} looks like the mask {holder}, which is taken: choose another",
    "name_account": "{name} looks like the account {holder} on this forum: choose another",
    "account_is_mask": "your account's name looks like the mask {holder}, which another player took first; "
                       "ask the host",
    "not_signed": "you have not signed up",
    "host_only": "only the host can do that",
    "not_roles": "there are no roles to confirm now",
    "not_in_game": "you are not in this game",
    "signup_empty": "nobody has signed up",
    "no_role_for": "the host's role table has no role for these numbers: {numbers}",
}


refuse = refuser(REFUSALS)


def _fold(text: str) -> str:
    return " ".join(fold(text).split())


def entries(state: MafiaState) -> list[dict[str, Any]]:
    """The sign-up list, by number: {"number", "mask", "account", "at"}."""
    return sorted(({**entry, "account": account} for account, entry in state.signup.items()),
                  key=lambda e: e["number"])


def player_of_account(state: MafiaState, account: str) -> str:
    """The player (mask) a real account plays, or the account itself."""
    for mask, real in state.masks.items():
        if real == account:
            return mask
    return account


def apply_signup(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A sign-up command: sign up / change, withdraw, confirm a role; the host's deal and start."""
    kind = intent.kind
    if kind in ("deal_roles", "start_game"):
        if not state.host or intent.author != state.host:
            return state, [refuse(intent, "host_only")]
        at = intent.at or state.phase_started
        if kind == "deal_roles":
            if state.phase != "signup":
                return state, [refuse(intent, "signup_closed")]
            return deal(state, at)
        if state.phase != "roles":
            return state, [refuse(intent, "not_roles")]
        return start_night0(state, at)
    if kind == "confirm_role":
        return _confirm(state, intent)
    if state.phase != "signup" or (intent.at is not None and intent.at > state.phase_ends):
        return state, [refuse(intent, "signup_closed")]
    account = intent.author
    if kind == "signup_withdraw":
        if account not in state.signup:
            return state, [refuse(intent, "not_signed")]
        left = {a: e for a, e in state.signup.items() if a != account}
        state = state.with_(signup=left)
        return state, [_reply(account, "withdrawn", {}), _host_list(state)]
    return _sign_up(state, intent)


def mask_of(intent: Intent) -> tuple[str, str | None]:
    """The mask a sign-up asks for, and the grammatical gender written after it (or None)."""
    mask = " ".join(str(intent.data.get("mask", "")).split())
    marked = _GENDER.search(mask)
    gender = ("f" if marked.group(1).lower()[0] in "жf" else "m") if marked else None
    return (mask[:marked.start()] if marked else mask).strip(" .,;:!\"'«»"), gender


def refuse_name(intent: Intent, name: str, taken: Taken) -> Event:
    """The refusal of a name someone else holds (forumbot/seating.py), in the sign-up's words."""
    return refuse(intent, taken.code, name=name, holder=taken.holder)


def _sign_up(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    account = intent.author
    slots = state.options.signup_slots
    try:
        number = int(str(intent.data.get("number", "")).strip().lstrip("№#"))
    except ValueError:
        number = 0
    if not 1 <= number <= slots:
        return state, [refuse(intent, "signup_number", slots=slots)]
    mask, gender = mask_of(intent)
    if not mask or len(mask) > MASK_MAX or not any(ch.isalpha() for ch in mask):
        return state, [refuse(intent, "mask_bad")]
    for other, entry in state.signup.items():   # first come, first served: the earliest sign-up's claim
        if other == account:
            continue
        if entry["number"] == number:
            return state, [refuse(intent, "number_taken", number=number)]
        taken = name_taken(mask, account, seated=(other,), masks=(entry["mask"],))
        if taken is not None and taken.code == "name_mask":
            return state, [refuse(intent, "mask_taken", mask=mask)]
        if taken is not None:
            return state, [refuse_name(intent, mask, taken)]
        if name_taken(account, other, masks=(entry["mask"],)) is not None:   # a mask named like this account
            return state, [refuse(intent, "account_is_mask", holder=entry["mask"])]
    taken = name_taken(mask, account, hosts=(state.host,))
    if taken is not None:
        return state, [refuse_name(intent, mask, taken)]
    changed = account in state.signup
    entry = {"number": number, "mask": mask, "at": format_time(intent.at) if intent.at else ""}
    if gender:
        entry["gender"] = gender
    state = state.with_(signup={**state.signup, account: entry})
    events = [_reply(account, "changed" if changed else "accepted", {"number": number, "mask": mask}),
              _host_list(state)]
    if len(state.signup) == slots:   # every number taken: the roles are dealt at once
        state, more = deal(state, intent.at or state.phase_started)
        events += more
    return state, events


def _tell_host(state: MafiaState, code: str, **params: Any) -> list[Event]:
    """A refusal the game meets by itself (dealing the roles): a PM to the host."""
    return [refuse(Intent("deal", author=state.host), code, **params)] if state.host else []


def _reply(account: str, what: str, params: dict[str, Any]) -> Event:
    return Event("signup_reply", {"pm_to": account, "subject": "signup", "what": what, **params})


def _host_list(state: MafiaState, what: str = "list") -> Event:
    """The sign-up list for the host only (numbers, masks, accounts)."""
    return Event("signup_list", {"pm_to": state.host or "", "subject": "signup", "what": what,
                                 "entries": entries(state), "slots": state.options.signup_slots,
                                 "deadline": format_time(state.phase_ends)})


def on_signup_deadline(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """The sign-up deadline: the roles are dealt when every number is taken; otherwise sign-ups stay open
    `signup_extend_hours` longer and the host is told (the host may deal anyway). In phase "roles" the
    deadline reminds whoever has not confirmed and tells the host who they are."""
    if state.phase == "signup":
        if len(state.signup) >= state.options.signup_slots:
            return deal(state, at)
        state = state.with_(phase_ends=at + timedelta(hours=state.options.signup_extend_hours))
        return state, [_host_list(state, "short")] if state.host else []
    missing = [p for p in state.players if p not in state.confirmed]
    state = state.with_(phase_ends=at + timedelta(hours=state.options.confirm_hours))
    events = [Event("role_pm", {"pm_to": state.masks.get(p, p), "subject": "role", "reminder": True,
                                "role": _role_name(state, p), "mask": p}) for p in missing]
    if state.host:
        events.append(_confirm_status(state))
    return state, events


def _role_name(state: MafiaState, player: str) -> str:
    role = state.options.role(state.roles.get(player))
    return role.name(state.lang) if role else str(state.roles.get(player, ""))


def deal(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Close sign-ups: the masks become the players (alphabetically), each gets the role of their number
    from the host's table by PM and must confirm it."""
    signed = entries(state)
    if not signed:
        return state, _tell_host(state, "signup_empty")
    table = dict(state.options.role_table)
    roles: dict[str, str] = {}
    missing = []
    for entry in signed:
        role = find_role(state.options.roles, str(table.get(str(entry["number"]), ""))) \
            if state.options.roles else None
        if role is None:
            missing.append(str(entry["number"]))
        else:
            roles[entry["mask"]] = role.id
    if missing:
        return state, _tell_host(state, "no_role_for", numbers=", ".join(missing))
    forums = dict(state.options.forums)
    masks = {e["mask"]: e["account"] for e in signed}
    players = tuple(sorted(masks, key=_fold))
    state = state.with_(
        players=players, alive=players, roles=roles, masks=masks, phase="roles", phase_started=at,
        phase_ends=at + timedelta(hours=state.options.confirm_hours), confirmed=(),
        forums={m: str(forums.get(a, forums.get(m, ""))) for m, a in masks.items()},
        genders={e["mask"]: e["gender"] for e in signed if e.get("gender")},
    )
    events = [Event("role_pm", {"pm_to": masks[p], "subject": "role", "reminder": False,
                                "role": _role_name(state, p), "mask": p}) for p in players]
    if state.host:
        events.append(_host_list(state, "closed"))
    return state, events


def _confirm(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    if state.phase != "roles":
        return state, [refuse(intent, "not_roles")]
    player = intent.author if intent.author in state.players else player_of_account(state, intent.author)
    if player not in state.players:
        return state, [refuse(intent, "not_in_game")]
    account = state.masks.get(player, player)   # before the start the bot writes to the real account
    if player in state.confirmed:
        return state, [Event("confirm_ack", {"pm_to": account, "subject": "role", "again": True})]
    state = state.with_(confirmed=(*state.confirmed, player))
    events = [Event("confirm_ack", {"pm_to": account, "subject": "role", "again": False})]
    if len(state.confirmed) == len(state.players):
        state, more = start_night0(state, intent.at or state.phase_started)
        events += more
    return state, events


def _confirm_status(state: MafiaState, started: bool = False) -> Event:
    return Event("confirm_status", {"pm_to": state.host or "", "subject": "role", "started": started,
                                    "confirmed": list(state.confirmed),
                                    "missing": [p for p in state.players if p not in state.confirmed]})


def start_night0(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """The night is announced (section 3): the first post lists the masks alphabetically and nothing else,
    then the night's post. Only from now on may players post in the game thread."""

    unconfirmed = [p for p in state.players if p not in state.confirmed]
    night = state.with_(phase="night0", phase_started=at, phase_ends=phase_end(state.options, at, False))
    events = [Event("masks_list", {"thread": "game", "masks": sorted(state.players, key=_fold)}),
              phase_start(night)]
    if state.host and unconfirmed:
        events.append(_confirm_status(night, started=True))
    return night, events


def reveal_masks(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host's command at the end: the final post names each mask's player."""
    if not state.host or intent.author != state.host:
        return state, [refuse(intent, "host_only")]
    pairs = [{"mask": m, "account": a} for m, a in sorted(state.masks.items(), key=lambda kv: _fold(kv[0]))]
    return state, [Event("masks_reveal", {"thread": "game", "masks": pairs})]
