"""The day side of the roles, at the end of the day (part 4 of the priority table).

а) the politician's protection: whoever his status change touched last night cannot be hanged; if a
   majority votes to hang them anyway, he learns their role (his passive);
б) the personal one-time protections from hanging (the maniac's, the politician's after a night he sent
   an action).
The end-of-day post lists such players as "could not be hanged" without saying why.
"""

from __future__ import annotations

import copy
from typing import Any

from forumbot.games.mafia.actions import role_of
from forumbot.games.mafia.night import use_shield
from forumbot.games.mafia.state import GAME_KEY, MafiaState
from forumbot.model import Event


def hang_protections(state: MafiaState, hanged: tuple[str, ...]) -> tuple[
        tuple[str, ...], tuple[str, ...], dict[str, dict[str, Any]], list[Event]]:
    """Who hangs, who is saved, the roles' memory after it, and the private messages it owes."""
    memory = copy.deepcopy(state.memory)
    events: list[Event] = []
    saved = [n for n in hanged if n in state.immune]
    proteges = memory.get(GAME_KEY, {}).get("proteges", {})
    for name in saved:
        giver = proteges.get(name)
        role = role_of(state, giver) if giver else None
        if giver in state.alive and role is not None and "learns_protege_role" in role.passives:
            target_role = role_of(state, name)
            events.append(Event("night_result", {
                "pm_to": giver, "subject": "day", "night": None, "day": state.number,
                "lines": [{"code": "protege_role", "params": {
                    "target": name, "role": target_role.name(state.lang) if target_role else "?"}}]}))
    for name in hanged:
        if name in saved:
            continue
        role = role_of(state, name)
        if role is None or not (role.hang_shields or (role.shared_shields and role.kill_shields)):
            continue
        mem = memory.setdefault(name, {})
        if role.hang_shield_needs_action and mem.get("acted") != state.number - 1:
            continue
        if use_shield(mem, role, "hang"):
            saved.append(name)
    return tuple(n for n in hanged if n not in saved), tuple(saved), memory, events
