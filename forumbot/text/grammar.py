"""Command grammars as data: parsers/<game>.<lang>.toml compiled into one regular expression.

A template such as "голосую против {player}" matches a line (or a sentence in it) from its start,
case-insensitively and with ё/е folded. A space in a template matches any run of whitespace; next to
punctuation it may be missing.
A slot `{name}` or `{name:type}` captures text; the slot at the end of a template takes the rest of the
line (words after a player's name are left for the name resolver to ignore). A `players` slot is a list of
names ("Pia, Pat and Pip"): the parser reads every name in it, so none is dropped. Where several templates
match a line, the one with the most literal text wins, so "vote: {player}" beats "vote {player}".

Tolerances a reader allows (each for every template):
* a colon also matches a semicolon ("vote; Alice");
* a closing tag matches any closing tag, or the end of the text ("[vote]Alice[/unvote]", "[vote]Alice");
* the first word of a vote, unvote or no-lynch template (4 letters or more) also matches with two
  neighbouring letters swapped ("vtoe: Alice", "unvoet") or with one stray character after its second
  letter ("vot6e: Alice");
* a template's opening tag also matches its closing spelling when the template has no slot
  ("[/unvote][/unvote]").
Slots are bounded (a name slot takes at most SLOT_LIMIT characters; a text slot at the end the rest of the
line), so matching costs no more than linear time in the length of a post.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from forumbot.config.paths import data_dir
from forumbot.config.tomlfile import TomlFile, load_toml, unknown_key_fix
from forumbot.errors import ConfigError

SLOT_TYPES = ("player", "players", "text", "square", "number")
READINGS = ("commands", "bold", "natural")   # how a game's posts are read (forumbot/text/reading.py)
WHERE = ("thread", "pm", "any")
_SLOT = re.compile(r"\{(\w+)(?::(\w+))?\}")
_COMMAND_KEYS = ("kind", "templates", "data", "where", "explicit")
# Where a sentence ends inside a line: a command may start the next one.
_SENTENCE_END = re.compile(r"[.!?…]+\s+")
_CLOSING_TAG = re.compile(r"\[/[^\[\]]*\]")
SLOT_LIMIT = 200             # characters a name/square/number slot may take; names are far shorter
_INNER_LIMIT = {"player": 60, "players": 200, "square": 8, "number": 12}   # a slot followed by more template text
# Kinds whose first keyword is also read with two neighbouring letters swapped (a typo, not a new word).
_TYPO_KINDS = frozenset({"vote", "unvote", "no_lynch"})
_FIRST_WORD = re.compile(r"[^\W\d_]{4,}")


# Templates written as explicit commands: they count in every reading mode, bold or not ("##vote X"); a grammar
# names more in a command's `explicit` list («голосую: {player}»).
EXPLICIT = ("#", "/", "[")


@dataclass(frozen=True)
class Command:
    """One command: what it is (`kind`), fixed fields it carries (`data`), where it is read, its templates."""

    kind: str
    templates: tuple[str, ...]
    data: dict[str, Any] = field(default_factory=dict)
    where: str = "thread"
    explicit: tuple[str, ...] = ()   # templates written as explicit commands: they count in every reading mode


class Match(NamedTuple):
    """A line that matched a template: the command and the raw text of each slot."""

    command: Command
    template: str
    slots: dict[str, str]
    slot_types: dict[str, str]
    start: int = 0          # where the command starts in the text it was found in
    end: int = 0            # where it ends
    literal_end: int = 0    # where its first slot starts (its end when it has none)
    next_from: int = 0      # where another command may start at the earliest: past its keyword, and for a
    #                         command of several slots ("attack {player} and {player}") past its last slot's start


@dataclass(frozen=True)
class _Compiled:
    command: Command
    template: str
    group: str
    slots: tuple[tuple[str, str, str], ...]   # (slot name, type, regex group)
    literal_length: int


def _literal_regex(literal: str, typos: bool = False, at_end: bool = False) -> str:
    """The regex for a literal part of a template: whitespace flexible, е/ё folded, `:` also `;`, a closing
    tag any closing tag (or, at the end of the template, the end of the text); with `typos`, a first word
    of four letters or more also with two neighbouring letters swapped."""
    tag = _CLOSING_TAG.search(literal)
    if tag is not None:
        closing = r"(?:\[/[^\[\]\n]{0,40}\]" + (r"|\s*$)" if at_end and not literal[tag.end():].strip() else ")")
        return (_literal_regex(literal[:tag.start()], typos) + closing
                + _literal_regex(literal[tag.end():], at_end=at_end))
    word = _FIRST_WORD.match(literal) if typos else None
    if word is not None:
        text = word.group()
        swaps = {text[:i] + text[i + 1] + text[i] + text[i + 2:] for i in range(len(text) - 1)} - {text}
        variants = [_literal_regex(v) for v in sorted(swaps)]
        # one stray character after the second letter: "vot6e", "unvo-te" (the first two stay, for may_start)
        variants += [_literal_regex(text[:i]) + r"[^\s\[\]]" + _literal_regex(text[i:]) for i in range(2, len(text))]
        return f"(?:{_literal_regex(text)}|{'|'.join(variants)})" + _literal_regex(literal[word.end():])
    out: list[str] = []
    chars = list(literal)
    for index, char in enumerate(chars):
        if char.isspace():
            if out and out[-1] in (r"\s+", r"\s*"):
                continue
            before = chars[index - 1] if index else ""
            after = chars[index + 1] if index + 1 < len(chars) else ""
            word_both = (before == "" or before.isalnum()) and (after == "" or after.isalnum())
            out.append(r"\s+" if word_both else r"\s*")
        elif char in "её":
            out.append("[её]")
        elif char in "ЕЁ":
            out.append("[ЕЁ]")
        elif char == ":":
            out.append("[:;]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def _compile_template(command: Command, template: str, number: int) -> tuple[str, _Compiled]:
    """A template as a regex alternative with uniquely named groups."""
    group = f"t{number}"
    parts: list[str] = []
    slots: list[tuple[str, str, str]] = []
    literal_length = 0
    position = 0
    text = unicodedata.normalize("NFKC", template.strip())
    found = list(_SLOT.finditer(text))
    typos = command.kind in _TYPO_KINDS
    for index, slot in enumerate(found):
        literal = text[position:slot.start()]
        literal_length += len(literal.strip())
        parts.append(_literal_regex(literal, typos=typos and not index))
        name, kind = slot.group(1), slot.group(2) or slot.group(1)
        if kind not in SLOT_TYPES:
            raise ValueError(f"slot {{{slot.group(0)[1:-1]}}} has an unknown type '{kind}'; "
                             f"types: {', '.join(SLOT_TYPES)}")
        slot_group = f"{group}_{len(slots)}"
        last = index == len(found) - 1 and not text[slot.end():].strip()
        if kind == "text":
            parts.append(f"(?P<{slot_group}>.+)" if last else f"(?P<{slot_group}>.+?)")
        else:
            limit = SLOT_LIMIT if last else _INNER_LIMIT[kind]
            parts.append(f"(?P<{slot_group}>.{{1,{limit}}})" if last else f"(?P<{slot_group}>.{{1,{limit}}}?)")
        slots.append((name, kind, slot_group))
        position = slot.end()
    tail = text[position:]
    literal_length += len(tail.strip())
    tail_regex = _literal_regex(tail, typos=typos and not found, at_end=True)
    if not found and tail.startswith("[") and not tail.startswith("[/"):
        tail_regex = r"\[/?" + tail_regex[2:]        # "[/unvote]" typed for "[unvote]"
    parts.append(tail_regex)
    if tail.strip() and tail.strip()[-1].isalnum():
        parts.append(r"(?!\w)")   # "unvote" must not match "unvoted"
    if not literal_length:
        raise ValueError("a template needs some literal text besides its slots")
    pattern = f"(?P<{group}>{''.join(parts)})"
    return pattern, _Compiled(command, template, group, tuple(slots), literal_length)


class Grammar:
    """The commands of one game in one language, compiled for matching lines."""

    def __init__(self, game: str, lang: str, commands: Iterable[Command],
                 no_lynch_words: Iterable[str] = (), source: str = "<grammar>",
                 readings: dict[str, str] | None = None, unvote_words: Iterable[str] = (),
                 restate_words: Iterable[str] = ()) -> None:
        self.game = game
        self.lang = lang
        self.source = source
        self.readings: dict[str, str] = dict(readings or {})   # dialect → default reading mode
        self.commands: tuple[Command, ...] = tuple(commands)
        self.no_lynch_words: tuple[str, ...] = tuple(no_lynch_words)
        # In a vote's {player} slot: words that mean an unvote ("[vote]Unvote[/vote]", "[vote]снимаю[/vote]"),
        # and words that restate the vote one has ("Vote stands."): no change.
        self.unvote_words: tuple[str, ...] = tuple(unvote_words)
        self.restate_words: tuple[str, ...] = tuple(restate_words)
        # (kind, template) written as an explicit command, by any command of that kind (a host's game config
        # may make a shipped template explicit by listing it again)
        self.explicit = frozenset((c.kind, " ".join(t.lower().split())) for c in self.commands for t in c.explicit)
        compiled: list[tuple[str, _Compiled]] = []
        for command in self.commands:
            for template in command.templates:
                try:
                    compiled.append(_compile_template(command, template, len(compiled)))
                except ValueError as err:
                    raise ConfigError(f"template '{template}': {err}", path=source,
                                      fix="write slots as {player} or {name:type}") from None
        # Longest literal first: Python's alternation takes the first alternative that matches. Templates
        # that start with a slot ("{src:square}->{dst:square}") have a regex of their own, tried only on
        # lines that hold the text after that slot: a post of "a. a. a." never pays for them.
        compiled.sort(key=lambda item: -item[1].literal_length)
        self._by_group = {item.group: item for _, item in compiled}
        lead = [(p, c) for p, c in compiled if not c.template.strip().startswith("{")]
        slot_first = [(p, c) for p, c in compiled if c.template.strip().startswith("{")]
        self._regex = _alternation(lead)
        self._slot_regex = _alternation(slot_first) if slot_first else None
        self._anchors = tuple(sorted({_anchor(c.template) for _, c in slot_first}))
        self._keys, self._short_keys = _start_keys(c for _, c in lead)
        # The same as a regex (for forumbot.text.reading.starts): what a literal-first command starts with.
        self.start_pattern = _trie(self._keys | self._short_keys)

    def match(self, line: str, where: str = "thread") -> Match | None:
        """The command a line starts with, or None. `where` is "thread" or "pm"."""
        text = unicodedata.normalize("NFKC", line)
        return self.match_at(text, len(text) - len(text.lstrip()), where, None, self.slot_line(text))

    def may_start(self, text: str, at: int) -> bool:
        """Whether a template that starts with literal text could start at `at` (its first two characters)."""
        key = text[at:at + 2].lower().replace("ё", "е")
        if len(key) == 2 and key[1].isspace():
            key = key[0] + " "
        return key in self._keys or key[:1] in self._short_keys

    def slot_line(self, text: str) -> bool:
        """Whether a template that starts with a slot could match somewhere in this line."""
        if self._slot_regex is None:
            return False
        folded = text.lower().replace("ё", "е")
        return any(anchor in folded for anchor in self._anchors)

    def match_all(self, line: str, where: str = "thread") -> list[Match]:
        """Every command that starts the line or one of its sentences ("Передумал. Голосую против X")."""
        text = unicodedata.normalize("NFKC", line)
        slots_first = self.slot_line(text)
        found = []
        for start in (0, *(m.end() for m in _SENTENCE_END.finditer(text))):
            match = self.match_at(text, start, where, None, slots_first)
            if match is not None:
                found.append(match)
        return found

    def match_at(self, text: str, start: int, where: str = "thread", end: int | None = None,
                 slots_first: bool = True) -> Match | None:
        """The command that starts at `start` of an already normalized text (reading no further than
        `end`), or None. `slots_first=False` skips the templates that start with a slot (the caller knows
        from slot_line() that the line cannot hold one). The Match's positions are positions in `text`."""
        end = len(text) if end is None else end
        best = None
        lead = start
        while lead < end and text[lead].isspace():
            lead += 1
        if self.may_start(text, lead):
            best = self._regex.match(text, start, end)
        if slots_first and self._slot_regex is not None:
            other = self._slot_regex.match(text, start, end)
            if other is not None and (best is None or self._by_group[other.lastgroup or ""].literal_length
                                      > self._by_group[best.lastgroup or ""].literal_length):
                best = other
        if best is None:
            return None
        compiled = self._by_group[best.lastgroup or ""]
        if compiled.command.where not in (where, "any"):
            return None
        slots = {name: (best.group(group) or "").strip() for name, _, group in compiled.slots}
        types = {name: kind for name, kind, _ in compiled.slots}
        first_slot = best.start(compiled.slots[0][2]) if compiled.slots else best.end()
        next_from = best.start(compiled.slots[-1][2]) + 1 if len(compiled.slots) > 1 else first_slot
        if compiled.slots and compiled.slots[-1][1] == "players":
            next_from = best.end()   # a list of names takes the rest (the parser resumes where a command starts)
        return Match(compiled.command, compiled.template, slots, types, best.start(compiled.group), best.end(),
                     first_slot, next_from)

    def is_explicit(self, match: Match) -> bool:
        """Whether a match is written as an explicit command, which counts in every reading mode ("##vote X")."""
        return match.template.startswith(EXPLICIT) or \
            (match.command.kind, " ".join(match.template.lower().split())) in self.explicit

    def with_commands(self, extra: Iterable[Command], source: str) -> Grammar:
        """This grammar with a host's extra commands (synonyms) added."""
        return Grammar(self.game, self.lang, (*self.commands, *extra), self.no_lynch_words,
                       source=f"{self.source} + {source}", readings=self.readings,
                       unvote_words=self.unvote_words, restate_words=self.restate_words)


