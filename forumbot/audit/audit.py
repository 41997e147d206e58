"""Replaying a thread's votes up to each of the host's vote counts and comparing, voter by voter.

The tally is the Mafia engine's, votes only (classic ruleset, no early end, no no-lynch limit, a vote that
names nobody leaves the last good one standing): the same options the real-thread scenarios use. The host's
posts are never read as votes; each holds at most a vote count, a day's start or a lynch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from forumbot.audit.hostcount import HostCount, read_count
from forumbot.audit.roster import build_roster, known_run, resolve
from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.host import HostState
from forumbot.engine.loading import GameRun, setup_of
from forumbot.engine.timeline import play
from forumbot.model import Intent, PlayerRef, Post, format_time
from forumbot.seating import Chart, Holder, Seat
from forumbot.text.clean import clean
from forumbot.text.parse import VOTE_KINDS

OPTIONS = {"votes_only": True, "early_end": False, "early_no_lynch": False, "no_lynch_limit": 99,
           "unresolved_vote": "keep", "vote_count_every": 0, "day_hours": 24 * 365 * 20}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "первый": 1, "второй": 2, "третий": 3, "четв[её]ртый": 4, "пятый": 5}
_N = r"(?P<n>\d{1,2}|" + "|".join(_NUMBERS) + r")"
DAY_STARTS = (
    re.compile(rf"\bday\s*{_N}\s*(?:has\s+)?(?:begins|began|begun|starts|started|is\s+(?:now\s+)?(?:open|here))",
               re.IGNORECASE),
    re.compile(rf"\bit\s+is\s+now\s+day\s*{_N}", re.IGNORECASE),
    re.compile(rf"(?:начинается|начался|наступил|наступает)\s+день\s*{_N}", re.IGNORECASE),
    re.compile(rf"(?:начинается|начался|наступил|наступает)\s+{_N}-?й\s+день", re.IGNORECASE),
    re.compile(rf"\bдень\s*{_N}\s*(?:начинается|начался|наступил)", re.IGNORECASE),
)
LYNCHED = re.compile(r"\b(?:has\s+been|was|is|got)\s+(?:lynched|hanged|hung|executed)\b|"
                     r"\b(?:был[аи]?\s+)?(?:казн[её]н|повешен|линчеван)\w*", re.IGNORECASE)
# A death the host announces (a lynch or a night kill): the player is left out from the next day on.
DIED = re.compile(LYNCHED.pattern + r"|\b(?:has\s+been|have\s+been|was|were|is|are|got)\s+"
                  r"(?:found\s+dead|dead(?=\s*(?:[.!,;)]|$))|killed|murdered|slain|shot|eliminated)\b|\b(?:died|has\s+died)\b|"
                  r"\b(?:был[аи]?\s+)?(?:убит|найден\w*\s+м[её]ртв|погиб|умер)\w*", re.IGNORECASE)
WHOLE = ("exact", "alias", "inflection", "partial", "prefix")     # how a death's name may be read
_TAG = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
_NOBODY = re.compile(r"\b(?:nobody|no\s+one|noone|none|not|never|никто|никого|не|ни)\b", re.IGNORECASE)


def day_started(text: str) -> int | None:
    """The day a host's post opens ("Day 2 begins", "It is now day one", «Начинается день 3»), or None."""
    for pattern in DAY_STARTS:
        match = pattern.search(text)
        if match:
            n = match.group("n").lower()
            return int(n) if n.isdigit() else next(v for k, v in _NUMBERS.items() if re.fullmatch(k, n))
    return None


@dataclass(frozen=True)
class Evidence:
    """A post that decides a voter's vote, as forumbot read it."""

    post: str
    url: str
    at: str
    line: str
    read: str            # what forumbot made of it: "vote Bob", "unvote", "not counted: ..."

    def to_json(self) -> dict[str, Any]:
        return {"post": self.post, "url": self.url, "at": self.at, "line": self.line, "read": self.read}


@dataclass(frozen=True)
class Difference:
    voter: str
    host: tuple[str, ...]            # the wagons the host put the voter on (empty: none)
    forumbot: str | None             # the wagon forumbot has the voter on
    sure: bool
    why: str                         # what forumbot is unsure about ("" when sure)
    evidence: tuple[Evidence, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"voter": self.voter, "host": list(self.host), "forumbot": self.forumbot, "sure": self.sure,
                "why": self.why, "evidence": [e.to_json() for e in self.evidence]}


