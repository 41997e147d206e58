"""The ranked vote as a pure state machine: rankings by PM until the deadline (each change replaces the
last), a reply to every ranking (accepted, or what is missing), the default order for whoever sent none,
and the result post with every ranking and the count round by round."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, refusal
from forumbot.games.rankedvote.ballot import Item, count, problems, read_items, roster_of
from forumbot.games.rankedvote.options import RankedVoteOptions
from forumbot.model import Event, Intent, format_time, parse_time

VOTING, OVER = "voting", "over"


@dataclass(frozen=True)
class VoteState:
    players: tuple[str, ...]
    options: RankedVoteOptions
    host: str | None
    phase: str
    ends: datetime
    drafts: dict[str, dict[int, Item]] = field(default_factory=dict)
    ballots: dict[str, list[str]] = field(default_factory=dict)     # complete rankings, by player
    touched: tuple[str, ...] = ()          # players owed a reply about their ranking
    defaulted: tuple[str, ...] = ()        # players who sent no full ranking: the default order
    winner: str | None = None
    rounds: tuple[dict[str, Any], ...] = ()

    def with_(self, **changes: Any) -> VoteState:
        return replace(self, **changes)


def _item_json(item: Item) -> dict[str, Any]:
    return {"written": item.written, "choice": item.choice, "problem": item.problem}


class RankedVoteGame:
    name = "ranked-vote"

    def new(self, setup: GameSetup) -> VoteState:
        options = RankedVoteOptions.from_dict(dict(setup.options))
        players = tuple(p.name for p in setup.players)
        if len(players) < 2:
            raise ConfigError("a ranked vote needs at least two players", fix="list the voters as [[players]]")
        return VoteState(players=players, options=options, host=setup.host, phase=VOTING,
                         ends=setup.start + timedelta(hours=options.vote_hours))

    def start_events(self, state: VoteState) -> list[Event]:
        o = state.options
        return [Event("vote_open", {"thread": "game", "choices": list(o.choices), "default": list(o.default_order),
                                    "deadline": format_time(state.ends), "players": len(state.players)})]

    # ---- rankings -------------------------------------------------------------------------------
    def apply(self, state: VoteState, intent: Intent) -> tuple[VoteState, list[Event]]:
        if intent.kind != "ranking":
            return state, [refusal(intent, f"'{intent.kind}' is not part of a ranked vote", code="rv_not_ranking",
                                   pm=True, subject="rv_ranking")]
        if intent.author not in state.players:
            return state, [refusal(intent, f"{intent.author} is not a voter", code="rv_not_voter",
                                   params={"author": intent.author}, pm=True, subject="rv_ranking")]
        if state.phase != VOTING:
            return state, [refusal(intent, "the vote is closed", code="vote_closed", pm=True,
                                   subject="rv_ranking")]
        text = " > ".join(str(intent.data.get(k, "")) for k in ("ranking", "rest") if intent.data.get(k))
        try:
            start = max(1, int(intent.data.get("start", 1)))
        except (TypeError, ValueError):
            start = 1
        o = state.options
        items = read_items(text, roster_of(o.choices, tuple(sorted(o.aliases.items()))), len(o.choices) + 1)
        draft = {} if start == 1 else dict(state.drafts.get(intent.author, {}))
        for offset, item in enumerate(items):
            draft[start + offset] = item
        touched = state.touched if intent.author in state.touched else (*state.touched, intent.author)
        return state.with_(drafts={**state.drafts, intent.author: draft}, touched=touched), []

    def report(self, state: VoteState, at: datetime) -> tuple[VoteState, list[Event]]:
        """One reply per player whose ranking changed in this batch: accepted, or what is missing."""
        if not state.touched:
            return state, []
        ballots = dict(state.ballots)
        events = []
        for player in state.touched:
            ranking, wrong = problems(state.drafts.get(player, {}), state.options.choices, state.options.fill_last)
            if ranking is not None:
                ballots[player] = ranking
            events.append(Event("ballot_reply", {
                "pm_to": player, "subject": "rv_ranking", "accepted": ranking is not None, "ranking": ranking,
                "problems": wrong, "standing": ballots.get(player), "deadline": format_time(state.ends)}))
        return state.with_(ballots=ballots, touched=()), events

    # ---- time -----------------------------------------------------------------------------------
    def next_deadline(self, state: VoteState) -> datetime | None:
        return state.ends if state.phase == VOTING else None

    def shift(self, state: VoteState, delta: timedelta) -> VoteState:
        return state.with_(ends=state.ends + delta) if state.phase == VOTING else state

    def on_deadline(self, state: VoteState, at: datetime, now: datetime | None = None
                    ) -> tuple[VoteState, list[Event]]:
        if state.phase != VOTING:
            return state, []
        state, replies = self.report(state, at)
        missing = tuple(p for p in state.players if p not in state.ballots)
        ballots = {**state.ballots, **{p: list(state.options.default_order) for p in missing}}
        ballots = {p: ballots[p] for p in state.players}
        state = state.with_(ballots=ballots, defaulted=missing, phase=OVER)
        winner, rounds = _count(state)
        state = state.with_(winner=winner, rounds=tuple(rounds))
        return state, [*replies, self._result(state)]

    def _result(self, state: VoteState) -> Event:
        return Event("vote_result", {"thread": "game", "winner": state.winner, "rounds": list(state.rounds),
                                     "ballots": [{"player": p, "ranking": r, "default": p in state.defaulted}
                                                 for p, r in state.ballots.items()],
                                     "choices": list(state.options.choices), "final": state.phase == OVER})

    def tally(self, state: VoteState, at: datetime) -> Event | None:
        if not state.ballots:
            return None
        if state.phase == OVER:
            return self._result(state)
        winner, rounds = _count(state)
        return self._result(state.with_(winner=winner, rounds=tuple(rounds)))

    # ---- threads and storage --------------------------------------------------------------------
    def threads(self, state: VoteState) -> dict[str, str]:
        return {"game": state.options.game_thread}

    def command_threads(self, state: VoteState) -> tuple[str, ...]:
        return ()

    def to_json(self, state: VoteState) -> dict[str, Any]:
        return {"players": list(state.players), "options": state.options.to_json(), "host": state.host,
                "phase": state.phase, "ends": format_time(state.ends),
                "drafts": {p: {str(k): _item_json(i) for k, i in d.items()} for p, d in state.drafts.items()},
                "ballots": state.ballots, "touched": list(state.touched), "defaulted": list(state.defaulted),
                "winner": state.winner, "rounds": list(state.rounds)}

    def from_json(self, data: dict[str, Any]) -> VoteState:
        return VoteState(
            players=tuple(data["players"]), options=RankedVoteOptions.from_dict(data["options"], "stored state"),
            host=data.get("host"), phase=data["phase"], ends=parse_time(data["ends"]),
            drafts={p: {int(k): Item(i["written"], i["choice"], i["problem"]) for k, i in d.items()}
                    for p, d in data["drafts"].items()},
            ballots={p: list(r) for p, r in data["ballots"].items()}, touched=tuple(data["touched"]),
            defaulted=tuple(data["defaulted"]), winner=data.get("winner"), rounds=tuple(data["rounds"]))

    def eliminated(self, state: VoteState) -> tuple[str, ...]:
        """A ranked vote puts nobody out."""
        return ()

    def summary(self, state: VoteState) -> dict[str, Any]:
        return {"phase": state.phase, "deadline": format_time(state.ends), "winner": state.winner,
                "ballots": {p: {"ranking": r, "default": p in state.defaulted} for p, r in state.ballots.items()},
                "rounds": list(state.rounds)}


def _count(state: VoteState) -> tuple[str, list[dict[str, Any]]]:
    o = state.options
    return count(state.ballots, o.choices, o.final_tie, o.default_order, o.seed)
