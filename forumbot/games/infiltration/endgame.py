"""How a game of Infiltration ends, who wins, and what it costs: the prize, win tiers, the ledger."""

from __future__ import annotations

from datetime import datetime

from forumbot.games.infiltration.options import InfiltrationOptions
from forumbot.games.infiltration.state import OVER, InfState


def may_challenge(wins_a: int, wins_b: int) -> bool:
    """Win tiers: only players who have won the same number of times may play each other."""
    return wins_a == wins_b


def prize_for(wins_a: int, wins_b: int, options: InfiltrationOptions) -> int:
    """25M between players who have never won, 10M once they have."""
    return options.prize if max(wins_a, wins_b) == 0 else options.prize_after_wins


def can_steal(state: InfState, player: str) -> bool:
    """Whether the player still has a Master Thief, or a Mimic that could become one."""
    return any(p.owner == player and (p.acts == "MT" or (p.kind == "M" and not p.became))
               for p in state.board.values())


def decide(state: InfState) -> tuple[str | None, str] | None:
    """The winner and why when neither side can steal the Jewel any more, else None.

    Most surviving pieces; on a tie, whose Master Thief (or Mimic reborn as one) died later; when they died
    in the same action, the owner of the piece lost most recently before that (they led until then);
    when every loss was mutual, a draw."""
    if any(can_steal(state, p) for p in state.players):
        return None
    left = {p: len(state.pieces_of(p)) for p in state.players}
    a, b = state.players
    if left[a] != left[b]:
        return (a if left[a] > left[b] else b), "pieces"
    last_mt = {p: max((k.seq for k in state.kills if k.owner == p and k.acts == "MT"), default=-1)
               for p in state.players}
    if last_mt[a] != last_mt[b]:
        return (a if last_mt[a] > last_mt[b] else b), "mt_survived"
    for seq in sorted({k.seq for k in state.kills}, reverse=True):
        owners = {k.owner for k in state.kills if k.seq == seq}
        if len(owners) == 1:
            return owners.pop(), "last_kill"
    return None, "draw"


def finish(state: InfState, winner: str | None, result: str, at: datetime) -> InfState:
    """The game over: the winner paid by the loser (nobody on a draw); on a stalemate both pay the prize
    and the penalty."""
    ledger = {p: dict(row) for p, row in state.ledger.items()}
    if result == "stalemate":
        for row in ledger.values():
            row["money"] -= state.prize + state.options.stalemate_penalty
    elif winner is not None:
        loser = state.other(winner)
        ledger[winner]["money"] += state.prize
        ledger[winner]["wins"] += 1
        ledger[loser]["money"] -= state.prize
    return state.with_(phase=OVER, winner=winner, result=result, ended_at=at, ledger=ledger, turn=None,
                       fight=None)
