"""A tournament that runs itself over a runner (forumbot/engine/cycle.py): each game of its plan starts when
its turn comes (the time the host set, or the host's confirmation, never before the game before it ended),
with the tournament's roster (masks and forums) and what it reads from the ledger at that moment (garnets
for Nisemonogatari, Tokens of Life for Food Chain); a game picked by a ranked vote is the vote's winner; a
finished game's entries go to the ledger in one transaction (Runner._settle). The store keeps the plan and
the log: every game started (with the config it was given, so a restarted bot builds the same one), every
game ended, the host's confirmations, the approval to reveal the masks, the host's corrections of the ledger
and every change of a game's entries after a correction, each with who and when.

The host acts through `forumbot tournament` (or a tournament sample's [[host]] lines): `confirm GAME`,
`reveal` (approve revealing the masks at the end), `correct GAME PLAYER tol|garnets|ec +N why`. Each is
refused unless it comes from the plan's host.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime
from typing import Any

from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import Runner
from forumbot.engine.loading import GameRun
from forumbot.errors import ConfigError, IllegalIntent
from forumbot.games.tournament import CORRECTIONS, Choice, Entry, Plan, reveal_rows, standings_event, start_options
from forumbot.model import Event, Flag, PlayerRef, format_time, parse_time
from forumbot.render.renderer import Renderer
from forumbot.storage import Store

log = logging.getLogger("forumbot.engine.tournament")
FIELDS = ("tol", "garnets", "ec")


# ---- what the store says about a tournament ----------------------------------------------------------
def times(store: Store, name: str, kind: str) -> dict[str, datetime]:
    """The first time each game has a log entry of `kind` ("started", "ended", "confirmed")."""
    out: dict[str, datetime] = {}
    for row in store.tournament_log(name, kind):
        out.setdefault(row["game"], parse_time(row["at"]))
    return out


def revealed(store: Store, plan: Plan) -> bool:
    """Whether the masks are revealed: the tournament finished and its host approved."""
    return plan.reveal == "host" and bool(store.tournament_log(plan.name, "finished")) \
        and bool(store.tournament_log(plan.name, "reveal_approved"))


def view(store: Store, plan: Plan) -> dict[str, Any]:
    """The tournament as `forumbot tournament` and the web forum show it: the schedule with each game's
    status, the roster (masks only, until revealed), the standings and the log."""
    started, ended = times(store, plan.name, "started"), times(store, plan.name, "ended")
    confirmed = times(store, plan.name, "confirmed")
    games = []
    for stage in plan.stages:
        picked = next((r["data"].get("game") for r in store.tournament_log(plan.name, "started")
                       if r["game"] == stage.name), None)
        status = "over" if stage.name in ended else "running" if stage.name in started else \
            "waiting for the host" if stage.confirm and stage.name not in confirmed else "scheduled"
        games.append({"name": stage.name, "game": picked or stage.game or f"picked by {stage.picked_by}",
                      "status": status, "started": format_time(started[stage.name]) if stage.name in started else "",
                      "ended": format_time(ended[stage.name]) if stage.name in ended else "",
                      "start": format_time(stage.start) if stage.start else
                      (f"{stage.start_hours:g} h after {stage.after}" if stage.start_hours is not None else
                       "on the host's confirmation" if stage.confirm else f"when {stage.after} ends"),
                      # (the same, in parts, for a page that says it in its own language)
                      "picked_by": "" if picked or stage.game else stage.picked_by,
                      "start_at": format_time(stage.start) if stage.start else "", "after": stage.after or "",
                      "start_hours": stage.start_hours, "confirm": bool(stage.confirm)})
    show = revealed(store, plan)
    event = standings_event(plan.name, store.ledger(plan.name), plan.masks())
    return {"tournament": plan.name, "host": plan.host, "games": games,
            "finished": bool(store.tournament_log(plan.name, "finished")), "revealed": show,
            "roster": reveal_rows(plan) if show else [{"mask": m} for m in sorted(plan.masks(), key=str.casefold)],
            "standings": event.data, "log": [{k: r[k] for k in ("at", "by", "kind", "game", "data")}
                                             for r in store.tournament_log(plan.name)]}


# ---- the host's actions ---------------------------------------------------------------------------------
def _host(plan: Plan, by: str) -> None:
    if not plan.host or by != plan.host:
        raise IllegalIntent(f"only the tournament's host ({plan.host or 'none is set'}) can do that, not {by}")


def confirm(store: Store, plan: Plan, game: str, by: str, at: datetime) -> None:
    """The host's go for a game that starts on confirmation."""
    _host(plan, by)
    stage = plan.stage(game)
    if not stage.confirm:
        when = "at its time" if stage.start else f"after {stage.after}"
        raise IllegalIntent(f"{game} starts by itself ({when})")
    if game in times(store, plan.name, "started"):
        raise IllegalIntent(f"{game} has started already")
    store.log_tournament(plan.name, "confirmed", at, by=by, game=game)


