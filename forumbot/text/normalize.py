"""One normal form for comparing words typed by players: case and ё/е folded, spaces collapsed."""

from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")
# Letters, digits and the joiners that may sit inside a name (O'Neil, Jean-Luc, user_12, Mr.X).
_TOKEN = re.compile(r"[\w]+(?:['’.\-][\w]+)*")


def fold(text: str) -> str:
    """Lower case, ё→е, NFKC (full-width and compatibility forms), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    return _SPACES.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    """The folded words of `text`, punctuation between words dropped."""
    return _TOKEN.findall(fold(text))
