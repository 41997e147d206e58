"""Who each account is in each game: the seating chart, and names that cannot be taken.

A game's chart (`Chart`) lists its seats (the name in the game, the mask when the player plays under one,
alive or dead), the accounts behind each seat over time (the first player, then each substitute, with the
times they took over), and the host by account. It is worked out from what the store keeps with the game
(its state and the host layer's, forumbot/engine/chart.py), so it changes with the sign-ups, the deal,
`replace` and modkills, and survives restarts. Everything that asks "who is this account in this game",
"which account reads this seat's PMs" or "may this account post or read here" asks the chart.

Names that cannot be taken: one rule for a mask, a substitute and a new account name.

A name is refused when it is, or looks like, a name someone else already holds: the host, the bot, an
account seated in the game, another seat's name or mask, or an account that exists on the platform and is
not the claimant's. "Looks like" folds what a reader cannot tell apart: case, NFKC forms, Cyrillic letters
shaped like Latin ones, ё and е, spaces, underscores and invisible characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from forumbot.text.normalize import fold

# Cyrillic (and a few Greek) letters drawn like Latin ones, folded to the Latin letter.
_LOOKALIKES = str.maketrans("авсеёєіїјкмнорѕтухьӏαβεικμνορτυχ", "abceeeiijkmhopstyxblabeikmvoptux")


def name_key(name: str) -> str:
    """A name folded for comparing lookalikes. Two names with one key are one name to a reader."""
    return "".join(ch for ch in fold(name or "").translate(_LOOKALIKES) if ch.isalnum())


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
class Holder:
    """An account behind a seat, from `since` ("" from the start) until `until` ("" while it holds it)."""

    account: str
    since: str = ""
    until: str = ""


@dataclass(frozen=True)
class Seat:
    """One seat: its name in the game, its mask (the public name and forum account it plays under, or ""),
    alive or dead, and the accounts that held it in turn (the last one holds it now)."""

    name: str
    holders: tuple[Holder, ...]
    mask: str = ""
    alive: bool = True
    mask_reads: bool = True   # the mask is an account its player reads (False: the deal found none)

    @property
    def account(self) -> str:
        """The account that holds the seat now."""
        return self.holders[-1].account

    def accounts(self) -> tuple[str, ...]:
        """The accounts that act for the seat now: its holder, and its mask's account."""
        return (self.account, self.mask) if self.mask and self.mask != self.account else (self.account,)

    def every_account(self) -> tuple[str, ...]:
        """Every account that ever held the seat, and its mask's."""
        return (*(h.account for h in self.holders), *((self.mask,) if self.mask else ()))


@dataclass(frozen=True)
class Chart:
    """A game's seating chart: the one answer to who each account is in the game."""

    game: str
    host: str | None
    seats: tuple[Seat, ...] = ()
    cohosts: tuple[str, ...] = ()
    spectators: tuple[str, ...] = ()
    open: bool = False   # taking anyone's sign-ups: every account's PMs may be for it
    dead_threads: tuple[str, ...] = ()   # the game's own threads (by purpose) where its dead talk, not the living

    def hosts(self) -> tuple[str, ...]:
        return tuple(h for h in (self.host, *self.cohosts) if h)

    def is_host(self, account: str | None) -> bool:
        """Host powers go by account, exactly: never to a name that only looks like the host's."""
        return bool(account) and account in self.hosts()

    def seat_of(self, account: str | None) -> Seat | None:
        """The seat `account` acts for now (as its holder or its mask's account), or None."""
        return next((seat for seat in self.seats if account and account in seat.accounts()), None)

    def seat_ever(self, account: str | None) -> Seat | None:
        """The seat `account` acts or acted for (any of its holders, its mask), names compared as a reader sees
        them (same_name): how an audit of a human host's thread tells whose vote a post is."""
        key = name_key(account or "")
        if not key:
            return None
        return next((seat for seat in self.seats
                     if any(name_key(a) == key for a in (seat.name, *seat.every_account()))), None)

    def reader_of(self, name: str) -> str:
        """The account that reads what is sent to `name`: an account holding a seat reads its own; what is
        sent to a seat (by its name, its mask, or an account that held it before) goes to the account holding
        it now (to the mask's own account while its first player holds it, unless the deal found no such
        account); any other name is its own."""
        if any(name == seat.account for seat in self.seats):
            return name
        for seat in self.seats:
            if name in (seat.name, seat.mask):
                return name if name == seat.mask and seat.mask_reads and len(seat.holders) == 1 else seat.account
        for seat in self.seats:
            if any(name == h.account for h in seat.holders):
                return seat.account
        return name

    def may_post(self, account: str | None, purpose: str = "") -> bool:
        """Whether `account` may post in the game's thread of that purpose: its hosts and the accounts that act
        for a living seat now (a replaced player no longer may; the dead have their dead chat), or, in a thread
        of the game's own for its dead (`dead_threads`), for a dead seat. A seat played under a mask posts as
        the mask only: its player's own account would unmask it."""
        if self.is_host(account):
            return True
        seat = self.seat_of(account)
        if seat is None or seat.alive == (purpose in self.dead_threads):
            return False
        return not (seat.mask and seat.mask_reads and seat.mask != seat.account and account != seat.mask)

    def watched_by(self, account: str) -> set[str]:
        """Whose private messages `account` may read: their own; a host's (or a co-host's), the game's hosts'
        and every account that acts or acted for a seat of the game."""
        people = {account}
        if self.is_host(account):
            people.update(self.hosts())
            for seat in self.seats:
                people.update(seat.every_account())
        return people

    def readers(self) -> tuple[str, ...]:
        """Whose private messages to the bot the game reads: its hosts and every account that acts or acted
        for a seat (a replaced player's are read to be flagged); ("*",) while it takes anyone's sign-ups."""
        if self.open:
            return ("*",)
        people = [account for seat in self.seats for account in seat.every_account()]
        return tuple(dict.fromkeys((*people, *self.hosts())))

    def dead_chat(self) -> tuple[str, ...]:
        """Who reads and writes the game's dead chat: its hosts, the accounts of its dead seats, its spectators.
        Nobody acting for a living seat is ever among them."""
        living = {account for seat in self.seats if seat.alive for account in seat.accounts()}
        dead = [account for seat in self.seats if not seat.alive for account in seat.accounts()]
        return tuple(a for a in dict.fromkeys((*self.hosts(), *dead, *self.spectators)) if a not in living)

    def to_json(self) -> dict[str, object]:
        return {"game": self.game, "host": self.host, "cohosts": list(self.cohosts), "open": self.open,
                "dead_threads": list(self.dead_threads),
                "spectators": list(self.spectators),
                "seats": [{"name": s.name, "mask": s.mask, "alive": s.alive, "mask_reads": s.mask_reads,
                           "holders": [{"account": h.account, "since": h.since, "until": h.until}
                                       for h in s.holders]} for s in self.seats]}


@dataclass(frozen=True)
class PlatformSeats:
    """Who holds a seat or hosts in each game running on one platform (account → its games, sorted), and the
    games taking anyone's sign-ups now: what tells which game a PM is for."""

    by_account: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    open: tuple[str, ...] = ()

    def games_of(self, account: str) -> tuple[str, ...]:
        return self.by_account.get(account, ())


__all__ = ["Chart", "Holder", "PlatformSeats", "Seat", "Taken", "name_key", "name_taken", "same_name"]
