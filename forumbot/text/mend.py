"""A private message read whole, as a careful host reads it, before its commands are found:

* a command word with a typo is read as the command it is closest to, when nothing else fits and exactly one
  command word is that close ("Лечю Веру" → "лечу Веру", "зашищаю Глеба" → "защищаю Глеба"): one slip in a
  word of 4 to 7 letters, two in a longer one (a swap of neighbouring letters is one slip);
* a correction ("хотя нет", "вернее", "actually", "scratch that", "no wait") replaces the command it follows:
  "Защищаю Веру. Хотя нет, защищаю Глеба" reads as "защищаю Глеба"; with a name alone the corrected command's
  words are kept ("Защищаю Веру. Хотя нет, Глеба").

Each change is noted (what was written, how it was read) so the answer can say it. Thread posts are not
mended: a typo there is chat as often as a command. Pure text work: no game, no state.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz.distance import OSA

from forumbot.text.grammar import Grammar
from forumbot.text.reading import Line, starts

CORRECTION = re.compile(
    r"(?:хотя\s+нет|нет,?\s+лучше|нет,?\s+вернее|вернее|точнее|поправка|исправляю|"
    r"actually|scratch\s+that|no\s+wait|wait,?\s+no|correction|make\s+that)"
    r"(?![\w])[\s,:;.!—–-]*", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
MAX_EDITS = 20     # changes to one message at most (a message is a few lines; this bounds the work)


@dataclass
class Mended:
    """The lines as read, and what was changed: {"wrote", "read"} for a typo, {"replaced", "by"} for a
    correction; `near`: words that came close to several command words (for the answer)."""

    lines: list[Line]
    notes: list[dict[str, Any]] = field(default_factory=list)
    near: list[dict[str, Any]] = field(default_factory=list)


class Mender:
    """Mends the private messages of one grammar."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        words: dict[str, str] = {}
        for command in grammar.commands:
            if command.where not in ("pm", "any"):
                continue
            for template in command.templates:
                head = unicodedata.normalize("NFKC", template.strip()).split("{", 1)[0]
                found = _WORD.match(head)
                if found is not None and len(found.group()) >= 4:
                    word = found.group().lower().replace("ё", "е")
                    words.setdefault(word, word)
        self.words = tuple(sorted(words))

    def closest(self, written: str) -> tuple[str | None, list[str]]:
        """The one command word `written` is a typo of, or None; and the words that tied (when several)."""
        word = written.lower().replace("ё", "е")
        if len(word) < 4 or word in self.words:
            return None, []
        limit = 1 if len(word) <= 7 else 2
        scored = [(OSA.distance(word, w), w) for w in self.words if abs(len(w) - len(word)) <= limit]
        best = min((d for d, _ in scored), default=limit + 1)
        if best > limit:
            return None, []
        tied = [w for d, w in scored if d == best]
        return (tied[0], []) if len(tied) == 1 else (None, tied)

    def mend(self, lines: list[Line], is_name: Callable[[str], bool] = lambda text: False) -> Mended:
        """The lines as a careful host reads them. `is_name(text)`: whether a text starts with a player's
        whole name (a name is never read as a mistyped command word: "Pred" is not "prey")."""
        out = Mended(list(lines))
        last: tuple[int, int, str] | None = None     # the last command: (line, start, its words before a slot)
        # A command with a text slot ("note: ...") takes the rest of its line, and the lines after it may be
        # more of its text: nothing there is mended, and no correction replaces such a command.
        free: tuple[int, int] | None = None           # (line, where its text starts)
        edits = 0
        for index in range(len(out.lines)):
            cursor = 0
            while edits < MAX_EDITS:
                changed = False
                text = out.lines[index].text
                for pos, _why in starts(Line(text), "commands"):
                    if pos < cursor or (free is not None and (free[0] < index or pos >= free[1])):
                        continue
                    cursor = pos + 1
                    marker = CORRECTION.match(text, pos)
                    at = marker.end() if marker is not None and marker.end() < len(text.rstrip()) else pos
                    marker = marker if at != pos else None
                    found = self.grammar.match_at(text, at, "pm")
                    if found is None:
                        word = _WORD.match(text, at)
                        if word is not None and is_name(text[at:]):
                            word = None
                        fixed, tied = self.closest(word.group()) if word is not None else (None, [])
                        if fixed is not None and word is not None:
                            mended = text[:at] + fixed + text[word.end():]
                            if self.grammar.match_at(mended, at, "pm") is not None:
                                out.notes.append({"wrote": word.group(), "read": fixed})
                                text = mended
                                found = self.grammar.match_at(text, at, "pm")
                                changed = True
                        elif tied and word is not None:
                            out.near.append({"wrote": word.group(), "words": tied})
                    if marker is not None and last is not None:
                        if found is None:      # a name alone: the corrected command's own words
                            mended = f"{text[:at]}{last[2]} {text[at:]}"
                            if self.grammar.match_at(mended, at, "pm") is not None:
                                text = mended
                                found = self.grammar.match_at(text, at, "pm")
                        if found is not None:
                            text, at = self._replace(out, index, text, pos, at, last)
                            found = self.grammar.match_at(text, at, "pm")
                            changed = True
                    if found is not None:
                        last = (index, at, text[at:found.literal_end].strip())
                        if "text" in found.slot_types.values():
                            free, last = (index, found.literal_end), None
                    if changed:
                        out.lines[index] = Line(text)
                        cursor = at + 1
                        edits += 1
                        break
                if not changed:
                    break
        return out

    @staticmethod
    def _replace(out: Mended, index: int, text: str, pos: int, at: int, last: tuple[int, int, str]
                 ) -> tuple[str, int]:
        """Drop the corrected command (from its start to the correction's words, across lines if need be);
        returns the line's new text and where the correcting command now starts."""
        where, start, _ = last
        if where == index:
            replaced = text[start:pos]
            text = text[:start] + text[at:]
            at = start
        else:
            before = out.lines[where].text
            replaced = "\n".join([before[start:], *(out.lines[i].text for i in range(where + 1, index)),
                                  text[:pos]])
            out.lines[where] = Line(before[:start])
            for between in range(where + 1, index):
                out.lines[between] = Line("")
            text = text[at:]
            at = 0
        out.notes.append({"replaced": replaced.strip(" \n,.;:—–-"), "by": text[at:].strip()[:200]})
        return text, at
