"""Where in a cleaned post a command may start, per reading mode, and the rules that tell chat from commands.

A game reads its posts in one of three modes (`[game] reading`, else the default its grammar gives the
post's dialect; private messages are always read as `commands`):

* `commands`: a command starts a line, a sentence, a piece after `,` or `;`, a bold span or a tag
  (`[vote]`), or follows another command without a target ("Unvote Vote Bob").
* `bold`: MafiaScum's rule: only bold text and vote tags count, wherever they sit in a line. Inside a bold
  span the same starts as in `commands` apply ("[b]Unvote, vote: Bob[/b]"). A command that is not bold
  is not counted; the host gets a flag.
* `natural`: a command may start at any word ("I think I'll finally vote Bob"), with the guards below.

Guards (a human host's rules for telling chat from a command; for votes, unvotes and no-lynch votes only;
tags are never chat):
* a question is not a command: "Vote Bob? No way." (in `bold`, only a `?` inside the bold span counts);
* in `commands` and `natural`, a command without a target followed by more than two words, or by a pronoun,
  is part of a sentence: "No lynch today would be a mistake", "unvote me then dude" ("Unvote Bob",
  "unvote for now" and "Unvote, vote Bob" still count);
* in `commands` and `natural`, a name followed by a condition is not a vote: "vote Bob if he won't claim";
* a target that is a pronoun or an article and no player's name is chat: "Lynch his bum", "vote on you",
  "Vote Count"; but in bold text or a vote tag "vote: me" is a deliberate self-vote;
* `natural` only: a command inside a sentence after a negation, a condition, a modal or future word, or
  right after a possessive/article ("I won't vote Bob", "if we vote Bob", "his vote on Bob") is chat; a
  plain statement counts ("so I vote Alice", "I think I'll finally vote Bob");
* in every mode, a plan is not a vote: a name followed by a word of time to come ("I'm voting for Alice
  tomorrow maybe", «против Хэнкса завтра»), or by nothing but a word of doubt ("vote Alice maybe");
* in bold text or a vote tag, a plea about oneself is not a vote ("LYNCH ME PLZ!!!"), a target that says
  "not" is no name ("[vote]Not Scum[/vote]"), and words that restate a vote ("Vote stands.") change nothing.

Decoration around a command (`***vote: X***`, `[VOTE: X]`, `"vote X"`) is skipped: a command may start after
a run of DECORATION characters.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from forumbot.text.clean import BOLD_CLOSE, BOLD_OPEN
from forumbot.text.grammar import READINGS

__all__ = ["READINGS", "Line", "default_reading", "lines_of", "starts"]

# Candidate starts of a command in a line: after a sentence end, after `,`/`;`, after a closing tag, at an
# opening tag, after "and"/"then" ("Unvote and vote Bob").
_BOUNDARY = re.compile(r"[.!?…]+\s+|[,;]\s*|\[/[^\[\]\n]{0,40}\]\s*|(?=\[[^\[\]/\s])"
                       r"|\s(?:and|then|&|и|потом)\s+", re.IGNORECASE)
_MARK = re.compile(f"[{BOLD_OPEN}{BOLD_CLOSE}]")
TERMINATOR = re.compile(r"[.!?…\n]")     # where a sentence ends (is_question)
_SENTENCE_BREAK = re.compile(r"[.!?…]\s|[.!?…]$")
_WORDS = re.compile(r"[\w'’]+")
_PIECE_END = re.compile(r"[.,;!?…]")
SENTENCE_LIMIT = 300         # how far a guard looks for the end of a sentence

# Words that cannot be the target of a real vote unless they are a player's name.
CHAT_TARGETS = frozenset("""
me you him her his hers them their it its this that these those the a an my your our us we they he she i not
someone somebody anyone anybody everyone everybody whoever who whom which what one people scum town mafia
count counts tally is was are were be been has have had do does did will can must all
him/her myself yourself himself herself themselves
меня тебя его её ее него неё нее них вас нас кого кого-то кого-нибудь всех себя этого того мафию мафии
""".split())
# In bold text or a vote tag, these name the author: "[b]vote: me[/b]" is a self-vote.
SELF_WORDS = frozenset("me myself меня себя".split())
# In `natural` mode, words before a command in its sentence that make it chat.
NOT_NOW = frozenset("""
not no never don't dont won't wont can't cant cannot shouldn't wouldn't couldn't isn't didn't doesn't
if would could should might may maybe perhaps unless when whether
wouldnt couldnt shouldnt didnt doesnt isnt
не ни нельзя никогда если бы может можно
will shall gonna going plan planning intend tomorrow later
собираюсь собираемся буду будем планирую завтра позже потом
""".split())
# After a name, in every mode: a plan, not a vote ("vote Alice tomorrow", «против Хэнкса завтра»)...
LATER = frozenset("""
tomorrow later eventually soon tonight someday
завтра позже попозже потом скоро
""".split())
# ... and a doubt when it is all that follows the name ("vote Alice maybe", «против Стрип, наверное»; but
# "vote Alice, probably scum" is a vote).
DOUBT = frozenset("maybe perhaps probably possibly может наверное возможно вероятно".split())
# After "me" in bold text or a vote tag: a plea to the others, not a self-vote ("LYNCH ME PLZ!!!").
PLEAS = frozenset("plz pls please already now guys пожалуйста плиз плз уже".split())
# What may decorate the start of a command ("***vote: X***", "[VOTE: X]", "\"vote X\"", "~~>vote X").
DECORATION = "*~=+-([{<>\"'«»“”„|_"
# Right before a command word, these make it a noun: "his vote on Bob".
DETERMINERS = frozenset("his her my your their our the a an this that whose its any no every".split())
# After a name, these make the vote conditional.
CONDITIONS = frozenset("if unless если ежели".split())


class Line(NamedTuple):
    """One line of a cleaned post, bold marks removed; `bold` holds the bold spans as (start, end)."""

    text: str
    bold: tuple[tuple[int, int], ...] = ()

    def bold_span(self, pos: int) -> tuple[int, int] | None:
        """The bold span holding `pos`, if any (spans are sorted and disjoint: a binary search)."""
        index = bisect.bisect_right(self.bold, (pos, len(self.text) + 1)) - 1
        if index >= 0 and self.bold[index][0] <= pos < self.bold[index][1]:
            return self.bold[index]
        return None


def default_reading(readings: dict[str, str], dialect: str) -> str:
    """The reading a grammar suggests for a dialect (its `[reading]` table), else `commands`."""
    return readings.get(dialect, "commands")


def lines_of(cleaned: str) -> list[Line]:
    """The lines of text cleaned with marks=True, each with its bold spans (a bold span may run over lines)."""
    out: list[Line] = []
    depth = 0
    for raw in cleaned.split("\n"):
        if BOLD_OPEN not in raw and BOLD_CLOSE not in raw:
            out.append(Line(raw, ((0, len(raw)),) if depth and raw else ()))
            continue
        pieces: list[str] = []
        spans: list[tuple[int, int]] = []
        length = 0
        pos = 0
        start = 0 if depth else -1
        for mark in _MARK.finditer(raw):
            pieces.append(raw[pos:mark.start()])
            length += mark.start() - pos
            pos = mark.end()
            if mark.group() == BOLD_OPEN:
                depth += 1
                if depth == 1:
                    start = length
            elif depth:
                depth -= 1
                if not depth and length > start:
                    spans.append((start, length))
        pieces.append(raw[pos:])
        length += len(raw) - pos
        if depth and length > start:
            spans.append((start, length))
        out.append(Line("".join(pieces), tuple(spans)))
    return out


@functools.lru_cache(maxsize=64)
def _finders(lookahead: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str] | None]:
    """The boundary, word-start and start-check patterns for `lookahead` (what a command may start with),
    so that the regex engine, not a Python loop, skips the places where no command can start."""
    decor = f"[{re.escape(DECORATION)}]*"
    look = f"(?=\\s*{decor}(?:{lookahead}))" if lookahead else ""
    boundary = re.compile(f"(?:{_BOUNDARY.pattern}){look}", re.IGNORECASE)
    word = re.compile(f"(?:{lookahead})" if lookahead else r"[\w#/\[]", re.IGNORECASE)
    check = re.compile(rf"\s*{decor}(?:{lookahead})", re.IGNORECASE) if lookahead else None
    return boundary, word, check


def starts(line: Line, mode: str, lookahead: str = "") -> Iterator[tuple[int, str]]:
    """Where a command may start in a line (`lookahead`: what a command may start with, a grammar's
    start_pattern; empty: anything), in order: (position of its first non-space character, why) with why one
    of `start` (a line, sentence or piece start), `bold` (a bold span), `tag` (an opening tag), `word` (any
    word, natural mode). In `bold` mode the `start`s outside bold text are kept as `plain` (read only to flag
    them). Lazy: a reader that stops early never pays for the rest of a long line."""
    text = line.text
    boundary, word, check = _finders(lookahead)
    places: Iterable[tuple[int, int]] = itertools.chain([(0, 0)], ((m.end(), 0) for m in boundary.finditer(text)))
    if line.bold or mode == "natural":          # more sources: merged in order, lazily
        sources = [places, [(start, 1) for start, _ in line.bold]]
        if mode == "natural":
            sources.append((match.start(), 2) for match in word.finditer(text)
                           if not match.start() or not (text[match.start() - 1].isalnum()
                                                        or text[match.start() - 1] in "_'’"))
        places = heapq.merge(*sources)
    last = -1
    for at, source in places:
        why = ("start", "bold", "word")[source]
        lead = at
        while lead < len(text) and text[lead].isspace():
            lead += 1
        if lead >= len(text) or lead == last:
            continue
        if check is not None and source < 2 and not check.match(text, at):
            continue
        if text[lead] == "[":
            why = "tag"
        if mode == "bold" and why in ("start", "bold") and line.bold_span(lead) is None:
            why = "plain"
        last = lead
        yield lead, why


def is_question(text: str, after: int, end: int) -> bool:
    """Whether the sentence going on at `after` ends with a question mark before `end`."""
    found = TERMINATOR.search(text, after, min(end, after + SENTENCE_LIMIT))
    return found is not None and found.group() == "?"


def words_before(text: str, pos: int) -> list[str]:
    """The folded words of the sentence before `pos` (at most the last eight)."""
    begin = max(0, pos - 200)
    cut = begin
    for match in _SENTENCE_BREAK.finditer(text, begin, pos):
        cut = match.end()
    return [w.casefold().replace("’", "'") for w in _WORDS.findall(text, cut, pos)][-8:]


def words_until_break(text: str, start: int, end: int) -> list[str]:
    """The folded words from `start` to the next sentence or piece end (`.,;!?…`), at most ten."""
    end = min(end, start + SENTENCE_LIMIT)
    stop = _PIECE_END.search(text, start, end)
    cut = stop.start() if stop else end
    return [w.casefold().replace("’", "'") for w in _WORDS.findall(text, start, cut)][:10]
