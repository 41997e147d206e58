"""Resolving a night by the priority table (third part of the rules).

1. Power actions, simultaneously (power.py settles collisions).
2. Information actions: they see the final destinations and kinds of everything ("могут заглядывать в
   будущее"); blocked or skipped means "went nowhere".
3. Kills, protection and healing: а) the maniac's kill, б) the mafia's kill, в) the policeman's
   protection / his kill of the thief, г) the thief's protection, д) the assistant's and the thief's
   healing, е) the personal one-time protections; a protector who dies still protects.
   ж–з) the writer's count and the thief's news of the policeman (passives.py, stage "end").
Passives run at the stage their registry entry names; information passives fire with their action.
The result is a new memory, the deaths, each player's private result lines and a record for the host.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from forumbot.games.mafia.actions import role_of
from forumbot.games.mafia.passives import PASSIVES
from forumbot.games.mafia.power import Act, resolve_power
from forumbot.games.mafia.roles import DEFAULT_KIND, INFO, RoleDef
from forumbot.games.mafia.state import GAME_KEY, KILL_KEY, MafiaState

LEVELS = {"block": 1, "steal": 3, "redirect": 4, "status": 5}


@dataclass
class Attempt:
    killer: str
    victim: str
    act: Act
    saved_by: str = ""


@dataclass
class NightRun:
    """Everything a night's resolution works on; passives read and write it."""

    state: MafiaState
    acts: list[Act]
    memory: dict[str, dict[str, Any]]
    status: dict[str, str] = field(default_factory=dict)       # tonight's statuses (the politician flips)
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    deaths: list[str] = field(default_factory=list)
    immune: set[str] = field(default_factory=set)
    proteges: dict[str, str] = field(default_factory=dict)    # protected from hanging → who protected
    host: list[dict[str, Any]] = field(default_factory=list)   # what the host should know

    def role(self, name: str) -> RoleDef | None:
        return role_of(self.state, name)

    def tell(self, name: str, code: str, **params: Any) -> None:
        self.results.setdefault(name, []).append({"code": code, "params": params})

    def acts_of(self, name: str) -> list[Act]:
        return [a for a in self.acts if a.actor == name]

    def mem(self, name: str) -> dict[str, Any]:
        return self.memory.setdefault(name, {})

    def role_name(self, name: str) -> str:
        role = self.role(name)
        return role.name(self.state.lang) if role else "?"

    def has(self, role_id: str) -> list[str]:
        return [n for n in self.state.alive if self.state.roles.get(n) == role_id]

    def visitors(self, name: str) -> int:
        """Players whose action arrived at `name` tonight (a player's own self-target does not count)."""
        return len({a.actor for a in self.acts if not a.cancelled and a.final == name and a.actor != name})

    def attempt(self, killer: str, victim: str, act: Act) -> None:
        """A kill attempted tonight (a passive's, after the power actions')."""
        self.attempts.append(Attempt(killer, victim, act))


def _kind(state: MafiaState, actor: str, action: str, source: str) -> str:
    role = role_of(state, actor)
    if source == "own" and role is not None:
        return role.action_kind
    return DEFAULT_KIND.get(action, "info")


def build_acts(state: MafiaState, memory: dict[str, dict[str, Any]]) -> list[Act]:
    """Tonight's orders as acts: the maniac's bypass for tonight, the thief's block at its own level."""
    acts: list[Act] = []
    for key, order in state.orders.items():
        actor = order["actor"] if key == KILL_KEY else key
        if actor not in state.alive or order["target"] not in state.alive:
            continue
        action, source = order["action"], order["source"]
        level = LEVELS.get(action, 0)
        if source == "stolen" and action == "block":
            level = 2
        act = Act(actor, action, order["target"], order.get("to"), source,
                  _kind(state, actor, action, source), level)
        role = role_of(state, actor)
        if action == "kill" and source == "own" and role is not None and role.bypass:
            act.bypass = role.bypass[memory.get(actor, {}).get("bypass_next", 0) % len(role.bypass)]
        acts.append(act)
    return acts


