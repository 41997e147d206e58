"""Reading a ranking ("1. Food Chain 2. 123 Game ...", "Food Chain > 123 Game > ...") against the choices,
and the count: the most #1 picks wins; on a tie every option that did not tie for first is dropped and its
ballots move to their highest remaining option, until one is left."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from forumbot.model import PlayerRef
from forumbot.text.names import Roster

# Between two items: ">", ",", ";", or the number of the next one ("2.", "3)", "#4").
_SPLIT = re.compile(r"\s*(?:>|→|,|;|\s#?\d{1,2}\s*[.):]\s|\s#\d{1,2}\s)\s*")
_LEADING_NUMBER = re.compile(r"^\s*#?\d{1,2}\s*[.):]?\s+")


def split_items(text: str, limit: int | None = None) -> list[str]:
    """The items of a ranking as written, in order (the first `limit` of them: a PM's every command holds the
    rest of its text, and splitting 90 KB a hundred times took most of a second)."""
    text = _LEADING_NUMBER.sub("", " ".join(text.split()))
    pieces = _SPLIT.split(f"{text} ", maxsplit=0 if limit is None else 2 * limit + 2)
    return [item.strip(" .") for item in pieces if item.strip(" .")][:limit]


def _initials(name: str) -> str:
    return "".join(word[0] for word in name.split() if word)


@lru_cache(maxsize=32)
def roster_of(choices: tuple[str, ...], aliases: tuple[tuple[str, tuple[str, ...]], ...]) -> Roster:
    """The choices as a roster, so they are matched like player names (prefixes, typos), with their
    initials ("FC") as aliases where those are unique."""
    given = dict(aliases)
    initials = [_initials(c) for c in choices]
    refs = []
    for choice, short in zip(choices, initials, strict=True):
        extra = list(given.get(choice, ()))
        if len(short) > 1 and initials.count(short) == 1 and short.lower() not in (c.lower() for c in choices):
            extra.append(short)
        refs.append(PlayerRef(choice, tuple(extra)))
    return Roster(refs, lang="en")


@dataclass(frozen=True)
class Item:
    """One place of a ranking: the choice it names, or the text that named none (`problem` says why, as a
    problem of `problems`)."""

    written: str
    choice: str | None
    problem: dict[str, Any] | None = None


def read_items(text: str, roster: Roster, limit: int | None = None) -> list[Item]:
    """The items of a ranking, each matched to a choice; past `limit` items none is read (one place more than
    there are choices already makes the ranking wrong, and matching 30,000 items of a long PM took seconds)."""
    items = []
    for written in split_items(text, limit):
        found = roster.resolve(written)
        if found.ok:
            items.append(Item(written, found.name))
        elif found.method == "ambiguous":
            items.append(Item(written, None, _problem(f"'{written}' could be {' or '.join(found.candidates)}",
                                                      "ambiguous", query=written, names=", ".join(found.candidates))))
        else:
            items.append(Item(written, None, _problem(f"'{written}' is not one of the choices", "unknown",
                                                      query=written)))
    return items


def _problem(reason: str, code: str, **params: Any) -> dict[str, Any]:
    """What is wrong with a ranking: the English `reason`, and a `code` (phrase rv_problem_<code>) with its
    `params` for the voter's language."""
    return {"reason": reason, "code": code, "params": params}


def problems(draft: dict[int, Item], choices: tuple[str, ...],
             fill_last: bool) -> tuple[list[str] | None, list[dict[str, Any]]]:
    """The full ranking a draft makes (None when it makes none) and, when none, what is wrong with it."""
    wrong = [item.problem for _, item in sorted(draft.items()) if item.choice is None and item.problem]
    named = [draft[p].choice for p in sorted(draft) if draft[p].choice is not None]
    twice = sorted({c for c in named if named.count(c) > 1})
    missing = [c for c in choices if c not in named]
    gaps = [str(p) for p in range(1, len(choices) + 1) if p not in draft]
    extra = [str(p) for p in draft if p > len(choices)]
    if fill_last and not wrong and not twice and len(missing) == 1 and gaps == [str(len(choices))]:
        return [str(c) for c in named] + missing, []
    if not wrong and not twice and not missing and not gaps and not extra:
        return [str(c) for c in named], []
    out = list(wrong)
    out += [_problem(f"{c} is ranked more than once", "twice", query=c) for c in twice]
    if missing:
        out.append(_problem("not ranked: " + ", ".join(missing), "missing", names=", ".join(missing)))
    if gaps and len(gaps) != len(missing):
        out.append(_problem("no choice at place " + ", ".join(gaps), "gaps", names=", ".join(gaps)))
    if extra:
        out.append(_problem(f"there are only {len(choices)} places", "extra", count=len(choices)))
    return None, out


def count(ballots: dict[str, list[str]], choices: tuple[str, ...], final_tie: str = "default_order",
          default_order: tuple[str, ...] = (), seed: str = "") -> tuple[str, list[dict[str, Any]]]:
    """The winner and the rounds: each round's count of first picks among the options still in contention,
    the options dropped, and whose ballots moved where. Every ballot ranks every choice."""
    contenders = list(choices)
    rounds: list[dict[str, Any]] = []
    previous: dict[str, str] = {}
    while True:
        tops = {p: next(c for c in ranking if c in contenders) for p, ranking in ballots.items()}
        moved = {p: tops[p] for p in tops if p in previous and previous[p] != tops[p]}
        counts = {c: sum(1 for t in tops.values() if t == c) for c in contenders}
        best = max(counts.values())
        tied = [c for c in contenders if counts[c] == best]
        entry: dict[str, Any] = {"round": len(rounds) + 1, "counts": counts, "moved": moved, "tied": tied,
                                 "dropped": []}
        rounds.append(entry)
        if len(tied) == 1:
            return tied[0], rounds
        if len(tied) == len(contenders):
            order = list(default_order) or list(choices)
            if final_tie == "random":
                winner = random.Random(f"{seed}:final_tie").choice(sorted(tied))
            else:
                winner = min(tied, key=order.index)
            entry["decided_by"] = final_tie
            return winner, rounds
        entry["dropped"] = [c for c in contenders if c not in tied]
        contenders = tied
        previous = tops
