"""The players of an audited thread when nobody gave a roster: the thread's posters and the names in the
host's counts, one slot each, with the host's "X replaces Y" announcements making X an alias of Y's slot.
And the other way round: a name as the host wrote it, mapped to a slot."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from forumbot.audit.hostcount import HostCount
from forumbot.model import PlayerRef
from forumbot.text.clean import clean
from forumbot.text.names import Roster

_NAME = r"[^\s,.!?:;()\[\]]+(?:\s[^\s,.!?:;()\[\]]+){0,3}"
# (pattern, which group is the new account)
REPLACEMENTS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?P<new>{_NAME})\s+(?:(?:is|has)\s+)?(?:now\s+)?(?:replac(?:es|ed|ing)|subb?(?:ing|ed|s)?\s+in\s+for"
               rf"|is\s+in\s+for)\s+(?P<old>{_NAME})", re.IGNORECASE),
    re.compile(rf"(?P<old>{_NAME})\s+(?:is|has\s+been|was)\s+replaced\s+by\s+(?P<new>{_NAME})", re.IGNORECASE),
    re.compile(rf"(?P<new>{_NAME})\s+(?:заменяет|заменил[аи]?|вместо)\s+(?P<old>{_NAME})", re.IGNORECASE),
    re.compile(rf"замена\s*:?\s+(?P<old>{_NAME})\s+на\s+(?P<new>{_NAME})", re.IGNORECASE),
)


def known_run(words: list[str], known: Callable[[str], str | None], tail: bool) -> str | None:
    """The longest run of words at the end (tail) or the start of `words` that names someone known."""
    runs = [words[i:] for i in range(len(words))] if tail else [words[:i] for i in range(len(words), 0, -1)]
    for run in runs:
        found = known(" ".join(run))
        if found:
            return found
    return None


def replacements(host_texts: Iterable[str], known: Callable[[str], str | None],
                 dialect: str = "bbcode") -> list[tuple[str, str]]:
    """(new, old) pairs from the host's posts. Each side must name someone `known` (a poster or a name of
    the counts), so "Aaaaand chamber replaces Miztef!" gives (chamber, Mitzef)."""
    pairs: list[tuple[str, str]] = []
    for text in host_texts:
        for line in clean(text, dialect).splitlines():
            for pattern in REPLACEMENTS:
                for match in pattern.finditer(line):
                    new = known_run(match.group("new").split(), known, tail=True)
                    old = known_run(match.group("old").split(), known, tail=False)
                    if new and old and new.lower() != old.lower() and (new, old) not in pairs:
                        pairs.append((new, old))
    return pairs


def count_names(counts: Iterable[HostCount]) -> list[str]:
    names: list[str] = []
    for count in counts:
        for wagon in count.wagons:
            names += [n for n in (wagon.target, *wagon.voters) if n != "no_lynch"]
        names += list(count.not_voting)
    return names


FUZZY_FLOOR = 90.0      # a host's spelling read by fuzzy matching must score this much ("Zornos" 92)


def resolve(roster: Roster, name: str) -> str | None:
    """The player a host's name means: the whole name (or the name without its spaces, "Darth Yoshi" for
    DarthYoshi), through the roster's exact, alias, prefix and shape rules, or a close fuzzy match
    (≥ FUZZY_FLOOR: "chamber" is not "Cyberbob"); None when it is nobody's."""
    found = None
    for text in (name, name.replace(" ", "")):
        res = roster.resolve(text)
        if not res.ok or (res.method == "fuzzy" and (res.score or 0) < FUZZY_FLOOR):
            continue
        if not res.rest:
            return res.name
        found = found or res.name
    return found


def build_roster(posters: Sequence[str], counts: Sequence[HostCount], host_texts: Sequence[str], *,
                 host: str | None = None, lang: str = "en", dialect: str = "bbcode") -> list[PlayerRef]:
    """A roster from the thread: every poster but the host, then every name in the counts that is no
    poster's; a replacement joins the slot it replaced (named after the replaced player)."""
    host_key = (host or "").lower()
    names = [n for n in dict.fromkeys(posters) if n.lower() != host_key]
    if names:
        base = Roster([PlayerRef(n) for n in names], lang=lang)
        extra = [n for n in dict.fromkeys(count_names(counts))
                 if n.lower() != host_key and resolve(base, n) is None]
    else:
        extra = list(dict.fromkeys(n for n in count_names(counts) if n.lower() != host_key))
    first: dict[str, str] = {}
    for name in [*names, *extra]:
        first.setdefault(name.lower(), name)     # the first spelling of each
    names = list(first.values())
    if not names:
        return []
    everyone = Roster([PlayerRef(n) for n in names], lang=lang)
    pairs = replacements(host_texts, lambda text: resolve(everyone, text), dialect)
    aliases: dict[str, list[str]] = {}
    merged: dict[str, str] = {}                 # a replacement's name → the slot it plays
    for new, old in pairs:
        slot = merged.get(old, old)
        if new in aliases or slot == new:
            continue                            # a chain back onto itself
        aliases.setdefault(slot, []).append(new)
        merged[new] = slot
    return [PlayerRef(n, tuple(aliases.get(n, ()))) for n in names if n not in merged]