def resolve(state: MafiaState) -> NightRun:
    memory = copy.deepcopy(state.memory)
    run = NightRun(state, build_acts(state, memory), memory)
    run.status = {n: (r.status if (r := run.role(n)) else "positive") for n in state.players}
    unblockable = {n for n in state.alive if (r := run.role(n)) is not None and r.unblockable}
    resolve_power(run.acts, unblockable)
    _power_effects(run)
    _passives(run, "power")
    for act in run.acts:
        if act.action in INFO and not act.cancelled:
            _info(run, act)
    _passives(run, "info")
    _kills(run)
    _outcomes(run)
    _passives(run, "end")
    _remember(run)
    return run


def _passives(run: NightRun, stage: str) -> None:
    for name in run.state.alive:
        role = run.role(name)
        for passive in role.passives if role else ():
            when, function = PASSIVES[passive]
            if when == stage:
                function(run, name)


def _power_effects(run: NightRun) -> None:
    for act in run.acts:
        if act.redirected:
            run.tell(act.actor, "redirected")
        if act.cancelled:
            continue
        if act.action == "status":
            run.status[act.final] = "negative" if run.status.get(act.final) == "positive" else "positive"
            run.immune.add(act.final)
            run.proteges[act.final] = act.actor
        elif act.action == "steal":
            victim = [a for a in run.acts_of(act.final) if a is not act]
            own = [a for a in victim if a.source != "kill"]
            tonight = (own or victim)[0].action if victim else None
            role = run.role(act.final)
            stolen = tonight if tonight and run.state.options.stolen_action == "tonight" else \
                (role.action if role else None)
            mem = run.mem(act.actor)
            mem["robbed"] = sorted({*mem.get("robbed", []), act.final})
            mem["stolen"] = {"action": stolen, "night": run.state.number, "from": act.final} if stolen else None
    for act in run.acts:
        if act.cancelled or act.action not in ("steal",):
            continue
        run.tell(act.actor, "status", target=act.final, status=run.status.get(act.final, "positive"))


def _info(run: NightRun, act: Act) -> None:
    target = act.final
    if act.action == "check":
        status = run.status.get(target, "positive")
        if run.state.options.check_result == "team":   # the classic detective: "mafia" / "not mafia"
            run.tell(act.actor, "check_team", target=target, status="mafia" if status == "negative" else "not_mafia")
        else:
            run.tell(act.actor, "status", target=target, status=status)
    elif act.action == "weapon":
        role = run.role(target)
        run.tell(act.actor, "weapon", target=target, weapon=role.weapon if role else "none")
    elif act.action == "trace":
        went = [a for a in run.acts_of(target) if not a.cancelled]
        if not went:
            run.tell(act.actor, "went_nowhere", target=target)
        for a in went:
            run.tell(act.actor, "went", target=target, to=a.final, kind=a.kind)


def _kills(run: NightRun) -> None:
    ordered = sorted((a for a in run.acts if a.action == "kill" and not a.cancelled),
                     key=lambda a: 0 if a.source == "own" else 1)             # а) the maniac, б) the mafia
    # в) the policeman's kill of the thief was registered with the power actions (its kind shows then)
    run.attempts = [*(Attempt(a.actor, a.final, a) for a in ordered), *run.attempts]
    for source in ("own", "stolen"):                                           # в) / г) protection
        for act in run.acts:
            if act.action == "protect" and act.source == source and not act.cancelled:
                for attempt in run.attempts:
                    if attempt.victim == act.final and not attempt.saved_by and attempt.killer != act.actor \
                            and not _bypassed(run, attempt, "protect"):
                        attempt.victim = act.actor        # "считается направленным на Полицейского"
                        break
    for act in run.acts:                                                        # д) healing
        if act.action == "heal" and not act.cancelled:
            for attempt in run.attempts:
                if attempt.victim == act.final and not attempt.saved_by and not _bypassed(run, attempt, "heal"):
                    attempt.saved_by = "heal"
    for attempt in run.attempts:                                                # е) personal protection
        if attempt.saved_by or _bypassed(run, attempt, "shield"):
            continue
        if spend_shield(run, attempt.victim, "kill"):
            attempt.saved_by = "shield"
    for attempt in run.attempts:
        if not attempt.saved_by and attempt.victim not in run.deaths:
            run.deaths.append(attempt.victim)
    for attempt in run.attempts:
        if attempt.act.action == "kill":
            run.tell(attempt.killer, "kill_done" if attempt.victim in run.deaths and not attempt.saved_by
                     else "kill_failed", target=attempt.act.final)