def approve_reveal(store: Store, plan: Plan, by: str, at: datetime) -> None:
    """The host's approval to reveal the masks (they show once the tournament has finished)."""
    _host(plan, by)
    if plan.reveal == "never":
        raise IllegalIntent(f"{plan.name}'s masks are never revealed (reveal = \"never\" in its file)")
    store.log_tournament(plan.name, "reveal_approved", at, by=by)


def correct(store: Store, plan: Plan, game: str, player: str, changes: dict[str, int], why: str, by: str,
            at: datetime) -> Entry:
    """The host's correction of a game's result in the ledger (a Token, garnets or an EC designation added or
    taken away), kept as an entry of its own beside the game's, and logged with who, what and why."""
    _host(plan, by)
    plan.stage(game)
    if player not in plan.masks():
        raise IllegalIntent(f"{player} is not in {plan.name}'s roster")
    if not changes or any(k not in FIELDS for k in changes) or not any(changes.values()):
        raise IllegalIntent("say what changes: tol, garnets or ec, by a whole number (+1, -2)")
    if not why.strip():
        raise IllegalIntent("say why (it goes into the audit trail)")
    kept = [Entry.from_json(r) for r in store.ledger(plan.name) if r["game"] == CORRECTIONS]
    entry = Entry(player, reason=f"correction of {game} by {by}: {why.strip()}", **changes)
    with store.db.atomic():   # the entry and its log line together
        store.record_ledger(plan.name, CORRECTIONS, [*kept, entry], at, by=by)
        store.log_tournament(plan.name, "corrected", at, by=by, game=game,
                             data={"player": player, **changes, "why": why.strip()})
    return entry


def reread(store: Store, plan: Plan, game: str, post: str, text: str, why: str, by: str, at: datetime) -> int:
    """The host's correction of a finished round of any game of the tournament: the game reads its post
    `post` as `text` and works its results out again at the running bot's next poll; the ledger follows
    (Runner._settle), the tournament's log naming the host. Returns the correction's id."""
    _host(plan, by)
    plan.stage(game)
    if not text.strip() or not why.strip():
        raise IllegalIntent("give the text the post is to be read as (--text) and why (--why)")
    if game not in times(store, plan.name, "started"):
        raise IllegalIntent(f"{game} has not started")
    if not any(p.platform_id == post for p in store.processed_posts(game)):
        raise IllegalIntent(f"{game} has read no post {post!r}")
    correction = corrections.add(store, game, post, "reread_round", {"text": text}, why.strip(), by, at)
    store.log_tournament(plan.name, "reread", at, by=by, game=game,
                         data={"post": post, "text": text, "why": why.strip(), "correction": correction})
    return correction


