"""Night actions and notes sent by private message: checked, then kept as tonight's orders.

Each accepted action is confirmed by PM and replaces the sender's earlier one (the last valid action
before the deadline counts); a refused one gets a PM saying why and changes nothing. The mafia share one
kill a night, carried by one member instead of their own action; a sole surviving member may do both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forumbot.games.base import refusal
from forumbot.games.mafia.moderation import note_problem
from forumbot.games.mafia.roles import VERBS, RoleDef
from forumbot.games.mafia.state import KILL_KEY, MafiaState
from forumbot.model import Event, Intent, format_time

NIGHT_KINDS = ("action", "note", "reject_note", "approve_note")

# Why a night command is refused: the code (phrase `refuse_<code>` in the player's language) → English.
REFUSALS = {
    "not_night": "night actions are sent at night; it is {phase}",
    "after_deadline": "the action came after the night's deadline",
    "not_player": "{author} is not a player in this game",
    "dead_actor": "{author} is dead",
    "no_role": "{author} has no role with a night action",
    "wrong_role": "your role cannot do '{verb}'",
    "name_unknown": "'{query}' is not a player",
    "dead_target": "{target} is dead",
    "self_target": "your role cannot target itself",
    "streak": "you cannot target {target} more than {limit} nights in a row",
    "taxi_names": "you used {target} last night; the names of last night cannot be used again",
    "revisit": "you cannot rob {target} again before you have robbed everyone else",
    "kill_taken": "{carrier} has already sent the mafia's kill tonight",
    "need_two": "a redirect needs two players: 'redirect X to Y'",
    "no_loot": "you have nothing stolen to use tonight",
    "notes_limit": "you have no notes left (the limit is {limit})",
    "notes_none": "this game has no notes",
    "note_empty": "the note is empty",
    "not_host": "only the host can reject notes",
    "no_note": "there is no note number {number} tonight",
    "state_over": "the game is over",
}


def refuser(table: dict[str, str]) -> Callable[..., Event]:
    """A module's `refuse(intent, code, **params)`: the PM refusal whose English text is table[code]."""
    def refuse(intent: Intent, code: str, **params: Any) -> Event:
        return refusal(intent, table[code].format(**params), code=code, params=params, pm=True, subject="refused")
    return refuse


refuse = refuser(REFUSALS)


def role_of(state: MafiaState, name: str) -> RoleDef | None:
    return state.options.role(state.roles.get(name))


def mafia_alive(state: MafiaState) -> list[str]:
    return [n for n in state.alive if (r := role_of(state, n)) is not None and r.team == "mafia"]


def loot(state: MafiaState, name: str) -> str | None:
    """What the thief stole last night and may use tonight (kills and redirects become blocks)."""
    stolen = state.memory.get(name, {}).get("stolen")
    if not stolen or stolen.get("night") != state.number - 1:
        return None
    action = str(stolen["action"])
    return "block" if action in ("kill", "redirect") else action


