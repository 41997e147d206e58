"""The 6x6 board: columns A-F, rows 1-6 (row 1 at the top as the boards are drawn). The first player
sets up on rows 1-3, the second on rows 4-6."""

from __future__ import annotations

import re

COLUMNS = "ABCDEF"
ROWS = range(1, 7)
SQUARES = tuple(f"{c}{r}" for r in ROWS for c in COLUMNS)
_SQUARE = re.compile(r"\s*([a-z])\s*(\d{1,2})(?!\d)", re.IGNORECASE)


def half_rows(seat: int) -> tuple[int, int, int]:
    """The rows of a player's setup half, top to bottom: seat 0 → 1-3, seat 1 → 4-6."""
    return (1, 2, 3) if seat == 0 else (4, 5, 6)


def half_squares(seat: int) -> tuple[str, ...]:
    return tuple(f"{c}{r}" for r in half_rows(seat) for c in COLUMNS)


def looks_like_square(text: str) -> bool:
    """Whether text starts like a square ("A1", "g9"): a letter then digits. Talk ("I want to win")
    does not, so it is never read as a move."""
    return _SQUARE.match(text) is not None


def read_square(text: str) -> str | None:
    """The board square text starts with ("b3", "B 3", "B3!"), or None when it is not on the board."""
    found = _SQUARE.match(text)
    if found is None:
        return None
    col, row = found.group(1).upper(), int(found.group(2))
    if col not in COLUMNS or row not in ROWS:
        return None
    return f"{col}{row}"


def coords(square: str) -> tuple[int, int]:
    return COLUMNS.index(square[0]), int(square[1:])


def steps(a: str, b: str) -> int:
    """Orthogonal steps between squares: 1 for a neighbour, 2 for a diagonal or two straight."""
    (ac, ar), (bc, br) = coords(a), coords(b)
    return abs(ac - bc) + abs(ar - br)
