"""The host's charts for Nisemonogatari (seed 000 names them but does not include them): the confession
multipliers by the number of confessing Characters, and per location its two events with their effects.
A chart is data (a TOML file, or the ruleset's clearly marked [example_chart]); `load_chart` checks it and
every error names the file, the line and the fix. The checked chart is kept in the game's state as JSON."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from forumbot.config.paths import data_dir
from forumbot.config.tomlfile import TomlFile, load_toml, unknown_key_fix
from forumbot.errors import ConfigError
from forumbot.text.decline import counted

LOCATIONS = ("schoolyard", "cafeteria", "classroom", "rooftop")
EVENTS_PER_LOCATION = 2
# The effect vocabulary (README "Nisemonogatari" says what each does and in which order they resolve).
EFFECTS = ("adoration_add", "adoration_multiply", "initiative_next", "move", "block", "reveal", "rob_lesson",
           "call")
WHO = ("self", "others_here", "all_here", "target")
TARGETS = ("none", "here", "anywhere")
EXAMPLE = "example"
_EVENT_KEYS = ("location", "name", "text", "target", "effects")
_EFFECT_KEYS = ("do", "to", "amount", "location", "function", "min_here", "max_here")
_TIER_KEYS = ("characters", "multiplier")
_NEEDS_AMOUNT = ("adoration_add", "adoration_multiply", "initiative_next")
MAX_AMOUNT = 1000      # TOML reads nan, inf and 1e308: a chart's numbers are finite and at most this big


def _number(value: Any) -> bool:
    """A chart number: int or float, not bool, finite and within ±MAX_AMOUNT."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and abs(value) <= MAX_AMOUNT)


def load_chart(ref: str, functions: tuple[str, ...]) -> dict[str, Any]:
    """The chart named by the game's `chart` option: "example" (the ruleset's [example_chart]) or the path
    of the host's TOML file. `functions` are the names a "call" effect may use. Raises ConfigError."""
    if not ref:
        raise ConfigError("Nisemonogatari cannot start without the host's chart of locations, events and "
                          "confession multipliers", path="options",
                          fix='add chart = "path/to/chart.toml" to [game.options] (see the example_chart in '
                              'config/rulesets/nisemonogatari.toml), or chart = "example" to play the example')
    if ref == EXAMPLE:
        doc = load_toml(data_dir("config") / "rulesets" / "nisemonogatari.toml")
        table = doc.data.get("example_chart")
        if table is None:
            raise doc.error("the ruleset has no [example_chart]", fix="restore [example_chart] or name a chart file")
        return check_chart(doc, table, functions, "example_chart.")
    path = Path(ref)
    if not path.is_file():
        raise ConfigError(f"no chart file '{ref}'", path="options", fix="write the chart's path (absolute, or "
                          "relative to the folder the bot runs in), or chart = \"example\"")
    doc = load_toml(path)
    return check_chart(doc, doc.data, functions, "")


