"""From a post to intents: clean the text, match each line against the grammar, resolve player names.

Unknown or ambiguous names never become a guess: the intent keeps `target = None` with the text that
failed in `unresolved`, and a Flag carries the reason and the candidates for the host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from forumbot.grammar import Grammar, Match
from forumbot.model import Flag, Intent, Post
from forumbot.text.clean import clean
from forumbot.text.names import Roster
from forumbot.text.normalize import tokens

# The slot named "player" is the target of the command; other slots keep their own names.
_FIELD_OF_SLOT = {"player": "target"}


@dataclass
class Parsed:
    """What one post asks for, in order, and what the host should look at."""

    intents: list[Intent] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"intents": [i.to_json() for i in self.intents], "flags": [f.to_json() for f in self.flags]}


class PostParser:
    """Reads posts of one game: its grammar and its roster."""

    def __init__(self, grammar: Grammar, roster: Roster) -> None:
        self.grammar = grammar
        self.roster = roster
        self._no_lynch = [tuple(tokens(word)) for word in grammar.no_lynch_words]

    def parse(self, post: Post) -> Parsed:
        """The intents of a stored post (its thread decides thread or PM commands)."""
        return self.parse_text(post.body, post.dialect, where="pm" if post.pm else "thread",
                               author=post.author, post_id=post.platform_id, at=post.created, url=post.url)

    def parse_text(self, text: str, dialect: str = "plain", *, where: str = "thread", author: str = "",
                   post_id: str = "", at: datetime | None = None, url: str = "") -> Parsed:
        """The intents of raw post text. Never raises for any text (a bad dialect is a ConfigError)."""
        parsed = Parsed()
        more: str | None = None   # the text slot that takes the following lines (a note of several lines)
        for line in clean(text, dialect).splitlines():
            matches = self.grammar.match_all(line, where)
            if not matches and more is not None and parsed.intents:
                last = parsed.intents[-1]
                last.data[more] = f"{last.data.get(more, '')}\n{line}".strip("\n")
                continue
            more = None
            for found in matches:
                self._add(parsed, found, line, author, post_id, at, url)
                more = found.command.data.get("more_lines")
        return parsed

    def _is_no_lynch(self, text: str) -> bool:
        words = tuple(tokens(text))
        return any(words[:len(phrase)] == phrase for phrase in self._no_lynch if phrase)

    def _add(self, parsed: Parsed, found: Match, line: str, author: str, post_id: str,
             at: datetime | None, url: str) -> None:
        kind = found.command.kind
        data: dict[str, Any] = {k: v for k, v in found.command.data.items() if k != "more_lines"}
        for slot, raw in found.slots.items():
            slot_type = found.slot_types[slot]
            name = _FIELD_OF_SLOT.get(slot, slot)
            if slot_type != "player":
                data[name] = raw
                continue
            if kind == "vote" and self._is_no_lynch(raw):
                kind = "no_lynch"
                continue
            resolution = self.roster.resolve(raw)
            if resolution.ok:
                data[name] = resolution.name
                if resolution.method != "exact":
                    data.setdefault("matched", {})[name] = f"{resolution.matched} ({resolution.method})"
                continue
            data[name] = None
            data.setdefault("unresolved", {})[name] = raw
            error = resolution.error()
            reason = str(error) if error else f"'{raw}' is not a player"
            data["error"] = reason
            data.setdefault("error_code", {})[name] = {
                "code": "name_ambiguous" if resolution.method == "ambiguous" else "name_unknown",
                "params": {"query": raw, "candidates": ", ".join(resolution.candidates)}}
            parsed.flags.append(Flag(reason=reason,
                                     post_id=post_id, author=author, at=at,
                                     candidates=resolution.candidates, line=line))
        if kind == "vote" or (kind == "no_lynch" and "final" in data):
            data["final"] = bool(data.get("final", False))
        parsed.intents.append(Intent(kind, data, post_id=post_id, author=author, at=at, line=line, url=url))
