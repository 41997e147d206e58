"""What the posts show, as plain data for the templates: the 6x6 grid as text lines (monospace, ~30
characters wide, readable on a phone), the public board, each player's private board and hand."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.games.infiltration.board import COLUMNS, ROWS, half_rows
from forumbot.games.infiltration.pieces import Piece
from forumbot.games.infiltration.setup import CARD_NAMES, lacking, missing, seed_hash
from forumbot.games.infiltration.state import PLAY, SETUP, InfState
from forumbot.model import Event, format_time

CELL = 5


def _cell(state: InfState, piece: Piece | None, ip: bool, viewer: str | None, everything: bool) -> str:
    if piece is None:
        return "+" if ip else "."
    first = piece.owner == state.players[0]
    if everything or piece.revealed or piece.owner == viewer:
        text = f"{piece.became}*" if piece.became else piece.kind
        text = text.upper() if first else text.lower()
        if piece.owner == viewer and piece.revealed and not everything:
            text += "!"
    else:
        text = "X" if first else "o"
    return text + ("+" if ip else "")


def grid(state: InfState, viewer: str | None = None, everything: bool = False) -> list[str]:
    """The board as lines: the public view (viewer None), a player's view, or everything (the end)."""
    lines = ["   " + "".join(c.ljust(CELL) for c in COLUMNS).rstrip()]
    for row in ROWS:
        cells = [_cell(state, state.board.get(f"{c}{row}"), f"{c}{row}" in state.ips, viewer, everything)
                 for c in COLUMNS]
        lines.append(f"{row:<3}" + "".join(c.ljust(CELL) for c in cells).rstrip())
    return lines


def deadline(state: InfState) -> str | None:
    if state.phase == SETUP:
        return format_time(state.setup_ends)
    if state.phase == PLAY and not state.overdue and state.turn_started is not None:
        return format_time(state.turn_started + timedelta(hours=state.options.turn_hours))
    return None


def _common(state: InfState) -> dict[str, Any]:
    return {"players": list(state.players), "first_rows": "1-3", "second_rows": "4-6",
            "turn": state.turn, "number": state.seq, "deadline": deadline(state),
            "overdue": state.overdue, "ips": list(state.ips),
            "pieces": {p: len(state.pieces_of(p)) for p in state.players},
            "captured": {p: state.captured(p) for p in state.players},
            "hands": {p: len(state.hands.get(p, ())) for p in state.players},
            "decks": {p: len(state.decks.get(p, ())) for p in state.players},
            "warned": state.warned_at is not None}


def board_event(state: InfState, happened: list[dict[str, Any]], kind: str = "board") -> Event:
    return Event(kind, {"thread": "game", **_common(state), "happened": happened, "grid": grid(state)})


def private_event(state: InfState, player: str, notes: list[dict[str, Any]]) -> Event:
    hand = state.hands.get(player, ())
    fight = state.fight
    may_protect = bool(fight and "protection" in hand and any(
        p.owner == player for p in (fight.attacker, fight.defender)) and fight.survivor in (
        "both", "defender" if fight.attacker.owner == player else "attacker"))
    return Event("private_board", {
        "pm_to": player, "subject": "inf_board",
        **_common(state), "player": player, "grid": grid(state, player),
        "hand": [CARD_NAMES[c] for c in hand], "deck": len(state.decks.get(player, ())),
        "notes": notes, "may_protect": may_protect})


def setup_open_event(state: InfState) -> Event:
    return Event("setup_open", {"thread": "game", **_common(state), "grid": grid(state),
                                "seed_hash": seed_hash(state.options.seed), "prize": state.prize,
                                "setup_hours": state.options.setup_hours, "host": state.host})


def setup_reply_event(state: InfState, player: str) -> Event:
    seat = state.seat(player)
    draft = state.drafts.get(player, {})
    rows = half_rows(seat)
    lines = [f"{rows[i]:<3}" + "".join(c.ljust(3) for c in draft[i]).rstrip() if i in draft
             else f"{rows[i]:<3}—" for i in range(3)]
    return Event("setup_reply", {"pm_to": player, "subject": "inf_setup", "player": player,
                                 "accepted": player in state.ready, "missing": missing(draft, seat),
                                 "lacking": lacking(draft, seat),
                                 "rows": lines, "deadline": format_time(state.setup_ends),
                                 "waiting_for": [p for p in state.players if p not in state.ready]})


def end_event(state: InfState) -> Event:
    return Event("game_end", {
        "thread": "game", **_common(state), "winner": state.winner, "result": state.result,
        "loser": state.other(state.winner) if state.winner else None, "prize": state.prize,
        "penalty": state.options.stalemate_penalty, "seed": state.options.seed,
        "seed_hash": seed_hash(state.options.seed), "grid": grid(state, everything=True),
        "ledger": {p: dict(v) for p, v in state.ledger.items()},
        "at": format_time(state.ended_at) if state.ended_at else None})


def overdue_event(state: InfState, at: datetime) -> Event:
    return Event("turn_overdue", {"thread": "game", **_common(state), "at": format_time(at),
                                  "late": state.turn, "other": state.other(state.turn) if state.turn else None})
