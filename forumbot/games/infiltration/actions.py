"""One player's turn: a move (and its battle), a Spy's reveal, a Mimic's transformation, a card, claiming
an information point, and the Protection card that answers a battle. Each returns what happened or raises
Refusal with the reason the player is told; the game never changes on a refusal."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from forumbot.games.base import Refused as Refusal  # why an action cannot be taken; never leaves the game
from forumbot.games.infiltration.board import looks_like_square, read_square, steps
from forumbot.games.infiltration.pieces import (
    ATTACKER,
    BOTH,
    BOUNCE,
    DEFENDER,
    FIXED,
    JEWEL,
    NAMES,
    NO_CLAIM,
    Piece,
    battle,
    kind_of,
)
from forumbot.games.infiltration.setup import CARD_NAMES
from forumbot.games.infiltration.state import Fight, InfState, Kill


class Talk(Exception):
    """A line that only looked like a command ("good move - really"): ignored, no reply."""


@dataclass
class Done:
    """What an action did: the new state, what everyone is told, what each player alone is told."""

    state: InfState
    public: list[dict[str, Any]] = field(default_factory=list)
    private: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    battle: bool = False
    jewel_taken_by: str | None = None


def view(piece: Piece, square: str) -> dict[str, Any]:
    return {"owner": piece.owner, "piece": piece.code, "name": piece.name, "square": square}


def square(raw: Any, what: str = "square") -> str:
    text = str(raw or "")
    found = read_square(text)
    if found is None:
        raise Refusal(f"'{text.strip()}' is not a {what} of the board (columns A-F, rows 1-6)", "inf_not_square",
                      query=text.strip())
    return found


def own_piece(state: InfState, player: str, at: str) -> Piece:
    piece = state.board.get(at)
    if piece is None or piece.owner != player:
        raise Refusal(f"you have no piece on {at}", "inf_no_piece", square=at)
    return piece


def use_card(state: InfState, player: str, card: str) -> dict[str, tuple[str, ...]]:
    hand = list(state.hands.get(player, ()))
    if card not in hand:
        raise Refusal(f"you hold no {CARD_NAMES[card]} card", "inf_no_card", card=card)
    hand.remove(card)
    return {**state.hands, player: tuple(hand)}


# ---- moving and fighting ------------------------------------------------------------------------
def settle(board: dict[str, Piece], src: str, dst: str, attacker: Piece, defender: Piece,
           survivor: str) -> dict[str, Piece]:
    """The two squares after a battle: the winning attacker takes the square it attacked; a winning
    defender takes the attacker's square when it can move, else stays (a Deadly Trap never moves)."""
    board = {sq: p for sq, p in board.items() if sq not in (src, dst)}
    if survivor == ATTACKER:
        board[dst] = attacker
    elif survivor == DEFENDER:
        board[dst if defender.acts in FIXED else src] = defender
    elif survivor == BOUNCE:
        board[src], board[dst] = attacker, defender
    return board


def move(state: InfState, player: str, data: dict[str, Any]) -> Done:
    if not looks_like_square(str(data.get("src", ""))):
        raise Talk
    src, dst = square(data.get("src")), square(data.get("dst"))
    piece = own_piece(state, player, src)
    if piece.acts in FIXED:
        raise Refusal(f"your {piece.name} on {src} never moves", "inf_fixed", piece=piece.acts, square=src)
    if steps(src, dst) != 1:
        raise Refusal(f"a piece moves one square up, down, left or right; {src} to {dst} is not one", "inf_step",
                      src=src, dst=dst)
    target = state.board.get(dst)
    if target is not None and target.owner == player:
        raise Refusal(f"{dst} holds your own {target.name}", "inf_own_piece", square=dst, piece=target.acts)
    if target is None:
        board = {sq: p for sq, p in state.board.items() if sq != src}
        board[dst] = piece
        shown = {"piece": piece.code, "name": piece.name} if piece.revealed else {}
        return Done(state.with_(board=board), [{"kind": "move", "player": player, "src": src, "dst": dst,
                                                **shown}])
    return fight(state, player, src, dst, piece.shown(), target.shown())