def _trie(keys: Iterable[str]) -> str:
    """A regex for a set of one- or two-character keys, grouped by first character so that the engine
    rejects a position on its first character ("vo|vt|un" → "v(?:o|t)|un")."""
    def char(ch: str) -> str:
        return r"\s" if ch == " " else "[её]" if ch == "е" else re.escape(ch)

    by_first = _by_first(keys)
    # A class of the first characters up front lets the regex engine skip ahead in C (forty times faster on
    # a long text with no command than trying every branch at every position).
    firsts = "".join(re.escape(c) + re.escape(c.upper()) + ("ёЁ" if c == "е" else "") for c in sorted(by_first))
    branches = []
    for first, seconds in sorted(by_first.items()):
        if "" in seconds:
            branches.append(char(first))
        else:
            branches.append(char(first) + "(?:" + "|".join(char(c) for c in sorted(seconds)) + ")")
    pattern = f"(?=[{firsts}])(?:{'|'.join(branches)})" if branches else "(?!)"
    return pattern


def _by_first(keys: Iterable[str]) -> dict[str, set[str]]:
    """One- or two-character keys grouped by their first character: the second characters of each ("" for a
    key of one)."""
    by_first: dict[str, set[str]] = {}
    for key in keys:
        by_first.setdefault(key[0], set()).add(key[1:])
    return by_first