@dataclass
class CountCheck:
    post: Post
    day: int
    compared_at: str                 # the post whose state was compared (the hammer for a lynch count)
    voters: int = 0                  # voters the host and forumbot put on wagons
    differences: list[Difference] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)    # the host's names that are no player
    lynch: str | None = None         # the player the count says was lynched

    def to_json(self) -> dict[str, Any]:
        return {"post": self.post.platform_id, "url": self.post.url, "at": format_time(self.post.created),
                "day": self.day, "compared_at": self.compared_at, "lynch": self.lynch, "voters": self.voters,
                "differences": [d.to_json() for d in self.differences], "unknown_names": self.unknown}


@dataclass
class AuditResult:
    host: str
    players: list[PlayerRef]
    checks: list[CountCheck] = field(default_factory=list)
    posts: int = 0

    @property
    def differences(self) -> int:
        return sum(len(c.differences) for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "posts": self.posts, "counts": len(self.checks),
                "differences": self.differences, "sure": sum(d.sure for c in self.checks for d in c.differences),
                "players": [{"name": p.name, "aliases": list(p.aliases)} for p in self.players],
                "checks": [c.to_json() for c in self.checks]}


@dataclass
class _Record:
    """What a voter's posts of the day said about votes, newest last."""

    evidence: list[Evidence] = field(default_factory=list)
    doubt: list[str] = field(default_factory=list)


def _read_as(intents: Sequence[Intent]) -> str:
    parts = []
    for intent in intents:
        if intent.kind == "vote":
            target = intent.data.get("target")
            parts.append(f"vote {target}" if target else f"vote naming nobody ({intent.data.get('unresolved')})")
        elif intent.kind == "not_counted":
            parts.append(f"not counted: {intent.data.get('error', '')}")
        else:
            parts.append(intent.kind.replace("_", " "))
    return "; ".join(parts)


def _doubts(intents: Sequence[Intent], flags: Sequence[Any], mode: str) -> list[str]:
    doubt = []
    for intent in intents:
        matched = intent.data.get("matched") or {}
        for how in matched.values():
            if not str(how).endswith(("(alias)", "(inflection)", "(partial)")):
                doubt.append(f"the name was read as {how}")
        if intent.data.get("unresolved"):
            doubt.append(f"a name it could not read: {intent.data['unresolved']}")
        if intent.kind == "not_counted":
            doubt.append(f"a vote it did not count: {intent.data.get('error', '')}")
    if mode == "natural" and any(i.kind in VOTE_KINDS for i in intents):
        doubt.append("an untagged phrase (natural reading)")
    if flags and not doubt:
        doubt.append("; ".join(str(f.reason) for f in flags)[:200])
    return doubt


