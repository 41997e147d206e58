"""From a post to intents: clean the text, find every command in it in order, resolve player names.

How a post is read (forumbot/text/reading.py has the modes and the guards against chat): the post is cleaned
with its bold text marked; each line is tried at every place a command may start in the game's reading
mode, left to right, so a post's commands come out in the order written and the last vote or unvote
decides. Unknown or ambiguous names never become a guess: the intent keeps `target = None` with the text
that failed in `unresolved`, and a Flag carries the reason and the candidates for the host. A line that
looks like a vote but is not counted (chat, not bold in a bold game) becomes a `not_counted` intent with
the reason (the game shows it in the vote count's errors) and a Flag.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from forumbot.errors import ConfigError
from forumbot.model import Flag, Intent, PlayerRef, Post
from forumbot.text.clean import clean
from forumbot.text.grammar import Grammar, Match
from forumbot.text.mend import Mender
from forumbot.text.names import LEADING_PREPOSITIONS, Resolution, Roster
from forumbot.text.normalize import tokens
from forumbot.text.reading import (
    CHAT_TARGETS,
    CONDITIONS,
    DECORATION,
    DETERMINERS,
    DOUBT,
    LATER,
    NOT_NOW,
    PLEAS,
    READINGS,
    SELF_WORDS,
    Line,
    default_reading,
    is_question,
    lines_of,
    starts,
    words_before,
    words_until_break,
)

# The slot named "player" is the target of the command; other slots keep their own names.
_FIELD_OF_SLOT = {"player": "target"}
VOTE_KINDS = frozenset({"vote", "unvote", "no_lynch"})
MAX_COMMANDS = 100           # commands read from one post; no real post has more
_WHOLE_NAME = frozenset({"exact", "alias", "inflection"})
_CLOSERS = re.compile(r"\[/[^\[\]]*\]|[\s:;.!\-]+")


def _bare(text: str) -> str:
    """Text without closing tags, spaces and trailing punctuation, lower case, ё as е: "[b]Vote: [/b]" → "vote"."""
    return _CLOSERS.sub("", text.lower().replace("ё", "е"))


_CONJUNCTION = re.compile(r"\s*(?:and|then|&|и|потом)\s+", re.IGNORECASE)
# Between a command without a target and the next one, any punctuation: "Unvote: Vote: X", "Unvote.Vote: X".
_CHAIN = re.compile(r"[\s:;.,!|/+&\-–—]*(?:(?:and|then|и|потом)\b[\s:;.,]*)?", re.IGNORECASE)
_DECORATED = re.compile(f"[{re.escape(DECORATION)}][{re.escape(DECORATION)}\\s]*")
# Between the names of a list slot ("Pia, Pat and Pip", «Борис, Лев и Глеб»).
_LIST_SEPARATOR = re.compile(r"\s*(?:[,;&+/]|\band\b|(?<!\w)и(?!\w))\s*", re.IGNORECASE)


@dataclass
class Parsed:
    """What one post asks for, in order, and what the host should look at."""

    intents: list[Intent] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    found: int = 0                                      # commands found, counted or not
    more: str | None = None     # the last counted command's slot that takes the lines after it (a long note)
    # A private message read whole (forumbot/text/mend.py): typos read as commands, corrections applied, and
    # words close to several commands (for the answer).
    mended: list[dict[str, Any]] = field(default_factory=list)
    near: list[dict[str, Any]] = field(default_factory=list)
    # How each name slot was read, by command: (its slots, {slot: Resolution}). Only `parse --explain` shows
    # it, so the lines of `names` are written when asked for, not for every post the bot reads.
    read: list[tuple[dict[str, str], dict[str, Resolution]]] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """How each name was read (for `parse --explain`)."""
        return [f"{slots[slot]!r}: {Roster.describe(resolution)}" for slots, how in self.read
                for slot, resolution in how.items()]

    def to_json(self) -> dict[str, Any]:
        return {"intents": [i.to_json() for i in self.intents], "flags": [f.to_json() for f in self.flags]}


class _Source(NamedTuple):
    """Where a post's commands come from."""

    author: str
    post_id: str
    at: datetime | None
    url: str