def _bypassed(run: NightRun, attempt: Attempt, what: str) -> bool:
    """Whether the maniac's kill tonight ignores this kind of protection (protect, heal, shield)."""
    return attempt.act.bypass == "protect" and what in run.state.options.maniac_protect_bypass


def spend_shield(run: NightRun, name: str, against: str) -> bool:
    """Use one of `name`'s one-time protections against a kill or a hanging; False when none is left."""
    role = run.role(name)
    return use_shield(run.mem(name), role, against) if role else False


def use_shield(mem: dict[str, Any], role: RoleDef, against: str) -> bool:
    if role.shared_shields:
        key, total = "shields_used", max(role.kill_shields, role.hang_shields)
    else:
        key, total = f"{against}_shields_used", role.kill_shields if against == "kill" else role.hang_shields
    if mem.get(key, 0) >= total:
        return False
    mem[key] = mem.get(key, 0) + 1
    return True


OUTCOMES = {"block": "block_done", "redirect": "redirect_done", "status": "status_done",
            "protect": "protect_done", "heal": "heal_done", "steal": "steal_done"}


def _outcomes(run: NightRun) -> None:
    """Each sender's private word on their action (kills and information are told where they happen)."""
    for act in run.acts:
        if act.cancelled:
            run.tell(act.actor, "failed", action=act.action)
        elif act.ignored:
            run.tell(act.actor, "no_effect", action=act.action, target=act.final)
        elif act.action in OUTCOMES and not (act.action == "protect" and act.kind == "minus"):
            run.tell(act.actor, OUTCOMES[act.action], target=act.final, to=act.to)


def _remember(run: NightRun) -> None:
    """What the roles carry to the next night: streaks, the taxi's names, the maniac's rotation."""
    state, number = run.state, run.state.number
    for name in state.alive:
        mem = run.mem(name)
        own = [a for a in run.acts_of(name) if a.source != "kill"]
        act = own[0] if own else None
        if act is None:
            mem.pop("last", None)
            mem["streak"] = 0
        else:
            mem["streak"] = mem.get("streak", 0) + 1 if mem.get("last") == act.final else 1
            mem["last"] = act.final
        mem["names"] = [act.target, *([act.to] if act.to else [])] if act else []
        mem["acted"] = number if run.acts_of(name) else mem.get("acted")
        role = run.role(name)
        if role is not None and role.action == "kill" and role.bypass:
            if any(a.action == "kill" for a in run.acts_of(name)):
                mem["bypass_next"] = mem.get("bypass_next", 0) + 1
            elif mem.get("skips_used", 0) < role.skips:
                mem["skips_used"] = mem.get("skips_used", 0) + 1
            else:
                run.host.append({"code": "missed_kill", "params": {"name": name}})
    if state.orders.get(KILL_KEY) is None and any((r := run.role(n)) and r.team == "mafia" for n in state.alive):
        run.host.append({"code": "mafia_no_kill", "params": {}})
    run.mem(GAME_KEY)["proteges"] = dict(run.proteges)


def record(run: NightRun) -> dict[str, Any]:
    """The night as the host and the replay JSON see it."""
    acts = []
    for act in run.acts:
        died = any(at.act is act and at.victim in run.deaths and not at.saved_by for at in run.attempts)
        succeeded = not act.cancelled and not act.ignored and (act.action != "kill" or died)
        acts.append({"actor": act.actor, "action": act.action, "source": act.source, "target": act.target,
                     "to": act.to, "final_target": act.final, "succeeded": succeeded,
                     **({"collision": True} if act.collision else {}),
                     **({"bypass": act.bypass} if act.bypass else {})})
    return {"night": run.state.number, "actions": acts, "deaths": list(run.deaths)}
