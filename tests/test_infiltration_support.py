"""Builders shared by the Infiltration tests (no tests here)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.games.base import GameSetup
from forumbot.games.infiltration import INFILTRATION
from forumbot.games.infiltration.pieces import Piece
from forumbot.games.infiltration.state import PLAY, InfState
from forumbot.model import Event, Intent, PlayerRef

START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
A, B = "Alice", "Bob"
HOST = "Dealer"
SETUP_A = "J MT S S D D / M M T T T DT / DT DT . . . ."
SETUP_B = ". . . . DT DT / DT T T T M M / D D S S MT J"


def new(**options: Any) -> InfState:
    options.setdefault("seed", "test-seed")
    return INFILTRATION.new(GameSetup("infiltration", (PlayerRef(A), PlayerRef(B)), START,
                                      options=options, host=HOST))


def playing(pieces: dict[str, str], *, turn: str = A, hands: dict[str, tuple[str, ...]] | None = None,
            ips: tuple[str, ...] = (), **options: Any) -> InfState:
    """A game in play with just these pieces: "C3": "A:MT" (Alice's Master Thief), "C4": "B:J", a
    revealed piece "B:T!", a transformed Mimic "A:M=MT"."""
    board = {}
    for square, spec in pieces.items():
        who, kind = spec.split(":")
        revealed = kind.endswith("!")
        kind = kind.rstrip("!")
        became = None
        if "=" in kind:
            kind, became = kind.split("=")
        board[square] = Piece(A if who == "A" else B, kind, revealed, became)
    state = new(**options)
    return state.with_(phase=PLAY, board=board, turn=turn, turn_started=START, ips=ips,
                       hands={A: (), B: (), **(hands or {})})


_clock = {"n": 0}


def act(state: InfState, author: str, command: str, **data: Any) -> tuple[InfState, list[Event]]:
    _clock["n"] += 1
    at = (state.turn_started or START) + timedelta(minutes=1)
    return INFILTRATION.apply(state, Intent(command, data, post_id=f"p{_clock['n']}", author=author, at=at,
                                            line=f"{command} {data}"))


def mv(state: InfState, author: str, src: str, dst: str) -> tuple[InfState, list[Event]]:
    return act(state, author, "move", src=src, dst=dst)


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def reason(events: list[Event]) -> str:
    found = [e for e in events if e.kind == "rejected"]
    assert found, f"expected a refusal, got {kinds(events)}"
    return str(found[0].data["reason"])
