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
