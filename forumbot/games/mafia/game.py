"""Mafia as a pure state machine: day voting (section 6), phases, deadlines, vote counts, and the nights.

Night actions (actions.py) arrive by PM; at the night's deadline night.py resolves them by the priority
table and newspaper.py writes the newspaper and the private results; dayside.py applies the roles'
protections from hanging at the day's end. A game whose players have no roles has quiet nights.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, refusal
from forumbot.games.mafia import activity, bestplayer, ledger, moderation, modifiers, voting
from forumbot.games.mafia.actions import NIGHT_KINDS, apply_night
from forumbot.games.mafia.actions import refuse as night_refusal
from forumbot.games.mafia.dayside import hang_protections
from forumbot.games.mafia.newspaper import end_night, game_over, winner
from forumbot.games.mafia.options import MafiaOptions
from forumbot.games.mafia.roles import find_role
from forumbot.games.mafia.schedule import modkill, must_act, next_reminder, phase_end, remind, shift, untimed
from forumbot.games.mafia.signup import (
    SIGNUP_KINDS,
    apply_signup,
    mask_of,
    on_signup_deadline,
    player_of_account,
    reveal_masks,
)
from forumbot.games.mafia.state import (
    KILL_KEY,
    NO_LYNCH,
    PRE_PHASES,
    DayResult,
    Death,
    MafiaState,
    VoteEntry,
    VoteError,
    moved,
    state_from_json,
    state_to_json,
    struck,
)
from forumbot.games.tournament import Entry
from forumbot.model import Event, Intent, PlayerRef, format_time, parse_time
from forumbot.text.decline import plural

VOTE_KINDS = ("vote", "unvote", "no_lynch")
# A mayor's public reveal (in the voting thread), and the host's choice in a tie it breaks (by PM).
DAY_KINDS = ("mayor_reveal", "tie_break")
# Phases outside the days and nights: sign-ups and role confirmation, the best-player vote.
QUIET_PHASES = (*PRE_PHASES, "best_player")

# The ledger's note of a missed post minimum in a Russian game: "3 из 5 обязательных сообщений за День 2".
_REQUIRED_RU = "обязательного сообщения/обязательных сообщений/обязательных сообщений"


class MafiaGame:
    name = "mafia"
    marks_edits = True   # it reads "vote_edited" (the runner's news of an edited vote post: the edit policy)

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
            phase_ends=phase_end(options, setup.start, phase.startswith("day")),
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
                return (f"the host's role table has no role of the ruleset for numbers {', '.join(missing[:12])}, "
                        "so the game could not be dealt", 'fill [game.options] role_table = { "1" = "inspector", ... }')
            return None
        if state.options.tie == "host" and not state.host:
            return ('tie = "host" asks the host to break a tie, but the game has no host', 'set host = "..." in [game]')
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
        """The post that opens the first phase; for sign-ups, the game thread's announcement of how to sign up
        (by PM: a number and a mask) and until when."""
        if state.phase == "signup":
            return [Event("signup_open", {"thread": "game", "slots": state.options.signup_slots,
                                          "deadline": format_time(state.phase_ends) if state.phase_ends else None})]
        return [] if state.phase in PRE_PHASES else [voting.phase_start(state)]

    # ---- intents -----------------------------------------------------------------------------
    def apply(self, state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
        state, events = self._apply(state, intent)
        return _after(state, events, intent.at or state.phase_started)

    def _apply(self, state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
        if intent.kind in VOTE_KINDS:
            return _vote(state, intent)
        if intent.kind == "vote_edited":
            return _vote_edited(state, intent)
        if intent.kind == "mayor_reveal":
            return _mayor_reveal(state, intent)
        if intent.kind == "tie_break":
            return _tie_break(state, intent)
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
        if state.phase == "over":
            return None
        if state.phase in QUIET_PHASES:
            return state.phase_ends
        if state.tie:   # the day waits for the host to break its tie
            return None
        soon = [t for t in (next_reminder(state), activity.next_prod(state)) if t is not None and t < state.phase_ends]
        return min(soon) if soon else state.phase_ends

    def shift(self, state: MafiaState, delta: timedelta) -> MafiaState:
        return shift(state, delta)

    def phase_window(self, state: MafiaState) -> tuple[datetime, datetime] | None:
        """When the running phase began and when it ends: what the runner re-reads for edits before the end
        (the posts of the phase; earlier phases are settled), and a deadline before the end is a reminder."""
        if state.phase == "over":
            return None
        return state.phase_started, state.phase_ends

    def end_by_host(self, state: MafiaState, at: datetime) -> MafiaState:
        """The host ends the running phase now: its deadline moves to `at` (the runner fires it as any other,
        after its usual checks) and the day's end is told as the host's, not as reached at the deadline."""
        return shift(state, at - state.phase_ends).with_(host_ended=state.phase)

    def on_deadline(self, state: MafiaState, at: datetime, now: datetime | None = None
                    ) -> tuple[MafiaState, list[Event]]:
        """A reminder due at `at`, or the phase's end at its own deadline. A reminder noticed only after
        the phase has ended (the bot was down) is dropped, not sent."""
        if state.phase == "over":
            return state, []
        if state.phase in PRE_PHASES:
            return on_signup_deadline(state, at)
        if state.tie:
            return state, []
        if state.phase == "best_player":
            return bestplayer.close(state, at)
        if at < state.phase_ends:
            reminded, events = remind(state, at)
            reminded, prods = activity.prod(reminded, at)
            events += prods
            return (reminded, []) if now is not None and now >= state.phase_ends else (reminded, events)
        if state.is_day:
            ended = "host" if state.host_ended == state.phase else "countdown" if state.countdown else "deadline"
            return _after(*_end_day(state, state.phase_ends, ended), state.phase_ends)
        return _after(*_end_night(state, state.phase_ends), state.phase_ends)

    def report(self, state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
        every = state.options.vote_count_every
        if not state.is_day or not every or state.changes < every:
            return state, []
        state = state.with_(count_number=state.count_number + 1, changes=0)
        data = view(state, at)
        if state.options.vote_count_edit:
            data["slot"] = f"vote_count:{state.phase}"   # one post per day, edited in place
        return state, [Event("vote_count", data)]

    def tally(self, state: MafiaState, at: datetime) -> Event | None:
        """The current vote count (without counting it as posted), or None at night."""
        return Event("vote_count", view(state, at)) if state.is_day else None

    # ---- threads -------------------------------------------------------------------------------
    def threads(self, state: MafiaState) -> dict[str, str]:
        """The game's threads by what they are for: "game" (phase posts) and "votes" (vote counts)."""
        options = state.options
        return {"game": options.game_thread, "votes": options.vote_threads[0],
                **{name: name for name in options.vote_threads}}

    def taking_signups(self, state: MafiaState) -> bool:
        """Whether anyone may send the game a PM now (its sign-ups): the seating chart reads everyone's."""
        return state.phase == "signup"

    def pm_commands(self, state: MafiaState, player: str) -> tuple[tuple[str, str], ...]:
        """The commands a private message from `player` may carry now, as (kind, action) ("" for any): what the
        answer to a message nobody could read offers as the accepted forms."""
        if state.phase == "signup":
            return (("signup", ""), ("signup_withdraw", ""))
        if state.phase == "roles":
            return (("confirm_role", ""),)
        if state.phase == "best_player":
            return (("best_ballot", ""),)
        if not state.phase.startswith("night") or player not in state.alive:
            return ()
        role = state.options.role(state.roles.get(player))
        found: list[tuple[str, str]] = []
        if role is not None and role.team == "mafia":
            found.append(("action", "kill"))
        if role is not None and role.action and ("action", role.action) not in found:
            found.append(("action", role.action))
        if state.options.notes_per_night:
            found.append(("note", ""))
        return tuple(found)

    def claimed_name(self, state: MafiaState, intent: Intent) -> str | None:
        """The mask a sign-up claims (the runner refuses one the host, the bot or another account holds)."""
        return mask_of(intent)[0] if intent.kind == "signup" and state.phase == "signup" else None

    def account_player(self, state: MafiaState, account: str) -> str:
        """The player whose PMs an account sends: a mask's real account writes as the mask."""
        return player_of_account(state, account)

    def roster(self, state: MafiaState) -> tuple[PlayerRef, ...] | None:
        """The players (masks, with the gender they signed up with) once the sign-ups have made them (None:
        the config's)."""
        if not state.masks:
            return None
        return tuple(PlayerRef(p, gender=state.genders.get(p)) for p in state.players)

    def watched_threads(self, state: MafiaState) -> tuple[str, ...]:
        """Threads whose talk is checked for the host (moderation.py), without counting it."""
        return (state.options.game_thread,) if state.options.moderate else ()

    def watch_post(self, state: MafiaState, post: Intent, thread: str) -> tuple[MafiaState, list[Event]]:
        return moderation.watch(state, post, thread)

    def note_post(self, state: MafiaState, player: str, words: int, at: datetime) -> MafiaState:
        """A player's post in one of the game's threads, for the activity figures (activity.py)."""
        return activity.note(state, player, words, at)

    def record(self, state: MafiaState) -> dict[str, Any] | None:
        """A finished game as the archive keeps it: the winner, each player's role, side and fate, the days'
        results and each player's warnings; None while the game runs."""
        if state.phase not in ("over", "best_player"):
            return None
        players = []
        for name in state.players:
            role = state.options.role(state.roles.get(name))
            team = role.team if role is not None else None
            death = next((d for d in state.dead if d.name == name), None)
            players.append({"name": name, "role": role.name(state.lang) if role else state.roles.get(name),
                            "team": team, "alive": name in state.alive,
                            "died": {"phase": death.phase, "cause": death.cause} if death else None,
                            "won": team is not None and team == state.winner,
                            "warnings": ledger.warnings_of(state, name)})
        return {"winner": state.winner, "players": players, "days": [_day_json(d) for d in state.days]}

    def activity(self, state: MafiaState, at: datetime) -> list[dict[str, Any]]:
        """Each player's posts and words per phase and the time since their last post."""
        return activity.rows(state, at)

    def ledger_entries(self, state: MafiaState) -> list[Entry]:
        """The warnings ledger for a tournament's table of forums' penalty points, one entry per violation, as
        they happen (the tournament records each once)."""
        out = [Entry(e["player"], reason=f"rule {e['rule']}", forum=e["forum"], penalty=ledger.points(e),
                     warning=1 if e["warning"] else 0) for e in state.ledger]
        result = state.best.get("result") if state.best else None
        if result:   # the best-player places, once the vote has closed (section 9)
            out += [Entry(p["player"], reason="best player", forum=state.forums.get(p["player"], ""), place=place)
                    for p, place in zip(result["places"], bestplayer.place_numbers(result["places"]), strict=True)]
        return out

    def command_threads(self, state: MafiaState) -> tuple[str, ...]:
        """Threads whose posts are read for commands (votes count only in the voting thread)."""
        return state.options.vote_threads

    # ---- storage and views -------------------------------------------------------------------
    def to_json(self, state: MafiaState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> MafiaState:
        return state_from_json(data)

    def night_view(self, state: MafiaState) -> dict[str, Any] | None:
        """Tonight as the host sees it (None by day or once over): each order with the sender's role, and who
        still owes an action (schedule.must_act: the one list the reminders use too)."""
        if state.is_day or state.phase in ("over", "signup", "best_player") or not state.roles:
            return None
        orders = []
        for key, order in sorted(state.orders.items(), key=lambda item: str(item[1].get("at", ""))):
            actor = str(order.get("actor") or key)
            role = state.options.role(state.roles.get(actor))
            orders.append({"actor": actor, "role": role.name(state.lang) if role else "",
                           "action": "the mafia's kill" if key == KILL_KEY else order.get("action", ""),
                           "target": order.get("target"), "to": order.get("to"), "at": order.get("at", ""),
                           "post": order.get("post", "")})
        awaiting = [{"name": name, "role": (r.name(state.lang) if (r := state.options.role(state.roles.get(name)))
                                             else "")} for name in must_act(state)]
        return {"orders": orders, "awaiting": awaiting}

    def eliminated(self, state: MafiaState) -> tuple[str, ...]:
        """Mafia's dead: every player no longer alive (lynched, killed at night, modkilled)."""
        return tuple(p for p in state.players if p not in state.alive)

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
            **({"tie": list(state.tie)} if state.tie else {}),
            **({"activity": activity.rows(state, state.phase_started)} if _tracks_activity(state.options) else {}),
            **_extra_summary(state),
        }