def fight(state: InfState, player: str, src: str, dst: str, attacker: Piece, defender: Piece) -> Done:
    outcome = battle(attacker.acts, defender.acts)
    seq = state.seq + 1
    happened: dict[str, Any] = {"kind": "battle", "player": player, "src": src, "dst": dst,
                                "attacker": view(attacker, src), "defender": view(defender, dst),
                                "outcome": outcome}
    if outcome == JEWEL:
        board = {sq: p for sq, p in state.board.items() if sq not in (src, dst)}
        board[dst] = attacker
        kills = (*state.kills, Kill(seq, defender.owner, defender.kind, defender.became, dst))
        return Done(state.with_(board=board, kills=kills), [happened], battle=True, jewel_taken_by=player)
    board = settle(state.board, src, dst, attacker, defender, outcome)
    dead = []
    if outcome in (DEFENDER, BOTH):
        dead.append((attacker, src))
    if outcome in (ATTACKER, BOTH):
        dead.append((defender, dst))
    kills = (*state.kills, *(Kill(seq, p.owner, p.kind, p.became, sq) for p, sq in dead))
    fought = Fight(src, dst, attacker, defender, outcome, seq) if dead else None
    return Done(state.with_(board=board, kills=kills, fight=fought), [happened], battle=True)


def standing(last: Fight, role: str) -> str:
    """Where the battle's winner stands: a winning attacker on the square it attacked, a winning defender
    on the attacker's square unless it never moves."""
    if role == "attacker":
        return last.dst
    return last.dst if last.defender.acts in FIXED else last.src


def protect(state: InfState, player: str) -> Done:
    """Protection: the piece of `player` the last battle destroyed survives and the other is destroyed
    instead; the other side may answer with its own Protection (a chain)."""
    last = state.fight
    if last is None:
        raise Refusal("there is no battle to answer: Protection answers the battle that has just destroyed "
                      "one of your pieces, before any other action", "inf_no_battle")
    mine = [(role, p) for role, p in (("attacker", last.attacker), ("defender", last.defender))
            if p.owner == player and last.survivor in (BOTH, "defender" if role == "attacker" else "attacker")]
    if not mine:
        raise Refusal("the last battle destroyed none of your pieces", "inf_none_destroyed")
    role, saved = mine[0]
    if saved.acts == "J":
        raise Refusal("Protection may never be used on a Jewel", "inf_protect_jewel")
    hands = use_card(state, player, "protection")
    seq = state.seq + 1
    other = last.defender if role == "attacker" else last.attacker
    board = settle(state.board, last.src, last.dst, last.attacker, last.defender, role)
    kills = list(state.kills)
    for index in range(len(kills) - 1, -1, -1):     # the saved piece's death, undone
        if kills[index].owner == player and kills[index].seq == last.seq:
            del kills[index]
            break
    other_role = "defender" if role == "attacker" else "attacker"
    other_at = standing(last, other_role) if last.survivor == other_role else \
        (last.src if other_role == "attacker" else last.dst)
    if last.survivor != BOTH:
        kills.append(Kill(seq, other.owner, other.kind, other.became, other_at))
    happened = {"kind": "protect", "player": player, "saved": view(saved, standing(last, role)),
                "destroyed": view(other, other_at)}
    fought = Fight(last.src, last.dst, last.attacker, last.defender, role, seq)
    return Done(state.with_(board=board, kills=tuple(kills), hands=hands, fight=fought), [happened],
                battle=True)


# ---- abilities ----------------------------------------------------------------------------------
def spy(state: InfState, player: str, data: dict[str, Any]) -> Done:
    src, dst = square(data.get("src")), square(data.get("dst"))
    piece = own_piece(state, player, src)
    if piece.acts != "S":
        raise Refusal(f"your piece on {src} is not a Spy", "inf_not_kind", square=src, piece="S")
    if piece.used and state.options.spy_reveal_once:
        raise Refusal(f"the Spy on {src} has already used its reveal", "inf_spy_used", square=src)
    target = state.board.get(dst)
    if target is None or target.owner == player:
        raise Refusal(f"there is no opponent's piece on {dst}", "inf_no_enemy", square=dst)
    if steps(src, dst) > 2:
        raise Refusal(f"a Spy sees one square diagonally or up to two straight; {dst} is too far from {src}",
                      "inf_spy_far", src=src, dst=dst)
    public = state.options.spy_reveal == "public"
    if target.revealed and public:
        raise Refusal(f"the piece on {dst} is already revealed", "inf_revealed", square=dst)
    board = {**state.board, src: replace(piece, revealed=True, used=True)}
    if public:
        board[dst] = target.shown()
    happened = {"kind": "spy", "player": player, "src": src, "dst": dst,
                **({"target": view(target, dst)} if public else {})}
    note = {"kind": "spied", "square": dst, "piece": target.code, "name": target.name}
    return Done(state.with_(board=board), [happened], {player: [note]})


def defeated(state: InfState, player: str, kind: str) -> int:
    return sum(k.owner == player and k.kind == kind for k in state.kills)


def mimicked(state: InfState, player: str, kind: str) -> int:
    alive = sum(p.owner == player and p.became == kind for p in state.board.values())
    return alive + sum(k.owner == player and k.became == kind for k in state.kills)


