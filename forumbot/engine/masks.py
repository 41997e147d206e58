"""Masks' accounts. Once a game's sign-ups are over, each seat played under a mask needs an account of the
mask's name that its player reads: on the local forum the bot makes it and sends its one-time password to the
player's real account by PM; on phpBB and Reddit, where the organisers make mask accounts, the bot looks the
account up. A mask with no account of its own (missing, or one that is or looks like a host's, the bot's or
another seat's account) is flagged for the host, and its seat's private messages go to the player's real
account instead: always the one place for the one seat (the chart's `reader_of`). When the host replaces a
masked player, the bot gives the mask's account a new one-time password and sends it to the substitute (the
replaced player's sessions end with the old password)."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime
from typing import Any

from forumbot.engine.host import HostState
from forumbot.errors import PlatformError
from forumbot.model import Event, Flag
from forumbot.seating import Chart, Seat, name_taken

log = logging.getLogger("forumbot.engine.masks")


def deal_masks(run: Any, platform: Any, chart: Chart, host: HostState, now: datetime
               ) -> tuple[HostState, list[Event], list[Flag]]:
    """The masks of the game's `chart` not looked at yet (the host layer's `host` keeps those that were), and
    those made by the bot whose seat changed hands: their accounts made, handed over or looked up. Returns the
    host layer's state that records them, the PMs with one-time passwords, and flags for the host. A platform
    that fails now leaves the rest for the next step."""
    if chart.open:
        return host, [], []
    make = platform.make_mask_account if getattr(platform, "makes_accounts", False) else None
    todo = [seat for seat in chart.seats if seat.mask and seat.mask != seat.holders[0].account
            and (seat.mask not in host.masks_checked
                 or (seat.mask in host.masks_given and host.masks_given[seat.mask] != seat.account))]
    if not todo:
        return host, [], []
    checked, missing, given = list(host.masks_checked), list(host.masks_missing), dict(host.masks_given)
    events: list[Event] = []
    flags: list[Flag] = []
    for seat in todo:
        mask, owner = seat.mask, seat.account
        taken = _taken(chart, seat, platform.account) if mask not in checked else None
        try:
            if make is not None and taken is None:
                password = make(mask, owner, given.get(mask))
                found = password is not None
            else:
                password = None
                found = taken is None and platform.account_exists(mask)
        except PlatformError as err:
            log.warning("%s: the mask account %s: %s; tried again next step", run.name, mask, err)
            continue
        if mask not in checked:
            checked.append(mask)
        if password:
            events.append(Event("mask_account", {"pm_to": owner, "to_account": True, "subject": "mask",
                                                 "mask": mask, "password": password, "game": run.name}))
        if password is not None:
            given[mask] = owner
        if not found:
            missing.append(mask)
            why = (f"it is or looks like {taken.holder}" if taken is not None
                   else "the platform has no such account" if make is None
                   else "an account of that name exists and is not this player's mask")
            code = ("flag_mask_taken" if taken is not None else "flag_mask_no_account" if make is None
                    else "flag_mask_other_account")
            holder = (("holder", taken.holder),) if taken is not None else ()
            flags.append(Flag(reason=f"the mask {mask} of {owner} has no account of its own ({why}); the seat's "
                                     f"private messages go to {owner}", author=owner, at=now, code=code,
                              params=(("mask", mask), ("owner", owner), *holder)))
    host = replace(host, masks_checked=tuple(checked), masks_missing=tuple(missing), masks_given=given)
    return host, events, flags


def _taken(chart: Chart, seat: Seat, bot: str) -> Any:
    """Why the seat's mask cannot be an account of its own: it is or looks like a host's, the bot's or an
    account of another seat (None when it can)."""
    others = [a for other in chart.seats if other is not seat for a in other.every_account() if a != other.mask]
    return name_taken(seat.mask, seat.holders[0].account, hosts=chart.hosts(), bot=bot, seated=others)


__all__ = ["deal_masks"]