def _alternation(compiled: list[tuple[str, _Compiled]]) -> re.Pattern[str]:
    alternatives = "|".join(pattern for pattern, _ in compiled) or "(?!)"
    return re.compile(rf"\s*(?:{alternatives})", re.IGNORECASE)


def _anchor(template: str) -> str:
    """The longest word of the literal text after a template's first slot, lower case, ё as е: a line
    without it cannot match the template."""
    text = unicodedata.normalize("NFKC", template.strip())
    first = _SLOT.match(text)
    after = text[first.end():] if first else text
    found = _SLOT.search(after)
    words = (after[:found.start()] if found else after).lower().replace("ё", "е").split()
    return max(words, key=len) if words else ""


def _start_keys(compiled: Iterable[_Compiled]) -> tuple[frozenset[str], frozenset[str]]:
    """The first two characters (lower case, ё as е, a space for any whitespace) every template that starts
    with literal text may begin with, typos and `;` for `:` included; and the first characters of those
    whose literal start is one character long."""
    keys: set[str] = set()
    short: set[str] = set()
    for item in compiled:
        text = unicodedata.normalize("NFKC", item.template.strip()).lower().replace("ё", "е")
        head = text.split("{", 1)[0]
        variants = {head, head.replace(":", ";")}
        if head.startswith("[") and not head.startswith("[/") and "{" not in text:
            variants.add("[/" + head[1:])            # "[/unvote]" typed for "[unvote]"
        word = _FIRST_WORD.match(head) if item.command.kind in _TYPO_KINDS else None
        if word is not None:
            first = word.group()
            variants |= {first[:i] + first[i + 1] + first[i] + first[i + 2:] + head[word.end():]
                         for i in range(len(first) - 1)}
        for variant in variants:
            if len(variant) < 2:
                short.add(variant[:1])
                continue
            keys.add(variant[0] + (" " if variant[1].isspace() else variant[1]))
            rest = variant[1:].lstrip()
            if variant[1].isspace() and rest:
                keys.add(variant[0] + rest[0])      # a space next to punctuation may be missing
    return frozenset(keys), frozenset(short)


