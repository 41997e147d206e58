"""Roles as data: what a ruleset's [options.roles.<id>] tables say about each role.

A role is its team, its status (what a status check sees), its weapon, its night action and that action's
kind ((+), (-), (И)), the limits on targets, its one-time protections (charges) and the names of the
passive functions (forumbot/games/mafia/passives.py) that do what data cannot say.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.mafia.passives import PASSIVES

TEAMS = ("mafia", "maniac", "town")
STATUSES = ("positive", "negative")
# Night actions the engine knows. Power actions are resolved first (simultaneously), then information,
# then kills, protection and healing. `steal` and `status` do not touch other actions.
ACTIONS = ("block", "steal", "redirect", "status", "trace", "check", "weapon", "kill", "protect", "heal")
POWER = ("block", "steal", "redirect", "status")
INFO = ("trace", "check", "weapon")
# The kind of an action as the detective sees it; "+" helps, "-" harms, "info" only looks.
KINDS = {"+": "plus", "-": "minus", "и": "info", "i": "info", "plus": "plus", "minus": "minus", "info": "info"}
DEFAULT_KIND = {"block": "minus", "steal": "minus", "redirect": "plus", "status": "plus", "trace": "info",
                "check": "info", "weapon": "info", "kill": "minus", "protect": "plus", "heal": "plus"}
# Words a player may use for an action (the grammar's `action` field) → the actions they may mean.
VERBS = {
    "block": ("block",), "check": ("check", "trace", "weapon"), "trace": ("trace",), "weapon": ("weapon",),
    "heal": ("heal",), "kill": ("kill",), "protect": ("protect",), "redirect": ("redirect",),
    "steal": ("steal",), "status": ("status",), "own": ACTIONS,
}


@dataclass(frozen=True)
class RoleDef:
    id: str
    team: str = "town"
    status: str = "positive"
    weapon: str = "none"
    action: str = ""                  # one of ACTIONS, or "" for no night action of its own
    kind: str = ""                    # plus, minus, info ("" = the action's usual kind)
    name_ru: str = ""
    name_en: str = ""
    max_streak: int = 0               # the same target at most N nights in a row (0: no limit)
    no_self: bool = False             # may not target themselves (the taxi: may not move themselves)
    name_cooldown: bool = False       # may not use last night's names again (the taxi)
    no_revisit: bool = False          # may not visit a player again until all others were visited (thief)
    unblockable: bool = False         # a block on them fails
    kill_shields: int = 0             # one-time protections from a kill
    hang_shields: int = 0             # one-time protections from hanging
    shared_shields: bool = False      # one charge protects from a kill or a hanging (the maniac)
    hang_shield_needs_action: bool = False   # the hanging protection works only after a night action
    bypass: tuple[str, ...] = ()      # the kill ignores, in rotation: block, protect, redirect (the maniac)
    skips: int = 0                    # nights the role may leave its obligatory kill
    passives: tuple[str, ...] = ()    # named functions in passives.py

    def name(self, lang: str) -> str:
        return (self.name_ru if lang == "ru" else self.name_en) or self.name_en or self.id

    @property
    def action_kind(self) -> str:
        return self.kind or DEFAULT_KIND.get(self.action, "info")


def role_from_dict(role_id: str, data: dict[str, Any], source: str = "roles") -> RoleDef:
    """A role from its ruleset table. Raises ConfigError for an unknown key or value."""
    known = {f.name: f for f in fields(RoleDef)}
    values: dict[str, Any] = {"id": role_id}
    for key, value in data.items():
        if key not in known or key == "id":
            raise ConfigError(f"unknown key '{key}' in role '{role_id}'", path=source,
                              fix="role keys: " + ", ".join(k for k in known if k != "id"))
        default = getattr(RoleDef, key)
        if isinstance(default, tuple):
            if isinstance(value, str):
                value = (value,)
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"role '{role_id}': {key} must be a list of names", path=source)
            value = tuple(value)
        elif isinstance(default, bool) != isinstance(value, bool) or not isinstance(value, type(default)):
            raise ConfigError(f"role '{role_id}': {key} = {value!r} has the wrong type", path=source)
        values[key] = value
    if "kind" in values and values["kind"]:
        kind = KINDS.get(str(values["kind"]).lower())
        if kind is None:
            raise ConfigError(f"role '{role_id}': kind '{values['kind']}' is not +, - or И", path=source)
        values["kind"] = kind
    role = RoleDef(**values)
    if role.team not in TEAMS:
        raise ConfigError(f"role '{role_id}': team '{role.team}' is not one of {', '.join(TEAMS)}", path=source)
    if role.status not in STATUSES:
        raise ConfigError(f"role '{role_id}': status must be positive or negative", path=source)
    if role.action and role.action not in ACTIONS:
        raise ConfigError(f"role '{role_id}': action '{role.action}' is unknown", path=source,
                          fix="actions: " + ", ".join(ACTIONS))
    bad = [b for b in role.bypass if b not in ("block", "protect", "redirect")]
    if bad:
        raise ConfigError(f"role '{role_id}': bypass '{bad[0]}' is not block, protect or redirect", path=source)
    unknown = [p for p in role.passives if p not in PASSIVES]
    if unknown:
        raise ConfigError(f"role '{role_id}': passive '{unknown[0]}' is unknown", path=source,
                          fix="passives: " + ", ".join(sorted(PASSIVES)))
    return role


def roles_from(value: Any, source: str = "roles") -> tuple[RoleDef, ...]:
    """Roles from a ruleset's table {id: {...}} or from stored JSON (a list of tables with `id`)."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = []
        for entry in value:
            if isinstance(entry, RoleDef):
                items.append((entry.id, {f.name: getattr(entry, f.name) for f in fields(RoleDef) if f.name != "id"}))
            elif isinstance(entry, dict) and isinstance(entry.get("id"), str):
                items.append((entry["id"], {k: v for k, v in entry.items() if k != "id"}))
            else:
                raise ConfigError("each role needs an id", path=source)
    else:
        raise ConfigError("roles must be a table of [roles.<id>] tables", path=source)
    out = []
    for role_id, data in items:
        if not isinstance(data, dict):
            raise ConfigError(f"role '{role_id}' must be a table", path=source)
        out.append(role_from_dict(str(role_id), data, source))
    return tuple(out)


def find_role(roles: tuple[RoleDef, ...], text: str) -> RoleDef | None:
    """The role a roster names: by id or by its Russian or English name (case and ё/е folded)."""
    def fold(s: str) -> str:
        return s.strip().lower().replace("ё", "е")
    wanted = fold(text)
    for role in roles:
        if wanted in (fold(role.id), fold(role.name_ru), fold(role.name_en)):
            return role
    return None