# ---- running it ---------------------------------------------------------------------------------------
class TournamentDriver:
    """Starts the games of `plan` on `runner` as their turns come, and notes their ends."""

    def __init__(self, plan: Plan, runner: Runner, *, open_threads: bool = False, fresh_seeds: bool = False) -> None:
        """`open_threads`: the games' threads are opened on the platform (Reddit, phpBB), as for any game.
        `fresh_seeds`: a game the host gave no seed gets a secret random one when it starts (a live bot; the
        started game's config, seed included, is kept in the store's log, never shown to players)."""
        self.plan = plan
        self.runner = runner
        self.store = runner.store
        self.open_threads = open_threads
        self.fresh_seeds = fresh_seeds

    def begin(self, at: datetime) -> None:
        """Keep the plan in the store (refusing another plan of the same name) and build again every game
        already started (after a restart) from the config the log kept."""
        if not self.store.save_plan(self.plan.name, self.plan.to_json(), at):
            raise ConfigError(f"the store already runs another tournament called {self.plan.name!r}",
                              path=self.plan.source or None, fix="give this tournament a name of its own")
        for row in self.store.tournament_log(self.plan.name, "started"):
            if self._run(row["game"]) is None:
                self.runner.runs.append(self._build(row["data"]))

    def _run(self, name: str) -> GameRun | None:
        return next((run for run in self.runner.runs if run.name == name), None)

    def _build(self, data: dict[str, Any]) -> GameRun:
        plan = self.plan
        forums = {m.mask: m.forum for m in plan.members}
        config = GameConfig(name=data["name"], game=data["game"], lang=plan.lang, start=parse_time(data["start"]),
                            players=tuple(PlayerRef(p, forum=forums.get(p) or None) for p in data["players"]),
                            options=dict(data["options"]), host=plan.host, dialect=plan.dialect,
                            source=f"tournament {plan.name}", tournament=plan.name)
        platform = self.runner.platform
        return GameRun.build(config, dialect=getattr(platform, "dialect", plan.dialect), open_threads=self.open_threads,
                             bbcode_extra=getattr(platform, "bbcode_extra", None))

    def _over(self, run: GameRun) -> bool:
        if self.store.game_version(run.name) is None:
            return False
        summary = run.game.summary(self.runner.state(run))
        return summary.get("phase") == "over"

    def pending(self) -> list[tuple[str, datetime | None]]:
        """Each game not started yet with its start time as far as it is known (None: it waits)."""
        started = times(self.store, self.plan.name, "started")
        ended = times(self.store, self.plan.name, "ended")
        confirmed = times(self.store, self.plan.name, "confirmed")
        return [(s.name, s.start_time(ended.get(s.after) if s.after else None, confirmed.get(s.name)))
                for s in self.plan.stages if s.name not in started]

    def next_time(self) -> datetime | None:
        known = [t for _, t in self.pending() if t is not None]
        return min(known) if known else None

    def step(self, now: datetime) -> None:
        """Note the games that ended, start those whose turn has come, note the tournament's end."""
        plan, store = self.plan, self.store
        ended = times(store, plan.name, "ended")
        for stage in plan.stages:
            run = self._run(stage.name)
            if run is not None and stage.name not in ended and self._over(run):
                summary = run.game.summary(self.runner.state(run))
                store.log_tournament(plan.name, "ended", now, game=stage.name,
                                     data={"winner": summary.get("winner"), "winners": summary.get("winners")})
        for name, start in self.pending():
            if start is None or start > now:
                continue
            self._start(plan.stage(name), start, now)
        ended = times(store, plan.name, "ended")
        if all(s.name in ended for s in plan.stages) and not store.tournament_log(plan.name, "finished"):
            store.log_tournament(plan.name, "finished", now)
        if revealed(store, plan) and not store.tournament_log(plan.name, "revealed"):
            self._reveal(now)

    def _reveal(self, now: datetime) -> None:
        """The end's posts in the last game's thread: the final standings and the masks with the players
        behind them (seed 002 section 1), once the host has approved."""
        plan, store = self.plan, self.store
        last = self._run(plan.stages[-1].name)
        if last is None:
            return
        standings = standings_event(plan.name, store.ledger(plan.name), plan.masks())
        masks = [{"mask": m["mask"], "account": m["player"] + (f" ({m['forum']})" if m["forum"] else "")}
                 for m in reveal_rows(plan)]
        thread = next(iter(last.game.threads(self.runner.state(last))), "game")
        store.log_tournament(plan.name, "revealed", now)   # (first: a failed post is not posted twice)
        self.runner.announce(last, [Event("tournament_standings", {**standings.data, "thread": thread}),
                                    Event("masks_reveal", {"thread": thread, "masks": masks})], now)

    def _cannot_start(self, stage: Any, err: Exception, now: datetime) -> None:
        """The host hears once why a game of the plan cannot start (the next poll tries again)."""
        flag = Renderer("markdown", self.plan.lang).flag(Flag(
            reason=f"{self.plan.name}: {stage.name} cannot start: {err}", author=self.plan.host or "", at=now,
            code="flag_stage_cannot_start", params=(("plan", self.plan.name), ("stage", stage.name),
                                                   ("error", str(err)))))
        if not self.store.has_open_flag(stage.name, flag.reason):
            self.store.add_flags(stage.name, [flag])

    def _start(self, stage: Any, start: datetime, now: datetime) -> None:
        plan, store = self.plan, self.store
        winner = None
        if stage.picked_by:
            row = next((r for r in store.tournament_log(plan.name, "ended") if r["game"] == stage.picked_by), None)
            winner = row["data"].get("winner") if row else None
        try:
            choice = stage.chosen(winner)
        except IllegalIntent as err:
            self._cannot_start(stage, err, now)
            return
        players = list(plan.masks())
        if self.fresh_seeds and "seed" not in choice.options:
            choice = Choice(choice.game, {**choice.options, "seed": secrets.randbelow(2**53)})
        options = start_options(choice.game, choice.options, [Entry.from_json(r) for r in store.ledger(plan.name)],
                                players)
        data = {"name": stage.name, "game": choice.game, "start": format_time(start), "players": players,
                "options": options, "picked": winner}
        try:
            run = self._build(data)
        except ConfigError as err:
            self._cannot_start(stage, err, now)
            return
        store.log_tournament(plan.name, "started", now, game=stage.name, data=data)
        self.runner.runs.append(run)
        log.info("%s: %s starts (%s)", plan.name, stage.name, choice.game)