def commands_from_toml(entries: Any, doc: TomlFile, where_key: str = "commands") -> list[Command]:
    """[[commands]] tables as Command values. Raises ConfigError naming the line of a bad entry."""
    if not isinstance(entries, list):
        raise doc.error(f"'{where_key}' must be a list of tables", where_key,
                        fix=f"write each command as [[{where_key}]] with kind and templates")
    commands = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise doc.error(f"each of '{where_key}' must be a table", where_key)
        for key in entry:
            if key not in _COMMAND_KEYS:
                raise doc.error(f"unknown key '{key}' in a command", key, fix=unknown_key_fix(key, _COMMAND_KEYS))
        kind = entry.get("kind")
        templates = entry.get("templates")
        if not isinstance(kind, str) or not kind:
            raise doc.error("a command needs kind = \"...\"", "templates",
                            fix='add kind = "vote" (or unvote, no_lynch, action, ...)')
        if not isinstance(templates, list) or not templates or not all(isinstance(t, str) for t in templates):
            raise doc.error(f"command '{kind}' needs templates = [\"...\"]", kind,
                            fix='add templates = ["vote {player}"]')
        where = entry.get("where", "thread")
        if where not in WHERE:
            raise doc.error(f"where = '{where}' is not one of {', '.join(WHERE)}", str(where))
        data = entry.get("data", {})
        if not isinstance(data, dict):
            raise doc.error("data must be a table, like data = { final = true }", "data")
        explicit = entry.get("explicit", [])
        if not isinstance(explicit, list) or any(t not in templates for t in explicit):
            raise doc.error(f"command '{kind}': explicit = [...] lists some of its templates", "explicit",
                            fix=f'for example explicit = ["{templates[0]}"]')
        commands.append(Command(kind, tuple(templates), dict(data), where, tuple(explicit)))
    return commands