def check_chart(doc: TomlFile, data: Any, functions: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    """The chart as plain data: {"example": bool, "tiers": [...], "events": [...]} with names folded."""
    known = ("example", "tiers", "events")
    table = doc.table(data, known, prefix.rstrip(".") or "chart")
    tiers = _tiers(doc, table.get("tiers"), prefix)
    raw_events = table.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise doc.error("the chart has no events", f"{prefix}events" if prefix else "events",
                        fix="add [[events]] entries: two per location (" + ", ".join(LOCATIONS) + ")")
    events = [_event(doc, entry, functions, prefix) for entry in raw_events]
    seen: dict[str, str] = {}
    for event in events:
        key = event["key"]
        if key in seen:
            raise doc.error(f"two events are named '{event['name']}'", event["name"],
                            fix="give every event a different name: orders name events")
        seen[key] = event["location"]
    for place in LOCATIONS:
        count = sum(1 for e in events if e["location"] == place)
        if count != EVENTS_PER_LOCATION:
            raise doc.error(f"the {place.title()} has {counted(count, 'event/events')}; the rules give each location "
                            f"{EVENTS_PER_LOCATION}", f'"{place}"',
                            fix=f"list exactly two [[events]] with location = \"{place}\"")
    return {"example": bool(table.get("example", False)), "tiers": tiers, "events": events}


def _tiers(doc: TomlFile, raw: Any, prefix: str) -> list[dict[str, Any]]:
    where = f"{prefix}tiers"
    if not isinstance(raw, list) or not raw:
        raise doc.error("the chart has no confession multipliers", "tiers",
                        fix='add [[tiers]] entries: characters = 1, multiplier = 1.5 (from that many confessing '
                            'Characters on)')
    tiers = []
    for entry in raw:
        doc.table(entry, _TIER_KEYS, where)
        count, mult = entry.get("characters"), entry.get("multiplier")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise doc.error(f"a tier's characters = {count!r} is not a whole number of at least 1", "characters",
                            fix="characters = the fewest confessing Characters this tier applies to")
        if not _number(mult) or mult <= 0:
            raise doc.error(f"the tier from {count} Characters has multiplier = {mult!r}", "multiplier",
                            fix=f"write a positive number up to {MAX_AMOUNT}, like 0.75")
        tiers.append({"characters": count, "multiplier": float(mult)})
    counts = [t["characters"] for t in tiers]
    if counts[0] != 1 or counts != sorted(set(counts)):
        raise doc.error("the tiers must start at characters = 1 and grow", "characters",
                        fix="list the tiers from 1 confessing Character up, each from more Characters than the last")
    return tiers


def _event(doc: TomlFile, entry: Any, functions: tuple[str, ...], prefix: str) -> dict[str, Any]:
    doc.table(entry, _EVENT_KEYS, f"{prefix}events")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise doc.error("an event has no name", "location", fix='add name = "..." to every [[events]]')
    if not fold(name):
        raise doc.error(f"event '{name}' has no letter or digit in its name", "name",
                        fix="orders name events by their words: give it a name with some")
    if any(mark in name for mark in ",;:"):
        raise doc.error(f"event '{name}': orders are split at , ; and :", name, fix="write the name without them")
    place = str(entry.get("location", "")).strip().lower()
    if place not in LOCATIONS:
        raise doc.error(f"event '{name}' is at location '{entry.get('location')}'", name,
                        fix="location is one of: " + ", ".join(LOCATIONS))
    target = entry.get("target", "none")
    if target not in TARGETS:
        raise doc.error(f"event '{name}' has target = {target!r}", name, fix="target is one of: " + ", ".join(TARGETS))
    raw_effects = entry.get("effects", [])
    if not isinstance(raw_effects, list):
        raise doc.error(f"event '{name}': effects must be a list of tables", name, fix="write [[events.effects]]")
    effects = [_effect(doc, e, name, target, functions, prefix) for e in raw_effects]
    return {"name": name.strip(), "key": fold(name), "location": place, "text": str(entry.get("text", "")),
            "target": target, "effects": effects}


def _effect(doc: TomlFile, entry: Any, event: str, target: str, functions: tuple[str, ...],
            prefix: str) -> dict[str, Any]:
    doc.table(entry, _EFFECT_KEYS, f"{prefix}events.effects")
    do = entry.get("do")
    if do not in EFFECTS:
        raise doc.error(f"event '{event}' has an effect do = {do!r}", f'"{do}"' if do else event,
                        fix=unknown_key_fix(str(do), EFFECTS))
    to = entry.get("to", "target" if do in ("move", "block") else "self")
    if to not in WHO:
        raise doc.error(f"event '{event}': to = {to!r}", f'"{to}"', fix="to is one of: " + ", ".join(WHO))
    if to == "target" and target == "none":
        raise doc.error(f"event '{event}' has an effect on its target but no target", event,
                        fix='add target = "here" (a Character at the same location) or "anywhere" to the event')
    out: dict[str, Any] = {"do": do, "to": to}
    if do in _NEEDS_AMOUNT:
        amount = entry.get("amount")
        if not _number(amount):
            raise doc.error(f"event '{event}': {do} needs amount = a number, not {amount!r}", f'"{do}"',
                            fix=f"write a number from -{MAX_AMOUNT} to {MAX_AMOUNT}, like amount = 1")
        if do == "initiative_next" and not float(amount).is_integer():
            raise doc.error(f"event '{event}': Initiative is whole, not {amount}", f'"{do}"',
                            fix="write a whole number")
        if do == "adoration_multiply" and amount < 0:
            raise doc.error(f"event '{event}': a multiplier cannot be negative", f'"{do}"', fix="write 0 or more")
        out["amount"] = int(amount) if do == "initiative_next" else float(amount)
    if do == "move":
        where = str(entry.get("location", "")).lower()
        if where not in LOCATIONS:
            raise doc.error(f"event '{event}': move needs location = where the Character goes", '"move"',
                            fix="location is one of: " + ", ".join(LOCATIONS))
        out["location"] = where
    if do in ("move", "block") and to in ("self", "all_here"):
        raise doc.error(f"event '{event}': {do} is for other Characters", f'"{do}"',
                        fix='write to = "target" or "others_here"')
    if do == "call":
        function = entry.get("function")
        if function not in functions:
            raise doc.error(f"event '{event}' calls an unknown function {function!r}", '"call"',
                            fix="functions: " + ", ".join(functions))
        out["function"] = function
    for key in ("min_here", "max_here"):
        if key in entry:
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_AMOUNT:
                raise doc.error(f"event '{event}': {key} = {value!r}", key, fix="write a whole number (Characters "
                                "at the location, the one triggering the event included)")
            out[key] = value
    return out


def fold(text: str) -> str:
    """An event's name as orders may spell it: case-folded, "the" and punctuation ignored."""
    words = "".join(c if c.isalnum() else " " for c in text.lower().replace("ё", "е")).split()
    return " ".join(w for w in words if w != "the")


def multiplier(tiers: list[dict[str, Any]], confessing: int) -> float:
    """The multiplier for this many confessing Characters: the tier with the most characters ≤ the count."""
    return [t["multiplier"] for t in tiers if t["characters"] <= max(confessing, 1)][-1]


def boosted(tiers: list[dict[str, Any]], base: float, cap: float) -> float:
    """One tier up: the next higher multiplier of the chart, never above `cap` (a multiplier already at or
    above the cap stays as it is)."""
    higher = sorted(t["multiplier"] for t in tiers if t["multiplier"] > base)
    if not higher or base >= cap:
        return base
    return min(higher[0], cap)
