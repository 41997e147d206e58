"""The warnings and penalties ledger (Body Snatchers section 8).

8.1: a warning is private; the first costs the player's forum `warning_points[0]` (1), the second
`warning_points[1]` (6) and the player stays, the third `warning_points[2]` (12) and the player is excluded
without replacement (a modkill). Every violation also costs its points from the 8.2 table (`penalties`),
added to the warning's. 8.2.7 (no night action) is counted by the bot at the night's end, with no warning
and no PM (`silent_rules`). 8.2.9 (a direct mask reveal) excludes at once (`exclude_rules`). "За любое
нарушение ... МОЖЕТ последовать предупреждение": the host may also charge a violation without a warning
(`penalty PLAYER rule 8.2.5`): its points go to the forum, the player is told, no warning is counted and
nobody is excluded by it. An exclusion
costs the forum at least `modkill_points` (12): "при исключении игрока с модкиллом без предупреждений с
форума в любом случае снимается 12 баллов", so a host's modkill without warnings is 12 points too.

Each entry: {"player", "forum", "rule", "points" (the violation's), "warning" (its number, 0 for none),
"warning_points", "excluded", "text", "at", "auto"}.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from forumbot.games.mafia.actions import refuser
from forumbot.games.mafia.state import MafiaState
from forumbot.model import Event, Intent, format_time

REFUSALS = {
    "host_only": "only the host can warn",
    "warn_whom": "write: warn PLAYER rule 8.2.N [text] (or penalty PLAYER rule 8.2.N [text]: without a warning)",
    "warn_rule": "'{rule}' is not a rule of the penalty table ({rules})",
    "warn_dead": "{target} is no longer in the game",
}


refuse = refuser(REFUSALS)


def _rule(text: str) -> str:
    return str(text).strip().rstrip(".,:;").removeprefix("п.").strip()


def warnings_of(state: MafiaState, player: str) -> int:
    return sum(1 for e in state.ledger if e["player"] == player and e["warning"])


def points(entry: dict[str, Any]) -> int:
    return int(entry["points"]) + int(entry["warning_points"])


def entry(state: MafiaState, player: str, rule: str, at: datetime | None, *, text: str = "",
          auto: bool = False, with_warning: bool = True) -> dict[str, Any]:
    """The ledger entry of one violation by `player` (not yet added); `with_warning` False: charged without
    a warning (no warning points, no exclusion)."""
    options = state.options
    table = dict(options.penalties)
    silent = rule in options.silent_rules
    warning = 0 if silent or not with_warning else warnings_of(state, player) + 1
    scale = options.warning_points
    warning_points = int(scale[min(warning, len(scale)) - 1]) if warning and scale else 0
    excluded = bool(warning) and (warning >= options.exclude_after or rule in options.exclude_rules)
    if excluded:   # an exclusion costs at least modkill_points, whichever warning it comes with
        warning_points = max(warning_points, options.modkill_points)
    return {"player": player, "forum": state.forums.get(player, ""), "rule": rule,
            "points": int(table.get(rule, 0)), "warning": warning, "warning_points": warning_points,
            "excluded": excluded, "text": text, "at": format_time(at) if at else "", "auto": auto}


def penalty(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host's `penalty PLAYER rule 8.2.N [text]`: the violation's points without a warning."""
    return warn(state, intent, with_warning=False)


def warn(state: MafiaState, intent: Intent, *, with_warning: bool = True) -> tuple[MafiaState, list[Event]]:
    """The host's `warn PLAYER rule 8.2.N [text]`: the entry, the player's private notice, the host's
    confirmation, and the exclusion when it is the last warning."""
    if not state.host or intent.author != state.host:
        return state, [refuse(intent, "host_only")]
    target = intent.data.get("target")
    rule = _rule(intent.data.get("rule", ""))
    if not isinstance(target, str) or not rule:
        return state, [refuse(intent, "warn_whom")]
    table = dict(state.options.penalties)
    if rule not in table:
        return state, [refuse(intent, "warn_rule", rule=rule, rules=", ".join(sorted(table, key=_rule_key)))]
    if target not in state.players or any(d.name == target and d.cause == "modkill" for d in state.dead):
        return state, [refuse(intent, "warn_dead", target=target)]
    new = entry(state, target, rule, intent.at, text=str(intent.data.get("text", "")).strip(),
                with_warning=with_warning)
    return record(state, new, intent)


def record(state: MafiaState, new: dict[str, Any], intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A ledger entry added: the player's private notice (unless the rule is silent), the host's copy, and
    the exclusion when it is the last warning."""
    from forumbot.games.mafia.schedule import modkill  # schedule imports the actions this module sits beside

    target = new["player"]
    state = state.with_(ledger=(*state.ledger, new))
    events: list[Event] = []
    if new["rule"] not in state.options.silent_rules:
        events.append(Event("warning_pm", {**_view(new), "pm_to": target, "subject": "warning"}))
    events.append(Event("warning_pm", {**_view(new), "pm_to": state.host, "subject": "warning", "for_host": True,
                                       "forum_total": forum_totals(state).get(new["forum"], 0)}))
    if new["excluded"] and target in state.alive and state.phase not in ("over", "best_player"):
        state, more = modkill(state, Intent("modkill", {"target": target, "ledger": True}, author=intent.author,
                                            at=intent.at))
        events += more
    return state, events


def _view(e: dict[str, Any]) -> dict[str, Any]:
    return {**e, "total": points(e)}


def _rule_key(rule: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isascii() and p.isdigit() and len(p) < 10 else 0 for p in rule.split("."))


def missed_actions(state: MafiaState, missing: list[str], at: datetime) -> MafiaState:
    """8.2.7: every player who owed a night action and sent none gets its points, with no warning."""
    rule = next(iter(state.options.silent_rules), "8.2.7")
    added = tuple(entry(state, p, rule, at, auto=True) for p in missing)
    return state.with_(ledger=state.ledger + added) if added else state


def modkill_entry(state: MafiaState, player: str, at: datetime | None) -> MafiaState:
    """A host's modkill of a player the ledger has not excluded: the exclusion's `modkill_points`."""
    if any(e["player"] == player and e["excluded"] for e in state.ledger) or not state.options.modkill_points:
        return state
    new = {"player": player, "forum": state.forums.get(player, ""), "rule": "modkill", "points": 0,
           "warning": 0, "warning_points": state.options.modkill_points, "excluded": True, "text": "",
           "at": format_time(at) if at else "", "auto": False}
    return state.with_(ledger=(*state.ledger, new))


def player_totals(state: MafiaState) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in state.ledger:
        out[e["player"]] = out.get(e["player"], 0) + points(e)
    return out


def forum_totals(state: MafiaState) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in state.ledger:
        out[e["forum"]] = out.get(e["forum"], 0) + points(e)
    return out


def summary(state: MafiaState) -> dict[str, Any]:
    """The replay JSON's `ledger`."""
    return {"entries": [_view(e) for e in state.ledger], "players": player_totals(state),
            "forums": forum_totals(state),
            "warnings": {p: n for p in state.players if (n := warnings_of(state, p))}}
