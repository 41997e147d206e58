"""Mafia as a pure state machine: day voting (section 6), phases, deadlines, vote counts, and the nights.

Night actions (actions.py) arrive by PM; at the night's deadline night.py resolves them by the priority
table and newspaper.py writes the newspaper and the private results; dayside.py applies the roles'
protections from hanging at the day's end. A game whose players have no roles has quiet nights.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from itertools import filterfalse
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, refusal
from forumbot.games.mafia import bestplayer, ledger, moderation, voting
from forumbot.games.mafia.actions import NIGHT_KINDS, apply_night
from forumbot.games.mafia.actions import refuse as night_refusal
from forumbot.games.mafia.dayside import hang_protections
from forumbot.games.mafia.newspaper import end_night, game_over, winner
from forumbot.games.mafia.options import MafiaOptions
from forumbot.games.mafia.roles import find_role
from forumbot.games.mafia.schedule import modkill, must_act, next_reminder, remind, shift
from forumbot.games.mafia.signup import (
    SIGNUP_KINDS,
    apply_signup,
    on_signup_deadline,
    reveal_masks,
)
from forumbot.games.mafia.state import (
    NO_LYNCH,
    PRE_PHASES,
    DayResult,
    Death,
    MafiaState,
    VoteEntry,
    VoteError,
    moved,
    new_entry,
    state_change,
    state_from_json,
    state_to_json,
    struck,
)
from forumbot.kept import REMADE, ByIdentity, FrozenDict, FrozenList, Remade
from forumbot.model import Event, Intent, PlayerRef, format_time
from forumbot.stateparts import StateChange
from forumbot.tournament import Entry

_new = object.__new__   # model.filled inline: the object, then its fields in its __dict__
VOTE_KINDS = ("vote", "unvote", "no_lynch")
# Phases outside the days and nights: sign-ups and role confirmation, the best-player vote.
QUIET_PHASES = (*PRE_PHASES, "best_player")


class MafiaGame:
    name = "mafia"

    # ---- setup -------------------------------------------------------------------------------
    def new(self, setup: GameSetup) -> MafiaState:
        """The first state. Raises ConfigError for an empty roster, a bad phase or unknown dead players."""
        options = MafiaOptions.from_dict(dict(setup.options))
        names = tuple(p.name for p in setup.players)
        if setup.phase == "signup":   # the roster comes from the sign-ups (signup.py)
            return MafiaState(players=(), alive=(), phase="signup", phase_started=setup.start,
                              phase_ends=setup.start + timedelta(hours=options.signup_hours), options=options,
                              host=setup.host, lang=setup.lang)
        if not names:
            raise ConfigError("the game has no players", fix="add [[players]] entries with a name")
        unknown = [n for n in setup.dead if n not in names]
        if unknown:
            raise ConfigError(f"dead players not in the roster: {', '.join(unknown)}")
        phase = setup.phase or "day1"
        if not re.fullmatch(r"(?:day|night)[0-9]{1,4}", phase):     # "day²" passed isdigit() and broke int()
            raise ConfigError(f"phase '{phase}' is not like day1 or night2", fix='write phase = "day1"')
        hours = options.day_hours if phase.startswith("day") else options.night_hours
        extra = dict(setup.state)
        no_lynch_used = extra.pop("no_lynch_used", 0)
        if not isinstance(no_lynch_used, int) or no_lynch_used < 0:
            raise ConfigError("no_lynch_used must be a whole number ≥ 0")
        if extra:
            raise ConfigError(f"unknown starting state: {', '.join(extra)}", fix="known: no_lynch_used")
        roles = {p.name: p.role for p in setup.players if p.role}
        if options.roles:
            for name, text in roles.items():
                role = find_role(options.roles, text)
                if role is None:
                    raise ConfigError(f"player {name}: role '{text}' is not in the ruleset",
                                      fix="roles: " + ", ".join(r.id for r in options.roles))
                roles[name] = role.id
        return MafiaState(
            players=names,
            alive=tuple(n for n in names if n not in setup.dead),
            phase=phase,
            phase_started=setup.start,
            phase_ends=setup.start + timedelta(hours=hours),
            options=options,
            roles=roles,
            dead=tuple(Death(n, "start", "setup", None) for n in setup.dead),
            no_lynch_used=no_lynch_used,
            host=setup.host,
            lang=setup.lang,
            forums={p.name: p.forum for p in setup.players if p.forum},
        )

    def unplayable(self, state: MafiaState) -> tuple[str, str] | None:
        """Why a game set up like this could never be played to its end, and the fix; None when it can.
        `check-config` and a live bot's config refuse such a game (a scenario replayed in tests may not)."""
        if state.phase in PRE_PHASES:   # sign-ups: the roster comes by PM, the roles from the host's table
            slots = state.options.signup_slots
            if slots < 3:
                return (f"a Mafia game needs at least 3 players; signup_slots is {slots}", "signup_slots = 12")
            if state.options.votes_only:
                return None
            table = dict(state.options.role_table)
            missing = [str(n) for n in range(1, slots + 1)
                       if not find_role(state.options.roles, str(table.get(str(n), "")))]
            if missing:
                return (f"the host's role table has no role of the ruleset for number(s) {', '.join(missing[:12])}, "
                        "so the game could not be dealt", 'fill [game.options] role_table = { "1" = "inspector", ... }')
            return None
        count = len(state.players)
        if count < 3:
            return (f"a Mafia game needs at least 3 players; the roster has {count}", "add [[players]]")
        if state.options.votes_only:
            return None
        fix = ("give every player a role = \"...\" of the ruleset, or add votes_only = true to [game.options] "
               "for a game where the bot counts the votes and the host says who won")
        if not state.options.roles:
            return ("the ruleset has no roles, so no side can ever win and the game would never end", fix)
        missing = [n for n in state.players if n not in state.roles]
        if len(missing) == count:
            return ("no player has a role, so no side can ever win and the game would never end", fix)
        if missing:
            return (f"{', '.join(missing[:5])}{' and others' if len(missing) > 5 else ''} have no role, so no side "
                    "can ever win and the game would never end", fix)
        return None

    def start_events(self, state: MafiaState) -> list[Event]:
        """The post that opens the first phase (none for sign-ups: they are open by PM)."""
        return [] if state.phase in PRE_PHASES else [_phase_start(state)]

    # ---- intents -----------------------------------------------------------------------------
    def apply(self, state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
        # A vote, the commonest, first (no other kind _apply reads is a vote kind); _after acts only on a game
        # that is over.
        state, events = _vote(state, intent) if intent.kind in VOTE_KINDS else self._apply(state, intent)
        if state.phase == "over":
            return _after(state, events, intent.at or state.phase_started)
        return state, events

    def _apply(self, state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
        if intent.kind in VOTE_KINDS:    # the commonest, first: no other kind below is a vote kind
            return _vote(state, intent)
        if intent.kind == "modkill":     # from the host layer, which checked that the host sent it
            return _modkill(state, intent)
        if intent.kind in SIGNUP_KINDS:
            return apply_signup(state, intent)
        if intent.kind in OUTSIDE_KINDS:
            return OUTSIDE_KINDS[intent.kind](state, intent)
        if intent.kind in NIGHT_KINDS and state.phase in QUIET_PHASES:
            return state, [night_refusal(intent, "not_night", phase=state.phase)]
        if intent.kind in NIGHT_KINDS:
            return apply_night(state, intent)
        if intent.kind == "not_counted":   # a vote-like line the parser did not count: shown in the count
            if state.is_day and intent.author in state.players:
                state = _note_error(state, intent, intent.data.get("error", ""),
                                    intent.data.get("error_code", "not_counted"),
                                    intent.data.get("params", {}))
            return state, []
        return _refuse(state, intent, "not_command", {"kind": intent.kind})

    # ---- time --------------------------------------------------------------------------------
    def next_deadline(self, state: MafiaState) -> datetime | None:
        """The next moment the game acts by itself: a reminder, else the end of the phase."""
        global _DEADLINE_ASKED
        asked = _DEADLINE_ASKED
        if asked[0] is state:   # asked about one state several times a step (play, the runner's recheck)
            return asked[1]
        if state.phase == "over":
            deadline = None
        elif state.phase in QUIET_PHASES or not state.options.remind_hours:   # (no reminders: next_reminder's None)
            deadline = state.phase_ends
        else:
            reminder = next_reminder(state)
            deadline = reminder if reminder is not None and reminder < state.phase_ends else state.phase_ends
        _DEADLINE_ASKED = (state, deadline)
        return deadline

    def shift(self, state: MafiaState, delta: timedelta) -> MafiaState:
        return shift(state, delta)

    def on_deadline(self, state: MafiaState, at: datetime, now: datetime | None = None
                    ) -> tuple[MafiaState, list[Event]]:
        """A reminder due at `at`, or the phase's end at its own deadline. A reminder noticed only after
        the phase has ended (the bot was down) is dropped, not sent."""
        if state.phase == "over":
            return state, []
        if state.phase in PRE_PHASES:
            return on_signup_deadline(state, at)
        if state.phase == "best_player":
            return bestplayer.close(state, at)
        if at < state.phase_ends:
            reminded, events = remind(state, at)
            return (reminded, []) if now is not None and now >= state.phase_ends else (reminded, events)
        if state.is_day:
            return _after(*_end_day(state, state.phase_ends, "deadline"), state.phase_ends)
        return _after(*_end_night(state, state.phase_ends), state.phase_ends)

    def report(self, state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
        every = state.options.vote_count_every
        if not state.is_day or not every or state.changes < every:
            return state, []
        state = state.with_(count_number=state.count_number + 1, changes=0)
        data = view(state, at)
        if state.options.vote_count_edit:
            data["slot"] = f"vote_count:{state.phase}"   # one post per day, edited in place
        event = _new(Event)    # Event(...) as __init__ fills it (model.filled, without its frame): one a count
        event.__dict__.update(kind="vote_count", data=data)
        return state, [event]

    def tally(self, state: MafiaState, at: datetime) -> Event | None:
        """The current vote count (without counting it as posted), or None at night."""
        return Event("vote_count", view(state, at)) if state.is_day else None

    # ---- threads -------------------------------------------------------------------------------
    def threads(self, state: MafiaState) -> dict[str, str]:
        """The game's threads by what they are for: "game" (phase posts) and "votes" (vote counts). The same
        dict while the options are the same object (asked at most steps; callers only read it)."""
        global _THREADS_ASKED
        options = state.options
        asked = _THREADS_ASKED
        if asked[0] is options:
            return asked[1]
        threads = {"game": options.game_thread, "votes": options.vote_threads[0],
                   **{name: name for name in options.vote_threads}}
        _THREADS_ASKED = (options, threads)
        return threads

    def pm_authors(self, state: MafiaState) -> tuple[str, ...]:
        """Whose private messages this game reads: every player (night actions arrive by PM) and the
        real account behind each mask, the host; while sign-ups are open, anyone ("*")."""
        if state.phase == "signup":
            return ("*",)
        # Asked a few times a step: kept by the identity of the roster and of the masks (both replaced, never
        # changed), so a step does not copy the roster.
        found = _PM_AUTHORS.get(state.players)
        if found is not None and found[0] is state.masks and found[1] == state.host:
            return found[2]
        players = (*state.players, *state.masks.values())
        authors = (*players, state.host) if state.host and state.host not in players else players
        _PM_AUTHORS.put(state.players, (state.masks, state.host, authors))
        return authors

    def account_player(self, state: MafiaState, account: str) -> str:
        """The player whose PMs an account sends: a mask's real account writes as the mask."""
        if not state.masks:
            return account
        return _mask_of(state.masks).get(account, account)   # = player_of_account, without a loop a PM

    def roster(self, state: MafiaState) -> tuple[PlayerRef, ...] | None:
        """The players (masks, with the gender they signed up with) once the sign-ups have made them (None:
        the config's)."""
        return _roster(state.players, state.genders) if state.masks else None

    def watched_threads(self, state: MafiaState) -> tuple[str, ...]:
        """Threads whose talk is checked for the host (moderation.py), without counting it."""
        return (state.options.game_thread,) if state.options.moderate else ()

    def watch_post(self, state: MafiaState, post: Intent, thread: str) -> tuple[MafiaState, list[Event]]:
        return moderation.watch(state, post, thread)

    def ledger_entries(self, state: MafiaState) -> list[Entry]:
        """The warnings ledger for a tournament's table of forums' penalty points, one entry per violation, as
        they happen (the tournament records each once)."""
        return [Entry(e["player"], reason=f"rule {e['rule']}", forum=e["forum"], penalty=ledger.points(e))
                for e in state.ledger]

    def command_threads(self, state: MafiaState) -> tuple[str, ...]:
        """Threads whose posts are read for commands (votes count only in the voting thread)."""
        return state.options.vote_threads

    # ---- storage and views -------------------------------------------------------------------
    def to_json(self, state: MafiaState) -> dict[str, Any]:
        return state_to_json(state)

    def state_change(self, old: MafiaState | None, new: MafiaState) -> StateChange:
        """What to write to store `new` over `old` (None: all of it), part by part (forumbot/stateparts.py)."""
        return state_change(old, new)

    def from_json(self, data: dict[str, Any]) -> MafiaState:
        return state_from_json(data)

    def summary(self, state: MafiaState) -> dict[str, Any]:
        votes: dict[str, list[str]] = {}
        for wagon in voting.wagons(state):
            if wagon.voters:
                votes[wagon.target] = [e.voter for e in wagon.voters]
        return {
            "phase": state.phase,
            "phase_ends": format_time(state.phase_ends),
            "alive": list(state.alive),
            "dead": [{"name": d.name, "phase": d.phase, "cause": d.cause} for d in state.dead],
            "days": [_day_json(d) for d in state.days],
            "no_lynch_used": state.no_lynch_used,
            "rule": voting.rule(state),
            "needed": voting.needed(state) if voting.rule(state) == "absolute" else None,
            "votes": votes,
            "locked": sorted(state.locked),
            "not_voting": voting.not_voting(state) if state.is_day else [],
            "roles": dict(state.roles),
            "nights": [dict(n) for n in state.nights],
            "winner": state.winner,
            **_extra_summary(state),
        }


def _roster(players: tuple[str, ...], genders: dict[str, str]) -> tuple[PlayerRef, ...]:
    """The roster of these players, the same tuple while they and their genders are the same objects: it is
    asked for at every post, and the parser is rebuilt only when it is another."""
    found = _ROSTERS.get(players)
    if found is not None and found[0] is genders:
        return found[1]
    roster = tuple(PlayerRef(p, gender=genders.get(p)) for p in players)
    _ROSTERS.put(players, (genders, roster))
    return roster


# by the players' tuple: the genders the roster was made with (the same object), and the roster
_ROSTERS: ByIdentity[tuple[dict[str, str], tuple[PlayerRef, ...]]] = ByIdentity(64)


def _mask_of(masks: dict[str, str]) -> dict[str, str]:
    """Real account → its mask (the first, as player_of_account finds it), kept while `masks` is the same."""
    found = _MASKS.get(masks)
    if found is not None:
        return found
    inverse: dict[str, str] = {}
    for mask, real in masks.items():
        inverse.setdefault(real, mask)
    _MASKS.put(masks, inverse)
    return inverse


_MASKS: ByIdentity[dict[str, str]] = ByIdentity(64)
_PM_AUTHORS: ByIdentity[tuple[dict[str, str], str | None, tuple[str, ...]]] = ByIdentity(64)   # by the roster
# The last state (or options) asked about and the answer, for the questions asked several times a step of one
# state: a state never changes (apply makes a new one), so its answer is its answer. One each: a step works on
# one game at a time; another game's state is simply asked afresh.
_DEADLINE_ASKED: tuple[Any, datetime | None] = (None, None)
_THREADS_ASKED: tuple[Any, dict[str, str]] = (None, {})


def _modkill(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host's modkill; outside the ledger's own exclusions it is a ledger entry too (modkill_points)."""
    state, events = modkill(state, intent)
    if not intent.data.get("ledger") and not any(e.kind == "rejected" for e in events):
        state = ledger.modkill_entry(state, str(intent.data.get("target")), intent.at)
    return state, events


def _open_best(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    return bestplayer.open_vote(state, intent, intent.at or state.phase_started)


# Commands of the warnings ledger, the masks and the best-player vote (the host's, and the ballots).
OUTSIDE_KINDS = {"warn": ledger.warn, "best_ballot": bestplayer.ballot, "reveal_masks": reveal_masks,
                 "best_player_open": _open_best}


def _extra_summary(state: MafiaState) -> dict[str, Any]:
    """Sign-ups, masks (the host's secret), confirmations, the ledger and the best-player vote, when used."""
    out: dict[str, Any] = {}
    if state.signup:
        out["signup"] = {a: dict(e) for a, e in state.signup.items()}
        out["masks"] = dict(state.masks)
        out["confirmed"] = list(state.confirmed)
    if state.ledger or state.forums:
        out["ledger"] = ledger.summary(state)
    best = bestplayer.summary(state)
    if best is not None:
        out["best_player"] = best
    return out


def _after(state: MafiaState, events: list[Event], at: datetime) -> tuple[MafiaState, list[Event]]:
    """The game's end opens the best-player vote by itself when best_player_start = "auto"."""
    if state.phase == "over" and not state.best and state.options.best_player_start == "auto":
        state, more = bestplayer.open_vote(state, None, at)
        return state, events + more
    return state, events


# ---- rules of a vote ------------------------------------------------------------------------
# Why a vote can be refused: a code (the renderer finds `error_<code>` in the post language's phrases) and
# the English text that flags and logs use.
REFUSALS = {
    "not_command": "'{kind}' is not a day command in this game",
    "not_day": "votes count only during the day; it is {phase}",
    "after_deadline": "the vote came after the day's deadline",
    "not_player": "{author} is not a player in this game",
    "dead_voter": "{author} is dead and cannot vote",
    "locked": "{author}'s final vote is locked and cannot change",
    "dead_target": "{target} is dead and cannot be voted for",
    "self_vote": "self-votes are not allowed in this game",
    "no_lynch_limit": "the no-lynch limit ({limit}) is used up; the player(s) with the most votes hang at the deadline",
}


def _vote(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A vote, an unvote or a no-lynch vote."""
    refusal = _vote_refusal(state, intent)
    if refusal:
        return _refuse(state, intent, *refusal)
    if intent.kind == "unvote":
        state, changed = _withdraw(state, intent.author)
        return state, ([Event("vote", {"voter": intent.author, "target": None})] if changed else [])
    target = NO_LYNCH if intent.kind == "no_lynch" else intent.data.get("target")
    events: list[Event] = []
    if target is None:   # an unknown or ambiguous name: counts as no vote
        name_error = intent.data.get("error_code", {}).get("target", {})
        state = _note_error(state, intent, intent.data.get("error") or "the name was not understood",
                            name_error.get("code", "name_unknown"), name_error.get("params", {}))
        if state.options.unresolved_vote == "withdraw":
            state, changed = _withdraw(state, intent.author)
            if changed:
                events.append(Event("vote", {"voter": intent.author, "target": None}))
        return state, events
    final = bool(intent.data.get("final")) and _final_locks(state)
    state, changed = _cast(state, intent, target, final)
    if changed:   # Event(...) as __init__ fills it (model.filled, without its frame): one a vote
        event = _new(Event)
        event.__dict__.update(kind="vote", data={"voter": intent.author, "target": target, "final": final})
        events.append(event)
    return _maybe_end_early(state, intent.at or state.phase_started, events)


def _vote_refusal(state: MafiaState, intent: Intent) -> tuple[str, dict[str, Any]] | None:
    """Why a vote command cannot count now (a code of REFUSALS and its fields), or None."""
    if not state.is_day:
        return "not_day", {"phase": state.phase}
    if intent.at is not None and intent.at > state.phase_ends:
        return "after_deadline", {}
    alive = voting.members(state.alive)
    if intent.author not in alive:   # the living are players: the roster is looked at only for a refusal
        return ("dead_voter" if intent.author in voting.members(state.players) else "not_player"), \
            {"author": intent.author}
    if intent.author in state.locked:
        return "locked", {"author": intent.author}
    target = intent.data.get("target")
    if intent.kind == "vote" and target is not None:
        if target not in alive:
            return "dead_target", {"target": target}
        if target == intent.author and not state.options.self_votes:
            return "self_vote", {}
    if intent.kind == "no_lynch" and voting.rule(state) == "simple" \
            and state.options.no_lynch_after_limit == "reject":
        return "no_lynch_limit", {"limit": state.options.no_lynch_limit}
    return None


def _final_locks(state: MafiaState) -> bool:
    mode = state.options.final_votes
    return mode == "always" or (mode == "simple_only" and voting.rule(state) == "simple")


def _refuse(state: MafiaState, intent: Intent, code: str, params: dict[str, Any]) -> tuple[MafiaState, list[Event]]:
    reason = REFUSALS[code].format(**params)
    if state.is_day:
        state = _note_error(state, intent, reason, code, params)   # shown in the next vote count
    # by night there is no vote count to show it in: a player is told by PM
    tell = not state.is_day and intent.author in state.players
    return state, [refusal(intent, reason, code=code, params=params, pm=tell, subject="refused")]


def _note_error(state: MafiaState, intent: Intent, reason: str, code: str, params: dict[str, Any]) -> MafiaState:
    keep = max(state.options.vote_errors_shown, 0)
    errors = (*state.errors, VoteError(intent.author, reason, intent.post_id, intent.url, code, params))
    return state.with_(errors=errors[-keep:] if keep else (), error_total=state.error_total + 1)


def _withdraw(state: MafiaState, voter: str) -> tuple[MafiaState, bool]:
    if voter not in state.current:
        return state, False
    current = dict(state.current)
    entries = struck(state.entries, voter, current.pop(voter))
    voting.moved(state.current, current, voter)
    return state.with_(entries=entries, current=current, changes=state.changes + 1), True


def _cast(state: MafiaState, intent: Intent, target: str, final: bool) -> tuple[MafiaState, bool]:
    voter = intent.author
    old = state.current.get(voter)
    if old == target:
        if final and voter not in state.locked:   # the same vote, now final
            return state.with_(locked=state.locked | {voter}, changes=state.changes + 1), True
        return state, False
    # One new state a vote: the withdrawal from the old wagon and the vote on the new one together.
    current = dict(state.current)
    if old is not None:
        del current[voter]
    current[voter] = target
    voting.moved(state.current, current, voter)
    seq = state.seq + 1
    entries = moved(state.entries, old, new_entry(voter, target, seq, format_time(intent.at or state.phase_started),
                                                  intent.post_id, intent.url, final))
    # (a moved vote counts once, as its withdrawal did before; `locked` is given only when it changes: state_change
    # looks at each field given)
    if final:
        return state.with_(entries=entries, current=current, locked=state.locked | {voter}, seq=seq,
                           changes=state.changes + 1), True
    return state.with_(entries=entries, current=current, seq=seq, changes=state.changes + 1), True


def _maybe_end_early(state: MafiaState, at: datetime, events: list[Event]) -> tuple[MafiaState, list[Event]]:
    if state.no_lynch_used < state.options.no_lynch_limit:   # voting.rule(state) == "absolute", without its frame
        if state.options.early_end and voting.majority_reached(state) is not None:
            state, more = _end_day(state, at, "early")
            return state, events + more
    elif voting.decided_by_final_votes(state) is not None:
        state, more = _end_day(state, at, "early")
        return state, events + more
    return state, events


# ---- phase ends -----------------------------------------------------------------------------
def _end_day(state: MafiaState, at: datetime, ended: str) -> tuple[MafiaState, list[Event]]:
    day_rule = voting.rule(state)
    need = voting.needed(state) if day_rule == "absolute" else None
    final_view = view(state, at)
    hanged: tuple[str, ...]
    if day_rule == "absolute":
        reached = voting.majority_reached(state) if state.alive else None
        if reached is None:   # with early endings off, a majority can still stand at the deadline
            tally = voting.counts(state)
            reached = next((t for t, c in tally.items() if need and c >= need and t != NO_LYNCH), None)
        hanged = () if reached is None or reached == NO_LYNCH else (reached,)
    else:
        decided = voting.decided_by_final_votes(state) if ended == "early" else None
        hanged = decided or voting.most_voted(state)
    hanged, saved, memory, told = hang_protections(state, hanged)
    result = "lynch" if hanged or saved else "no_lynch"
    day = DayResult(state.number, result, hanged, day_rule, need, ended, at,
                    {t: c for t, c in voting.counts(state).items()}, saved)
    deaths = tuple(Death(n, state.phase, "lynch", state.roles.get(n)) for n in hanged)
    night = state.with_(
        alive=tuple(n for n in state.alive if n not in hanged),
        dead=state.dead + deaths,
        days=state.days + (day,),
        no_lynch_used=state.no_lynch_used + (1 if result == "no_lynch" else 0),
        phase=f"night{state.number}", phase_started=at,
        phase_ends=at + timedelta(hours=state.options.night_hours),
        entries=(), current={}, locked=frozenset(), count_number=0, changes=0, errors=(), error_total=0,
        immune=frozenset(), memory=memory,
    )
    roles = {n: state.roles.get(n) for n in hanged} if state.options.reveal_roles else {}
    end = Event("day_end", {**_day_json(day), "view": final_view, "roles": roles,
                            "alive": list(night.alive), "no_lynch_used": night.no_lynch_used,
                            "no_lynch_limit": state.options.no_lynch_limit,
                            "next_rule": voting.rule(night)})
    side = winner(night)
    if side is not None:
        over, final = game_over(night, side, at)
        return over, [end, *told, *final]
    return night, [end, *told, _phase_start(night)]


def _end_night(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """The night's end: its actions resolved, the newspaper, the private results, then day or the end.
    Whoever owed an action and sent none gets the 8.2.7 penalty (no warning, no PM)."""
    state = ledger.missed_actions(state, must_act(state), at) if state.options.moderate else state
    state, events = end_night(state, at)
    side = winner(state)
    if side is not None:
        over, final = game_over(state, side, at)
        return over, [*events, *final]
    day = state.with_(phase=f"day{state.number + 1}", phase_started=at,
                      phase_ends=at + timedelta(hours=state.options.day_hours))
    return day, [*events, _phase_start(day)]


def _phase_start(state: MafiaState) -> Event:
    rule = voting.rule(state)
    return Event("phase_start", {
        "phase": state.phase, "kind": "day" if state.is_day else "night", "number": state.number,
        "started": format_time(state.phase_started), "ends": format_time(state.phase_ends),
        "alive": list(state.alive), "rule": rule,
        "needed": voting.needed(state) if rule == "absolute" else None,
        "no_lynch_used": state.no_lynch_used, "no_lynch_limit": state.options.no_lynch_limit,
        "vote_threads": list(state.options.vote_threads),
    })


def _day_json(day: DayResult) -> dict[str, Any]:
    return {"day": day.day, "result": day.result, "lynched": list(day.lynched), "rule": day.rule,
            "needed": day.needed, "ended": day.ended, "at": format_time(day.at), "tally": dict(day.tally),
            "saved": list(day.saved)}


# A vote count after every vote shows the wagons of the count before but one or two. Entries are immutable and
# reused from one state to the next: each entry's view is kept by the identity of the entry, and a wagon votes
# remade shows the views of the wagon it was made from, changed where its entries changed (_remade_views): only
# its new entries' views (one or two) are made. The views cannot be changed (FrozenDict, FrozenList): every
# count that shows them shares them.
def _voter_view(entry: VoteEntry) -> FrozenDict:
    return FrozenDict(name=entry.voter, url=entry.url, post=entry.post, final=entry.final,
                      withdrawn=entry.withdrawn, at=entry.at)


_ENTRY_VIEWS: ByIdentity[FrozenDict] = ByIdentity(8192)     # a few MB at most, then started afresh


# A wagon a vote did not change is the same Wagon in the next count (voting.wagons keeps it): its view is
# kept by the Wagon's identity, for each number of votes needed (it shows it), and is the same FrozenDict
# in every count that shows it. So are the errors' views, by the identity of the state's tuple of them.
_WAGON_VIEWS: dict[int | None, tuple[ByIdentity[FrozenDict], Callable[[voting.Wagon], FrozenDict]]] = {}
_ERROR_VIEWS: ByIdentity[FrozenList] = ByIdentity(64)


def _wagon_view(wagon: voting.Wagon, need: int | None) -> FrozenDict:
    count = len(wagon.voters)
    return FrozenDict(target=wagon.target, no_lynch=wagon.target == NO_LYNCH, count=count, needed=need,
                      l_minus=(need - count) if need is not None else None,
                      voters=_ENTRY_VIEWS.of(wagon.entries, _voter_view, FrozenList))


def _wagon_views(wagons: list[voting.Wagon], need: int | None, remade: voting.Remade | None) -> list[FrozenDict]:
    found = _WAGON_VIEWS.get(need)
    if found is None:
        if len(_WAGON_VIEWS) >= 16:   # as many as games with different numbers of players alive, at most
            _WAGON_VIEWS.clear()
        found = _WAGON_VIEWS[need] = (ByIdentity(1024), partial(_wagon_view, need=need))
    kept, make = found
    # The wagons the last votes changed are the only ones made (and kept); any other not kept (the KeyError
    # in `of`: a count with another majority, or the first) is made from its entries.
    if remade:
        carried = _remade_views(kept, remade, need)
    else:
        carried = None
        if remade is None:
            kept.add(wagons, make)
    try:
        views = list(map(kept.dicts[0].__getitem__, map(id, wagons)))     # (kept.of's, without its frame)
    except KeyError:
        return kept.of(wagons, make, list)
    if carried:   # (a pair) the views remade from views before, by this list of them (as REMADE.put puts it)
        lists, held = REMADE.dicts
        if len(lists) >= REMADE.size:
            lists, held = REMADE.dicts = ({}, {})
        key = id(views)
        held[key] = views                        # the list first: then its views remade
        lists[key] = carried
    return views


def _remade_views(kept: ByIdentity[FrozenDict], remade: voting.Remade,
                  need: int | None) -> tuple[Remade, dict[int, FrozenDict]]:
    """The views of the wagons votes remade, each from the view of the wagon it was made from: its list of
    voters changed in the places its entries were (voting._voted), the other voters' views carried, not
    looked up one by one. A wagon whose wagon before was not shown with this majority is left out. Returns
    each view made, with the view it was made from (None: a new wagon) and the changes to its entries, and
    the views of the entries put by their id (kept.REMADE's)."""
    views, objects = kept.dicts     # (each put as ByIdentity.put puts one, without a call each)
    if len(views) >= kept.size:
        views, objects = kept.dicts = ({}, {})
    entry_views, entries = _ENTRY_VIEWS.dicts
    if len(entry_views) >= _ENTRY_VIEWS.size:
        entry_views, entries = _ENTRY_VIEWS.dicts = ({}, {})
    made: Remade = []
    for wagon, old, changes in remade:
        if old is None:
            shown = None
            voters: list[FrozenDict] = []
        else:
            shown = views.get(id(old))
            if shown is None:
                continue
            voters = [*shown["voters"]]
        for place, out, entry in changes:
            if entry is None:
                del voters[place]
                continue
            # A vote's entry is new: its view is made here (and kept for a count with another majority).
            key = id(entry)
            entries[key] = entry                 # the entry first: then its view
            view = entry_views[key] = _voter_view(entry)
            voters[place:place + out] = (view,)
        count = len(wagon.voters)
        key = id(wagon)
        objects[key] = wagon                     # the wagon first: then its view
        if shown is None:
            made_view = FrozenDict(target=wagon.target, no_lynch=wagon.target == NO_LYNCH, count=count,
                                   needed=need, l_minus=(need - count) if need is not None else None,
                                   voters=FrozenList(voters))
        else:   # the view before with what changed: its target and majority (and the order of its keys) are these
            made_view = FrozenDict(shown, count=count, l_minus=(need - count) if need is not None else None,
                                   voters=FrozenList(voters))
        views[key] = made_view
        made.append((made_view, shown, changes))
    return made, entry_views


def _errors_view(errors: tuple[VoteError, ...]) -> list[Any]:
    if not errors:
        return []
    found = _ERROR_VIEWS.get(errors)
    if found is None:
        found = FrozenList(FrozenDict(author=e.author, reason=e.reason, url=e.url, code=e.code, params=e.params)
                           for e in errors)
        _ERROR_VIEWS.put(errors, found)
    return found


# Those not voting change only when a player votes for the first time, unvotes or dies: the list of the count
# before is shown again (the renderer keeps its text by its identity), kept by the identity of the living.
_NOT_VOTING: ByIdentity[FrozenList] = ByIdentity(64)


_NOBODY = FrozenList()


def _not_voting_view(state: MafiaState) -> FrozenList:
    names = list(filterfalse(state.current.__contains__, state.alive))   # voting.not_voting's, in C
    if not names:          # the commonest, once the day is under way
        return _NOBODY
    kept = _NOT_VOTING.get(state.alive)
    if kept is None or kept != names:     # compared in C
        kept = FrozenList(names)
        _NOT_VOTING.put(state.alive, kept)
    return kept


# The text of the deadline counted to last: the same in every count of a day (times are immutable).
_DEADLINE: tuple[datetime | None, str] = (None, "")


def _deadline_text(ends: datetime) -> str:
    global _DEADLINE
    kept = _DEADLINE
    if kept[0] is ends:
        return kept[1]
    text = format_time(ends)
    _DEADLINE = (ends, text)
    return text


def view(state: MafiaState, at: datetime) -> dict[str, Any]:
    """Everything a vote count shows, as plain data for the templates (each wagon a FrozenDict, its voters
    a FrozenList of FrozenDicts; the errors a FrozenList of FrozenDicts; those not voting a FrozenList)."""
    limit = state.options.no_lynch_limit
    # voting.rule and voting.needed, without their frames (a count after every vote)
    alive = len(state.alive)
    need = alive // 2 + 1 if state.no_lynch_used < limit else None
    wagons, remade, fresh = voting.counted(state)
    if fresh:
        # the views of the entries the votes put, before any wagon's list of them
        _ENTRY_VIEWS.add(fresh, _voter_view)
    ends, kept = state.phase_ends, _DEADLINE     # (_deadline_text's look, without its frame: read once)
    return {
        "day": state.number, "count": state.count_number, "at": format_time(at),
        "deadline": kept[1] if kept[0] is ends else _deadline_text(ends),
        "rule": "simple" if need is None else "absolute", "alive": alive,
        "needed": need, "no_lynch_used": state.no_lynch_used, "no_lynch_limit": limit,
        "wagons": _wagon_views(wagons, need, remade), "not_voting": _not_voting_view(state),
        "locked": sorted(state.locked) if state.locked else [],
        "errors": _errors_view(state.errors) if state.errors else [], "error_total": state.error_total,
    }
