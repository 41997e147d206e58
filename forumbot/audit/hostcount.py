"""A human host's vote count post, read back into wagons: target → voters, as the host wrote them.

The layouts hosts use (see README, "Auditing a host's counts"): `Name (n): voter, voter`, `Name (L-2) - a, b`,
`Name [3] — a`, `Name (LYNCH)`, no separator at all (`Name (2) a, b`), list numbers and `>>>` markers in
front, each voter's post number `a (123)` behind, `LYNCHED.` or `[LYNCH!]` at the end. Quoted and struck
text is dropped first (the shared cleaner), so a voter the host struck out is not on the wagon. Names stay
as the host spelled them; the roster maps them to players.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from forumbot.text.clean import clean

_TAG = re.compile(r"\[/?[a-z*][a-z0-9*]*(?:=[^\]\n]*)?\]", re.IGNORECASE)
_LEAD = re.compile(r"^\s*(?:(?:\d{1,3}[.)]|>{2,}|#+)\s*|[-*•·]\s+)+")
_COUNT = r"(?:\d{1,3}|L\s*-\s*\d{1,3}|lynch(?:ed)?!?|hammer(?:ed)?!?)"
_WAGON = re.compile(r"^(?P<target>[^()\[\]:\n]{1,60}?)\s*[(\[]\s*(?P<count>" + _COUNT + r")\s*[)\]]"
                    r"\s*(?:[:\-—–=]+\s*)?(?P<voters>.*)$", re.IGNORECASE)
_NOT_VOTING = re.compile(r"^(?:not\s+voting|no\s+votes?|не\s+голосу\w*|не\s+проголосовал\w*|без\s+голоса)"
                        r"\s*(?:[(\[]\s*\d{1,3}\s*[)\]])?\s*[:\-—–=]*\s*(?P<voters>.*)$", re.IGNORECASE)
_TRAIL = re.compile(r"\s*(?:[(\[]\s*(?:\d{1,6}|L\s*-\s*\d+|lynch(?:ed)?!?)\s*[)\]]|<{2,}|lynched\.?|hammered\.?"
                    r"|[.!]+)\s*$", re.IGNORECASE)
# No `\s*` around the separator: tried at each space of a long run of them, it backtracked over the whole run
# (a 100 KB voter list took minutes); the pieces are stripped instead.
_SPLIT = re.compile(r"[,;]|\s\+\s|\s&\s|\band\b|\sи\s", re.IGNORECASE)
_HEADING = re.compile(r"vote\s*count|votecount|\bvc\b|подсч[её]т|итоги\s+голосования|голоса\s*:", re.IGNORECASE)
_LYNCH_MARK = re.compile(r"lynch(?:ed)?\b|hammer|казн[её]н|повешен", re.IGNORECASE)
NOBODY = frozenset({"nobody", "none", "no one", "-", "—", "никто", "нет", "everybody", "everyone", "все"})
NO_LYNCH = frozenset({"no lynch", "no-lynch", "nolynch", "no execution", "ннв", "никого", "не линчевать",
                      "no elimination", "sleep"})


@dataclass(frozen=True)
class Wagon:
    target: str                      # as the host wrote it ("no_lynch" for a no-lynch wagon)
    voters: tuple[str, ...]
    line: str                        # the host's line, cleaned
    lynch: bool = False              # the line says this wagon hanged its target


@dataclass(frozen=True)
class HostCount:
    wagons: tuple[Wagon, ...]
    not_voting: tuple[str, ...] = ()
    lines: tuple[str, ...] = field(default=())

    @property
    def lynched(self) -> str | None:
        return next((w.target for w in self.wagons if w.lynch), None)


_TRAIL_WINDOW, _TRAIL_ROUNDS = 200, 20


def _untrailed(name: str) -> str:
    """The name without the marks behind it (post numbers, `<<<`, `LYNCHED.`), one at a time. Each is looked
    for in the name's last 200 characters and at most 20 are taken: `_TRAIL` tried at every position of a long
    line backtracks over its whitespace, and a 100 KB voter list took minutes."""
    for _ in range(_TRAIL_ROUNDS):
        found = _TRAIL.search(name, max(0, len(name) - _TRAIL_WINDOW))
        if found is None:
            break
        name = name[:found.start()].strip(" \t:-—–")
    return name


def _names(text: str) -> tuple[str, ...]:
    out = []
    for piece in _SPLIT.split(text):
        name = _untrailed(piece.strip().strip(" \t:-—–"))
        if name and name.lower() not in NOBODY:
            out.append(name)
    return tuple(out)


_QUOTE_TAG = re.compile(r"\[(/?)quote(?:=[^\]]*)?\]", re.IGNORECASE)


def _without_stray_closers(text: str) -> str:
    """The text without closing quote tags that close nothing. The cleaner takes the text before a stray
    `[/quote]` for quoted (a player's vote must never come from someone else's words); a host's count
    before one is most often the host quoting their own post, and is read."""
    depth, out, at = 0, [], 0
    for match in _QUOTE_TAG.finditer(text):
        if match.group(1):
            if depth == 0:
                out.append(text[at:match.start()])
                at = match.end()
                continue
            depth -= 1
        else:
            depth += 1
    return "".join(out) + text[at:]


def _plain_lines(text: str, dialect: str) -> list[str]:
    cleaned = clean(_without_stray_closers(text) if dialect == "bbcode" else text, dialect)
    return [_TAG.sub("", line).strip() for line in cleaned.splitlines()]


def read_count(text: str, dialect: str = "bbcode") -> HostCount | None:
    """The vote count in a host's post, or None when the post holds none. A post counts as a vote count
    when it has a wagon line and either a second one, a "Not voting" line or a heading ("Vote Count")."""
    wagons: list[Wagon] = []
    not_voting: tuple[str, ...] | None = None
    lines: list[str] = []
    for line in _plain_lines(text, dialect):
        body = _LEAD.sub("", line)
        nv = _NOT_VOTING.match(body)
        if nv:
            not_voting = _names(nv.group("voters"))
            lines.append(line)
            continue
        match = _WAGON.match(body)
        if not match:
            continue
        target = match.group("target").strip(" \t:-—–")
        if not target or len(target.split()) > 5:
            continue
        voters = match.group("voters")
        lynch = bool(_LYNCH_MARK.search(match.group("count"))) or bool(re.search(r"(?i)\blynched\b|\[lynch!?\]",
                                                                                   voters))
        key = target.lower()
        wagons.append(Wagon("no_lynch" if key in NO_LYNCH else target, _names(voters), line, lynch))
        lines.append(line)
    heading = bool(_HEADING.search(_TAG.sub(" ", text.replace("=", " "))))
    if not wagons and not (not_voting is not None and heading):
        return None
    if len(wagons) < 2 and not_voting is None and not heading:
        return None
    return HostCount(tuple(wagons), not_voting or (), tuple(lines))
