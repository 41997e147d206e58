"""`forumbot run`: the bot as a long-running service.

One APScheduler 3 job per platform polls at the platform's interval; after every poll the job's next run
is brought forward to the platform's next deadline when that comes sooner, so a phase ends on time.
Deadlines live in the games' states in SQLite (never in pickled jobs): a bot that was down fires every
missed deadline, in order, at its first poll. A platform that fails is retried with exponential backoff
and jitter, on its own: the other platforms' jobs go on. SIGTERM or Ctrl-C lets the running poll finish,
then exits.

`simulate` runs the same polls on a virtual clock (tests, benchmarks, dry runs): it keeps its clock in the
store, so a simulation killed at any point resumes where it stopped.
"""

from __future__ import annotations

import logging
import random
import secrets
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.config.bot import BotConfig, PlatformConfig
from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner, StepResult
from forumbot.engine.hosting import Adopter
from forumbot.engine.tournament import TournamentDriver
from forumbot.errors import ConfigError, StoreError
from forumbot.model import format_time, parse_time
from forumbot.platforms.base import Platform
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.storage import lock as store_lock
from forumbot.text.decline import counted
from forumbot.web.config import HostingSettings, WebSettings, web_games

log = logging.getLogger("forumbot.engine.service")
Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


# The markup each kind of platform posts in (a local forum's is its `dialect` option): its games post in it.
PLATFORM_DIALECTS = {"reddit": "markdown", "phpbb": "bbcode", "discourse": "markdown"}


def platform_dialect(config: PlatformConfig) -> str:
    return PLATFORM_DIALECTS.get(config.kind) or config.options.get("dialect", "markdown")


def make_platform(config: PlatformConfig, clock: Clock) -> Platform:
    """The platform a [platforms.NAME] table describes. Raises ConfigError for a kind not built yet."""
    if config.kind == "local":
        options = config.options
        return LocalForum(options.get("path", "forum.db"), account=options.get("account", "forumbot"),
                          dialect=platform_dialect(config), clock=clock,
                          edit_policy=options.get("edit_policy", "first_seen"),
                          base_url=options.get("base_url", ""), accounts=bool(options.get("mask_accounts", True)))
    if config.kind == "reddit":
        from forumbot.platforms.reddit import from_options
        return from_options(config.name, config.options, clock)
    if config.kind == "phpbb":
        from forumbot.platforms.phpbb import from_options as phpbb_options
        return phpbb_options(config.name, config.options, clock)
    if config.kind == "discourse":
        from forumbot.platforms.discourse import from_options as discourse_options
        return discourse_options(config.name, config.options, clock)
    raise ConfigError(f"platform kind '{config.kind}' is not available",
                      fix="use kind = \"local\", \"reddit\", \"phpbb\" or \"discourse\"")


def attach_store(platform: Platform, store: Store, name: str) -> None:
    """Give a platform that keeps state of its own (phpBB: the signed-in session, PM acknowledgements) a
    place in the store: the platform's cursors named "platform:<what>"."""
    use_store = getattr(platform, "use_store", None)
    if use_store is not None:
        use_store(lambda what: store.cursor(name, f"platform:{what}"),
                  lambda what, value: store.set_cursor(name, f"platform:{what}", value))


# How long a post may take to show after the time it carries (see Runner): a deadline fires that long after.
SETTLE_SECONDS = {"local": 2.0, "reddit": 30.0}


def settle_of(config: PlatformConfig) -> timedelta:
    """The platform's `settle_seconds` (default by kind). Raises ConfigError for a bad value."""
    value = config.options.get("settle_seconds", SETTLE_SECONDS.get(config.kind, 30.0))
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 3600:
        raise ConfigError(f"[platforms.{config.name}] settle_seconds must be a number of seconds from 0 to 3600",
                          fix="settle_seconds = 30")
    return timedelta(seconds=value)


def check_simulation(start: datetime, until: datetime, step_seconds: float) -> None:
    """Raises ConfigError for a simulation that would never end or never run."""
    if not 0 < step_seconds <= 366 * 86400:
        raise ConfigError(f"the simulation's step must be a positive number of seconds, not {step_seconds:g}",
                          fix="--step 60 (at most a year)")
    if until < start:
        raise ConfigError(f"the simulation ends ({format_time(until)}) before it starts ({format_time(start)})",
                          fix="give --until a time after --simulate-from")


