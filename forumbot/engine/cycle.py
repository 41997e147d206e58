"""The loop every platform shares: fetch posts, store them, let each game read them in time order with
its deadlines, write the step atomically, deliver the outbox. Platform-agnostic and clock-free: the
caller says what time it is (the scheduler's clock live, a virtual clock in a replay)."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from itertools import compress, repeat
from operator import attrgetter, itemgetter, methodcaller
from typing import Any

from forumbot.engine import corrections
from forumbot.engine import threads as opening
from forumbot.engine.chart import replacements, run_chart
from forumbot.engine.crashpoints import crashpoint
from forumbot.engine.host import HostState, closed_notice
from forumbot.engine.loading import GameRun, setup_of, spawned_config
from forumbot.engine.masks import deal_masks
from forumbot.engine.timeline import KEPT as _KEPT
from forumbot.engine.timeline import REREAD as _REREAD
from forumbot.engine.timeline import Step, play
from forumbot.errors import ConfigError, ForumbotError, MessageRefused, PlatformError, StaleState, StoreError
from forumbot.model import Event, Flag, Intent, Outgoing, Post, format_time, parse_time
from forumbot.platforms.base import Platform
from forumbot.seating import Chart, PlatformSeats, same_name
from forumbot.storage import Store

log = logging.getLogger("forumbot.engine.cycle")
# The parts of a game's step, by what their failure's flag says (phrase flag_step_<id>).
_STEPS = {"find its threads": "find_threads", "re-read its posts": "reread", "apply the host's corrections":
          "corrections", "read its posts": "read", "settle its results": "settle"}
# How far back a recheck before a deadline looks for posts that carried commands (a long day and then some).
RECHECK_WINDOW = timedelta(hours=96)
# How often a step that found its game moved on by another writer reads it again and redoes its work.
STALE_RETRIES = 3


@dataclass(slots=True)   # (no __dict__ to make and free every step)
class StepResult:
    posts_fetched: int = 0
    intents: int = 0
    flags: list[Flag] = field(default_factory=list)
    delivered: list[dict[str, Any]] = field(default_factory=list)
    errors: list[PlatformError] = field(default_factory=list)
    failed_games: list[str] = field(default_factory=list)   # games whose step raised (flagged; the rest went on)


# Events whose full data is already in the outbox as rendered text: the event log keeps their headline.
LOGGED_SHORT = {"vote_count": ("day", "count", "at", "alive", "needed", "rule")}
# ... each as (the keys kept, the same as a set)
_SHORTENED = {kind: (keys, frozenset(keys)) for kind, keys in LOGGED_SHORT.items()}


_key = attrgetter("key")   # an outgoing message's key
_event = itemgetter(0)     # a step's (event, post) pair's event
_kind = attrgetter("kind")
_author = attrgetter("author")
_data = attrgetter("data")
_removes = methodcaller("get", "remove_post")   # an event's: its post is to be removed
_BLANK = repeat("")


def _for_log(event: Event) -> Event:
    short = _SHORTENED.get(event.kind)
    if short is None:
        return event
    keys, every = short
    data = event.data
    if every <= data.keys():   # (a count carries every one: taken without a loop of our own)
        return Event(event.kind, dict(zip(keys, map(data.__getitem__, keys), strict=True)))
    return Event(event.kind, {k: data[k] for k in keys if k in data})


def _logged(events: list[tuple[Event, str]]) -> list[tuple[Event, str]]:
    """A step's (event, post) pairs as the event log keeps them (LOGGED_SHORT): `events` itself when none is
    shortened (a talk or a vote step: told without a loop of our own), and without one where only the last is
    (a count ends the events of a step that reads votes)."""
    shortened = _SHORTENED.keys()
    if events and events[-1][0].kind in shortened:
        head = events[:-1]
        if shortened.isdisjoint(map(_kind, map(_event, head))):
            last, post = events[-1]
            head.append((_for_log(last), post))
            return head
    elif shortened.isdisjoint(map(_kind, map(_event, events))):
        return events
    return [(e, post) if e.kind not in shortened else (_for_log(e), post) for e, post in events]


def _roles_of(run: GameRun, state: Any) -> dict[str, str]:
    """The platform ids of the game's threads in `state`, by role."""
    return {role: run.thread_id(thread) for role, thread in run.game.threads(state).items()}


class _TokenNames(dict[str, str]):
    """The name of a game's store token ("game:NAME", Store.token) by the game's name, each made once."""

    def __missing__(self, name: str) -> str:
        made = self[name] = f"game:{name}"
        return made


# _Reading and _Plan have slots: a step reads some twenty of their fields, each a quick slot read (a NamedTuple's
# field is read through its descriptor, several times slower).
@dataclass(slots=True)
class _Reading:
    """What a game reads in one state (Runner._reading): its threads and the authors of the PMs it reads,
    with what they were worked out from (the state's own, not the state: a state that reads the same has the
    same reading)."""
    host: HostState
    config: Any
    count: int                  # how many thread ids the bot had opened (run.thread_ids)
    roles: dict[str, str]       # the game's thread names by role
    threads: tuple[str, ...]    # their platform ids, sorted and distinct
    by_role: dict[str, str]     # their platform ids by role
    chart: Chart                # who is who in the game in that state (forumbot/seating.py)
    authors: tuple[str, ...]    # the chart's readers: whose PMs the game reads ("*": anyone's)
    also: Callable[[str], bool] | None   # lookalikes of the host, whose PMs are read too (Runner._lookalike)


@dataclass(slots=True)
class _Plan:
    """What a step would work out the same way again while the games and which of them the runner holds
    stay the same (Runner._planned)."""
    runs: list[GameRun]     # a copy of Runner.runs
    held: int               # len(Runner._states) ...
    dropped: int            # ... and Runner._dropped, when made
    simple: bool            # every game held, none a lobby, none opening its own threads: a step skips
                            # the lobbies, the starts and the search for thread ids


