"""The words of the web forum and the host console in the forum's or the game's language.

A text in English is its own key: `w("Sign in")` in a template is "Sign in" in English and what
forumbot/web/words/<lang>.toml gives it in another language ("Войти"). A text with a number names its
forms, `w("post/posts", n)`: in English one/other, in Russian the three forms of the translation
("сообщение/сообщения/сообщений"), chosen by the language's rules. Fields in braces are filled in:
`w("Flags of {name}", name=name)`. A text a language does not have stays English.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from forumbot.text.decline import plural

_HERE = Path(__file__).resolve().parent / "words"
LANGS = ("en", "ru")


@lru_cache(maxsize=4)
def table(lang: str) -> dict[str, str]:
    """English text → the text in `lang` (empty for English, or a language without a file)."""
    path = _HERE / f"{lang}.toml"
    if lang == "en" or not path.exists():
        return {}
    with path.open("rb") as handle:
        return {str(k): str(v) for k, v in tomllib.load(handle).items()}


def say(lang: str, text: str, count: int | None = None, **fields: Any) -> str:
    """`text` in `lang`: with `count`, the form of "one/many" that agrees with it; fields filled in."""
    said = table(lang).get(text, text)
    if count is not None:
        said = plural(count, said, lang if said is not text else "en")
    return said.format(**fields) if fields else said


def phase(lang: str, value: str) -> str:
    """A game's phase as a person reads it: "day1" → "Day 1" («День 1»); another phase by its word."""
    found = re.fullmatch(r"(day|night)(\d+)", value)
    if found:
        return f"{say(lang, found.group(1).capitalize())} {found.group(2)}"
    return say(lang, value)


# Ids of a game's record as people say them (English keys of the words tables).
SIDES = {"town": "town", "mafia": "mafia", "maniac": "maniac", "nobody": "nobody"}
FATES = {"lynch": "hanged", "night": "killed at night", "modkill": "removed by the host",
         "setup": "dead from the start"}
DAY_ENDS = {"deadline": "at its deadline", "early": "early, by a majority", "host": "by the host"}


def side(lang: str, team: str | None) -> str:
    """A side (or a game's winner) as people name it: "town" («город»); "-" for none."""
    return say(lang, SIDES[team]) if team in SIDES else (team or "-")


def fate(lang: str, cause: str) -> str:
    """How a player left the game: "lynch" is "hanged" («казнь»)."""
    return say(lang, FATES[cause]) if cause in FATES else cause


def ending(lang: str, how: str) -> str:
    """How a day ended: "early" is "early, by a majority"."""
    return say(lang, DAY_ENDS[how]) if how in DAY_ENDS else how
