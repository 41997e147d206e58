"""The setup stage: information points and decks drawn from the seed, setup PMs read into drafts, pieces
not placed by the deadline placed at random.

A setup is three rows of six cells, top to bottom as the board is drawn (row 1 is the top of the first
player's half, row 4 the top of the second's). Cells are piece codes J MT S D M T DT, or `.` `-` `_` for a
blank. By PM, either one line `setup: J MT S S D D / M M T T T DT / DT DT . . . .` or one line per row,
`row 1: J MT S S D D` (the second player may write rows 4-6 or 1-3).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from typing import Any

from forumbot.games.base import Refused
from forumbot.games.infiltration.board import COLUMNS, half_rows, half_squares
from forumbot.games.infiltration.pieces import COUNTS, KINDS, NAMES, Piece
from forumbot.games.infiltration.state import InfState

CARDS = ("protection",) * 3 + ("information",) * 3 + ("teleport",)
CARD_NAMES = {"protection": "Protection", "information": "Information", "teleport": "Teleport"}
BLANKS = frozenset({".", "-", "_", "—", "–", "blank", "empty", "none", "()"})
_ROW_SPLIT = re.compile(r"\s*[/|;]\s*")


def rng(state_seed: str, purpose: str) -> random.Random:
    """A generator for one purpose, from the game's seed alone: anyone holding the revealed seed can
    redo every draw (`random.Random(f"{seed}:{purpose}")`, Python's Mersenne Twister)."""
    return random.Random(f"{state_seed}:{purpose}")


def seed_hash(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def info_points(seed: str, per_half: int) -> tuple[str, ...]:
    squares: list[str] = []
    for seat in (0, 1):
        squares += rng(seed, f"ips:{seat}").sample(list(half_squares(seat)), per_half)
    return tuple(sorted(squares, key=lambda sq: (int(sq[1:]), sq[0])))


def deck(seed: str, seat: int) -> tuple[str, ...]:
    cards = list(CARDS)
    rng(seed, f"deck:{seat}").shuffle(cards)
    return tuple(cards)


def first_player(seed: str, players: tuple[str, str], first: str) -> str:
    if first in players:
        return first
    return rng(seed, "first").choice(players)


# ---- reading a setup ------------------------------------------------------------------------------
def parse_row(text: str) -> tuple[tuple[str, ...] | None, Refused | None]:
    """Six cells from a row's text, or None and why not."""
    cells: list[str] = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        word = token.strip("()[]").upper()
        if token.lower() in BLANKS or word.lower() in BLANKS or word == "":
            cells.append(".")
        elif word in KINDS:
            cells.append(word)
        else:
            return None, Refused(f"'{token}' is not a piece code (J MT S D M T DT, or . for a blank)", "inf_not_code",
                                 query=token)
    if len(cells) != 6:
        return None, Refused(f"a row has 6 cells; '{text.strip()}' has {len(cells)}", "inf_row_cells",
                             query=text.strip(), count=len(cells))
    return tuple(cells), None


def parse_rows(text: str) -> tuple[list[tuple[str, ...]] | None, Refused | None]:
    """The three rows of a one-line setup ("a / b / c", or 18 cells in a row), or None and why not."""
    parts = [p for p in _ROW_SPLIT.split(text.strip()) if p]
    if len(parts) == 1:
        tokens = [t for t in re.split(r"[\s,]+", parts[0]) if t]
        if len(tokens) == 18:
            parts = [" ".join(tokens[i:i + 6]) for i in (0, 6, 12)]
    if len(parts) != 3:
        return None, Refused("a setup has 3 rows of 6 cells, separated by / (or one PM line per row: row 1: ...)",
                             "inf_setup_form")
    rows = []
    for part in parts:
        row, error = parse_row(part)
        if row is None:
            return None, error
        rows.append(row)
    return rows, None


def row_index(seat: int, raw: str) -> tuple[int | None, Refused | None]:
    """The draft index 0-2 of a row number a player wrote, or None and why not."""
    text = raw.strip().rstrip(":.")
    if not (text.isascii() and text.isdigit()) or len(text) > 3:   # "²" is a digit to isdigit, not to int()
        return None, Refused(f"'{raw}' is not a row number", "inf_not_row", query=raw)
    number = int(text)
    rows = half_rows(seat)
    if number in rows:
        return rows.index(number), None
    if seat == 1 and 1 <= number <= 3:         # the second player counting their own rows 1-3
        return number - 1, None
    return None, Refused(f"row {number} is not yours; your half is rows {rows[0]}-{rows[-1]}", "inf_not_your_row",
                         row=number, first=rows[0], last=rows[-1])


def counts(rows: dict[int, tuple[str, ...]]) -> Counter[str]:
    return Counter(cell for row in rows.values() for cell in row if cell != ".")


def too_many(rows: dict[int, tuple[str, ...]]) -> Refused | None:
    have = counts(rows)
    over = [k for k in KINDS if have[k] > COUNTS[k]]
    english = [f"{have[k]} {NAMES[k]}{'s' if have[k] > 1 else ''} ({COUNTS[k]} allowed)" for k in over]
    return Refused("too many pieces: " + ", ".join(english), "inf_too_many",
                   pieces=", ".join(f"{have[k]} {k} ({COUNTS[k]})" for k in over)) if over else None


def lacking(rows: dict[int, tuple[str, ...]], seat: int = 0) -> list[dict[str, Any]]:
    """What a draft still lacks, each as a code (phrase inf_lack_<code>) with its params: a row not sent,
    pieces of a kind not placed, the wrong number of blanks."""
    have = counts(rows)
    out: list[dict[str, Any]] = [{"code": "row", "params": {"row": half_rows(seat)[i]}}
                                 for i in range(3) if i not in rows]
    out += [{"code": "piece", "params": {"count": COUNTS[k] - have[k], "piece": k}}
            for k in KINDS if have[k] < COUNTS[k]]
    if len(rows) == 3:
        blanks = sum(cell == "." for row in rows.values() for cell in row)
        if blanks != 4:
            out.append({"code": "blanks", "params": {"count": blanks}})
    return out


def missing(rows: dict[int, tuple[str, ...]], seat: int = 0) -> list[str]:
    """What a draft still lacks, in English words ("row 6", "1 Thug", "5 blanks (4 needed)")."""
    english = {"row": "row {row}", "blanks": "{count} blanks (4 needed)"}
    return [f"{p['count']} {NAMES[p['piece']]}{'s' if p['count'] > 1 else ''}" if item["code"] == "piece"
            else english[item["code"]].format(**p) for item in lacking(rows, seat) for p in (item["params"],)]


def complete(rows: dict[int, tuple[str, ...]]) -> bool:
    return len(rows) == 3 and not missing(rows) and too_many(rows) is None


def set_rows(state: InfState, player: str, rows: dict[int, tuple[str, ...]]) -> tuple[InfState, Refused | None]:
    """The draft with these rows replaced; refused (why) when it would hold too many pieces, or when a
    complete setup would become incomplete."""
    draft = {**state.drafts.get(player, {}), **rows}
    error = too_many(draft)
    if error:
        return state, error
    if player in state.ready and not complete(draft):
        return state, Refused("your setup is complete; a change must keep it complete: "
                              + ", ".join(missing(draft, state.seat(player))), "inf_keep_complete")
    ready = tuple(p for p in state.ready if p != player) + ((player,) if complete(draft) else ())
    return state.with_(drafts={**state.drafts, player: draft}, ready=ready), None


def place(state: InfState) -> dict[str, Piece]:
    """Both halves on the board: each draft as written, pieces a player did not place put on random empty
    squares of their half (the seeded generator; the rules used random.org the same way)."""
    board: dict[str, Piece] = {}
    for seat, player in enumerate(state.players):
        draft = state.drafts.get(player, {})
        rows = half_rows(seat)
        taken: dict[str, str] = {}
        for index, cells in draft.items():
            for col, cell in zip(COLUMNS, cells, strict=True):
                if cell != ".":
                    taken[f"{col}{rows[index]}"] = cell
        have = Counter(taken.values())
        left = [k for k in KINDS for _ in range(COUNTS[k] - have[k])]
        if left:
            # Only rows the player did not send are free: a row they wrote keeps its blanks.
            free = [sq for sq in half_squares(seat)
                    if sq not in taken and rows.index(int(sq[1:])) not in draft]
            if len(free) < len(left):
                free = [sq for sq in half_squares(seat) if sq not in taken]
            chosen = rng(state.options.seed, f"fill:{seat}").sample(free, len(left))
            taken.update(zip(chosen, left, strict=True))
        board.update({sq: Piece(player, kind) for sq, kind in taken.items()})
    return board
