"""How players shorten a handle, as a host reads them: the shape stages of name resolution (forumbot/text/names.py).

Each stage looks at the first word the player typed, folded and squashed ("Lil Uzi Vert" → "liluzivert"), and
answers the roster indexes it fits; one player is a match, several are ambiguous (a flag, never a guess).

* initials   the word is made of the starts of the handle's parts, in order, beginning with the first part
             (parts: words, hyphen/underscore pieces, CamelCase humps, digit runs); parts may be skipped:
             "LUV" = Lil Uzi Vert, "DRK" = DeathRowKitty, "SKOT" = Sharpest-knife-on-tree,
             "OmNom" = Om of the Nom, "ss" = Something_Smart, "Z" = Zdenek (one letter only as the first part)
* inside     a later part of the handle (3 or more characters) or a piece of 4 or more inside it:
             "Kitty" = DeathRowKitty, "Owl" = NightOwlHoots, "pecanpie" = pieceofpecanpie
* stem       the word starts with the whole handle less its trailing digits (5 or more letters):
             "darkshadownumbers" = Darkshadow64540
* letters    2 to 5 characters that start the handle and appear in it in order, for handles written
             as one lower-case word: "FLP" = fatlikepig, "TP42" = theplague42

A part that is a number word is also its digits, so every stage reads "2kings" and "2KoS" for
TwoKingsOfSpades ("three" = "3", «два» = "2").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

MIN_INSIDE = 4               # a piece inside a handle
MIN_PART = 3                 # a whole later part of it ("Owl" of NightOwlHoots)
MIN_STEM = 5
MAX_LETTERS = 5

_PARTS = re.compile(r"[A-ZА-ЯЁ]+(?![a-zа-яё])|[A-ZА-ЯЁ]?[a-zа-яё]+|[^\W\d_]+|\d+")
_TRAILING_DIGITS = re.compile(r"\d+$")
NUMBER_WORDS = {word: str(number) for number, words in enumerate([
    (), ("one", "один", "одна"), ("two", "два", "две"), ("three", "три"), ("four", "четыре"), ("five", "пять"),
    ("six", "шесть"), ("seven", "семь"), ("eight", "восемь"), ("nine", "девять"), ("ten", "десять"),
    ("eleven",), ("twelve",)]) for word in words}


def parts_of(name: str) -> tuple[str, ...]:
    """The parts of a handle, lower case: words, hyphen/underscore pieces, CamelCase humps, digit runs."""
    return tuple(part.casefold().replace("ё", "е") for part in _PARTS.findall(name))


def _initials(query: str, parts: tuple[str, ...]) -> bool:
    """Whether `query` is made of non-empty starts of `parts`, in order, beginning with the first part."""

    @functools.cache
    def fits(at: int, part: int) -> bool:
        if at == len(query):
            return True
        for index in range(part, len(parts)):
            if index > part and part == 0:
                return False                    # the first piece starts the first part
            word = parts[index]
            for length in range(min(len(word), len(query) - at), 0, -1):
                if word[:length] == query[at:at + length] and fits(at + length, index + 1):
                    return True
        return False

    return bool(query) and fits(0, 0)


def _letters(query: str, squashed: str) -> bool:
    if not 2 <= len(query) <= MAX_LETTERS or not squashed.startswith(query[0]):
        return False
    found = iter(squashed)
    return all(char in found for char in query)


class Shapes:
    """The shape stages over one roster: (player index, parts) for every name and alias."""

    def __init__(self, spellings: Iterable[tuple[int, str]]) -> None:
        self._spellings: list[tuple[int, tuple[str, ...], str]] = []
        for index, name in spellings:
            parts = parts_of(name)
            if not parts:
                continue
            self._spellings.append((index, parts, "".join(parts)))
            digits = tuple(NUMBER_WORDS.get(part, part) for part in parts)
            if digits != parts:                         # "TwoKingsOfSpades" is also "2KingsOfSpades"
                self._spellings.append((index, digits, "".join(digits)))

    def stages(self, query: str) -> Iterator[tuple[str, frozenset[int]]]:
        """(stage, players) for each stage in order; the caller takes the first that found any."""
        yield "initials", self._find(lambda parts, squashed: _initials(query, parts))
        if len(query) >= MIN_PART:
            yield "inside", self._find(lambda parts, squashed: query in parts[1:] or
                                       (len(query) >= MIN_INSIDE and query in squashed[1:]))
        yield "stem", self._find(lambda parts, squashed: _stem_of(squashed, query))
        yield "letters", self._find(lambda parts, squashed: _letters(query, squashed))

    def _find(self, test: Callable[[tuple[str, ...], str], bool]) -> frozenset[int]:
        return frozenset(index for index, parts, squashed in self._spellings if test(parts, squashed))


def _stem_of(squashed: str, query: str) -> bool:
    stem = _TRAILING_DIGITS.sub("", squashed)
    return len(stem) >= MIN_STEM and query != stem and query.startswith(stem)