NOT_BOLD = "not bold: this game counts only bold votes or vote tags"
PLAN = "a plan, not a vote: a word of time to come or of doubt follows"
# Why a vote-like line did not count → its code (phrases `error_not_counted_<code>` in render/phrases).
NOT_COUNTED_CODES = {"a question": "question", "more words follow: part of a sentence": "sentence",
                     "a vote that names nobody": "nobody", "the target is not a name": "not_name",
                     "a condition follows": "condition", NOT_BOLD: "not_bold", PLAN: "plan"}


class _Chat(Exception):
    """A command-like piece of text that is chat: the reason, and whether the host should hear of it."""

    def __init__(self, reason: str, flag: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.flag = flag


class PostParser:
    """Reads posts of one game: its grammar, its roster and its reading mode (None: by the post's dialect)."""

    def __init__(self, grammar: Grammar, roster: Roster, reading: str | None = None,
                 host: str | None = None) -> None:
        if reading is not None and reading not in READINGS:
            raise ConfigError(f"reading = '{reading}' is not a reading mode",
                              fix="use one of: " + ", ".join(READINGS))
        self.grammar = grammar
        self.roster = roster
        self.reading = reading
        self.mender = Mender(grammar)
        # A vote for the host is no vote: it takes the voter's vote off its wagon (and the host hears of it).
        self._host = Roster([PlayerRef(host)]) if host and host not in roster.names else None
        self._host_name = host
        # The no-lynch phrases by their first word: a vote's name is compared with those that start like it.
        self._no_lynch = _phrases(grammar.no_lynch_words)
        self._unvote = _phrases(grammar.unvote_words)       # "[vote]Unvote[/vote]"
        self._restate = _phrases(grammar.restate_words)     # "Vote stands."
        # What a vote template says before its name ("vote:", "[vote]"): alone, it is a vote for nobody.
        self._heads = frozenset(_bare(template.split("{", 1)[0]) for command in grammar.commands
                                if command.kind == "vote" for template in command.templates if "{" in template)

    def mode(self, dialect: str, where: str = "thread") -> str:
        """The reading mode for a post in this dialect (private messages: always `commands`)."""
        if where == "pm":
            return "commands"
        return self.reading or default_reading(self.grammar.readings, dialect)

    def parse(self, post: Post) -> Parsed:
        """The intents of a stored post (its thread decides thread or PM commands)."""
        where = "pm" if post.pm else "thread"
        return self._parse(post.body, post.dialect, where, self.mode(post.dialect, where),
                           _Source(post.author, post.platform_id, post.created, post.url))

    def parse_text(self, text: str, dialect: str = "plain", *, where: str = "thread", author: str = "",
                   post_id: str = "", at: datetime | None = None, url: str = "",
                   reading: str | None = None) -> Parsed:
        """The intents of raw post text. Never raises for any text (a bad dialect is a ConfigError)."""
        mode = self.mode(dialect, where) if reading is None or where == "pm" else reading
        return self._parse(text, dialect, where, mode, _Source(author, post_id, at, url))

    def _parse(self, text: str, dialect: str, where: str, mode: str, source: _Source) -> Parsed:
        parsed = Parsed()
        cleaned = unicodedata.normalize("NFKC", clean(text, dialect, marks=True))
        more: str | None = None   # the text slot that takes the following lines (a note of several lines)
        lines = lines_of(cleaned)
        if where == "pm":
            mended = self.mender.mend(lines, self._is_name)
            lines, parsed.mended, parsed.near = mended.lines, mended.notes, mended.near
        for line in lines:
            before, last = parsed.found, len(parsed.intents)
            if line.text.strip():
                self._read_line(parsed, line, mode, where, source)
            if parsed.found == before:
                if more is not None and parsed.intents:
                    data = parsed.intents[-1].data
                    data[more] = f"{data.get(more, '')}\n{line.text}".strip("\n")
                continue
            more = parsed.more if len(parsed.intents) > last else None
            if parsed.found >= MAX_COMMANDS:
                self._too_many(parsed, source)
                break
        return parsed

    def _is_name(self, text: str) -> bool:
        """Whether a text starts with a player's whole name (exact, an alias or an inflected form)."""
        return self.roster.resolve(text).method in _WHOLE_NAME

    @staticmethod
    def _too_many(parsed: Parsed, source: _Source) -> None:
        parsed.flags.append(Flag(reason=f"the post has {MAX_COMMANDS} commands or more; the rest is not read",
                                 post_id=source.post_id, author=source.author, at=source.at,
                                 code="flag_too_many_commands", params=(("limit", MAX_COMMANDS),)))

    # -- finding the commands of a line ------------------------------------------------------------------

    def _read_line(self, parsed: Parsed, line: Line, mode: str, where: str, source: _Source) -> None:
        done = 0    # where the last command lets another start (Match.next_from): a later start lies beyond it
        grammar, text = self.grammar, line.text
        slots_first = grammar.slot_line(text)
        places = starts(line, mode, "" if slots_first else grammar.start_pattern)
        for at, why in places:
            if parsed.found >= MAX_COMMANDS:
                break
            if at < done:
                continue
            span = line.bold_span(at) if line.bold else None
            first = True
            next_at: int | None = at
            while next_at is not None and parsed.found < MAX_COMMANDS:
                found = self._match(text, next_at, span, where, slots_first)
                decorated = _DECORATED.match(text, next_at) if found is None else None
                if decorated is not None:   # "***vote: X***", "[VOTE: X]": the command after its decoration
                    found = self._match(text, decorated.end(), span, where, slots_first)
                if found is None:
                    if first and (span is not None or why == "tag") and where == "thread":
                        self._keyword_only(parsed, line.text, next_at, span, source)
                    break
                first = False
                done = found.next_from
                parsed.found += 1
                resume = self._consider(parsed, line, found, why, mode, span, source)
                if resume is not None:
                    done = resume    # a list of names ended where another command starts
                # "Unvote Vote Bob": a command without a target may be followed at once by another.
                chained = _CHAIN.match(text, found.end) if not found.slots else None
                next_at = chained.end() if chained is not None else None

    def _match(self, text: str, at: int, span: tuple[int, int] | None, where: str,
               slots_first: bool) -> Match | None:
        """The command at `at`; inside a bold span a vote's own text is tried first ("[b]vote Bob[/b] Al").
        Other commands read on past the bold, as they did before bold was marked ("**1. Food Chain** 2. ...")."""
        if span is not None and span[1] < len(text):
            found = self.grammar.match_at(text, at, where, span[1], slots_first)
            if found is not None and found.command.kind in VOTE_KINDS \
                    and all(_bare(value) for value in found.slots.values()):
                return found        # else the name follows the bold: "[b]vote:[/b] Alice"
        return self.grammar.match_at(text, at, where, None, slots_first)

    def _consider(self, parsed: Parsed, line: Line, found: Match, why: str, mode: str,
                  span: tuple[int, int] | None, source: _Source) -> int | None:
        """Count a command, or say why it is chat. Returns where a list of names it read ended because
        another command starts there ("attack Hal and move to River"), else None."""
        try:
            self._check_chat(line, found, why, mode, span)
            intent, flags, how, resume = self._intent(found, line.text, mode, source)
        except _Chat as chat:
            # Chat inside a sentence (natural) or outside bold text (bold) is only chat: no flag.
            if chat.flag and why not in ("word", "plain") and found.command.kind in VOTE_KINDS:
                self._not_counted(parsed, found.start, line.text, chat.reason, source)
            return None
        if why == "plain" and not self.grammar.is_explicit(found):
            # bold mode, not bold: the host hears of it, nothing counts ("##vote X" counts in every mode)
            if intent.kind in VOTE_KINDS and intent.data.get("target", "") is not None:
                self._not_counted(parsed, found.start, line.text, NOT_BOLD, source)
            return resume
        if self._host is not None and source.author == self._host_name and intent.kind in VOTE_KINDS:
            return resume       # the host, not a player, writes votes only as examples ("Vote with [b]vote: X[/b]")
        parsed.intents.append(intent)
        parsed.more = found.command.data.get("more_lines")
        parsed.flags += flags
        if how:
            parsed.read.append((found.slots, how))
        return resume

    def _keyword_only(self, parsed: Parsed, text: str, at: int, span: tuple[int, int] | None,
                      source: _Source) -> None:
        """A bold span or a tag that holds only a vote keyword ("[b]vote:[/b]", "[vote][/vote]"): a flag."""
        piece = text[at:min(span[1] if span else len(text), at + 60)]
        if _bare(piece) in self._heads:
            self._not_counted(parsed, at, text, "a vote that names nobody", source)

    def _not_counted(self, parsed: Parsed, start: int, line: str, reason: str, source: _Source) -> None:
        if source.author and source.author == self._host_name:
            return                              # the host's own "Vote Count" post is not a vote
        said = line[start:start + 80].strip()
        full = f"not counted: '{said}' ({reason})"
        code = "not_counted_" + NOT_COUNTED_CODES.get(reason, "other")   # the phrase of the reason in each language
        parsed.intents.append(Intent("not_counted", {"error": full, "error_code": code,
                                                     "params": {"text": said, "why": reason}},
                                     post_id=source.post_id, author=source.author, at=source.at, line=line,
                                     url=source.url))
        parsed.flags.append(Flag(reason=full, post_id=source.post_id, author=source.author, at=source.at,
                                 line=line, code=f"error_{code}", params=(("text", said), ("why", reason))))

    def _check_chat(self, line: Line, found: Match, why: str, mode: str, span: tuple[int, int] | None) -> None:
        """Raise _Chat when the command is part of a conversation rather than a command."""
        text = line.text
        if found.template.startswith("[") or found.command.kind not in VOTE_KINDS:
            return                      # a tag is never chat; night actions and moves are read as before
        bound = span[1] if mode == "bold" and span is not None else len(text)
        if is_question(text, found.literal_end, bound):
            raise _Chat("a question")
        if why == "word":
            before = words_before(text, found.start)
            if any(word in NOT_NOW or word.endswith("n't") for word in before):
                raise _Chat("a negation or a condition before it", flag=False)
            if before and before[-1] in DETERMINERS:
                raise _Chat("a noun, not a command", flag=False)
        if found.slots or mode == "bold":
            return
        rest = words_until_break(text, found.end, bound)
        if not rest or self._starts_command(text, found.end):
            return
        named = self.roster.resolve(" ".join(rest))
        if named.ok and not named.rest:
            return                                              # "unvote Bob"
        if len(rest) > 2 or any(word in CHAT_TARGETS for word in rest):
            raise _Chat("more words follow: part of a sentence")

    def _starts_command(self, text: str, at: int) -> bool:
        joined = _CONJUNCTION.match(text, at)
        return self.grammar.match_at(text, joined.end() if joined else at) is not None

    # -- one command -------------------------------------------------------------------------------------

    def _is_no_lynch(self, words: tuple[str, ...]) -> bool:
        return _starts_with(words, self._no_lynch)

    def _data_of(self, command: Any) -> dict[str, Any]:
        """What a command's intents carry from its grammar entry (all but `more_lines`), a new dict."""
        return {k: v for k, v in command.data.items() if k != "more_lines"}

    def _inner(self, kind: str, raw: str) -> tuple[str, str]:
        """The command in a slot: the name in one that repeats its command ("[vote]Vote: Bob[/vote]" → "Bob"),
        another vote command in a vote's slot ("[vote]Unvote[/vote]" is an unvote). (kind, raw)."""
        inner = self.grammar.match(raw)
        if inner is None or inner.command.kind not in VOTE_KINDS:
            return kind, raw
        if inner.command.kind == kind and "player" in inner.slots:
            return kind, inner.slots["player"]
        if kind == "vote" and not inner.slots and not _bare(raw[inner.end:]):
            return inner.command.kind, ""
        return kind, raw

    def _intent(self, found: Match, line: str, mode: str,
                source: _Source) -> tuple[Intent, list[Flag], dict[str, Resolution], int | None]:
        """The intent of one command, the flags it raises, how each name slot was read, and where a list of
        names ended early because another command starts there (or None)."""
        kind = found.command.kind
        data = self._data_of(found.command)
        flags: list[Flag] = []
        how: dict[str, Resolution] = {}
        resume: int | None = None
        for slot, raw in found.slots.items():
            slot_type = found.slot_types[slot]
            name = _FIELD_OF_SLOT.get(slot, slot)
            if slot_type == "players":
                more, resume = self._names_of_list(name, raw, data, line, found, source)
                flags += more
                continue
            if slot_type != "player":
                data[name] = raw
                continue
            inner, raw = self._inner(kind, raw)
            words = tuple(tokens(raw))   # the slot's folded words, once for every check below
            if kind == "vote" and (inner != kind or _starts_with(words, self._unvote)):
                kind, data, how = inner if inner != kind else "unvote", {}, {}
                break                    # "[vote]Unvote[/vote]", "[vote]снимаю[/vote]": an unvote
            voting = kind in VOTE_KINDS
            if voting and not _bare(raw):
                raise _Chat("a vote that names nobody")
            if kind == "vote" and _starts_with(words, self._restate):
                raise _Chat("a vote restated: no change", flag=False)        # "Vote stands."
            if kind == "vote" and self._is_no_lynch(words):
                kind = "no_lynch"
                continue
            resolution = self.roster.resolve(raw)
            if kind == "vote" and (mode == "bold" or found.template.startswith("[")):
                resolution = self._self_vote(words, resolution, source.author)
            if voting:
                self._check_target(words, resolution, mode)
            how[slot] = resolution
            if resolution.ok:
                data[name] = resolution.name
                if resolution.method != "exact":
                    data.setdefault("matched", {})[name] = f"{resolution.matched} ({resolution.method})"
                if resolution.method == "taught":      # a nickname only the thread vouches for: "check"
                    data["check"] = True
                    flags.append(Flag(reason=f"check: '{resolution.matched}' read as {resolution.name}, a nickname "
                                             "the thread uses (confirm it in the console)", post_id=source.post_id,
                                      author=source.author, at=source.at, line=line, code="flag_vote_check",
                                      params=(("query", str(resolution.matched)), ("name", str(resolution.name)))))
                continue
            if kind == "vote" and self._host is not None and self._host.resolve(raw).ok:
                kind = "unvote"
                data, how = {"for_host": self._host.names[0]}, {}
                flags.append(Flag(reason=f"'{raw}' is the host, {self._host.names[0]}: a vote for the host is "
                                         "no vote (the previous one is withdrawn)", post_id=source.post_id,
                                  author=source.author, at=source.at, line=line, code="flag_vote_for_host",
                                  params=(("query", raw), ("name", self._host.names[0]))))
                break
            data[name] = None
            data.setdefault("unresolved", {})[name] = raw
            error = resolution.error()
            reason = str(error) if error else f"'{raw}' is not a player"
            data["error"] = reason
            data.setdefault("error_code", {})[name] = {
                "code": "name_ambiguous" if resolution.method == "ambiguous" else "name_unknown",
                "params": {"query": raw, "candidates": ", ".join(resolution.candidates)}}
            coded = data["error_code"][name]
            flags.append(Flag(reason=reason, post_id=source.post_id, author=source.author, at=source.at,
                              candidates=resolution.candidates, line=line, code=f"error_{coded['code']}",
                              params=tuple(coded["params"].items())))
        if kind == "vote" or (kind == "no_lynch" and "final" in data):
            data["final"] = bool(data.get("final", False))
        intent = Intent(kind, data, post_id=source.post_id, author=source.author, at=source.at, line=line,
                        url=source.url)
        return intent, flags, how, resume

    def _names_of_list(self, name: str, raw: str, data: dict[str, Any], line: str, found: Match,
                       source: _Source) -> tuple[list[Flag], int | None]:
        """A list slot: every name in it, in order, as `data[name]`; a piece that names no player (or
        several) goes to `data["unresolved"][name]` as written, with a flag, so no name is dropped in
        silence. A whole slot that is one player's name ("Rock and Roll") is that player. The list ends
        where a piece starts another command ("attack Hal and move to River"): returns the flags and where
        that command starts in the line (None when the list runs to the end)."""
        begin = line.find(raw, found.literal_end)
        begin = found.literal_end if begin < 0 else begin
        whole = self.roster.resolve(raw)
        if whole.ok and whole.method in _WHOLE_NAME and not whole.rest.strip(" .!"):
            pieces = [(begin, raw)]
        else:
            cuts = [begin, *(begin + m.end() for m in _LIST_SEPARATOR.finditer(raw))]
            ends = [begin + m.start() for m in _LIST_SEPARATOR.finditer(raw)] + [begin + len(raw)]
            pieces = [(start, line[start:end]) for start, end in zip(cuts, ends, strict=True)]
        names: list[str] = []
        unresolved: list[str] = []
        flags: list[Flag] = []
        resume: int | None = None
        for start, piece in pieces:
            if not piece.strip():
                continue
            resolution = self.roster.resolve(piece)
            if resolution.ok and resolution.method in _WHOLE_NAME or not names and not unresolved:
                pass
            elif self.grammar.match_at(line, start, found.command.where) is not None:
                resume = start
                break
            if resolution.ok:
                if resolution.name not in names:
                    names.append(str(resolution.name))
                continue
            unresolved.append(piece.strip())
            error = resolution.error()
            reason = str(error) if error else f"'{piece.strip()}' is not a player"
            data.setdefault("errors", {}).setdefault(name, []).append(reason)
            code = "name_ambiguous" if resolution.method == "ambiguous" else "name_unknown"
            flags.append(Flag(reason=reason, post_id=source.post_id, author=source.author, at=source.at,
                              candidates=resolution.candidates, line=line, code=f"error_{code}",
                              params=(("query", piece.strip()), ("candidates", ", ".join(resolution.candidates)))))
        data[name] = names
        if unresolved:
            data.setdefault("unresolved", {})[name] = unresolved
        return flags, resume

    def _self_vote(self, words: tuple[str, ...], resolution: Resolution, author: str) -> Resolution:
        """In bold text or a vote tag, "vote: me" is a deliberate self-vote: the author, if a player. A plea
        ("LYNCH ME PLZ!!!", "vote me!") is no vote."""
        if resolution.method in _WHOLE_NAME or not words or words[0] not in SELF_WORDS or not author:
            return resolution
        if not PLEAS.isdisjoint(words[1:3]) or "!" in resolution.query:
            raise _Chat("a plea about oneself", flag=False)
        me = self.roster.resolve(author)
        return me if me.ok and me.method in _WHOLE_NAME else resolution

    @staticmethod
    def _check_target(words: tuple[str, ...], resolution: Resolution, mode: str) -> None:
        """A pronoun or an article that names no player is chat ("lynch his bum"); so is a conditional vote."""
        if words and words[0] in LEADING_PREPOSITIONS and len(words) > 1:
            words = words[1:]
        if words and words[0] in CHAT_TARGETS and resolution.method not in _WHOLE_NAME:
            raise _Chat("the target is not a name")
        if resolution.ok:
            rest = resolution.rest
            after = words_until_break(rest, 0, len(rest))
            if not LATER.isdisjoint(after) or (after and DOUBT.issuperset(after)):
                raise _Chat(PLAN)                                   # "vote Alice tomorrow maybe"
            if mode != "bold" and not CONDITIONS.isdisjoint(after):
                raise _Chat("a condition follows")


def _phrases(words: Any) -> dict[str, list[tuple[str, ...]]]:
    """Phrases of a grammar's word list, by their first folded word."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for word in words:
        phrase = tuple(tokens(word))
        if phrase:
            out.setdefault(phrase[0], []).append(phrase)
    return out


def _starts_with(words: tuple[str, ...], phrases: dict[str, list[tuple[str, ...]]]) -> bool:
    """Whether `words` start with one of `phrases`."""
    found = phrases.get(words[0]) if words else None
    return found is not None and any(words[:len(phrase)] == phrase for phrase in found)
