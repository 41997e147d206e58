"""A game's seating chart (forumbot/seating.py) worked out from what the store keeps with the game: its
state (the players or the sign-ups, the masks, whom the game has put out: Game.eliminated) and the host
layer's (the replacements, with their times). The runner, the web forum and the console all ask it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from forumbot.engine.host import HostState
from forumbot.games import Game, get_game
from forumbot.model import parse_time
from forumbot.seating import Chart, Holder, Seat


def chart_of(name: str, game: Game, state: Any, host: HostState, host_name: str | None,
             cohosts: tuple[str, ...] = ()) -> Chart:
    """The chart of game `name` in `state`, with the host layer's `host`; `host_name` and `cohosts`: the
    accounts of its host and co-hosts (the game config's)."""
    roster = getattr(game, "roster", None)
    players = roster(state) if roster is not None else None
    names = [p.name for p in players] if players is not None else [str(p) for p in getattr(state, "players", ())]
    out = set(game.eliminated(state))   # every game says whom it has put out: their seats are dead
    masks: dict[str, str] = dict(getattr(state, "masks", None) or {})       # mask → the account behind it
    seats = [_seat(player, masks.get(player, player), host, mask=player if player in masks else "",
                   alive=player not in out, reads=player not in host.masks_missing)
             for player in names]
    if not names:   # sign-ups: each account that signed up holds the seat of its mask
        for account, entry in (getattr(state, "signup", None) or {}).items():
            seats.append(Seat(str(entry["mask"]), (Holder(account),), mask=str(entry["mask"])))
    taking = getattr(game, "taking_signups", None)
    dead_threads = getattr(game, "dead_threads", None)
    return Chart(name, host_name, tuple(seats), cohosts=tuple(c for c in cohosts if c and c != host_name),
                 spectators=host.spectators, open=bool(taking is not None and taking(state)),
                 dead_threads=tuple(dead_threads(state)) if dead_threads is not None else ())


def run_chart(run: Any, state: Any, host: HostState) -> Chart:
    """The chart of a running game (a GameRun) in `state`."""
    return chart_of(run.name, run.game, state, host, run.config.host, run.config.cohosts)


def _seat(player: str, first: str, host: HostState, *, mask: str, alive: bool, reads: bool) -> Seat:
    holders = [Holder(first)]
    for replaced, account, at in host.history:
        if replaced == player:
            holders[-1] = replace(holders[-1], until=at)
            holders.append(Holder(account, since=at))
    now = host.account_of(player)
    if now != player and holders[-1].account != now:   # a replacement kept before its time was
        holders.append(Holder(now))
    return Seat(player, tuple(holders), mask=mask, alive=alive, mask_reads=reads)


def stored_chart(row: Any, host_name: str | None, cohosts: tuple[str, ...] = ()) -> Chart:
    """The chart of a game as the store holds it (a Store.game row); `host_name`, `cohosts`: its host's and
    co-hosts' accounts."""
    game = get_game(row.game)
    return chart_of(row.name, game, game.from_json(row.state), HostState.from_json(row.host), host_name, cohosts)


__all__ = ["chart_of", "replacements", "run_chart", "stored_chart"]


def replacements(chart: Chart, state: Any) -> dict[str, tuple[str, str, int]]:
    """Each replaced seat as posts show it, "Bob (replaced Alice, day 2)": seat → (the account that holds it
    now, the one before, the day it came in on). The day is the first day that had not ended when the
    replacement was made (a game without days: 0)."""
    days = getattr(state, "days", None)
    out = {}
    for seat in chart.seats:
        if len(seat.holders) < 2:
            continue
        now, before = seat.holders[-1], seat.holders[-2]
        day = 0
        if days is not None:
            since = parse_time(now.since) if now.since else None
            day = 1 + sum(1 for d in days if since is not None and d.at <= since)
        out[seat.name] = (now.account, before.account, day)
    return out
