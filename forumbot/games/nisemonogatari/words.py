"""Reading Nisemonogatari's orders: which Character a reference means ("CharA", "Ana's CharB", a new
name), and the parts of an order line ("Rooftop, Lunch Alone, 3 initiative, confess, target Bo's CharA"),
in English and Russian."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from forumbot.games.nisemonogatari.chart import LOCATIONS, fold

SLOTS = ("A", "B", "C")
_OWN = re.compile(r"^(?:char|персонаж)\s*([abcавс])$", re.IGNORECASE)
_OTHERS = re.compile(r"^(.+?)\s*(?:['’]s|['’])\s+(.+)$")
_RU_LETTER = {"а": "A", "в": "B", "с": "C"}
_OWNED_RU = re.compile(r"^((?:char|персонаж)\s*[abcавс])\s+игрока\s+(.+)$", re.IGNORECASE)   # as Russian posts say it
LOCATION_WORDS = {"schoolyard": "schoolyard", "school yard": "schoolyard", "yard": "schoolyard",
                  "cafeteria": "cafeteria", "canteen": "cafeteria", "classroom": "classroom", "class": "classroom",
                  "rooftop": "rooftop", "roof": "rooftop",
                  "школьный двор": "schoolyard", "двор": "schoolyard", "столовая": "cafeteria",
                  "столовую": "cafeteria", "столовой": "cafeteria", "класс": "classroom", "классе": "classroom",
                  "крыша": "rooftop", "крышу": "rooftop", "крыше": "rooftop"}
_INITIATIVE = re.compile(r"^(?:(\d+)\s*(?:initiative|init|инициатив\w*)?|(?:initiative|инициатива)\s*:?\s*(\d+))$")
_CONFESS = re.compile(r"^(?:and\s+|и\s+)?(confess(?:es|ion)?|призна\w*)$")
_NO_CONFESS = re.compile(r"^(?:no confession|don'?t confess|do not confess|no confess|не признава\w*|без признания)$")
_TARGET = re.compile(r"^(?:target|on|цель|на)\s*:?\s+(.+)$", re.IGNORECASE)
IDLE_WORDS = ("idle", "stay home", "nowhere", "никуда", "отдых", "дома")


def char_id(player: str, slot: str) -> str:
    return f"{player}:{slot}"


def default_name(char: str) -> str:
    return "Char" + char.rsplit(":", 1)[1]


def resolve_char(text: str, author: str, players: Sequence[str], names: Mapping[str, str]) -> str | None:
    """The Character a reference means: "CharA" (the author's own), "[Player]'s CharA" («CharA игрока
    [Player]»), or a Character's current name (case-insensitive). None when it means none."""
    ref = " ".join(text.strip().strip(".!").split())
    if not ref:
        return None
    own = _OWN.match(ref)
    if own:
        letter = own.group(1).upper()
        return char_id(author, _RU_LETTER.get(letter.lower(), letter))
    other = _OTHERS.match(ref)
    russian = _OWNED_RU.match(ref)
    if russian:   # "CharA игрока Анна": "Анна's CharA"
        other = re.match(r"^(.+)'s (.+)$", f"{russian.group(2)}'s {russian.group(1)}")
    if other:
        player = next((p for p in players if p.casefold() == other.group(1).casefold()), None)
        slot = _OWN.match(other.group(2))
        if player and slot:
            return char_id(player, _RU_LETTER.get(slot.group(1).lower(), slot.group(1).upper()))
    folded = ref.casefold()
    return next((c for c, n in names.items() if n.casefold() == folded), None)


@dataclass
class Order:
    location: str | None = None
    event: str | None = None
    initiative: int | None = None
    confess: bool = False
    target: str | None = None
    idle: bool = False
    unknown: list[str] = field(default_factory=list)


def read_order(text: str, events: Mapping[str, Mapping[str, Any]]) -> Order:
    """The parts of an order (after "CharA:"), split at commas; `events` are the chart's, by folded name."""
    order = Order()
    for raw in re.split(r"[,;]", text):
        part = " ".join(raw.strip().strip(".!").split())
        low = part.casefold().replace("ё", "е")
        if not low:
            continue
        if low in IDLE_WORDS:
            order.idle = True
        elif low in LOCATION_WORDS or fold(low) in LOCATION_WORDS:
            order.location = LOCATION_WORDS.get(low) or LOCATION_WORDS[fold(low)]
        elif fold(low) in events:
            order.event = fold(low)
        elif (m := _INITIATIVE.match(low)) is not None:
            order.initiative = int(m.group(1) or m.group(2))
        elif _CONFESS.match(low):
            order.confess = True
        elif _NO_CONFESS.match(low):
            order.confess = False
        elif (m := _TARGET.match(part)) is not None:
            order.target = m.group(1)
        else:
            order.unknown.append(part)
    return order


def location_name(place: str | None) -> str:
    return place.title() if place in LOCATIONS else "—"
