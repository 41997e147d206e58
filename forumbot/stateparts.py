"""A game's state stored in parts, so a step writes what it changed and not the whole state.

The state is a JSON object. Each of its fields is one part, except the lists a game splits (a list that
grows with the roster or the day, such as Mafia's vote entries): those are stored as an empty list plus
one part per item, and a step writes only the items it changed. A part is a row (field, key, JSON text):
key "" is the field's own value, a list's item has its index as key (zero-padded, so the keys sort in the
list's order).

A game that can say what a step changed offers `state_change(old, new) -> StateChange`
(games/base.py); the store applies the change (store.py) and reads the parts back as JSON data for the
game's `from_json` (`assemble`). A game without it is stored as whole JSON text, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

BASE = ""   # the key of a field's own value


def item_key(index: int) -> str:
    """The key of a list's item `index` (sorting the keys sorts the items)."""
    return f"{index:08d}"


@dataclass
class StateChange:
    """What a step changed in a stored state. With `whole`, `put` is every part of the state and replaces
    whatever was stored; otherwise it is applied on top of the stored parts of the state the step read."""
    whole: bool
    put: list[tuple[str, str, str]] = field(default_factory=list)    # (field, key, JSON text)
    cut: list[tuple[str, int]] = field(default_factory=list)         # (list field, length): items from it on go


class PartsError(ValueError):
    """Stored parts that do not make a state (a list with a gap, an item without its list)."""


def assemble(rows: Iterable[tuple[str, str, str]]) -> dict[str, object]:
    """The state's JSON data from its parts, given sorted by (field, key). Raises PartsError."""
    data: dict[str, object] = {}
    for name, key, text in rows:
        value = json.loads(text)
        if key == BASE:
            data[name] = value
            continue
        items = data.get(name)
        if not isinstance(items, list):
            raise PartsError(f"item {key} of {name}, which is not a list")
        if key != item_key(len(items)):
            raise PartsError(f"item {key} of {name} follows item {len(items) - 1}")
        items.append(value)
    return data


def whole_parts(fields: Iterable[tuple[str, str]], lists: dict[str, Iterable[str]]) -> StateChange:
    """Every part of a state: `fields` (name, JSON text) kept whole, and `lists` (name → its items' JSON
    texts) stored item by item."""
    put = [(name, BASE, text) for name, text in fields]
    for name, items in lists.items():
        put.append((name, BASE, "[]"))
        put += [(name, item_key(index), text) for index, text in enumerate(items)]
    return StateChange(whole=True, put=put)
