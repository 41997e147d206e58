"""Small builders shared by the tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.state import MafiaState
from forumbot.model import Event, Intent, PlayerRef

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


def names(count: int) -> list[str]:
    return [f"P{i:02d}" for i in range(1, count + 1)]


def new_game(count: int = 12, *, dead: int = 0, phase: str = "day1", no_lynch_used: int = 0,
             **options: Any) -> MafiaState:
    roster = names(count)
    setup = GameSetup("mafia", tuple(PlayerRef(n) for n in roster), START, options=options, phase=phase,
                      dead=tuple(roster[count - dead:]), state={"no_lynch_used": no_lynch_used})
    return MAFIA.new(setup)


class Clock:
    """Minutes after the phase start, one tick per intent."""

    def __init__(self, state: MafiaState) -> None:
        self.at = state.phase_started

    def tick(self) -> datetime:
        self.at += timedelta(minutes=1)
        return self.at


def act(state: MafiaState, author: str, kind: str, target: str | None = None, *, final: bool = False,
        at: datetime | None = None) -> tuple[MafiaState, list[Event]]:
    data: dict[str, Any] = {}
    if kind == "vote":
        data["target"] = target
        if final:
            data["final"] = True
    intent = Intent(kind, data, post_id=f"p-{author}-{kind}-{target}", author=author,
                    at=at or state.phase_started + timedelta(minutes=state.seq + 1))
    return MAFIA.apply(state, intent)


def move(state: MafiaState, voter: str, kind: str, target: str, final: bool = False) -> tuple[MafiaState, list[Event]]:
    """One move of a generated plan: a vote, unvote or no-lynch by `voter`, or ("modkill") the host's modkill of
    `target`."""
    if kind == "modkill":
        return MAFIA.apply(state, Intent("modkill", {"target": target}, author="host",
                                         at=START + timedelta(minutes=state.seq + 1)))
    return act(state, voter, kind, target if kind == "vote" else None, final=final)


def reloaded(state: MafiaState) -> MafiaState:
    """The state as the store reads it back: from its JSON text."""
    return MAFIA.from_json(json.loads(json.dumps(MAFIA.to_json(state), ensure_ascii=False)))


def votes(state: MafiaState, pairs: list[tuple[str, str]], **kw: Any) -> tuple[MafiaState, list[Event]]:
    """Cast (voter, target) votes in order; target "no_lynch" is a no-lynch vote."""
    events: list[Event] = []
    for voter, target in pairs:
        if target == "no_lynch":
            state, happened = act(state, voter, "no_lynch", **kw)
        else:
            state, happened = act(state, voter, "vote", target, **kw)
        events += happened
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# Folders where the browser tests saved screenshots this run (printed at the end of the run by conftest).
SCREENSHOT_DIRS: list[str] = []


_post_numbers = iter(range(10**9))


def apply_post(game: Any, state: Any, author: str, text: str, *, lang: str = "en", where: str = "pm") -> Any:
    """A post read by the game's real grammar and applied, then the game's report: (state, the batch's
    events, replies included). The game's state must have `players` and `ends`."""
    from forumbot.text.grammar import load_grammar
    from forumbot.text.names import Roster
    from forumbot.text.parse import PostParser

    parser = PostParser(load_grammar(game.name, lang), Roster([PlayerRef(p) for p in state.players]))
    parsed = parser.parse_text(text, where=where, author=author, post_id=f"p{next(_post_numbers)}", at=state.ends)
    events = []
    for intent in parsed.intents:
        state, happened = game.apply(state, intent)
        events += happened
    state, replies = game.report(state, state.ends)
    return state, events + replies