def _tracks_activity(options: MafiaOptions) -> bool:
    return bool(options.prod_hours or options.post_minimum or options.activity_in_count)


def _modkill(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host's modkill; outside the ledger's own exclusions it is a ledger entry too (modkill_points)."""
    state, events = modkill(state, intent)
    if not intent.data.get("ledger") and not any(e.kind == "rejected" for e in events):
        state = ledger.modkill_entry(state, str(intent.data.get("target")), intent.at)
    if state.countdown and state.is_day:   # a majority's countdown: the modkill may have broken it
        return _maybe_end_early(state, intent.at or state.phase_started, events)
    return state, events


def _open_best(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    return bestplayer.open_vote(state, intent, intent.at or state.phase_started)


# Commands of the warnings ledger, the masks and the best-player vote (the host's, and the ballots).
OUTSIDE_KINDS = {"warn": ledger.warn, "penalty": ledger.penalty, "best_ballot": bestplayer.ballot,
                 "reveal_masks": reveal_masks, "best_player_open": _open_best}


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
    "self_hammer": "a vote on oneself that would hang oneself is not allowed in this game",
    "voteless": "{author} has no vote in this game",
    "no_lynch_off": "there are no no-lynch votes in this game",
    "not_mayor": "{author} is not a mayor",
    "mayor_revealed": "{author} has already revealed as the mayor",
    "no_tie": "there is no tie to break",
    "not_tied": "{target} is not one of the tied players",
    "host_only": "only the host can do that",
    "no_lynch_limit": "the no-lynch limit ({limit}) is used up; whoever has the most votes at the deadline hangs",
}


def _vote(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A vote, an unvote or a no-lynch vote."""
    refusal = _vote_refusal(state, intent)
    if refusal:
        return _refuse(state, intent, *refusal)
    if intent.kind == "unvote":
        state, changed = _withdraw(state, intent.author)
        withdrawn = [Event("vote", {"voter": intent.author, "target": None})] if changed else []
        return _maybe_end_early(state, intent.at or state.phase_started, withdrawn) if state.countdown \
            else (state, withdrawn)
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
        return _maybe_end_early(state, intent.at or state.phase_started, events) if state.countdown else (state, events)
    final = bool(intent.data.get("final")) and _final_locks(state)
    if intent.data.get("check"):   # a nickname only the thread vouches for: counted, and shown for a check
        said = str(intent.data.get("matched", {}).get("target", target)).rsplit(" (", 1)[0]
        state = _note_error(state, intent, f"check: '{said}' read as {target}, a nickname the thread uses",
                            "vote_check", {"query": said, "name": target})
    state, changed = _cast(state, intent, target, final)
    if changed:
        events.append(Event("vote", {"voter": intent.author, "target": target, "final": final}))
    return _maybe_end_early(state, intent.at or state.phase_started, events)


def _vote_edited(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A post that carried a vote was edited (the runner tells, before a deadline). `withdraw` (the edit
    policy "edited", the new text has no vote): the vote is withdrawn, if it still stands and may be, and
    shown struck with the edit's time. Otherwise (policies "first_seen" and "flag") the vote counts as first
    read and the count shows the edit's time and what the post says now (`now`: a name, NO_LYNCH or "")."""
    post, voter = str(intent.data.get("post", "")), intent.author
    at = next((i for i in range(len(state.entries) - 1, -1, -1)
               if state.entries[i].post == post and state.entries[i].voter == voter), None) if post else None
    if at is None:
        return state, []
    entry, when = state.entries[at], format_time(intent.at or state.phase_started)
    events: list[Event] = []
    if intent.data.get("withdraw"):
        stands = not entry.withdrawn and state.current.get(voter) == entry.target
        if stands and _vote_refusal(state, Intent("unvote", post_id=post, author=voter, at=intent.at)) is None:
            state, _ = _withdraw(state, voter)
            events.append(Event("vote", {"voter": voter, "target": None}))
            marked = replace(state.entries[at], edited=when, now=None)
        else:   # (a final vote, or past the deadline: it stands as first read)
            marked = replace(entry, edited=when, now="")
    else:
        marked = replace(entry, edited=when, now=str(intent.data.get("now") or ""))
    state = state.with_(entries=(*state.entries[:at], marked, *state.entries[at + 1:]))
    if events and state.countdown:
        return _maybe_end_early(state, intent.at or state.phase_started, events)
    return state, events


def _vote_refusal(state: MafiaState, intent: Intent) -> tuple[str, dict[str, Any]] | None:
    """Why a vote command cannot count now (a code of REFUSALS and its fields), or None."""
    if not state.is_day:
        return "not_day", {"phase": state.phase}
    if intent.at is not None and intent.at > state.phase_ends:
        return "after_deadline", {}
    alive = state.alive
    if intent.author not in alive:
        return ("dead_voter" if intent.author in state.players else "not_player"), {"author": intent.author}
    if intent.author in state.locked:
        return "locked", {"author": intent.author}
    if intent.kind != "unvote" and modifiers.weight(state, intent.author) == 0:
        return "voteless", {"author": intent.author}
    if intent.kind == "no_lynch" and not state.options.no_lynch_votes:
        return "no_lynch_off", {}
    target = intent.data.get("target")
    if intent.kind == "vote" and target is not None:
        if target not in alive:
            return "dead_target", {"target": target}
        if target == intent.author and not state.options.self_votes:
            return "self_vote", {}
        if target == intent.author and _self_hammer(state, intent.author):
            return "self_hammer", {}
    if intent.kind == "no_lynch" and voting.rule(state) == "simple" \
            and state.options.no_lynch_after_limit == "reject":
        return "no_lynch_limit", {"limit": state.options.no_lynch_limit}
    return None


def _self_hammer(state: MafiaState, voter: str) -> bool:
    """Whether the ruleset refuses this self-vote: it would bring the voter's own wagon to its majority."""
    if state.options.self_hammer != "reject" or voting.rule(state) != "absolute":
        return False
    if state.current.get(voter) == voter:
        return False
    votes = voting.counts(state).get(voter, 0) + modifiers.weight(state, voter)
    return votes >= voting.needed_for(state, voter)


def _mayor_reveal(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """A mayor reveals in the voting thread: from now on their vote counts twice, and everyone is told."""
    if not state.is_day:
        return _refuse(state, intent, "not_day", {"phase": state.phase})
    if intent.author not in state.alive:
        return _refuse(state, intent, "dead_voter" if intent.author in state.players else "not_player",
                       {"author": intent.author})
    if "mayor" not in modifiers.of(state, intent.author):
        return _refuse(state, intent, "not_mayor", {"author": intent.author})
    if modifiers.revealed(state, intent.author):
        return _refuse(state, intent, "mayor_revealed", {"author": intent.author})
    memory = {**state.memory, intent.author: {**state.memory.get(intent.author, {}), modifiers.REVEALED: True}}
    state = state.with_(memory=memory, changes=state.changes + (1 if intent.author in state.current else 0))
    told = Event("mayor_revealed", {"thread": "votes", "name": intent.author, "day": state.number})
    return _maybe_end_early(state, intent.at or state.phase_started, [told])


def _tie_break(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """The host names who hangs in a tie the day waits on (option tie = "host"), or nobody."""
    if not state.host or intent.author != state.host:
        return state, [refusal(intent, REFUSALS["host_only"], code="host_only", pm=True)]
    if not state.tie:
        return state, [refusal(intent, REFUSALS["no_tie"], code="no_tie", pm=True, subject="refused")]
    target = intent.data.get("target")
    if intent.data.get("nobody") or target == NO_LYNCH:
        chosen: tuple[str, ...] = ()
    elif target in state.tie:
        chosen = (str(target),)
    else:
        params = {"target": str(target or "")}
        return state, [refusal(intent, REFUSALS["not_tied"].format(**params), code="not_tied", params=params,
                                       pm=True, subject="refused")]
    return _end_day(state, max(intent.at or state.phase_ends, state.phase_ends), "deadline", chosen=chosen)


def _post_minimum(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Every living player short of the day's post minimum: a ledger entry (rule post_minimum, with its
    warning) and a flag asking the host whether to replace them. Marks the day checked."""
    short = activity.short_of_minimum(state)
    key = f"{state.phase}:post_minimum"
    if not short or key in state.reminded:
        return state, []
    state = state.with_(reminded=(*state.reminded, key))
    events: list[Event] = []
    need = state.options.post_minimum
    for name, posts in short:
        if name not in state.alive:
            continue
        said = (f"{posts} из {need} {plural(need, _REQUIRED_RU, 'ru')} за День {state.number}" if state.lang == "ru"
                else f"{posts} of {need} posts on day {state.number}")
        new = ledger.entry(state, name, activity.RULE, at, text=said, auto=True)
        state, more = ledger.record(state, new, Intent("warn", {"target": name}, author=state.host or "", at=at))
        events += more
        events.append(Event("post_minimum", {
            "name": name, "posts": posts, "needed": need, "day": state.number,
            "flag": f"{name} made {posts} of the {need} posts required on day {state.number}: warned; "
                    f"replace them? (replace {name} with ACCOUNT)"}))
    return state, events


def _break_tie(state: MafiaState, tied: tuple[str, ...]) -> tuple[str, ...] | None:
    """Who hangs of several tied players, by the option `tie`; None when the host decides."""
    policy = state.options.tie
    if len(tied) < 2 or policy == "all":
        return tied
    if policy == "no_lynch":
        return ()
    if policy == "random":
        return (random.Random(f"{state.options.seed}:tie:{state.number}").choice(sorted(tied)),)
    if policy == "earliest":
        reached = {w.target: w.reached for w in voting.wagons(state)}
        return (min(tied, key=lambda name: reached.get(name, 0)),)
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
    refused = refusal(intent, reason, code=code, params=params, pm=tell, subject="refused")
    refused.data["vote"] = True          # a vote's refusal is said by the error_<code> phrases
    return state, [refused]


def _note_error(state: MafiaState, intent: Intent, reason: str, code: str, params: dict[str, Any]) -> MafiaState:
    keep = max(state.options.vote_errors_shown, 0)
    errors = (*state.errors, VoteError(intent.author, reason, intent.post_id, intent.url, code, params))
    return state.with_(errors=errors[-keep:] if keep else (), error_total=state.error_total + 1)


def _withdraw(state: MafiaState, voter: str) -> tuple[MafiaState, bool]:
    if voter not in state.current:
        return state, False
    current = dict(state.current)
    entries = struck(state.entries, voter, current.pop(voter))
    return state.with_(entries=entries, current=current, changes=state.changes + 1), True


def _cast(state: MafiaState, intent: Intent, target: str, final: bool) -> tuple[MafiaState, bool]:
    voter = intent.author
    old = state.current.get(voter)
    if old == target:
        if final and voter not in state.locked:   # the same vote, now final
            return state.with_(locked=state.locked | {voter}, changes=state.changes + 1), True
        return state, False
    # The withdrawal from the old wagon and the vote on the new one together: a moved vote counts once.
    current = dict(state.current)
    if old is not None:
        del current[voter]
    current[voter] = target
    seq = state.seq + 1
    entries = moved(state.entries, old, VoteEntry(voter, target, seq, format_time(intent.at or state.phase_started),
                                                  intent.post_id, intent.url, final,
                                                  edit_of=str(intent.data.get("edit_of") or "")))
    locked = state.locked | {voter} if final else state.locked
    return state.with_(entries=entries, current=current, locked=locked, seq=seq, changes=state.changes + 1), True


def _maybe_end_early(state: MafiaState, at: datetime, events: list[Event]) -> tuple[MafiaState, list[Event]]:
    if voting.rule(state) == "absolute":
        if state.options.early_end and state.options.majority_countdown_hours:
            return _countdown(state, at, events)
        if state.options.early_end and voting.majority_reached(state) is not None:
            state, more = _end_day(state, at, "early")
            return state, events + more
    elif voting.decided_by_final_votes(state) is not None:
        state, more = _end_day(state, at, "early")
        return state, events + more
    return state, events


def _countdown(state: MafiaState, at: datetime, events: list[Event]) -> tuple[MafiaState, list[Event]]:
    """A majority reached starts the countdown: the day now ends `majority_countdown_hours` later (or at its
    own deadline, if sooner). A majority that breaks stops it, and the day's own deadline is back."""
    reached = voting.majority_reached(state)
    if reached is not None and not state.countdown:
        ends = min(state.phase_ends, at + timedelta(hours=state.options.majority_countdown_hours))
        state = state.with_(countdown=format_time(state.phase_ends), phase_ends=ends)
        return state, [*events, Event("countdown", {"thread": "votes", "day": state.number, "target": reached,
                                                    "no_lynch": reached == NO_LYNCH, "ends": format_time(ends),
                                                    "hours": f"{state.options.majority_countdown_hours:g}"})]
    if reached is None and state.countdown:
        state = state.with_(phase_ends=parse_time(state.countdown), countdown="")
        return state, [*events, Event("countdown", {"thread": "votes", "day": state.number, "target": None,
                                                    "no_lynch": False, "ends": format_time(state.phase_ends)})]
    return state, events


# ---- phase ends -----------------------------------------------------------------------------
def _end_day(state: MafiaState, at: datetime, ended: str, chosen: tuple[str, ...] | None = None
             ) -> tuple[MafiaState, list[Event]]:
    """The day's end: who hangs (`chosen`: the host's choice in a tie), the day's result, then night or the
    game's end. A tie the host breaks (option tie = "host") leaves the day waiting, with the host asked.
    The post minimum is checked first (its warnings go to the ledger)."""
    if chosen is None and not state.tie and ended != "early":   # an early end is nobody's silence
        state, warned = _post_minimum(state, at)
        if warned:
            state, more = _end_day(state, at, ended, chosen=None) if state.is_day else (state, [])
            return state, warned + more
    day_rule = voting.rule(state)
    need = voting.needed(state) if day_rule == "absolute" else None
    final_view = view(state, at)
    hanged: tuple[str, ...]
    tied: tuple[str, ...] = ()
    if chosen is not None:
        hanged = chosen
    elif day_rule == "absolute":
        reached = voting.majority_reached(state) if state.alive else None
        if reached is None:   # with early endings off, a majority can still stand at the deadline
            tally = voting.counts(state)
            reached = next((t for t, c in tally.items() if need and c >= voting.needed_for(state, t)
                            and t != NO_LYNCH), None)
        hanged = () if reached is None or reached == NO_LYNCH else (reached,)
        if hanged and ended != "early" and len(voting.majorities(state)) > 1:   # only with vote modifiers
            tied = voting.majorities(state)
    else:
        decided = voting.decided_by_final_votes(state) if ended == "early" else None
        hanged = decided or voting.most_voted(state)
        tied = hanged if len(hanged) > 1 else ()
    if tied:
        broken = _break_tie(state, tied)
        if broken is None:
            ask = Event("tie_pending", {"pm_to": state.host, "subject": "day", "day": state.number,
                                        "tied": list(tied), "view": final_view}) if state.host else None
            return state.with_(tie=tied), [ask] if ask else []
        hanged = broken
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
        phase_ends=phase_end(state.options, at, False), countdown="",
        entries=(), current={}, locked=frozenset(), count_number=0, changes=0, errors=(), error_total=0,
        immune=frozenset(), memory=memory, tie=(),
    )
    roles = {n: state.roles.get(n) for n in hanged} if state.options.reveal_roles else {}
    policy = "host" if chosen is not None else state.options.tie
    tie_data = {"tie": {"policy": policy, "tied": list(tied or state.tie)}} \
        if (tied and tied != hanged) or chosen is not None else {}
    needs = {n: voting.needed_for(state, n) for n in hanged if need and voting.needed_for(state, n) != need}
    tie_data.update({"needs": needs} if needs else {})
    end = Event("day_end", {**_day_json(day), **tie_data, "view": final_view, "roles": roles,
                            "alive": list(night.alive), "no_lynch_used": night.no_lynch_used,
                            "no_lynch_limit": state.options.no_lynch_limit,
                            "next_rule": voting.rule(night)})
    side = winner(night)
    if side is not None:
        over, final = game_over(night, side, at)
        return over, [end, *told, *final]
    return night, [end, *told, voting.phase_start(night)]


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
                      phase_ends=phase_end(state.options, at, True))
    return day, [*events, voting.phase_start(day)]


def _day_json(day: DayResult) -> dict[str, Any]:
    return {"day": day.day, "result": day.result, "lynched": list(day.lynched), "rule": day.rule,
            "needed": day.needed, "ended": day.ended, "at": format_time(day.at), "tally": dict(day.tally),
            "saved": list(day.saved)}


def _voter_view(state: MafiaState, entry: VoteEntry) -> dict[str, Any]:
    out = {"name": entry.voter, "url": entry.url, "post": entry.post, "final": entry.final,
           "withdrawn": entry.withdrawn, "at": entry.at}
    if entry.edit_of:   # the vote an edit made: when, and what the post said before (linked)
        before = next((e for e in state.entries if e.voter == entry.voter and e.post == entry.edit_of), None)
        out["edited"] = entry.at
        if before is not None and before.target != entry.target:
            out["was"] = before.target
            out["was_url"] = before.url
    elif entry.edited and entry.now is None:
        out["edited"] = entry.edited   # an edit took the vote out of its post: withdrawn (struck)
        out["removed"] = True
    elif any(e.edit_of == entry.post and e.voter == entry.voter for e in state.entries if entry.post):
        out["edited_away"] = True   # its post was edited: this vote no longer counts (struck, withdrawn)
    elif entry.edited:   # the post was edited; the vote counts as first read (policies first_seen, flag)
        out["edited"] = entry.edited
        if entry.now != entry.target:
            out["now"] = entry.now or ""
    weight = modifiers.weight(state, entry.voter)
    if weight != 1 and state.options.show_modifiers:
        out["weight"] = weight
    return out


def _wagon_view(state: MafiaState, wagon: voting.Wagon, need: int | None) -> dict[str, Any]:
    count = wagon.count
    if need is not None:
        need = voting.needed_for(state, wagon.target)
    out = {"target": wagon.target, "no_lynch": wagon.target == NO_LYNCH, "count": count, "needed": need,
           "l_minus": (need - count) if need is not None else None,
           "voters": [_voter_view(state, e) for e in wagon.entries]}
    labels = modifiers.labels(state, wagon.target) if state.options.show_modifiers else []
    if labels:
        out["labels"] = labels
    return out


def view(state: MafiaState, at: datetime) -> dict[str, Any]:
    """Everything a vote count shows, as plain data for the templates."""
    need = voting.needed(state) if voting.rule(state) == "absolute" else None
    return {
        "day": state.number, "count": state.count_number, "at": format_time(at),
        "deadline": "" if untimed(state) else format_time(state.phase_ends),
        "rule": "simple" if need is None else "absolute", "alive": len(state.alive),
        "needed": need, "no_lynch_used": state.no_lynch_used, "no_lynch_limit": state.options.no_lynch_limit,
        "wagons": [_wagon_view(state, w, need) for w in voting.wagons(state)], "not_voting": voting.not_voting(state),
        "locked": sorted(state.locked),
        "errors": [{"author": e.author, "reason": e.reason, "url": e.url, "code": e.code, "params": e.params}
                   for e in state.errors],
        "error_total": state.error_total,
        **({"tie": state.options.tie} if state.options.tie != "all" else {}),
        **({"not_voting_activity": [activity.line(state, n, at) for n in voting.not_voting(state)]}
           if state.options.activity_in_count else {}),
    }