class Runner:
    """Drives games on one platform over one store."""

    def __init__(self, store: Store, platform: Platform, runs: list[GameRun],
                 settle: timedelta = timedelta(0)) -> None:
        """`settle`: how long a post may take to show on the platform after the time it carries; a deadline
        fires only once the platform has been read successfully that long after it."""
        self.store = store
        self.platform = platform
        # A platform that reads its inbox only when told of mail (phpBB) is told of a poll that may fire a
        # deadline: it reads the inbox then whatever its count said, so no PM sent before it is read after.
        self._before_deadline: Callable[[], None] | None = getattr(platform, "before_deadline", None)
        self.runs = runs
        self.settle = settle
        # The last state this runner read or wrote per game: (the store's version of it, the state, the host
        # layer's state, the game's event count at that version, and what the game reads there when known).
        # Reading the JSON back after every step would cost more than the step itself.
        self._states: dict[str, tuple[int, Any, HostState, int, _Reading | None]] = {}
        self._dropped = 0   # how many times a game held was let go (_fresh): with len(_states), for _planned
        self._plan: _Plan | None = None
        self._in_force: dict[str, dict[str, Any]] = {}   # the corrections in force, read once a step per game
        # The store's token (Store.token) at which each thing held was last read or written: while it is the
        # same, nobody else wrote it and it is not read again: "game:NAME" per game, "cursors" for the posts
        # cursor.
        self._tokens: dict[str, tuple[int, int]] = {}
        self._token_names = _TokenNames()
        self._cursor: str | None = None
        # Per game, the corrections a step reads (waiting ids, those in force), with the token they were read at.
        self._corrections: dict[str, tuple[tuple[int, int], tuple[list[int], dict[str, Any]]]] = {}
        self._looked = False   # within a step: the store was asked once at its start (Store.look)
        self._lookalike_tests: dict[tuple[str, ...], Callable[[str], bool]] = {}   # by hosts (_lookalike)
        # Per game, its next deadline in the state last asked about (_deadline): the same state object asks the
        # game nothing again.
        self._deadlines: dict[str, tuple[Any, datetime | None]] = {}
        # Keys of the messages this runner put in the outbox and has not tried to send yet: they cannot have
        # gone out (one bot a store: storage/lock.py; a game's messages are sent by its runner only), so they need
        # no search on the platform first. Any other undelivered message (a send tried before, or a message
        # from before a restart) is looked for by its marker before it is sent.
        self._unsent: set[str] = set()
        # The store's "outbox" token when a delivery last left nothing of these games owed: while it is the
        # same, nothing was queued since and the outbox is not read.
        self._settled: tuple[int, int] | None = None
        # Games let go (their host ended them): no longer driven, but what the outbox owes of them goes out.
        self._let_go: set[str] = set()

    # ---- state ---------------------------------------------------------------------------------
    def state(self, run: GameRun, *, check: bool = True) -> Any:
        """The game's current state. `check=False` trusts what this runner last read or wrote (within one
        step, where nobody else writes). Raises ConfigError for a game not started."""
        if not check:
            cached = self._states.get(run.name)
            if cached is not None:
                return cached[1]
        return self._held(run)[1]

    def _held(self, run: GameRun) -> tuple[int, Any, HostState, int, _Reading | None]:
        """What this runner holds of the game (its entry in _states), checked against the store."""
        name = run.name
        cached = self._states.get(name)
        if not self._looked:
            self.store.look()
        what = self._token_names[name]
        token = self.store.token(what)   # taken before the read: a write after it shows at the next look
        if cached is not None and self._tokens.get(what) == token:
            return cached
        version = self.store.game_version(name)
        self._tokens[what] = token
        if cached is not None and cached[0] == version:
            return cached
        row = self.store.game(name)
        if row is None:
            raise ConfigError(f"game {name} has not been started")
        cached = self._states[name] = (row.version, run.game.from_json(row.state), HostState.from_json(row.host),
                                       row.event_seq, None)
        opened = row.setup.get("opened") if isinstance(row.setup, dict) else None
        run.opened = parse_time(opened) if opened else None
        return cached

    def _wrote(self, run: GameRun, version: int, state: Any, host: HostState, seq: int,
               outbox: list[Outgoing], reading: _Reading | None = None) -> None:
        """What this runner holds after it committed a step of the game at `version` (`reading`: what the game
        reads in `state` with `host`, where the step worked it out)."""
        name = run.name
        self._states[name] = (version, state, host, seq, reading)
        what = self._token_names[name]
        self._tokens[what] = self.store.token(what)
        if outbox:
            self._unsent.update(map(_key, outbox))

    def host_state(self, run: GameRun) -> HostState:
        """The host layer's state of a game (pause, replaced accounts)."""
        self.state(run)
        return self._states[run.name][2]

    def _reading(self, run: GameRun, state: Any, host: HostState, like: _Reading | None = None) -> _Reading:
        """What the game reads in `state` with the host layer's `host`: its threads, and the authors whose
        private messages it reads: the seating chart's readers (the host's lookalikes are read with the new
        PMs: `_lookalike`). `like`: a reading of the same game (the state held); where the new one reads the
        same, it has the same tuples (so a step tells by identity that the game reads no more) and nothing
        is worked out again."""
        config = run.config
        count = len(run.thread_ids)   # (a thread the bot opens gets its id once, in run.thread_ids)
        roles = run.game.threads(state)
        chart = run_chart(run, state, host)
        authors = chart.readers()
        if like is not None and like.config is config and like.count == count and like.roles == roles:
            if like.authors == authors:
                if like.host is host and like.roles is roles:
                    return like
                return _Reading(host, config, count, roles, like.threads, like.by_role, chart, like.authors,
                                like.also)
        by_role = {role: run.thread_id(thread) for role, thread in roles.items()}
        return _Reading(host, config, count, roles, tuple(sorted(set(by_role.values()))), by_role, chart,
                        authors, self._lookalike(run))

    def _pm_authors(self, run: GameRun, state: Any, host: HostState) -> tuple[str, ...]:
        """The authors whose private messages the game reads, lookalikes of the host among new PMs too."""
        authors = self._reading(run, state, host).authors
        return tuple(dict.fromkeys((*authors, *self._lookalikes(run))))

    def _deadline(self, run: GameRun, state: Any) -> datetime | None:
        """The game's next deadline in `state` (the same state object asks the game once: a replay and the
        live scheduler ask after every step, the step's recheck at its start)."""
        kept = self._deadlines.get(run.name)
        if kept is not None and kept[0] is state:
            return kept[1]
        deadline = run.game.next_deadline(state)
        self._deadlines[run.name] = (state, deadline)
        return deadline

    def _lookalike(self, run: GameRun) -> Callable[[str], bool] | None:
        """Whether a PM's author is a lookalike of the host or a co-host (read too, refused and flagged). The
        same function for the same hosts each time: the store tells by it that a game reads the same PMs as
        last time."""
        hosts = tuple(h for h in (run.config.host, *run.config.cohosts) if h)
        if not hosts:
            return None
        test = self._lookalike_tests.get(hosts)
        if test is None:
            test = self._lookalike_tests[hosts] = lambda author: any(same_name(author, h) for h in hosts)
        return test

    def _lookalikes(self, run: GameRun) -> tuple[str, ...]:
        """Lookalikes of the host or a co-host ("Hоst" with a Cyrillic о, "host ") among new PMs: read too,
        refused and flagged."""
        hosts = tuple(h for h in (run.config.host, *run.config.cohosts) if h)
        return tuple(a for a in self.store.new_pm_authors(run.name) if any(same_name(a, h) for h in hosts))

    def _planned(self) -> _Plan:
        """The step's plan, made again when the runs or the games held changed since it was made."""
        plan = self._plan
        runs = self.runs
        if plan is not None and plan.held == len(self._states) and plan.dropped == self._dropped \
                and plan.runs == runs:   # (the same runs, or equal ones: a list compares identity first)
            return plan
        runs = list(runs)
        held = [run for run in runs if run.name in self._states]
        simple = len(held) == len(runs) and not any(
            run.open_threads or getattr(run.game, "spawned", None) is not None for run in runs)
        self._plan = plan = _Plan(runs, len(self._states), self._dropped, simple)
        return plan

    def _seats(self) -> PlatformSeats | None:
        """Who holds a seat or hosts in each game held, and which games take anyone's sign-ups (None with one
        game: every PM the game reads is its own)."""
        if len(self.runs) < 2:
            return None
        by_account: dict[str, list[str]] = {}
        taking: list[str] = []
        for run in sorted(self.runs, key=lambda r: r.name):
            held = self._states.get(run.name)
            if held is None:
                continue
            reading = held[4] or self._reading(run, held[1], held[2])
            # A game that is over keeps no player's seat (a tournament's players move on to its next game);
            # its host still sends it commands.
            authors = tuple(reading.chart.hosts()) if getattr(held[1], "phase", None) == "over" else reading.authors
            for author in authors:
                if author == "*":
                    taking.append(run.name)
                elif not by_account.get(author) or by_account[author][-1] != run.name:
                    by_account.setdefault(author, []).append(run.name)
        return PlatformSeats({a: tuple(g) for a, g in by_account.items()}, tuple(taking))

    def _host_games(self, run: GameRun) -> tuple[str, ...]:
        """Every started game on this platform that the game's host runs, sorted, when there are several (a
        step has read every started game's state before any game reads its posts)."""
        host = run.config.host
        if not host or len(self.runs) < 2:   # (one game is never one of several)
            return ()
        names = sorted(r.name for r in self.runs if r.config.host == host and r.name in self._states)
        return tuple(names) if len(names) > 1 else ()

    def _isolated(self, run: GameRun, result: StepResult, what: str, action: Any, *args: Any) -> None:
        """Run one game's part of a step, `action(*args)`; an exception (other than the store's own) is logged
        and flagged to the host once, and the other games go on. The game's unread posts wait for the next poll."""
        try:
            action(*args)
        except (sqlite3.Error, StoreError, PlatformError):
            raise
        except Exception as err:
            log.exception("%s: %s failed; the other games go on", run.name, what)
            result.failed_games.append(run.name)
            error = f"{type(err).__name__}: {err}"
            flag = run.renderer.flag(Flag(reason=f"the game could not {what} ({error}); it is retried every poll",
                                          author=run.config.host or "", code="flag_step_failed",
                                          params=(("failed", _STEPS.get(what, what)), ("error", error))))
            if not self.store.has_open_flag(run.name, flag.reason):
                self.store.add_flags(run.name, [flag])

    def start(self, at: datetime, *, isolate: bool = False) -> None:
        """Create every game whose start time has come and that is not in the store yet, with its opening
        posts in the outbox. A game starting later is created by the first step at or after its start.
        Raises ConfigError for a game that cannot start; with `isolate` (a step's), flags it for the host
        once instead and starts the others."""
        for run in self.runs:
            if run.config.start > at or run.name in self._states or self.store.game_version(run.name) is not None:
                continue
            try:
                state = run.game.new(setup_of(run.config))
                if not self._threads_ready(run, state):
                    continue
            except ForumbotError as err:   # a game that cannot start must not keep the others from it
                if not isolate:
                    raise
                log.error("%s cannot start: %s", run.name, err)
                flag = run.renderer.flag(Flag(reason=f"the game cannot start: {err}", author=run.config.host or "",
                                              at=at, code="flag_cannot_start", params=(("error", str(err)),)))
                if not self.store.has_open_flag(run.name, flag.reason):
                    self.store.add_flags(run.name, [flag])
                continue
            events = run.game.start_events(state)
            outbox = self._render(run, state, events, 0, at)
            # The game opens now: what the bot had read before (a game added to a running bot) is not its own.
            read = self.store.cursor(self.platform.name, "read_until")
            opened = max(run.config.start, parse_time(read)) if read else run.config.start
            setup = {**run.config.to_json(), "opened": format_time(opened)}
            try:
                self.store.commit_step(run.name, run.game.name, setup, run.game.to_json(state),
                                       events=[(e, "") for e in events], outbox=outbox, at=at, expected_seq=0,
                                       expected_version=0)
            except StaleState:
                log.warning("%s was created by another writer meanwhile; reading it", run.name)
                continue
            run.opened = opened
            self._unsent.update(o.key for o in outbox)

    def _threads_ready(self, run: GameRun, state: Any) -> bool:
        """A game that opens its own threads has an id for each (forumbot/engine/threads.py); False when the
        platform failed for now (the game waits for the next poll). A refusal raises."""
        if not run.open_threads:
            return True
        try:
            opening.open_threads(self.store, self.platform, run, state)
        except PlatformError as err:
            if not err.retryable:
                raise
            log.warning("%s: opening its threads failed (%s); retried next poll", run.name, err)
            return False
        return True

    def _threads_found(self, run: GameRun) -> None:
        try:   # a game's threads never change, so the state this runner holds will do
            self._threads_ready(run, self.state(run, check=False))
        except PlatformError as err:   # refused: flagged by _isolated like any failure of one game
            raise RuntimeError(str(err)) from err

    def started(self) -> list[GameRun]:
        """The games that exist in the store."""
        plan = self._planned()
        if plan.simple:   # every game held
            return list(self.runs)
        return [run for run in self.runs if run.name in self._states or self.store.game_version(run.name) is not None]

    def next_deadline(self, *, held: bool = False) -> datetime | None:
        """The soonest deadline of a running game, or start time of a game yet to start. `held`: from the
        states this runner holds, without asking the store (right after a step, when it is the store's only
        writer: a replay)."""
        plan = self._planned()
        if held and plan.simple:   # (what the rest gives here: every game started and held, none waiting)
            soonest = None
            states = self._states
            for run in plan.runs:
                deadline = self._deadline(run, states[run.name][1])
                if deadline is not None and (soonest is None or deadline < soonest):
                    soonest = deadline
            return soonest + self.settle if soonest is not None and self.settle else soonest
        started = self.started()
        if held:
            deadlines = [self._deadline(run, self.state(run, check=False)) for run in started]
        else:
            if started and not self._looked:
                self.store.look()   # once for every game
            deadlines = [self._deadline(run, self._checked(run)) for run in started]
        times = [t + self.settle for t in deadlines if t is not None]
        if len(started) < len(self.runs):
            times += [run.config.start for run in self.runs if run not in started]
        return min(times) if times else None

    def _checked(self, run: GameRun) -> Any:
        """The game's state, checked against the store as of its last `look`."""
        looked, self._looked = self._looked, True
        try:
            return self.state(run)
        finally:
            self._looked = looked

    # ---- one step ------------------------------------------------------------------------------
    def step(self, now: datetime) -> StepResult:
        """Fetch, read, decide and deliver once. Platform failures are logged and retried next step."""
        self.store.look()   # once a step: what this runner holds is checked against it (Store.token)
        self._looked = True
        try:
            result = StepResult(0, 0, [], [], [], [])   # (every field given: no default factory is called)
            # What is fetched goes in with the first game's step; with none, at the block's end.
            with self.store.step() as written:
                pms = self._read_and_advance(now, result)
            if pms and not written.kept:
                log.warning("the %d PMs fetched were not stored; they come back next poll", len(pms))
            elif pms:
                # Only now, with every game's reading of them committed, may a private message count as read.
                try:
                    self.platform.mark_read([pm.platform_id for pm in pms])
                    crashpoint("pm_read")
                except PlatformError as err:
                    result.errors.append(err)
                    log.warning("marking %d PMs read failed (%s); they come back next poll", len(pms), err)
            result.delivered = self.deliver(now, result)
            return result
        finally:
            self._looked = False

    def _read_and_advance(self, now: datetime, result: StepResult) -> list[Post]:
        """Fetch and store the new posts and PMs, then take each game as far as they go (the step's
        transaction: Store.step). Returns the PMs fetched."""
        plan = self._planned()
        if plan.simple:   # (as below, where each of these would find nothing to do)
            started = self.runs
        else:
            self._reconcile(now)
            self.start(now, isolate=True)
            started = self.started()   # (finding a game's threads starts no game)
            for run in started:   # after a restart: the ids of the threads the bot opened for a game
                if run.open_threads:
                    self._isolated(run, result, "find its threads", self._threads_found, run)
        if len(started) == 1:   # (its ids are sorted and distinct already)
            threads = list(self._held_threads(started[0]))
        else:
            threads = sorted({t for run in started for t in self._held_threads(run)})
        store = self.store
        read: datetime | None
        try:
            if self._before_deadline is not None:
                due = self.next_deadline()
                if due is not None and due <= now:
                    self._before_deadline()
            pms: list[Post] = self.platform.fetch_pms()
            result.posts_fetched = self._fetch(threads, pms, now)
            crashpoint("stored")
            read = now
        except PlatformError as err:
            result.errors.append(err)
            pms = []   # perhaps not stored: not marked read (they come back next poll)
            log.warning("fetching from %s failed (%s); reading what is stored, deadlines wait", self.platform.name,
                        err)
            if not err.retryable:   # one the bot cannot fix (a refused sign-in, a locked topic): the host is told once
                for run in self.runs:
                    flag = run.renderer.flag(Flag(
                        reason=f"{self.platform.name} cannot be read, so no deadline fires: {err}",
                        author=run.config.host or "", code="flag_platform_unreadable",
                        params=(("platform", self.platform.name), ("error", str(err)))))
                    if not store.has_open_flag(run.name, flag.reason):
                        store.add_flags(run.name, [flag])
            saved = store.cursor(self.platform.name, "read_until")
            read = min(now, parse_time(saved)) if saved else None
        # A deadline fires only once the platform has been read up to it (and `settle` after it): a vote made
        # just before it, or missed by a failed fetch, still counts by its own time.
        reach = read - self.settle if read is not None and self.settle else read
        until = min(now, reach) if reach is not None else None   # (where a deadline due to re-read ends)
        recheck = getattr(self.platform, "recheck", None)
        for run in self.runs:
            name = run.name
            run_reach: datetime | None = reach
            held = self._states.get(name)
            known = self._deadlines.get(name)
            # (a platform that cannot re-read posts has nothing to do here, nor one whose game's deadline, known
            # for the state held, has not come: as _recheck)
            if recheck is not None and held is not None and (
                    known is None or known[0] is not held[1]
                    or (until is not None and known[1] is not None and known[1] <= until)):
                try:
                    self._isolated(run, result, "re-read its posts", self._recheck, run, now, reach)
                except PlatformError as err:
                    result.errors.append(err)
                    run_reach = None
                    log.warning("re-reading %s's posts failed (%s); its deadline waits", name, err)
            # The corrections read at this token, none waiting: they are the ones in force (as _correct).
            kept = self._corrections.get(name)
            if kept is not None and not kept[1][0] and name in self._states \
                    and kept[0] == store.token("corrections"):
                self._in_force[name] = kept[1][1]
            else:
                self._isolated(run, result, "apply the host's corrections", self._correct, run, now)
            self._isolated(run, result, "read its posts", self._advance, run, now, result, run_reach)
            if run.config.tournament:   # (the only games with results to settle)
                self._isolated(run, result, "settle its results", self._settle, run, now)
        return pms

    def _held_threads(self, run: GameRun) -> tuple[str, ...]:
        """The platform ids of the threads the game reads in its current state (checked against the store)."""
        held = self._held(run)
        reading = held[4]
        # The reading the step that wrote the state worked out, while the config and the thread ids are the
        # same; else worked out now and held with the state, so that the step's _advance_once takes it as it
        # is (neither changes later in a step: a game's threads are found and opened before this).
        if reading is None or reading.config is not run.config or reading.count != len(run.thread_ids):
            reading = self._reading(run, held[1], held[2])
            self._states[run.name] = (*held[:4], reading)
        return reading.threads

    def _fetch(self, threads: list[str], pms: list[Post], now: datetime) -> int:
        """Fetch the new posts of `threads` and store them with `pms` and the time of this read, in the
        step's transaction (Store.save_posts `hold`: committed with the first game's step, or at the step's
        end; a crash before that loses them with the cursor, so they are fetched again); where the platform
        limits its batches (`batch`), a backlog is fetched and stored a batch at a time, each full batch
        committed on its own, so only one batch is held however long it is. The bot's own posts are not
        stored (a game never reads them; `find_sent` asks the platform). The crash points "fetched" (and
        "pms_fetched" with PMs) are passed after the first batch is fetched and before anything is stored.
        Returns how many posts were new."""
        platform, store = self.platform, self.store
        token = store.token("cursors")
        if self._tokens.get("cursors") != token:   # the cursor this runner wrote last, unless written since
            self._cursor = store.cursor(platform.name)
            self._tokens["cursors"] = token
        cursor = self._cursor
        posts, after = platform.fetch_posts(threads, cursor)
        crashpoint("fetched")
        if pms:
            crashpoint("pms_fetched")
        batch = getattr(platform, "batch", 0)
        account = platform.account
        new = 0
        while True:
            full = bool(batch) and len(posts) >= batch and after != cursor
            if posts and account in map(_author, posts):   # (those not by the bot: without a loop of our own)
                posts = [*compress(posts, map(account.__ne__, map(_author, posts)))]
            if full:
                new += store.save_posts(platform.name, posts, after)
            else:
                new += store.save_posts(platform.name, [*posts, *pms] if pms else posts,
                                        after if after != cursor else None, read_at=now, hold=True)
            if after is not None and after != cursor:   # what save_posts wrote
                self._cursor = after
            self._tokens["cursors"] = store.token("cursors")
            if not full:
                return new
            cursor = after
            posts, after = platform.fetch_posts(threads, cursor)

    # ---- games that lobbies spawn ---------------------------------------------------------------
    def _run_named(self, name: str) -> GameRun | None:
        return next((run for run in self.runs if run.name == name), None)

    def _reconcile(self, now: datetime) -> None:
        """Every game a lobby has spawned gets its runner (built again after a restart: the lobby's state is
        the record), and a finished one's result goes back to its lobby."""
        lobbies = [run for run in self.runs if getattr(run.game, "spawned", None) is not None]
        for lobby in [run for run in lobbies if run.name in self._states
                      or self.store.game_version(run.name) is not None]:   # (those started: started())
            spawned = lobby.game.spawned
            for entry in spawned(self.state(lobby)):
                child = self._run_named(entry["name"])
                if child is None:
                    try:
                        child = GameRun.build(spawned_config(lobby, entry), dialect=lobby.renderer.dialect,
                                              open_threads=True)
                    except ConfigError as err:
                        log.error("%s: cannot start %s: %s", lobby.name, entry["name"], err)
                        continue
                    self.runs.append(child)
                if entry["finished"] or child not in self.started():
                    continue
                summary = child.game.summary(self.state(child))
                if summary.get("phase") == "over" or summary.get("result") is not None:
                    self._tell(lobby, Intent("result", {"game": child.name, "winner": summary.get("winner"),
                                                        "ledger": summary.get("ledger", {})},
                                             author=self.platform.account, at=now), now)

    def _tell(self, run: GameRun, intent: Intent, now: datetime) -> None:
        """An intent from the bot itself (not from a post), applied and committed as a step of its own."""
        self._fresh(run, self._tell_once, run, intent, now)

    def _tell_once(self, run: GameRun, intent: Intent, now: datetime) -> None:
        state = self.state(run)
        version, _, host, seq, _ = self._states[run.name]
        state, events = run.game.apply(state, intent)
        outbox = self._render(run, state, events, seq, now, host)
        seq = self.store.commit_step(run.name, run.game.name, None, run.game.to_json(state),
                                     events=[(_for_log(e), "") for e in events], outbox=outbox, at=now,
                                     expected_seq=seq, expected_version=version)
        self._wrote(run, version + 1, state, host, seq, outbox)

    def announce(self, run: GameRun, events: list[Event], now: datetime) -> None:
        """Post `events` in game `run`'s threads without applying anything to the game (a tournament's last
        standings and its masks revealed, in its last game's thread), as a step of its own."""
        self._fresh(run, self._announce_once, run, events, now)

    def _announce_once(self, run: GameRun, events: list[Event], now: datetime) -> None:
        state = self.state(run)
        version, _, host, seq, _ = self._states[run.name]
        outbox = self._render(run, state, events, seq, now, host)
        seq = self.store.commit_step(run.name, run.game.name, None, run.game.to_json(state),
                                     events=[(_for_log(e), "") for e in events], outbox=outbox, at=now,
                                     expected_seq=seq, expected_version=version)
        self._wrote(run, version + 1, state, host, seq, outbox)

    def let_go(self, name: str, now: datetime) -> None:
        """Stop driving game `name`: its host ended it. A game under way says so in its thread first, once
        (its log keeps the notice), and what the outbox owes of it still goes out."""
        run = self._run_named(name)
        if run is None:
            return
        if self.store.game_version(name) is not None and run.game.summary(self.state(run)).get("phase") != "over":
            logged = (json.loads(e["data"] or "{}") for e in self.store.events(name) if e["kind"] == "host_notice")
            if not any(data.get("what") == "closed" for data in logged):
                self.announce(run, [closed_notice()], now)
        self.runs[:] = [r for r in self.runs if r.name != name]
        self._states.pop(name, None)
        self._let_go.add(name)

    def _fresh(self, run: GameRun, work: Callable[..., None], *args: Any) -> None:
        """Do a step's work, `work(*args)`; when its commit finds that another writer moved the game on, forget
        the state held, read the game again and redo the work (a step never commits over a state it did not
        read), STALE_RETRIES times in all."""
        try:
            work(*args)
        except StaleState as err:
            self._again(run, err, work, *args)

    def _again(self, run: GameRun, stale: StaleState, work: Callable[..., None], *args: Any) -> None:
        """_fresh after its first attempt found the game moved on (`stale`)."""
        for _ in range(1, STALE_RETRIES):
            log.warning("%s; reading the game again", stale)
            self._states.pop(run.name, None)
            self._dropped += 1
            self.state(run)
            try:
                work(*args)
                return
            except StaleState as err:
                stale = err
        raise stale

    def _recheck(self, run: GameRun, now: datetime, reach: datetime | None) -> None:
        """Before a deadline fires, re-read the posts that carried commands (those of the phase it ends, where
        the game tells its phase's start; else of the last days), once per deadline, and apply the platform's
        edit policy: flags for the host about edits and deletions, and under "edited" the new text read again
        as a post made at the time of the edit."""
        recheck = getattr(self.platform, "recheck", None)
        name = run.name
        held = self._states.get(name)
        if recheck is None or held is None:
            return
        deadline = self._deadline(run, held[1])   # (the state `state(run, check=False)` gives)
        if deadline is None or reach is None or deadline > min(now, reach):
            return
        mark = f"recheck:{name}"
        if self.store.cursor(self.platform.name, mark) == format_time(deadline):   # (once per deadline: it fires)
            return
        since = deadline - RECHECK_WINDOW
        window = getattr(run.game, "phase_window", None)
        phase = window(held[1]) if window is not None else None
        if phase is not None:
            started, ends = phase
            if deadline < ends:   # a reminder: nothing is settled at it, the phase's end re-reads
                return
            since = max(since, started)
        policy = run.config.edit_policy or getattr(self.platform, "edit_policy", "first_seen")
        self.store.write_held()   # the store is not held while the platform is asked
        # A platform that can say which posts changed (the local forum): only those stored are built and
        # re-read, not every vote of the window (the rest are as the bot read them).
        changed = getattr(self.platform, "changed_posts", None)
        posts = self.store.command_posts(name, since, None if changed is None else changed(since))
        # A post read again as of its edit is this runner's copy, not on the platform: its original is re-read.
        found = recheck([post for post in posts if _REREAD not in post.platform_id], policy)
        flags = [run.renderer.flag(f) for f in found.flags]
        reread = []
        for post in found.edited:   # (the count marks every edit: under "edited" the new text counts)
            at = post.edited or now
            marker = _REREAD if policy == "edited" else _KEPT
            reread.append(replace(post, platform_id=f"{post.platform_id}{marker}{format_time(at)}", created=at,
                                  edited=None))
            if policy == "edited":
                flags.append(run.renderer.flag(Flag(
                    reason="a post that carried a command was edited; its new text is read as of the edit",
                    post_id=post.platform_id, author=post.author, at=at, line=post.body[:200],
                    code="flag_edited_reread")))
        self.store.rechecked(self.platform.name, run.name, mark, format_time(deadline), [*found.edited, *reread],
                             flags)
        if found.edited or found.deleted:
            log.info("%s: re-read before %s: %d edited, %d deleted", run.name, format_time(deadline),
                     len(found.edited), len(found.deleted))

    def _advance(self, run: GameRun, now: datetime, result: StepResult, reach: datetime | None) -> None:
        if run.name not in self._states:
            return
        try:   # (_fresh, its first attempt)
            self._advance_once(run, now, result, reach)
        except StaleState as err:
            self._again(run, err, self._advance_once, run, now, result, reach)

    def _advance_once(self, run: GameRun, now: datetime, result: StepResult, reach: datetime | None) -> None:
        game, name, store = run.game, run.name, self.store
        # (what state(run, check=False) gives: _advance checked; the reading, checked at the step's start
        # (_held_threads) unless the state was read or written since)
        version, state, host, seq, reading = self._states[name]
        if reading is None:
            reading = self._reading(run, state, host)
        threads, authors, lookalike = reading.threads, reading.authors, reading.also
        # Deadlines fire up to `reach` only; with no successful read at all, none fires.
        until = min(now, reach) if reach is not None else datetime.min.replace(tzinfo=now.tzinfo)
        while True:
            pending = store.unprocessed_posts(name, threads, pm_authors=authors, also=lookalike, looked=self._looked)
            in_force = self._in_force.pop(name, None)   # read with this step's waiting corrections
            step = play(run, state, pending, now, self.platform.account, host,
                        self._host_games(run) if len(self.runs) > 1 else (), reach=until,
                        corrections=corrections.active(store, name) if in_force is None else in_force,
                        seats=self._seats(), accounts_before=store.accounts_before, mask_check=self._mask_check)
            after, reported = game.report(step.state, now)
            # The step may make the game read more (the host's `replace` adds the new account's private
            # messages): read again from the same state, with those too, so a post that came in the same
            # poll is read in its place instead of being passed over. (The same threads and authors come
            # as the same tuples: _reading.)
            more = reading if after is state and step.host is host else \
                self._reading(run, after, step.host, reading)   # (talk, or nothing new: the game is not asked)
            if (more.threads is threads or set(more.threads) <= set(threads)) \
                    and (more.authors is authors or set(more.authors) <= set(authors)):
                break
            threads = tuple(sorted({*threads, *more.threads}))
            authors = tuple(dict.fromkeys((*authors, *more.authors)))
        dealt_host, dealt, dealt_flags = deal_masks(run, self.platform, more.chart, step.host, now)
        if dealt_host is not step.host:   # the deal: masks' accounts made or looked up (forumbot/engine/masks.py)
            step.host, step.flags = dealt_host, [*step.flags, *dealt_flags]
            step.events += [(e, "") for e in dealt]
            more = self._reading(run, after, step.host, more)
        events = step.events
        if reported:
            events += zip(reported, _BLANK, strict=False)   # (e, "") for each (_BLANK never ends)
        if not step.processed and not events and step.host is host:
            return
        before, state = state, after
        outbox = self._render(run, state, [*map(_event, events)], seq, now, step.host, more.by_role)
        crashpoint("advanced")
        unchanged = state is before and not events      # talk in the game thread: only marks to write
        stored = None if unchanged else game.to_json(state)
        moved = step.host is not host and step.host != host
        step.flags = [run.renderer.flag(f) for f in step.flags]   # in the game's language
        seq = store.commit_step(name, game.name, None, stored, processed=step.processed, intents=step.intents,
                                flags=step.flags, events=_logged(events), outbox=outbox, at=now, expected_seq=seq,
                                expected_version=version, host=step.host.to_json() if moved else None)
        crashpoint("committed")
        self._wrote(run, version + 1, state, step.host, seq, outbox, more)
        remove = getattr(self.platform, "remove_post", None)   # a post the game refused, where the platform can
        if remove is not None and any(map(_removes, map(_data, map(_event, events)))):
            for event, post in events:
                if post and event.data.get("remove_post"):
                    remove(post, str(event.data.get("reason", "")))
        result.intents += len(step.intents)
        if step.flags:
            result.flags += step.flags

    def _settle(self, run: GameRun, now: datetime) -> None:
        """A finished game's awards go to its tournament's ledger, once (recording them again is a no-op, so
        a crash between the game's last step and this costs nothing)."""
        entries = getattr(run.game, "ledger_entries", None)
        if not run.config.tournament or entries is None or run.name not in self._states:
            return
        found = entries(self.state(run, check=False))
        if found:   # (a change after a host's correction is logged as theirs: the last one who corrected the game)
            done = [c for c in corrections.listing(self.store, run.name) if c.applied]
            by = (done[-1].undone_by or done[-1].by) if done else ""
            self.store.record_ledger(run.config.tournament, run.name, found, now, by=by)

    def _mask_check(self, mask: str, claimant: str) -> list[str] | None:
        """The platform's answer on a sign-up's mask (Platform.mask_refusal): [] it may be taken, [code, holder]
        why not; None when the platform cannot be asked now (the deal looks again)."""
        ask = getattr(self.platform, "mask_refusal", None)
        if ask is None:
            return None
        try:
            refused = ask(mask, claimant)
        except PlatformError as err:
            log.warning("looking up the mask %s of %s: %s; the deal looks again", mask, claimant, err)
            return None
        return list(refused) if refused else []

    def recount(self, run: GameRun, now: datetime) -> Any:
        """The game's state recomputed from scratch from every stored post: what a host checks a tally by."""
        state = run.game.new(setup_of(run.config))
        all_threads = [run.thread_id(t) for t in set(run.game.threads(state).values())]
        recorded = self.host_state(run)
        posts = self.store.posts(all_threads, pm_authors=self._pm_authors(run, state, recorded))
        return play(run, state, posts, now, self.platform.account, HostState(signup_masks=recorded.signup_masks),
                    host_games=self._host_games(run),
                    corrections=corrections.active(self.store, run.name), seats=self._seats(),
                    accounts_before=self.store.accounts_before).state

    def _correct(self, run: GameRun, now: datetime) -> None:
        """The host corrected (or undid a correction of) a post the game has read: read the game again from
        its first post with the corrections in force, and post a vote count that says so."""
        name = run.name
        if name not in self._states:
            return
        token = self.store.token("corrections")   # taken before the read: a write after it shows next step
        kept = self._corrections.get(name)
        if kept is None or kept[0] != token:
            kept = (token, corrections.for_step(self.store, name))
            self._corrections[name] = kept
        ids, self._in_force[name] = kept[1]
        if ids:
            self._in_force.pop(name)   # applying them may refuse some: the step reads them again
            self._fresh(run, self._correct_once, run, now, ids)

    def _correct_once(self, run: GameRun, now: datetime, ids: list[int]) -> None:
        live = self.state(run)
        version, _, host, _, _ = self._states[run.name]
        seq = self.store.event_seq(run.name)
        # Up to the game's last step, and no deadline the platform had not been read up to then (as live).
        until = parse_time(self.store.game_updated(run.name) or format_time(now))
        read = self.store.cursor(self.platform.name, "read_until")
        reach = min(until, parse_time(read) - self.settle) if read else until
        step = play(run, run.game.new(setup_of(run.config)), self.store.processed_posts(run.name), until,
                    self.platform.account, HostState(signup_masks=host.signup_masks),
                    host_games=self._host_games(run), reach=reach,
                    corrections=corrections.active(self.store, run.name), seats=self._seats(),
                    accounts_before=self.store.accounts_before)
        # (what the deal found of the masks' accounts is the platform's, not the posts': it stays)
        step.host = replace(step.host, masks_checked=host.masks_checked, masks_missing=host.masks_missing,
                            masks_given=host.masks_given)
        why = corrections.changes_ended_phase(run.game, live, step.state)
        if why and not corrections.mends_ended_round(self.store, ids):
            english = (f"it would change how an ended phase came out ({', '.join(why)}); a correction changes "
                       f"only the votes of the phase running now")
            corrections.mark_applied(self.store, ids, now, refused=english)
            changed = ", ".join(run.renderer.phrases.get(f"flag_settled_{key}", key) for key in why)
            self.store.add_flags(run.name, [run.renderer.flag(Flag(
                reason=f"a correction was not applied: {english}", at=now, author=run.config.host or "",
                code="flag_correction_refused", params=(("changed", changed),)))])
            return
        state, reported = run.game.report(corrections.carry_counts(live, step.state), now)
        reported = [Event(e.kind, {**e.data, "corrected": True}) for e in reported]
        outbox = self._render(run, state, reported, seq, now, step.host)
        with self.store.transaction():   # the corrections count as applied with the state they made, or neither
            corrections.mark_applied(self.store, ids, now)
            seq = self.store.commit_step(run.name, run.game.name, None, run.game.to_json(state),
                                         events=[(_for_log(e), "") for e in reported], outbox=outbox, at=now,
                                         expected_seq=seq, expected_version=version,
                                         host=step.host.to_json() if step.host != host else None)
        self._wrote(run, version + 1, state, step.host, seq, outbox)

    def _render(self, run: GameRun, state: Any, events: list[Event], seq: int, at: datetime,
                host: HostState | None = None, roles: dict[str, str] | None = None) -> list[Outgoing]:
        """The events' posts and PMs; `roles`: the thread ids by role in `state` where the caller knows them."""
        if roles is None:
            roles = _roles_of(run, state)
        out: list[Outgoing] = []
        name, render, silent, game = run.name, run.renderer.render, run.renderer.silent, run.game.name
        # (with no account replaced and every mask an account, every player keeps their own: the chart is not asked)
        chart = run_chart(run, state, host) if host is not None and (host.accounts or host.masks_missing) else None
        run.renderer.replaced = replacements(chart, state) if chart is not None else {}
        for offset, event in enumerate(events, start=1):
            if silent(event):   # (a vote: no message, no key made)
                continue
            if chart is not None and isinstance(event.data.get("pm_to"), str) and not event.data.get("to_account"):
                # a replaced player's private messages go to the account that holds the seat now
                event = Event(event.kind, {**event.data, "pm_to": chart.reader_of(event.data["pm_to"])})
            out += render(event, key=f"{name}:{seq + offset}", threads=roles, at=at, game=game)
        return out

    # ---- delivery ------------------------------------------------------------------------------
    def deliver(self, now: datetime, result: StepResult | None = None) -> list[dict[str, Any]]:
        """Send what the outbox owes, oldest first, each message exactly once.

        A message this runner put in the outbox and has not tried to send goes out at once. Any other may
        have gone out just before a crash (or a failed send), so the platform is asked for it (by the
        invisible marker carrying its key) before it is sent again. What went out is recorded in one
        transaction after the sends (a crash before that is covered by the same search). A failure leaves
        the message in the outbox for the next step.
        """
        if not self._looked:
            self.store.look()
        token = self.store.token("outbox")
        if token == self._settled:
            return []
        rows = self.store.pending(looked=True)   # (looked above, or at the start of the step)
        unsent = self._unsent
        games: set[str] | None = None   # (asked only of a message this runner did not queue itself)
        stamp = format_time(now)
        sent: list[dict[str, Any]] = []
        marks: list[tuple[str, str, str]] = []   # (time, platform id, key) of each one gone, in the outbox's order
        held: dict[tuple[str, str], str] = {}   # the post each slot's messages replace, found this time
        owed = False
        try:
            for row in rows:
                key = row["key"]
                fresh = key in unsent   # (then one of this runner's games: it queued it)
                if not fresh:
                    if games is None:
                        games = {run.name for run in self.runs} | self._let_go
                    if row["game"] not in games:
                        continue
                try:
                    platform_id = self._send_once(row, key, fresh, held)
                except PlatformError as err:
                    owed = True
                    self.store.record_delivery([(k, p) for _, p, k in marks], now, failed=(key, str(err)))
                    marks = []
                    if result is not None:
                        result.errors.append(err)
                    log.warning("delivering %s failed: %s", key, err)
                    if not err.retryable:
                        if isinstance(err, MessageRefused):
                            self._flag_refused(row, err)
                        continue
                    break   # keep the order of a thread: retry from here next step
                marks.append((stamp, platform_id, key))
                slot = row["slot"]
                if slot:   # (only a slot's message is ever superseded)
                    if platform_id.startswith("superseded:"):
                        continue
                    held.setdefault((row["game"], slot), platform_id)
                sent.append({**row, "platform_id": platform_id, "delivered": now})
        finally:
            if marks:   # written with the next poll's first write (Store.delivered)
                self.store.delivered(marks)
                crashpoint("delivered")
        if not owed:
            self._settled = token
        return sent

    def _flag_refused(self, row: dict[str, Any], err: MessageRefused) -> None:
        """A message the platform refused for good (a post too short for the site, a closed topic): the host is
        told once; it stays in the outbox, undelivered, and is tried again at each step."""
        opening = next((line.strip() for line in str(row.get("text") or "").splitlines() if line.strip()), "")
        opening = opening if len(opening) <= 60 else opening[:59] + "…"
        run = self._run_named(row["game"])
        flag = Flag(reason=f"{self.platform.name} refused a message (\"{opening}\") for good: {err}",
                    author=(run.config.host or "") if run else "", code="flag_message_refused",
                    params=(("platform", self.platform.name), ("text", opening), ("error", str(err))))
        flag = run.renderer.flag(flag) if run else flag
        if not self.store.has_open_flag(row["game"], flag.reason):
            self.store.add_flags(row["game"], [flag])

    def _send_once(self, row: dict[str, Any], key: str, fresh: bool, held: dict[tuple[str, str], str]) -> str:
        """`fresh`: this runner queued it and has not tried to send it (so it cannot have gone out yet)."""
        if fresh:
            self._unsent.discard(key)   # from here on it may have gone out
        if row["slot"]:
            # A message that replaces the slot's post in place: skipped when a newer one of the slot waits,
            # an edit of the slot's post once it exists (editing twice is harmless, so no marker search).
            newer = self.store.newer_in_slot(row["game"], row["slot"], key)
            if newer is not None:
                return f"superseded:{newer}"
            holder = held.get((row["game"], row["slot"])) or self.store.slot_holder(row["game"], row["slot"])
            if holder is not None:
                self.platform.edit(holder, row["text"])
                return holder
        to = row["pm_to"]
        if not fresh:
            found = self.platform.find_sent(key, thread=row["thread"], to=to)
            if found is not None:
                log.info("%s had gone out before a restart (%s); not sending it again", key, found)
                return found
        crashpoint("before_send")
        if to:
            platform_id = self.platform.send_pm(to, row["subject"] or "", row["text"], key=key)
        else:
            platform_id = self.platform.post(row["thread"], row["text"], key=key)
        crashpoint("after_send")
        return platform_id


__all__ = ["GameRun", "Runner", "Step", "StepResult", "play", "setup_of"]