def apply_night(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A night action, a note, or the host rejecting a note."""
    if intent.kind in ("reject_note", "approve_note"):
        return _reject_note(state, intent)
    if state.phase == "over":
        return state, [refuse(intent, "state_over")]
    if state.is_day:
        return state, [refuse(intent, "not_night", phase=state.phase)]
    if intent.at is not None and intent.at > state.phase_ends:
        return state, [refuse(intent, "after_deadline")]
    if intent.author not in state.players:
        return state, [refuse(intent, "not_player", author=intent.author)]
    if intent.author not in state.alive:
        return state, [refuse(intent, "dead_actor", author=intent.author)]
    if intent.kind == "note":
        return _note(state, intent)
    return _action(state, intent)


def _action(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    author, data = intent.author, intent.data
    verb = str(data.get("action", "own"))
    role = role_of(state, author)
    for slot in ("target", "to"):
        if slot in data and data[slot] is None:
            query = data.get("unresolved", {}).get(slot, "?")
            return state, [refuse(intent, "name_unknown", query=query)]
    target, to = data.get("target"), data.get("to")
    for name in (target, to):
        if name is not None and name not in state.alive:
            return state, [refuse(intent, "dead_target", target=name)]
    # Which of the sender's abilities the words mean: the mafia's kill, their own action, or the loot.
    is_mafia = role is not None and role.team == "mafia"
    own = role.action if role is not None else ""
    stolen = loot(state, author)
    if verb == "kill" and is_mafia and own != "kill":
        source, action = "kill", "kill"
    elif verb == "stolen":
        if stolen is None:
            return state, [refuse(intent, "no_loot")]
        source, action = "stolen", stolen
    elif own and own in VERBS.get(verb, ()):
        source, action = "own", own
    elif stolen and stolen in VERBS.get(verb, ()):
        source, action = "stolen", stolen
    elif role is None or (not own and not is_mafia):
        return state, [refuse(intent, "no_role", author=author)]
    else:
        return state, [refuse(intent, "wrong_role", verb=verb)]
    if target is None or (action == "redirect" and to is None):
        return state, [refuse(intent, "need_two" if action == "redirect" else "name_unknown", query="?")]
    if action != "redirect":
        to = None
    problem = _limit_problem(state, intent, role, source, action, target, to)
    if problem is not None:
        return state, [problem]
    order = {"action": action, "target": target, "to": to, "source": source,
             "at": format_time(intent.at) if intent.at else "", "post": intent.post_id}
    orders = dict(state.orders)
    sole = len(mafia_alive(state)) == 1
    if source == "kill":
        orders[KILL_KEY] = {**order, "actor": author}
        if not sole:
            orders.pop(author, None)        # the kill replaces the carrier's own action
    else:
        orders[author] = order
        if not sole and orders.get(KILL_KEY, {}).get("actor") == author:
            orders.pop(KILL_KEY)            # their own action replaces the kill they carried
    # What this order takes the place of: a sole survivor's kill and own action are separate slots.
    carried = state.orders.get(KILL_KEY, {}).get("actor") == author
    if sole:
        replaced = carried if source == "kill" else author in state.orders
    else:
        replaced = author in state.orders or carried
    ack = Event("action_ack", {"pm_to": author, "subject": "action", "night": state.number, "action": action,
                               "source": source, "target": target, "to": to, "replaced": replaced})
    return state.with_(orders=orders), [ack]


def _limit_problem(state: MafiaState, intent: Intent, role: RoleDef | None, source: str, action: str,
                   target: str, to: str | None) -> Event | None:
    author = intent.author
    memory = state.memory.get(author, {})
    if source == "kill":
        held = state.orders.get(KILL_KEY)
        if held and held["actor"] != author and held["actor"] in state.alive:
            return refuse(intent, "kill_taken", carrier=held["actor"])
        return None
    if role is None:
        return None
    if source == "own":
        if role.no_self and target == author:
            return refuse(intent, "self_target")
        if role.max_streak and memory.get("last") == target and memory.get("streak", 0) >= role.max_streak:
            return refuse(intent, "streak", target=target, limit=role.max_streak)
        if role.name_cooldown and len(state.alive) >= state.options.taxi_free_below:
            used = set(memory.get("names", []))
            for name in (target, to):
                if name in used:
                    return refuse(intent, "taxi_names", target=name)
    if role.no_revisit and (action == "steal" or state.options.thief_revisit == "any"):
        robbed = set(memory.get("robbed", []))
        others = {n for n in state.alive if n != author}
        if target in robbed and not others <= robbed:
            return refuse(intent, "revisit", target=target)
    return None


def _note(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    text = str(intent.data.get("text", "")).strip()
    if not text:
        return state, [refuse(intent, "note_empty")]
    limit = state.options.notes_per_night
    mine = [n for n in state.notes if n["author"] == intent.author and not n.get("rejected")
            and (state.options.notes_scope == "game" or n["night"] == state.number)]
    if limit == 0:
        return state, [refuse(intent, "notes_none")]
    if len(mine) >= limit:
        return state, [refuse(intent, "notes_limit", limit=limit)]
    number = 1 + sum(1 for n in state.notes if n["night"] == state.number)
    held = note_problem(state, intent.author, text) if state.options.moderate else None
    note = {"id": number, "author": intent.author, "night": state.number, "text": text, "rejected": None}
    if held:
        note["held"] = held     # published only if the host approves it before the night ends (section 4)
    event = Event("note_ack", {"pm_to": intent.author, "subject": "note", "number": number,
                               "left": limit - len(mine) - 1, "night": state.number, "held": held})
    host_copy = [Event("note_ack", {"pm_to": state.host, "subject": "note", "number": number, "text": text,
                                    "author": intent.author, "night": state.number, "for_host": True,
                                    "held": held})] if state.host else []
    return state.with_(notes=(*state.notes, note)), [event, *host_copy]


def _reject_note(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    if not state.host or intent.author != state.host:
        return state, [refuse(intent, "not_host")]
    try:
        number = int(str(intent.data.get("number", "")).strip().lstrip("№#"))
    except ValueError:
        number = -1
    reason = str(intent.data.get("reason", "")).strip()
    notes = list(state.notes)
    for index, note in enumerate(notes):
        if note["night"] == state.number and note["id"] == number and not note.get("rejected") \
                and intent.kind == "approve_note":
            notes[index] = {k: v for k, v in note.items() if k != "held"}
            return state.with_(notes=tuple(notes)), [Event("note_ack", {
                "pm_to": state.host, "subject": "note", "number": number, "night": state.number,
                "for_host": True, "approved": True, "author": note["author"], "text": note["text"], "held": None})]
        if note["night"] == state.number and note["id"] == number and not note.get("rejected"):
            notes[index] = {**note, "rejected": reason or "-"}
            told = Event("note_rejected", {"pm_to": note["author"], "subject": "note", "number": number,
                                           "reason": reason, "night": state.number})
            return state.with_(notes=tuple(notes)), [told]
    return state, [refuse(intent, "no_note", number=number)]