def grammar_path(game: str, lang: str, folder: Path | None = None) -> Path:
    return (folder or data_dir("parsers")) / f"{game}.{lang}.toml"


def load_grammar(game: str, lang: str, folder: Path | None = None) -> Grammar:
    """The grammar parsers/<game>.<lang>.toml. Raises ConfigError when missing or malformed."""
    path = grammar_path(game, lang, folder)
    if not path.exists():
        have = sorted(p.name for p in path.parent.glob(f"{game}.*.toml"))
        games = sorted({p.name.split(".")[0] for p in path.parent.glob("*.*.toml")} - {"host"})
        close = difflib.get_close_matches(game, games, n=1)
        raise ConfigError(f"no grammar for game '{game}' in language '{lang}'", path=str(path),
                          fix=("languages available: " + ", ".join(have)) if have
                          else f"did you mean '{close[0]}'? (games: {', '.join(games)})" if close
                          else f"games: {', '.join(games)}; or create {path.name} (see parsers/mafia.en.toml for "
                               "the form)")
    doc = load_toml(path)
    commands = commands_from_toml(doc.data.get("commands", []), doc)
    slots = doc.data.get("slots", {})
    player = slots.get("player", {}) if isinstance(slots, dict) else {}
    words: dict[str, list[str]] = {}
    for key in ("no_lynch", "unvote", "restate"):
        listed = player.get(key, []) if isinstance(player, dict) else []
        if not isinstance(listed, list) or not all(isinstance(word, str) for word in listed):
            raise doc.error(f"[slots.player] {key} must be a list of strings", key)
        words[key] = listed
    readings = doc.data.get("reading", {})
    if not isinstance(readings, dict) or not all(v in READINGS for v in readings.values()):
        raise doc.error("reading must map dialects to " + ", ".join(READINGS), "reading",
                        fix='write reading = { bbcode = "bold" }')
    return Grammar(game, lang, commands, words["no_lynch"], source=str(path), readings=readings,
                   unvote_words=words["unvote"], restate_words=words["restate"])
