"""Infiltration as a pure state machine: setup by PM, one action a turn from the game thread, the turn
clock with the free-for-all inactivity rule, Protection answers, host rulings and the end of the game."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, refused
from forumbot.games.infiltration import actions, endgame, setup, views
from forumbot.games.infiltration.actions import Done, Refusal, Talk
from forumbot.games.infiltration.board import looks_like_square
from forumbot.games.infiltration.options import InfiltrationOptions
from forumbot.games.infiltration.state import OVER, PLAY, SETUP, InfState, state_from_json, state_to_json
from forumbot.model import Event, Intent, format_time

SETUP_KINDS = ("setup", "setup_row")
HOST_KINDS = ("stalemate_warning", "stalemate", "award")
PM_KINDS = (*SETUP_KINDS, "board")


class InfiltrationGame:
    name = "infiltration"

    # ---- setup -------------------------------------------------------------------------------
    def new(self, setup_: GameSetup) -> InfState:
        """The setup stage. Raises ConfigError for a roster that is not two players, a missing seed, or
        players from different win tiers."""
        options = InfiltrationOptions.from_dict(dict(setup_.options))
        names = tuple(p.name for p in setup_.players)
        if len(names) != 2 or names[0] == names[1]:
            raise ConfigError(f"Infiltration is for exactly 2 players; the roster has {len(names)}",
                              fix="list two [[players]]")
        players = (names[0], names[1])
        if not options.seed:
            raise ConfigError("Infiltration needs a secret seed for its random draws",
                              fix='add seed = "..." to [game.options]; forumbot posts its hash at the start '
                                  "and the seed at the end")
        if options.first not in ("random", *players):
            raise ConfigError(f"first = '{options.first}' is not 'random' or a player",
                              fix="write first = \"random\" or a player's name")
        for table in ("wins", "money"):
            unknown = [n for n in getattr(options, table) if n not in players]
            if unknown:
                raise ConfigError(f"{table} names someone not in the game: {', '.join(unknown)}")
        if setup_.dead or setup_.state or setup_.phase not in (None, SETUP):
            raise ConfigError("an Infiltration game starts at its setup stage",
                              fix="remove phase, no_lynch_used and alive = false")
        wins = {p: options.wins.get(p, 0) for p in players}
        if options.enforce_tiers and not endgame.may_challenge(wins[players[0]], wins[players[1]]):
            raise ConfigError(f"{players[0]} has {wins[players[0]]} wins and {players[1]} has "
                              f"{wins[players[1]]}: only players with as many wins may play each other",
                              fix="pick an opponent of the same tier, or set enforce_tiers = false")
        return InfState(
            players=players, options=options, host=setup_.host, phase=SETUP, started=setup_.start,
            setup_ends=setup_.start + timedelta(hours=options.setup_hours),
            prize=endgame.prize_for(wins[players[0]], wins[players[1]], options),
            ips=setup.info_points(options.seed, options.info_points),
            decks={p: setup.deck(options.seed, seat) for seat, p in enumerate(players)},
            hands={p: () for p in players}, owed={p: 0 for p in players},
            ledger={p: {"money": options.money.get(p, 0), "wins": wins[p]} for p in players})

    def start_events(self, state: InfState) -> list[Event]:
        return [views.setup_open_event(state)]

    # ---- intents -----------------------------------------------------------------------------
    def apply(self, state: InfState, intent: Intent) -> tuple[InfState, list[Event]]:
        if intent.kind == "move" and not looks_like_square(str(intent.data.get("src", ""))):
            return state, []          # talk that only looked like a move ("good move - really")
        try:
            return self._apply(state, intent)
        except Talk:
            return state, []
        except Refusal as why:
            return state, _refuse(state, intent, why)

    def _apply(self, state: InfState, intent: Intent) -> tuple[InfState, list[Event]]:
        kind, author = intent.kind, intent.author
        at = intent.at or state.turn_started or state.started
        if state.phase == OVER:
            raise Refusal("the game is over", "state_over")
        if kind in HOST_KINDS:
            return self._host(state, intent, at)
        if kind == "modkill":   # the host layer checked that the host sent it: the player forfeits
            target = intent.data.get("target")
            if target not in state.players:
                raise Refusal(f"{target} is not a player in this game", "not_player", author=str(target))
            return _end(state, state.other(str(target)), "forfeit", at, [{"kind": "modkill", "player": target}])
        if author not in state.players:
            raise Refusal(f"{author} is not a player in this game", "not_player", author=author)
        if kind in SETUP_KINDS:
            return self._setup(state, intent, at)
        if kind == "forfeit":
            return _end(state, state.other(author), "forfeit", at, [{"kind": "forfeit", "player": author}])
        if kind == "board":
            return state, [views.private_event(state, author, [])]
        if state.phase == SETUP:
            raise Refusal(f"the game has not started: setups are due by {format_time(state.setup_ends)}",
                          "inf_not_started", deadline=format_time(state.setup_ends))
        skipped = None
        if kind == "protect":
            done = actions.protect(state, author)
            if author != state.turn and not state.overdue:
                # An answer out of turn "takes up your next turn": the current player keeps the turn.
                owed = {**state.owed, author: state.owed.get(author, 0) + 1}
                return _after(state, done, author, at, owed=owed)
        elif kind in actions.ACTIONS:
            if author != state.turn and not state.overdue:
                raise Refusal(f"it is {state.turn}'s turn", "inf_not_your_turn", player=str(state.turn))
            done = actions.ACTIONS[kind](state.with_(fight=None), author, intent.data)
        else:
            raise Refusal(f"'{kind}' is not an Infiltration action", "inf_not_action")
        if author != state.turn:
            skipped = state.turn      # the free-for-all: the late player's turn is skipped
        return _after(state, done, author, at, skipped=skipped)

    def _setup(self, state: InfState, intent: Intent, at: datetime) -> tuple[InfState, list[Event]]:
        author = intent.author
        if state.phase != SETUP:
            raise Refusal("the game has started; setups can no longer change", "inf_started")
        rows: dict[int, tuple[str, ...]] = {}
        if intent.kind == "setup":
            parsed, error = setup.parse_rows(str(intent.data.get("cells", "")))
            if parsed is None:
                raise error or Refusal("the setup was not understood", "inf_setup_form")
            rows = dict(enumerate(parsed))
        else:
            index, error = setup.row_index(state.seat(author), str(intent.data.get("row", "")))
            row, row_error = setup.parse_row(str(intent.data.get("cells", "")))
            if index is None or row is None:
                raise error or row_error or Refusal("the row was not understood", "inf_setup_form")
            rows = {index: row}
        state, error = setup.set_rows(state, author, rows)
        if error:
            raise error
        if author not in state.ready:
            feedback = state.feedback if author in state.feedback else (*state.feedback, author)
            return state.with_(feedback=feedback), []
        state = state.with_(feedback=tuple(p for p in state.feedback if p != author))
        events = [views.setup_reply_event(state, author)]
        if len(state.ready) == 2:
            state, more = _begin(state, at)
            events += more
        return state, events

    def _host(self, state: InfState, intent: Intent, at: datetime) -> tuple[InfState, list[Event]]:
        if state.host is None or intent.author != state.host:
            raise Refusal("only the host can rule on stalemates and end the game early", "inf_host_only")
        if state.phase != PLAY:
            raise Refusal("the game is not being played", "inf_not_playing")
        if intent.kind == "stalemate_warning":
            state = state.with_(warned_at=state.seq)
            return state, [views.board_event(state, [{"kind": "warning"}], kind="stalemate_warning")]
        if intent.kind == "stalemate":
            if state.warned_at is None:
                raise Refusal("warn the players first (stalemate warning); a battle since lifts the warning",
                              "inf_warn_first")
            left = state.warned_at + state.options.stalemate_grace_turns - state.seq
            if left > 0:
                raise Refusal(f"the players still have {left} turns after the warning to end the stalemate",
                              "inf_grace", count=left)
            return _end(state, None, "stalemate", at, [])
        target = intent.data.get("target")
        if target not in state.players:
            raise Refusal(f"'{intent.data.get('unresolved', {}).get('target', target)}' is not a player",
                          "name_unknown", query=str(intent.data.get("unresolved", {}).get("target", target)))
        return _end(state, str(target), "host", at, [])

    # ---- time --------------------------------------------------------------------------------
    def next_deadline(self, state: InfState) -> datetime | None:
        if state.phase == SETUP:
            return state.setup_ends
        if state.phase == PLAY and not state.overdue and state.turn_started is not None:
            return state.turn_started + timedelta(hours=state.options.turn_hours)
        return None

    def shift(self, state: InfState, delta: timedelta) -> InfState:
        """The setup deadline or the turn's clock moved by `delta` (the host's extend/end/pause)."""
        if state.phase == SETUP:
            return state.with_(setup_ends=state.setup_ends + delta)
        if state.phase == PLAY and state.turn_started is not None:
            return state.with_(turn_started=state.turn_started + delta)
        return state

    def on_deadline(self, state: InfState, at: datetime, now: datetime | None = None
                    ) -> tuple[InfState, list[Event]]:
        """At the setup deadline unplaced pieces go on at random and the game starts; at a turn's
        deadline the turn becomes a free-for-all until someone acts."""
        if state.phase == SETUP:
            return _begin(state, state.setup_ends)
        deadline = self.next_deadline(state)
        if deadline is None:
            return state, []
        state = state.with_(overdue=True)
        return state, [views.overdue_event(state, deadline)]

    def report(self, state: InfState, at: datetime) -> tuple[InfState, list[Event]]:
        """One reply per player about an unfinished setup draft (a PM's rows arrive one by one)."""
        if not state.feedback or state.phase != SETUP:
            return (state.with_(feedback=()) if state.feedback else state), []
        events = [views.setup_reply_event(state, p) for p in state.feedback]
        return state.with_(feedback=()), events

    def tally(self, state: InfState, at: datetime) -> Event | None:
        return views.board_event(state, [])

    # ---- threads -------------------------------------------------------------------------------
    def threads(self, state: InfState) -> dict[str, str]:
        return {"game": state.options.game_thread}

    def command_threads(self, state: InfState) -> tuple[str, ...]:
        return (state.options.game_thread,)

    # ---- storage and views -------------------------------------------------------------------
    def to_json(self, state: InfState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> InfState:
        return state_from_json(data)

    def eliminated(self, state: InfState) -> tuple[str, ...]:
        """Infiltration puts no player out: its two players play to the end."""
        return ()

    def summary(self, state: InfState) -> dict[str, Any]:
        return {
            "phase": state.phase, "turn": state.turn, "action": state.seq,
            "board": {sq: p.to_json() for sq, p in sorted(state.board.items(), key=lambda i: (i[0][1], i[0]))},
            "ips": list(state.ips),
            "hands": {p: list(c) for p, c in state.hands.items()},
            "decks": {p: len(c) for p, c in state.decks.items()},
            "captured": {p: state.captured(p) for p in state.players},
            "winner": state.winner, "result": state.result,
            "ledger": {p: dict(v) for p, v in state.ledger.items()},
            "prize": state.prize, "seed_hash": setup.seed_hash(state.options.seed),
            "seed": state.options.seed if state.phase == OVER else None,
        }


# ---- steps shared by the handlers ---------------------------------------------------------------
def _refuse(state: InfState, intent: Intent, why: Refusal) -> list[Event]:
    events = [refused(intent, why, "inf_refused")]
    if intent.kind not in PM_KINDS and intent.author in state.players and state.phase != OVER:
        events.append(Event("refused", {"thread": "game", "author": intent.author, "turn": state.turn,
                                        "line": intent.line}))
    return events


def _begin(state: InfState, at: datetime) -> tuple[InfState, list[Event]]:
    """The game starts: both halves on the board (random where a player did not place), the first player."""
    placed_late = [p for p in state.players if p not in state.ready]
    first = setup.first_player(state.options.seed, state.players, state.options.first)
    state = state.with_(phase=PLAY, board=setup.place(state), turn=first, turn_started=at, feedback=())
    start = views.board_event(state, [{"kind": "random_fill", "player": p} for p in placed_late],
                              kind="game_start")
    return state, [start, *(views.private_event(state, p, []) for p in state.players)]


def _after(before: InfState, done: Done, actor: str, at: datetime, *, skipped: str | None = None,
           owed: dict[str, int] | None = None) -> tuple[InfState, list[Event]]:
    """The turn after an action: the next player (unless they owe a skipped turn), the clock restarted,
    the end of the game checked, the boards posted."""
    state = done.state.with_(seq=before.seq + 1, overdue=False, turn_started=at,
                             warned_at=None if done.battle else before.warned_at)
    happened = ([{"kind": "skipped", "player": skipped}] if skipped else []) + done.public
    if owed is not None:
        state = state.with_(owed=owed)
    else:
        nxt = state.other(actor)
        if state.owed.get(nxt, 0) > 0:
            state = state.with_(owed={**state.owed, nxt: state.owed[nxt] - 1})
            happened.append({"kind": "owed", "player": nxt})
            nxt = actor
        state = state.with_(turn=nxt)
    if done.jewel_taken_by:
        return _end(state, done.jewel_taken_by, "jewel", at, happened, done.private)
    decided = endgame.decide(state)
    if decided is not None:
        return _end(state, decided[0], decided[1], at, happened, done.private)
    return state, [views.board_event(state, happened),
                   *(views.private_event(state, p, done.private.get(p, [])) for p in state.players)]


def _end(state: InfState, winner: str | None, result: str, at: datetime, happened: list[dict[str, Any]],
         private: dict[str, list[dict[str, Any]]] | None = None) -> tuple[InfState, list[Event]]:
    state = endgame.finish(state, winner, result, at)
    events = [views.board_event(state, happened)] if happened else []
    events += [views.private_event(state, p, private[p]) for p in state.players if private and private.get(p)]
    return state, [*events, views.end_event(state)]
