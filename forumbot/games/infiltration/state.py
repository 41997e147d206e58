"""The state of an Infiltration game: an immutable value, stored as JSON between steps."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.games.infiltration.options import InfiltrationOptions
from forumbot.games.infiltration.pieces import Piece
from forumbot.model import format_time, parse_time

SETUP, PLAY, OVER = "setup", "play", "over"


@dataclass(frozen=True)
class Kill:
    """A piece removed from the board: in which action (seq), whose, what it was, where."""

    seq: int
    owner: str
    kind: str
    became: str | None
    square: str

    @property
    def acts(self) -> str:
        return self.became or self.kind


@dataclass(frozen=True)
class Fight:
    """The last battle that destroyed something, kept until the next action so that a Protection card
    may answer it (and the other side's Protection answer that)."""

    src: str
    dst: str
    attacker: Piece
    defender: Piece
    survivor: str          # "attacker", "defender" or "both" (both destroyed)
    seq: int


@dataclass(frozen=True)
class InfState:
    players: tuple[str, str]               # seat 0 sets up on rows 1-3, seat 1 on rows 4-6
    options: InfiltrationOptions
    host: str | None
    phase: str                             # setup, play, over
    started: datetime
    setup_ends: datetime
    prize: int
    board: dict[str, Piece] = field(default_factory=dict)
    ips: tuple[str, ...] = ()              # unclaimed information points
    decks: dict[str, tuple[str, ...]] = field(default_factory=dict)   # top card first
    hands: dict[str, tuple[str, ...]] = field(default_factory=dict)
    drafts: dict[str, dict[int, tuple[str, ...]]] = field(default_factory=dict)   # setup rows 0-2
    ready: tuple[str, ...] = ()            # players whose setup is complete
    feedback: tuple[str, ...] = ()         # players owed a reply about their setup draft
    turn: str | None = None
    turn_started: datetime | None = None
    overdue: bool = False                  # the turn's 24 hours passed: free-for-all until someone acts
    owed: dict[str, int] = field(default_factory=dict)   # turns a player must skip (out-of-turn Protection)
    seq: int = 0                           # actions taken
    fight: Fight | None = None
    kills: tuple[Kill, ...] = ()
    warned_at: int | None = None           # the host's stalemate warning, at this action number
    winner: str | None = None
    result: str | None = None              # jewel, pieces, mt_survived, last_kill, draw, forfeit, stalemate, host
    ended_at: datetime | None = None
    ledger: dict[str, dict[str, int]] = field(default_factory=dict)

    def with_(self, **changes: Any) -> InfState:
        return replace(self, **changes)

    def seat(self, player: str) -> int:
        return self.players.index(player)

    def other(self, player: str) -> str:
        return self.players[1 - self.players.index(player)]

    def pieces_of(self, player: str) -> dict[str, Piece]:
        return {sq: p for sq, p in self.board.items() if p.owner == player}

    def captured(self, player: str) -> list[str]:
        """The player's pieces taken off the board, in order."""
        return [f"M:{k.became}" if k.became else k.kind for k in self.kills if k.owner == player]


def _time(value: datetime | None) -> str | None:
    return format_time(value) if value is not None else None


def _untime(value: Any) -> datetime | None:
    return parse_time(value) if value else None


def state_to_json(state: InfState) -> dict[str, Any]:
    fight = state.fight
    return {
        "players": list(state.players), "options": state.options.to_json(), "host": state.host,
        "phase": state.phase, "started": _time(state.started), "setup_ends": _time(state.setup_ends),
        "prize": state.prize,
        "board": {sq: p.to_json() for sq, p in sorted(state.board.items())},
        "ips": list(state.ips),
        "decks": {p: list(c) for p, c in state.decks.items()},
        "hands": {p: list(c) for p, c in state.hands.items()},
        "drafts": {p: {str(r): list(cells) for r, cells in rows.items()} for p, rows in state.drafts.items()},
        "ready": list(state.ready), "feedback": list(state.feedback),
        "turn": state.turn, "turn_started": _time(state.turn_started), "overdue": state.overdue,
        "owed": dict(state.owed), "seq": state.seq,
        "fight": None if fight is None else {
            "src": fight.src, "dst": fight.dst, "attacker": fight.attacker.to_json(),
            "defender": fight.defender.to_json(), "survivor": fight.survivor, "seq": fight.seq},
        "kills": [{"seq": k.seq, "owner": k.owner, "kind": k.kind, "became": k.became, "square": k.square}
                  for k in state.kills],
        "warned_at": state.warned_at, "winner": state.winner, "result": state.result,
        "ended_at": _time(state.ended_at), "ledger": {p: dict(v) for p, v in state.ledger.items()},
    }


def state_from_json(data: dict[str, Any]) -> InfState:
    fight = data.get("fight")
    started = _untime(data["started"])
    setup_ends = _untime(data["setup_ends"])
    assert started is not None and setup_ends is not None
    return InfState(
        players=(data["players"][0], data["players"][1]),
        options=InfiltrationOptions.from_dict(data["options"], "stored state"),
        host=data.get("host"), phase=data["phase"], started=started, setup_ends=setup_ends,
        prize=int(data["prize"]),
        board={sq: Piece.from_json(p) for sq, p in data["board"].items()},
        ips=tuple(data["ips"]),
        decks={p: tuple(c) for p, c in data["decks"].items()},
        hands={p: tuple(c) for p, c in data["hands"].items()},
        drafts={p: {int(r): tuple(cells) for r, cells in rows.items()} for p, rows in data["drafts"].items()},
        ready=tuple(data["ready"]), feedback=tuple(data["feedback"]),
        turn=data.get("turn"), turn_started=_untime(data.get("turn_started")),
        overdue=bool(data.get("overdue")), owed={p: int(n) for p, n in data.get("owed", {}).items()},
        seq=int(data["seq"]),
        fight=None if not fight else Fight(fight["src"], fight["dst"], Piece.from_json(fight["attacker"]),
                                           Piece.from_json(fight["defender"]), fight["survivor"],
                                           int(fight["seq"])),
        kills=tuple(Kill(int(k["seq"]), k["owner"], k["kind"], k.get("became"), k["square"])
                    for k in data.get("kills", [])),
        warned_at=data.get("warned_at"), winner=data.get("winner"), result=data.get("result"),
        ended_at=_untime(data.get("ended_at")),
        ledger={p: {k: int(v) for k, v in row.items()} for p, row in data.get("ledger", {}).items()},
    )