def mimic(state: InfState, player: str, data: dict[str, Any]) -> Done:
    src = square(data.get("src"))
    piece = own_piece(state, player, src)
    if piece.kind != "M":
        raise Refusal(f"your piece on {src} is not a Mimic", "inf_not_kind", square=src, piece="M")
    if piece.became:
        raise Refusal(f"the Mimic on {src} has already become a {NAMES[piece.became]}", "inf_mimic_done",
                      square=src, piece=piece.became)
    into = kind_of(str(data.get("kind", "")))
    if into is None:
        raise Refusal(f"'{data.get('kind', '')}' is not a piece (MT, S, D, T, DT)", "inf_not_piece",
                      query=str(data.get("kind", "")))
    if into in ("M", "J"):
        raise Refusal(f"a Mimic cannot become a {NAMES[into]}", "inf_mimic_cannot", piece=into)
    lost = defeated(state, player, into)
    if lost == 0:
        raise Refusal(f"none of your {NAMES[into]}s has been defeated", "inf_none_defeated", piece=into)
    if state.options.mimic_limit == "per_defeated" and mimicked(state, player, into) >= lost:
        raise Refusal(f"each of your defeated {NAMES[into]}s already has a Mimic in its place", "inf_all_mimicked",
                      piece=into)
    board = {**state.board, src: replace(piece, became=into, revealed=True)}
    return Done(state.with_(board=board), [{"kind": "mimic", "player": player, "src": src, "into": into,
                                            "name": NAMES[into]}])


# ---- cards and information points --------------------------------------------------------------
def information(state: InfState, player: str, data: dict[str, Any]) -> Done:
    dst = square(data.get("dst"))
    target = state.board.get(dst)
    if target is None or target.owner == player:
        raise Refusal(f"there is no opponent's piece on {dst}", "inf_no_enemy", square=dst)
    if target.revealed:
        raise Refusal(f"the piece on {dst} is already revealed", "inf_revealed", square=dst)
    hands = use_card(state, player, "information")
    board = {**state.board, dst: target.shown()}
    return Done(state.with_(board=board, hands=hands),
                [{"kind": "information", "player": player, "dst": dst, "target": view(target, dst)}])


def teleport(state: InfState, player: str, data: dict[str, Any]) -> Done:
    a, b = square(data.get("a")), square(data.get("b"))
    if a == b:
        raise Refusal("Teleport swaps two different squares", "inf_teleport_same")
    first, second = own_piece(state, player, a), own_piece(state, player, b)
    if not state.options.teleport_fixed:
        for at, piece in ((a, first), (b, second)):
            if piece.acts in FIXED:
                raise Refusal(f"your {piece.name} on {at} never moves, not even by Teleport", "inf_fixed_teleport",
                              piece=piece.acts, square=at)
    hands = use_card(state, player, "teleport")
    board = {**state.board, a: second, b: first}
    return Done(state.with_(board=board, hands=hands),
                [{"kind": "teleport", "player": player, "a": a, "b": b}])


def claim(state: InfState, player: str, data: dict[str, Any]) -> Done:
    raw = data.get("sq")
    if raw:
        at = square(raw)
        if at not in state.ips:
            raise Refusal(f"there is no information point on {at}", "inf_no_ip", square=at)
        piece = own_piece(state, player, at)
        if piece.acts in NO_CLAIM:
            raise Refusal(f"a {NAMES[piece.acts]} cannot use an information point", "inf_cannot_claim",
                          piece=piece.acts)
    else:
        spots = [sq for sq in state.ips if sq in state.board and state.board[sq].owner == player
                 and state.board[sq].acts not in NO_CLAIM]
        if not spots:
            raise Refusal("none of your pieces that can read information stands on an information point",
                          "inf_no_claimer")
        if len(spots) > 1:
            raise Refusal("several of your pieces stand on information points; name one: claim "
                          + " or claim ".join(spots), "inf_which_ip", squares=", ".join(spots))
        at = spots[0]
    cards = state.decks.get(player, ())
    if not cards:
        raise Refusal("your deck is empty", "inf_deck_empty")
    card = cards[0]
    state = state.with_(ips=tuple(sq for sq in state.ips if sq != at),
                        decks={**state.decks, player: cards[1:]},
                        hands={**state.hands, player: (*state.hands.get(player, ()), card)})
    return Done(state, [{"kind": "claim", "player": player, "square": at}],
                {player: [{"kind": "drew", "card": card, "name": CARD_NAMES[card]}]})


ACTIONS = {"move": move, "spy": spy, "mimic": mimic, "information": information, "teleport": teleport,
           "claim": claim}
