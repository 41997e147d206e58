"""Names that cannot be taken: one rule for a mask, a substitute and a new account name.

A name is refused when it is, or looks like, a name someone else already holds: the host, the bot, an
account seated in the game, another seat's name or mask, or an account that exists on the platform and is
not the claimant's. "Looks like" folds what a reader cannot tell apart: case, NFKC forms, Cyrillic letters
shaped like Latin ones, ё and е, spaces, underscores and invisible characters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# Cyrillic (and a few Greek) letters drawn like Latin ones, folded to the Latin letter.
_LOOKALIKES = str.maketrans("авсеёєіїјкмнорѕтухьӏαβεικμνορτυχ", "abceeeiijkmhopstyxblabeikmvoptux")


def name_key(name: str) -> str:
    """A name folded for comparing lookalikes. Two names with one key are one name to a reader."""
    text = unicodedata.normalize("NFKC", name or "").casefold().translate(_LOOKALIKES)
    return "".join(ch for ch in text if ch.isalnum())


def same_name(a: str | None, b: str | None) -> bool:
    """Whether `a` and `b` are one name or lookalikes of each other (an empty name is nobody's)."""
    return bool(a) and bool(b) and name_key(a or "") == name_key(b or "")


@dataclass(frozen=True)
class Taken:
    """Why a name cannot be taken: `code` names the phrase ("name_host", "name_bot", "name_seated",
    "name_mask", "name_account"), `holder` whose name it is or looks like."""

    code: str
    holder: str


def name_taken(name: str, claimant: str, *, hosts: Iterable[str | None] = (), bot: str | None = None,
               seated: Iterable[str] = (), masks: Iterable[str] = (),
               accounts: Iterable[str] = ()) -> Taken | None:
    """Why `claimant` may not take `name` (as a mask, a substitute's account, a new account), or None.
    `hosts`: the host and co-hosts; `seated`: the accounts holding a seat in the game; `masks`: every other
    seat's name or mask; `accounts`: the accounts that exist on the platform. The claimant's own account
    is never held against them."""
    for code, holders in (("name_host", hosts), ("name_bot", (bot,)), ("name_seated", seated),
                          ("name_mask", masks), ("name_account", accounts)):
        for holder in holders:
            if holder and holder != claimant and same_name(name, holder):
                return Taken(code, holder)
    return None


@dataclass(frozen=True)
class PlatformSeats:
    """Who holds a seat or hosts in each game running on one platform (account → its games, sorted), and the
    games taking anyone's sign-ups now: what tells which game a PM is for."""

    by_account: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    open: tuple[str, ...] = ()

    def games_of(self, account: str) -> tuple[str, ...]:
        return self.by_account.get(account, ())


__all__ = ["PlatformSeats", "Taken", "name_key", "name_taken", "same_name"]
