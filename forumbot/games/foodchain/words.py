"""Reading the words of a Food Chain submission: animals and habitats in English and Russian, and which
habitat a selection means as the Main Habitat and which as the starting location."""

from __future__ import annotations

import re

from forumbot.games.foodchain.rules import NEEDS_HABITAT

# Word stems → the animal or habitat (case-folded, ё as е). Stems take plurals and Russian cases.
ANIMAL_WORDS = {"predator": "predator", "prey": "prey", "scavenger": "scavenger", "hunter": "hunter",
                "хищник": "predator", "жертв": "prey", "добыч": "prey", "падальщик": "scavenger",
                "охотник": "hunter"}
HABITAT_WORDS = {"forest": "forest", "field": "field", "river": "river", "sky": "sky",
                 "лес": "forest", "поле": "field", "поля": "field", "полю": "field", "рек": "river", "реч": "river",
                 "неб": "sky"}
_WORD = re.compile(r"[\w']+")
_MAIN = re.compile(r"^(main|home|habitat|основн|дом|ареал|среда)")
_START = re.compile(r"^(start|starting|begin|location|старт|начал|начн|локац)")


def _stem(word: str, table: dict[str, str]) -> str | None:
    word = word.lower().replace("ё", "е")
    for stem in sorted(table, key=len, reverse=True):
        if word.startswith(stem) and len(word) - len(stem) <= 3:
            return table[stem]
    return None


def _first(text: str, table: dict[str, str]) -> str | None:
    return next((found for word in _WORD.findall(text) if (found := _stem(word, table))), None)


def animal_in(text: str) -> str | None:
    return _first(text, ANIMAL_WORDS)


def habitat_in(text: str) -> str | None:
    """The first habitat a text names ("to the River", "в лес")."""
    return _first(text, HABITAT_WORDS)


def selection(text: str, animal: str | None = None) -> dict[str, str]:
    """The parts of a selection a text gives: animal, main (Main Habitat), start. A habitat after "main"/
    "home"/"habitat" is the Main Habitat, after "start"/"starting"/"location" the start; unlabeled habitats
    fill the Main Habitat first (Predators and Prey) and then the start, in the order written."""
    out: dict[str, str] = {}
    animal = animal or animal_in(text)
    if animal:
        out["animal"] = animal
    label: str | None = None
    loose: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _MAIN.match(word):
            label = "main"
        elif _START.match(word):
            label = "start"
        found = _stem(word, HABITAT_WORDS)
        if found is None:
            continue
        if label and label not in out:
            out[label] = found
        else:
            loose.append(found)
        label = None
    for found in loose:
        slot = "main" if "main" not in out and animal in NEEDS_HABITAT else "start"
        if slot not in out:
            out[slot] = found
    return out
