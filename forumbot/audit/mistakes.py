"""The host's own mistakes in an audit, each told once: the differences forumbot is sure of, grouped.

A mistake is one voter wrong in the same way in the host's counts one after another on one day: a missed
unvote the host carries through five counts is one mistake touching five voter entries. Kinds:

  unvote_missed   the host still counts a vote the voter withdrew
  switch_missed   the voter moved to another wagon; the host kept them on the old one
  vote_missed     the voter voted; the host has them on no wagon
  two_wagons      the host put the voter on two wagons at once
  other           the host counts a vote forumbot never saw made (or reads it another way)

Only sure differences are mistakes (see forumbot/audit/audit.py for sure and unsure): where forumbot itself
might have misread, nobody is accused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from forumbot.audit.audit import AuditResult, CountCheck, Difference

KINDS = ("unvote_missed", "switch_missed", "vote_missed", "two_wagons", "other")


@dataclass
class Mistake:
    kind: str
    voter: str
    day: int
    host: tuple[str, ...]
    forumbot: str | None
    counts: list[CountCheck] = field(default_factory=list)      # the host's counts it touches, in order
    difference: Difference | None = None                         # the first one (its evidence)

    def to_json(self) -> dict[str, Any]:
        evidence = self.difference.evidence if self.difference else ()
        return {"kind": self.kind, "voter": self.voter, "day": self.day, "host": list(self.host),
                "forumbot": self.forumbot, "touches": len(self.counts),
                "counts": [{"post": c.post.platform_id, "url": c.post.url} for c in self.counts],
                "evidence": [e.to_json() for e in evidence[-1:]]}


def kind_of(difference: Difference) -> str:
    if len(difference.host) > 1:
        return "two_wagons"
    last = difference.evidence[-1].read if difference.evidence else ""
    if difference.host and difference.forumbot is None:
        return "unvote_missed" if "unvote" in last or "no vote" in last else "other"
    if not difference.host and difference.forumbot is not None:
        return "vote_missed"
    return "switch_missed" if difference.forumbot is not None else "other"


def host_mistakes(result: AuditResult) -> list[Mistake]:
    """The sure differences of an audit as distinct mistakes, in the order they were first made."""
    mistakes: list[Mistake] = []
    open_now: dict[str, Mistake] = {}          # voter → the mistake the previous count of the day had
    day = None
    for check in result.checks:
        if check.day != day:
            day, open_now = check.day, {}
        still: dict[str, Mistake] = {}
        for difference in check.differences:
            if not difference.sure:
                continue
            kind = kind_of(difference)
            before = open_now.get(difference.voter)
            if before is not None and (before.host, before.forumbot) == (difference.host, difference.forumbot):
                mistake = before
            else:
                mistake = Mistake(kind, difference.voter, check.day, difference.host, difference.forumbot,
                                  difference=difference)
                mistakes.append(mistake)
            mistake.counts.append(check)
            still[difference.voter] = mistake
        open_now = still
    return mistakes


def mistakes_data(result: AuditResult) -> dict[str, Any]:
    """For the report: the mistakes and how many voter entries they touch."""
    found = host_mistakes(result)
    return {"mistakes": [m.to_json() for m in found], "mistake_count": len(found),
            "touched": sum(len(m.counts) for m in found)}