@dataclass
class Backoff:
    """Consecutive failures of one platform and when to try again: base × 2^n, capped, with jitter."""

    base: float
    cap: float
    failures: int = 0
    next_try: datetime | None = None
    rng: random.Random = field(default_factory=random.Random)

    def ready(self, now: datetime) -> bool:
        # A retry further away than the longest delay means the clock was set back: try now.
        return self.next_try is None or now >= self.next_try or self.next_try - now > timedelta(seconds=self.cap)

    def failed(self, now: datetime) -> datetime:
        self.failures += 1
        delay = min(self.cap, self.base * 2 ** (self.failures - 1))
        self.next_try = now + timedelta(seconds=delay * self.rng.uniform(0.5, 1.0))
        return self.next_try

    def succeeded(self) -> None:
        self.failures, self.next_try = 0, None


@dataclass
class ClockWatch:
    """Notices the wall clock being set back, by comparing it with a monotonic clock. APScheduler times its
    jobs by the wall clock: set back an hour, it would hold every poll for an hour."""

    clock: Clock
    monotonic: Callable[[], float] = time.monotonic
    slack_seconds: float = 1.0
    last: tuple[datetime, float] | None = None

    def stepped_back(self) -> bool:
        wall, mono = self.clock(), self.monotonic()
        last, self.last = self.last, (wall, mono)
        if last is None:
            return False
        expected = last[0] + timedelta(seconds=mono - last[1])
        return (expected - wall).total_seconds() > self.slack_seconds


@dataclass
class PlatformWorker:
    """Everything one platform's poll job touches: its own store connection, platform and runner."""

    config: PlatformConfig
    runner: Runner
    backoff: Backoff
    lock: threading.Lock = field(default_factory=threading.Lock)
    tournaments: list[TournamentDriver] = field(default_factory=list)   # tournaments run on this platform
    hosted: Adopter | None = None   # games made or ended in the host console, taken up at each poll

    @property
    def name(self) -> str:
        return self.config.name

    def poll(self, now: datetime) -> StepResult | None:
        """One poll: fetch, read, fire due deadlines, deliver. Returns None when backing off."""
        if not self.backoff.ready(now):
            log.debug("%s: backing off until %s", self.name, self.backoff.next_try)
            return None
        with self.lock:
            try:
                if self.hosted is not None:
                    self.hosted.sync(self.runner, now)
                for driver in self.tournaments:   # games whose turn has come start in this poll
                    driver.step(now)
                result = self.runner.step(now)
                for driver in self.tournaments:   # a game that ended in it is noted now
                    driver.step(now)
            except (sqlite3.Error, StoreError) as err:   # so `status` does not keep showing a good poll
                _record_failure(self, now, err)
                raise
        if result.errors:
            retry_at = self.backoff.failed(now)
            self.runner.store.platform_failed(self.name, now, str(result.errors[-1]), self.backoff.failures,
                                              retry_at)
            log.warning("%s: %s, last: %s; retrying at %s", self.name, counted(len(result.errors), "error/errors"),
                        result.errors[-1], format_time(retry_at))
        else:
            self.backoff.succeeded()
            self.runner.store.platform_ok(self.name, now)
        if result.failed_games:
            log.warning("%s: %s failed this poll (flagged for the host); the other games went on", self.name,
                        ", ".join(result.failed_games))
        if result.posts_fetched or result.delivered or result.flags:
            log.info("%s: polled %s, read %s, %s, posted %s", self.name,
                     counted(result.posts_fetched, "new post/new posts"), counted(result.intents, "intent/intents"),
                     counted(len(result.flags), "flag/flags"), counted(len(result.delivered), "message/messages"))
        return result


def _record_failure(worker: PlatformWorker, now: datetime, err: Exception) -> None:
    """Tell `status` that the last poll failed, if the store still takes a write."""
    try:
        worker.runner.store.platform_failed(worker.name, now, f"the store failed: {err}",
                                            worker.backoff.failures + 1, now)
    except sqlite3.Error:
        log.debug("could not record the failure in the store either")


def _seeded(config: GameConfig) -> GameConfig:
    """A live game's config with a secret random seed when the host gave none: its draws must not be
    guessable from the config file (games post the seed's hash at the start and reveal it at the end).
    Only a game not yet in the store uses it; a running game keeps the seed in its state."""
    if "seed" in config.options:
        return config
    return replace(config, options={**config.options, "seed": secrets.randbelow(2**53)})


