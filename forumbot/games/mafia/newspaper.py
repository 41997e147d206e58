"""The end of a night in posts: the newspaper (deaths and the unsigned notes), every player's private
result, the host's news, and the win check with its final post."""

from __future__ import annotations

import random
from datetime import datetime

from forumbot.games.mafia.actions import role_of
from forumbot.games.mafia.night import NightRun, record, resolve
from forumbot.games.mafia.state import GAME_KEY, Death, MafiaState
from forumbot.model import Event, format_time


def end_night(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Resolve tonight; return the state with its deaths and memory (still the night phase) and events."""
    run = resolve(state)
    memory = run.memory
    town = [n for n in state.alive if n not in run.deaths and (r := role_of(state, n)) and r.team == "town"]
    memory.setdefault(GAME_KEY, {})["town_count"] = {"night": state.number, "count": len(town)}
    deaths = tuple(Death(n, state.phase, "night", state.roles.get(n)) for n in run.deaths)
    alive = tuple(n for n in state.alive if n not in run.deaths)
    notes = [n["text"] for n in state.notes if n["night"] == state.number and not n.get("rejected")
             and not n.get("held")]
    if state.options.shuffle_notes:
        random.Random(f"{state.options.seed}:{state.number}").shuffle(notes)
    shown = [{"name": d.name, **({"role": _role_name(state, d.name)} if state.options.reveal_roles else {})}
             for d in deaths]
    events = [Event("night_end", {"night": state.number, "deaths": shown, "notes": notes,
                                  "at": format_time(at)})]
    events += _private(state, run)
    events += [Event("note_rejected", {"pm_to": n["author"], "subject": "note", "number": n["id"], "reason": "",
                                       "held": n["held"], "night": state.number})
               for n in state.notes if n["night"] == state.number and n.get("held") and not n.get("rejected")]
    new = state.with_(alive=alive, dead=state.dead + deaths, memory=memory, orders={},
                      nights=(*state.nights, record(run)), immune=frozenset(run.immune & set(alive)))
    return new, events


def _role_name(state: MafiaState, name: str) -> str:
    role = role_of(state, name)
    return role.name(state.lang) if role else (state.roles.get(name) or "?")


def _private(state: MafiaState, run: NightRun) -> list[Event]:
    out = []
    for name in state.alive:
        lines = run.results.get(name)
        if lines:
            out.append(Event("night_result", {"pm_to": name, "subject": "night",
                                              "night": state.number, "day": None, "lines": lines}))
    if state.host and run.host:
        out.append(Event("night_result", {"pm_to": state.host, "subject": "night",
                                          "night": state.number, "day": None, "lines": run.host}))
    return out


def winner(state: MafiaState) -> str | None:
    """The side that has won ("town", "mafia", "maniac", or "nobody" when all are dead), or None.
    Only games whose every player has a role of the ruleset are judged."""
    if not state.options.roles or any(role_of(state, n) is None for n in state.players):
        return None
    teams = [role.team for n in state.alive if (role := role_of(state, n)) is not None]
    mafia, maniac = teams.count("mafia"), teams.count("maniac")
    others = len(teams) - mafia
    if not teams:
        return "nobody"
    if not mafia and not maniac:
        return "town"
    if maniac and len(teams) <= state.options.maniac_wins_at:
        return "maniac"
    if mafia and not maniac:
        if state.options.mafia_wins == "parity" and mafia >= others:
            return "mafia"
        if others == 0:
            return "mafia"
    return None


def game_over(state: MafiaState, side: str, at: datetime) -> tuple[MafiaState, list[Event]]:
    """The final post: who won, and every player's role."""
    roles = [{"name": n, "role": _role_name(state, n), "alive": n in state.alive,
              "team": (r.team if (r := role_of(state, n)) else "")} for n in state.players]
    over = state.with_(phase="over", winner=side, phase_ends=at, phase_started=at)
    return over, [Event("game_over", {"thread": "game", "winner": side, "roles": roles, "at": format_time(at),
                                      "alive": list(state.alive)})]

