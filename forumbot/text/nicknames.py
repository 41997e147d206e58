"""Nicknames a thread teaches: the short names players call each other by in discussion.

"BK is scummy" while BlueKestrel plays: players shorten handles in talk long before anyone votes with the
short form. `NicknameBook.read` takes a game's posts in order and keeps (in a JSON-able `Taught`, with the
game's host state, so that reading the game again from its first post learns the same at the same post)
each word that fits exactly one player; one written like a name at least `MIN_USES` times is a candidate
("read 'BK' as BlueKestrel?").

What reads like a name: a word in capitals of 2-6 characters ("BK", "TKOS"), a word of letters and digits
("2kings", "tp42"), or a capitalised word inside a sentence ("I think Kes is lying") that the thread never
writes in lower case. A word the thread also writes in lower case (three times or more) is an ordinary
word, shouted or not ("NOT", "Town"). A word that already names a player whole (the name, an alias, a
Russian form, one word of a name) is no nickname.

How a word fits a player, looser than name resolution's shapes (forumbot/text/shapes.py), since the
thread's use is evidence too: the initials of the handle's parts ("BK", "TKoS", "2KoS" with number words
as digits), a piece of 3 letters or more inside it ("Kes", "kings"), or 2-6 letters that start it and
appear in it in order ("BKst"); where none fits, the one player the roster suggests ("did you mean
Marlo?" for "lalalaMARLO"). Two players fitting is no candidate: a flag, never a guess.

A candidate the host confirms is a nickname from then on (an alias of the player's); one not confirmed
is read only where nothing else fits, and its vote is marked "check" (forumbot/text/names.py, stage
"taught").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from forumbot.text.clean import clean
from forumbot.text.normalize import fold
from forumbot.text.shapes import NUMBER_WORDS, _initials, parts_of

MIN_USES = 2                 # a word used this often in discussion is a candidate
COMMON_LOWER = 3             # a word written in lower case this often is an ordinary word
_WORD = re.compile(r"[^\W_][\w'’]*")
_SENTENCE_END = re.compile(r"[.!?…]\s*$")
# Forum shorthand written in capitals that is never a player: the host's and players' jargon.
JARGON = frozenset("""
i ok lol imo imho fos unfos pr vt nk iso lylo mylo wifom qt pm btw omg iirc idk tbh afaik aka fyi rng nai
rvs ic mod gth op gg tl dr ftw wtf lmao rofl nvm irl brb afk eod eom edit ps rp np ty thx
ннв лс нд ли имхо лол
""".split())


@dataclass(frozen=True)
class Nickname:
    """A word the thread uses as a player's short name, and how often."""

    word: str                # as first written
    player: str
    uses: int

    def to_json(self) -> dict[str, object]:
        return {"word": self.word, "player": self.player, "uses": self.uses}


# What a game's thread has taught so far, kept with the game's host state (JSON): folded word →
# [the word as first written, the one player it fits, uses written like a name, uses in lower case].
Taught = dict[str, list[Any]]


class NicknameBook:
    """Reads posts for the words they use as short names of a roster's players. `names`: the roster's
    names; `whole`: the folded words and runs that already name a player whole (Roster.names_whole)."""

    def __init__(self, names: Iterable[str], whole: Iterable[str] = (),
                 suggest: Callable[[str], tuple[str, ...]] | None = None) -> None:
        self.names = tuple(names)
        self._whole = frozenset(whole)
        self._suggest = suggest      # the roster's "did you mean" for a word no loose fit finds
        self._spellings = []
        for name in self.names:
            parts = parts_of(name)
            digits = tuple(NUMBER_WORDS.get(p, p) for p in parts)
            self._spellings.append((name, {parts, digits}))
        self._fits: dict[str, tuple[str, ...]] = {}
        self._loose_fits: dict[str, tuple[str, ...]] = {}

    def read(self, taught: Taught, text: str, dialect: str = "plain") -> Taught:
        """What `taught` becomes after one more post (a new dict when it changes; quotes are left out)."""
        out = taught
        for line in clean(text, dialect).split("\n"):
            sentence_start = True
            for match in _WORD.finditer(line):
                word = match.group()
                key = fold(word)
                lower, like = word.islower(), self._name_like(word, sentence_start)
                sentence_start = bool(_SENTENCE_END.search(line[:match.end() + 1]))
                if not (lower or like) or key in JARGON or key in self._whole or len(key) > 12:
                    continue
                if like:
                    fits = self.fits(key)
                elif key in out:
                    fits = (out[key][1],)
                else:
                    fits = self._loose(key)       # (no "did you mean" for every lower-case word: too dear)
                if len(fits) != 1:
                    continue
                if out is taught:
                    out = dict(taught)
                entry = list(out.get(key) or [word, fits[0], 0, 0])
                entry[2 if like else 3] += 1
                out[key] = entry
        return out

    def candidates(self, taught: Taught) -> list[Nickname]:
        """The words that fit one player of the roster, written like a name MIN_USES times or more and not
        ordinary words, most used first."""
        found = [Nickname(str(word), str(player), int(uses)) for word, player, uses, lower in taught.values()
                 if uses >= MIN_USES and lower < COMMON_LOWER and player in self.names]
        return sorted(found, key=lambda n: (-n.uses, fold(n.word)))

    def fits(self, key: str) -> tuple[str, ...]:
        """The players a folded word could shorten."""
        if key not in self._fits:
            fits = self._loose(key)
            if not fits and self._suggest is not None and len(key) >= 3:
                fits = self._suggest(key)
            self._fits[key] = fits
        return self._fits[key]

    def _loose(self, key: str) -> tuple[str, ...]:
        if key not in self._loose_fits:
            self._loose_fits[key] = tuple(name for name, spellings in self._spellings
                                          if any(_fits(key, parts) for parts in spellings))
        return self._loose_fits[key]

    @staticmethod
    def _name_like(word: str, sentence_start: bool) -> bool:
        if len(word) < 2 or not any(ch.isalpha() for ch in word):
            return False
        if any(ch.isdigit() for ch in word):
            return True
        if word.isupper():
            return len(word) <= 6
        if any(ch.isupper() for ch in word[1:]):
            return True                                 # "lalalaMARLO", "TKoS"
        return word[0].isupper() and not sentence_start and len(word) >= 3


def taught_names(book: NicknameBook, taught: Taught) -> dict[str, str]:
    """The candidates as folded word → player (for Roster.teach)."""
    return {fold(n.word): n.player for n in book.candidates(taught)}


def _fits(key: str, parts: tuple[str, ...]) -> bool:
    squashed = "".join(parts)
    if not squashed or key == squashed:
        return False
    if key[0] != squashed[0]:                   # neither initials nor letters from the start
        return len(key) >= 3 and key in squashed
    if len(parts) > 1 and _initials(key, parts):
        return True
    if len(key) >= 3 and key in squashed:
        return True
    if 2 <= len(key) <= 6 and key[0] == squashed[0]:
        rest = iter(squashed)
        return all(ch in rest for ch in key)
    return False