class Service:
    """The bot: one worker per platform over one store file."""

    def __init__(self, config: BotConfig, clock: Clock = utcnow, *, fresh_seeds: bool | None = None) -> None:
        """`fresh_seeds`: give games without a seed a secret random one (default: on the wall clock only,
        so simulations stay reproducible)."""
        self.config = config
        store_lock.hold(config.store)   # one bot per store, for this process's life
        seed = _seeded if (clock is utcnow if fresh_seeds is None else fresh_seeds) else (lambda c: c)
        self.clock = clock
        self.workers: dict[str, PlatformWorker] = {}
        hosting = config.hosting.platform if config.hosting else None
        for name, platform_config in config.platforms.items():
            games = [g for g in config.games if g.platform == name]
            plans = [plan for plan, where in config.tournaments if where == name]
            if not games and not plans and name != hosting:
                continue
            platform = make_platform(platform_config, clock)
            opens = platform_config.kind != "local"

            def build(game: GameConfig, threads: dict[str, str], platform: Platform = platform,
                      kind: str = platform_config.kind) -> GameRun:
                # Reddit and phpBB games open the threads [games.threads] does not name
                # (forumbot/engine/threads.py); on the local forum a thread is made by posting in it.
                return GameRun.build(seed(game), dialect=platform.dialect, thread_ids=threads,
                                     open_threads=kind != "local", bbcode_extra=getattr(platform, "bbcode_extra", None))

            runs = [build(g.config, g.threads) for g in games]
            runner = Runner(Store(config.store), platform, runs, settle=settle_of(platform_config))
            attach_store(platform, runner.store, name)
            backoff = Backoff(base=platform_config.poll_seconds, cap=config.retry_max_seconds)
            drivers = [TournamentDriver(plan, runner, open_threads=opens, fresh_seeds=seed is _seeded)
                       for plan in plans]
            for driver in drivers:   # (the games a tournament started before a restart are built again)
                driver.begin(clock())
            adopter = Adopter(platform_config, config.platforms, platform.dialect, build)
            adopter.sync(runner, clock())   # (a restarted bot: the games made in the console before)
            self.workers[name] = PlatformWorker(platform_config, runner, backoff, tournaments=drivers,
                                                hosted=adopter)

    def web_settings(self) -> WebSettings | None:
        """What the web forum serves ([web] in the bot config): the local forum and its games."""
        web = self.config.web
        if web is None:
            return None
        options = self.config.platforms[web.platform].options
        worker = self.workers.get(web.platform)
        hosting = self.config.hosting
        return WebSettings(options.get("path", "forum.db"), web, platform_dialect(self.config.platforms[web.platform]),
                           options.get("account", "forumbot"), web_games(worker.runner) if worker else (),
                           self.clock, str(self.config.store),
                           {run.name: run.config.host or "" for w in self.workers.values() for run in w.runner.runs},
                           HostingSettings(hosting.creators, hosting.platform, self.config.platforms,
                                           platform_dialect(self.config.platforms[hosting.platform]))
                           if hosting else None,
                           {run.name: run.config.cohosts for w in self.workers.values() for run in w.runner.runs})

    def start_games(self) -> None:
        """Create the games that are not in the store yet (their opening posts go in the outbox)."""
        for worker in self.workers.values():
            worker.runner.start(self.clock())

    def poll_all(self, now: datetime) -> dict[str, StepResult | None]:
        return {name: worker.poll(now) for name, worker in self.workers.items()}

    def next_deadline(self, worker: PlatformWorker) -> datetime | None:
        times = [t for t in (worker.runner.next_deadline(), *(d.next_time() for d in worker.tournaments))
                 if t is not None]
        return min(times) if times else None

    # ---- on the wall clock, with APScheduler ----------------------------------------------------
    def run_forever(self) -> None:
        """Poll every platform at its interval until SIGTERM/SIGINT; the running poll is let finish."""
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.schedulers.blocking import BlockingScheduler

        self.start_games()
        scheduler = BlockingScheduler(
            timezone=UTC,
            executors={"default": ThreadPoolExecutor(max_workers=max(1, len(self.workers)))},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None})

        failed: list[Exception] = []

        def job(name: str) -> None:
            worker = self.workers[name]
            try:
                worker.poll(self.clock())
            except (sqlite3.Error, StoreError) as err:   # the store itself fails: stop (exit 2, no traceback)
                log.error("%s: the store failed (%s); stopping", name, err)
                failed.append(err)
                scheduler.shutdown(wait=False)
                return
            except Exception:   # a bug must not stop the other platforms: log it, retry next poll
                log.exception("%s: the poll failed", name)
            self._bring_forward(scheduler, worker)

        for name, worker in self.workers.items():
            scheduler.add_job(job, "interval", seconds=worker.config.poll_seconds, args=[name],
                              id=f"poll:{name}", next_run_time=self.clock())

        stopping: list[threading.Thread] = []

        def stop(signum: int, _frame: Any) -> None:
            # The handler runs in the main thread, which may hold the scheduler's locks at that moment while a
            # poll waits for them: shutting down (which waits for that poll) from here could deadlock. Another
            # thread shuts the scheduler down; the main loop ends when it has.
            if stopping:
                return
            log.info("signal %d: finishing the running poll, then stopping", signum)
            for worker in self.workers.values():   # a platform that can (phpBB) ends its running exchange now
                halt = getattr(worker.runner.platform, "stop", None)
                if halt is not None:
                    halt()
            stopping.append(threading.Thread(target=scheduler.shutdown, kwargs={"wait": True}, name="stop"))
            stopping[0].start()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        log.info("forumbot running: %s", ", ".join(f"{n} every {w.config.poll_seconds:g}s"
                                                 for n, w in self.workers.items()))
        stopped = threading.Event()
        threading.Thread(target=self._watch_clock, args=(scheduler, stopped), daemon=True, name="clock").start()
        scheduler.start()
        stopped.set()
        for thread in stopping:
            thread.join()
        log.info("forumbot stopped")
        if failed:
            raise failed[0]

    def _watch_clock(self, scheduler: Any, stopped: threading.Event) -> None:
        """Every second: when the wall clock was set back, every platform's poll runs now."""
        watch = ClockWatch(self.clock)
        watch.stepped_back()
        while not stopped.wait(1.0):
            if watch.stepped_back():
                log.warning("the clock was set back; polling every platform now")
                self.poll_now(scheduler)

    def poll_now(self, scheduler: Any) -> None:
        """Run every platform's poll job now."""
        for worker in self.workers.values():
            job = scheduler.get_job(f"poll:{worker.name}")
            if job is not None and job.next_run_time is not None:
                job.modify(next_run_time=self.clock())

    def _bring_forward(self, scheduler: Any, worker: PlatformWorker) -> None:
        """Run the platform's next poll at its next deadline (or its retry time), if sooner."""
        job = scheduler.get_job(f"poll:{worker.name}")
        if job is None or job.next_run_time is None:
            return
        wanted = [t for t in (self.next_deadline(worker), worker.backoff.next_try) if t is not None]
        if not wanted:
            return
        soonest = max(min(wanted), self.clock())
        if soonest < job.next_run_time:
            job.modify(next_run_time=soonest)

    # ---- on a virtual clock ---------------------------------------------------------------------
    def simulate(self, start: datetime, until: datetime, step_seconds: float,
                 on_step: Callable[[datetime], None] | None = None) -> datetime:
        """Poll every platform at `start`, `start + step`, ... up to `until`, and at every deadline on the
        way, on a virtual clock kept in the store (a killed simulation resumes at its last finished poll)."""
        check_simulation(start, until, step_seconds)
        store = next(iter(self.workers.values())).runner.store
        saved = store.cursor("simulation", "clock")
        now = max(start, parse_time(saved)) if saved else start
        if hasattr(self.clock, "now"):
            self.clock.now = now   # type: ignore[attr-defined]
        self.start_games()
        step = timedelta(seconds=step_seconds)
        while now <= until:
            self._set_clock(now)
            self.poll_all(now)
            store.set_cursor("simulation", "clock", format_time(now))
            if on_step:
                on_step(now)
            following = now + step
            deadlines = [d for d in (self.next_deadline(w) for w in self.workers.values()) if d and d > now]
            now = min([following, *deadlines])
        return now

    def _set_clock(self, now: datetime) -> None:
        if hasattr(self.clock, "now"):
            self.clock.now = now   # type: ignore[attr-defined]