class Auditor:
    """One thread's audit: its posts (oldest first), the host, the roster and how votes are read."""

    def __init__(self, posts: Sequence[Post], *, host: str | None = None, players: Sequence[PlayerRef] | None = None,
                 lang: str = "en", dialect: str = "bbcode", reading: str | None = None, phase: str = "day1",
                 dead: Sequence[str] = (), day_starts: Sequence[str] = ()) -> None:
        self.posts = sorted(posts, key=lambda p: p.created)
        if not self.posts:
            raise ValueError("the thread has no posts")
        host = host or self.posts[0].author
        # The host's account as the thread spells it (a --host typed in another case is the same account).
        self.host = next((p.author for p in self.posts if p.author.lower() == host.lower()), host)
        self.counts: dict[str, HostCount] = {}
        host_texts = []
        for post in self.posts:
            if post.author == self.host:
                host_texts.append(post.body)
                count = read_count(post.body, post.dialect)
                if count is not None:
                    self.counts[post.platform_id] = count
        if players is None:
            posters = list(dict.fromkeys(p.author for p in self.posts))
            players = build_roster(posters, list(self.counts.values()), host_texts, host=self.host, lang=lang,
                                   dialect=dialect)
        self.players = list(players)
        known = {p.name for p in self.players}
        dead = [d for d in dead if d in known]
        # Who is who in the thread: each slot's accounts (its name, then the accounts that replaced it or that
        # it goes by), and the host. Every "whose post is this" below asks it.
        self.chart = Chart("audit", self.host, tuple(
            Seat(p.name, tuple(Holder(a) for a in dict.fromkeys((p.name, *p.aliases)))) for p in self.players))
        self.posted = {seat.name for p in self.posts if (seat := self.chart.seat_ever(p.author)) is not None}
        options = {**load_ruleset("classic", "mafia"), **OPTIONS}
        start = self.posts[0].created - timedelta(seconds=1)
        self.config = GameConfig(name="audit", game="mafia", lang=lang, start=start, players=tuple(self.players),
                                 options=options, ruleset="classic", phase=phase, host=self.host,
                                 dead=tuple(dead), dialect=dialect, reading=reading)
        self.run = GameRun.build(self.config, dialect=dialect)
        self.mode = self.run.parser.mode(dialect)
        self.day_starts = set(day_starts)

    def lynched_in(self, text: str) -> str | None:
        """The player a host's post says was lynched ("Dave, Vanilla Townie, was lynched!", «Хэнкс казнён»)."""
        return next(iter(self.named_by(LYNCHED, text)), None)

    def died_in(self, text: str) -> list[str]:
        """The players a host's post says died: lynched, "found dead", "has been killed", «убит», «найден
        мёртвым» (the name before the words, or after them: «Этой ночью убит Хэнкс»)."""
        return self.named_by(DIED, text)

    def named_by(self, pattern: re.Pattern[str], text: str) -> list[str]:
        """The players named next to each match of `pattern`: in the words before it back to the sentence's
        start ("Dave, a Vanilla Townie, was lynched": the first name of each part; "Alice and Bob were
        found dead"), else in the words after it. "Nobody was killed" names nobody."""
        found: list[str] = []
        for line in _TAG.sub(" ", text).splitlines():     # a tag the cleaner left ("[area]MariaR, ... died")
            last = 0
            for match in pattern.finditer(line):
                before = re.split(r"[.!?;:]", line[last:match.start()])[-1]
                last = match.end()
                if _NOBODY.search(before):
                    continue
                first, *more = re.split(r",|\band\b|\bи\b|&", before)
                names = [n for n in [known_run(first.split(), self._whole, tail=True), *map(self._whole, more)]
                         if n]
                if not names:
                    after = re.split(r"[.!?;:,]", line[match.end():])[0]
                    name = known_run(after.split(), self._whole, tail=False)
                    names = [name] if name else []
                found += [n for n in names if n not in found]
        return found

    def _whole(self, text: str) -> str | None:
        """A player named by the whole of `text`, read strictly ("a Vanilla Townie" is not Alice, "Alice said
        Bob" is nobody)."""
        res = self.run.parser.roster.resolve(text.strip()) if text.strip() else None
        return res.name if res and res.ok and not res.rest and res.method in WHOLE else None

    def host_name(self, name: str) -> str | None:
        if name == "no_lynch":
            return name
        return resolve(self.run.parser.roster, name)

    def audit(self) -> AuditResult:
        result = AuditResult(self.host, self.players, posts=len(self.posts))
        run, chart = self.run, self.chart
        phase = self.config.phase or "day1"
        day = int(phase[3:]) if phase.startswith("day") else 1
        state = run.game.new(setup_of(self.config))
        thread = run.thread_id("votes")
        records: dict[str, _Record] = {}
        snapshots: list[tuple[Post, dict[str, list[str]]]] = []     # the day's votes after each post
        over = False
        taught = HostState()
        dead = list(self.config.dead)            # the dead so far: left out when the next day starts
        for post in self.posts:
            from_host = chart.is_host(post.author)
            opened = day_started(post.body) if from_host else None
            if from_host:
                dead += [n for n in self.died_in(clean(post.body, post.dialect)) if n not in dead]
            if post.platform_id in self.day_starts or (opened is not None and (opened != day or over)):
                day = opened if opened is not None else day + 1
                state = run.game.new(setup_of(replace(self.config, phase=f"day{day}", start=post.created,
                                                      dead=tuple(dead))))
                records, snapshots, over = {}, [], False
            elif from_host and self.lynched_in(clean(post.body, post.dialect)) is not None:
                over = True                  # the day ended: later votes wait for the next day
            if from_host:
                count = self.counts.get(post.platform_id)
                if count is not None:
                    check = self._check(post, day, count, state, records, snapshots)
                    result.checks.append(check)
                    over = over or check.lynch is not None
                    if check.lynch is not None and check.lynch not in dead:
                        dead.append(check.lynch)
                continue
            seat = chart.seat_ever(post.author)
            if seat is None or over:
                continue                     # an outsider's post, or the night after a lynch
            slot = seat.name
            step = play(run, state, [replace(post, author=slot, thread=thread)], now=post.created, bot="\0",
                        host=taught)
            state, taught = step.state, step.host    # (the host layer keeps what the thread teaches)
            said = [i for i in step.intents if i.kind in VOTE_KINDS or i.kind == "not_counted"]
            if said or step.flags:
                record = records.setdefault(slot, _Record())
                record.evidence.append(Evidence(post.platform_id, post.url, format_time(post.created),
                                                (said[0].line if said else post.body.strip()[:120]),
                                                _read_as(said) or "; ".join(f.reason for f in step.flags)[:200]))
                record.doubt = _doubts(said, step.flags, self.mode)
            snapshots.append((post, run.game.summary(state)["votes"]))
        return result

    def _check(self, post: Post, day: int, count: HostCount, state: Any, records: dict[str, _Record],
               snapshots: list[tuple[Post, dict[str, list[str]]]]) -> CountCheck:
        votes = self.run.game.summary(state)["votes"]
        compared = snapshots[-1][0].platform_id if snapshots else post.platform_id
        host: dict[str, list[str]] = {}
        check = CountCheck(post, day, compared)
        lynched = None
        announced = count.lynched and self.host_name(count.lynched) or self.lynched_in(clean(post.body, post.dialect))
        for wagon in count.wagons:
            target = self.host_name(wagon.target)
            if target is None:
                if wagon.voters:
                    check.unknown.append(wagon.target)
                continue
            if wagon.lynch or target == announced:
                lynched = (target, len(wagon.voters))
            for name in wagon.voters:
                voter = self.host_name(name)
                if voter is None:
                    check.unknown.append(name)
                    continue
                host.setdefault(voter, []).append(target)
        if lynched is not None:             # a lynch count shows the wagons at the hammer
            for earlier, tally in snapshots:
                if len(tally.get(lynched[0], [])) >= lynched[1]:
                    votes, compared = tally, earlier.platform_id
                    break
            check.compared_at, check.lynch = compared, lynched[0]
        bot = {v: t for t, vs in votes.items() for v in vs}
        check.voters = len(set(host) | set(bot))
        for voter in [*host, *(v for v in bot if v not in host)]:
            theirs, ours = tuple(host.get(voter, ())), bot.get(voter)
            if theirs == ((ours,) if ours else ()):
                continue
            record = records.get(voter, _Record())
            doubt = list(record.doubt)
            if len(theirs) > 1:
                doubt = []                   # one voter on two wagons is the host's slip whatever we read
            check.differences.append(Difference(voter, theirs, ours, not doubt, "; ".join(doubt),
                                                tuple(record.evidence[-2:])))
        self._pair_unknown_accounts(check)
        return check

    def _pair_unknown_accounts(self, check: CountCheck) -> None:
        """The host lists X, who never posted in the thread, where forumbot has Y, whom the host leaves out:
        most likely one player under two accounts (a replacement nobody announced in the thread). Both
        differences become unsure."""
        ghosts = {d.host[0]: d for d in check.differences
                  if len(d.host) == 1 and d.forumbot is None and d.voter not in self.posted}
        for index, diff in enumerate(check.differences):
            ghost = ghosts.get(diff.forumbot or "")
            if diff.host or ghost is None:
                continue
            why = (f"the host lists {ghost.voter}, who never posted here, on {diff.forumbot}'s wagon and leaves out "
                   f"{diff.voter}: one player under two accounts?")
            check.differences[index] = replace(diff, sure=False, why=why)
            at = check.differences.index(ghost)
            check.differences[at] = replace(ghost, sure=False, why=why)


def audit_posts(posts: Sequence[Post], **options: Any) -> AuditResult:
    return Auditor(posts, **options).audit()
