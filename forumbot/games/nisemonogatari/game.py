"""Nisemonogatari (seed 000) as a pure state machine: six rounds of orders by PM (a location, one of its
events, Initiative, a confession), renames in the public thread, garnet spends, each round resolved at its
deadline from the host's chart, then the winners, the Elimination Candidate and the ledger's entries."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, Refused, refused
from forumbot.games.nisemonogatari import views
from forumbot.games.nisemonogatari.chart import load_chart
from forumbot.games.nisemonogatari.options import NisemonoOptions
from forumbot.games.nisemonogatari.rules import FUNCTIONS, confess, outcome, resolve
from forumbot.games.nisemonogatari.state import OVER, ROUND, TIEBREAK, NMState, state_from_json, state_to_json
from forumbot.games.nisemonogatari.words import SLOTS, read_order, resolve_char
from forumbot.games.tournament import Entry, charge
from forumbot.model import Event, Intent

SUBJECT = "Nisemonogatari"
REASON = "Nisemonogatari"


class NisemonoGame:
    name = "nisemonogatari"

    def new(self, setup: GameSetup) -> NMState:
        options = NisemonoOptions.from_dict(dict(setup.options))
        chart = load_chart(options.chart, tuple(FUNCTIONS))
        players = tuple(p.name for p in setup.players)
        if len(players) < 2 or len(set(players)) != len(players):
            raise ConfigError("Nisemonogatari needs at least two players with different names")
        unknown = sorted(set(options.garnets) - set(players))
        if unknown:
            raise ConfigError(f"garnets are given for '{unknown[0]}', who is not playing", path="options",
                              fix="name only this game's players in the garnets option")
        if setup.dead or setup.state or setup.phase not in (None, ROUND):
            raise ConfigError("a Nisemonogatari game starts at its first round",
                              fix="remove phase, no_lynch_used and alive = false")
        return NMState(players=players, options=options, chart=chart, host=setup.host, phase=ROUND,
                       ends=setup.start + timedelta(hours=options.round_hours))

    def start_events(self, state: NMState) -> list[Event]:
        return [views.open_event(state)]

    # ---- intents -----------------------------------------------------------------------------
    def apply(self, state: NMState, intent: Intent) -> tuple[NMState, list[Event]]:
        try:
            done = self._apply(state, intent)
            return done if isinstance(done, tuple) else (done, [])
        except Refused as why:
            return state, [refused(intent, why, "nm_refused")]

    def _apply(self, state: NMState, intent: Intent) -> tuple[NMState, list[Event]] | NMState:
        author = intent.author
        if intent.kind == "tiebreak":
            return _host_tiebreak(state, intent)
        if author not in state.players:
            raise Refused(f"{author} is not playing this game", "not_player", author=author)
        if state.phase != ROUND:
            raise (Refused("the game is over", "state_over") if state.phase == OVER
                   else Refused("the rounds are over", "nm_rounds_over"))
        if intent.kind in ("unhide", "unboost"):
            table = "hides" if intent.kind == "unhide" else "boosts"
            left = {p: c for p, c in getattr(state, table).items() if p != author}
            return state.with_(**{table: left}).touch(author)
        char = self._own(state, author, str(intent.data.get("char", "")), intent.kind == "rename")
        if intent.kind == "rename":
            return _rename(state, char, str(intent.data.get("name", "")))
        if intent.kind in ("hide", "boost"):
            return _spend(state, author, char, intent.kind)
        if intent.kind != "order":
            raise Refused(f"'{intent.kind}' is not a Nisemonogatari order", "nm_not_order")
        # "CharA: ...; CharB: ..." on one line: each part an order, the line all or nothing.
        first, *more = str(intent.data.get("text", "")).split(";")
        state = _order(state, author, char, first)
        for part in more:
            ref, colon, text = part.partition(":")
            if not colon:
                raise Refused(f"'{part.strip()}' names no Character: write 'CharB: location, event, Initiative'",
                              "nm_part_no_char", query=part.strip())
            state = _order(state, author, self._own(state, author, ref, False), text)
        return state

    def _own(self, state: NMState, author: str, ref: str, renaming: bool) -> str:
        char = resolve_char(ref, author, state.players, state.names)
        if char is None:
            raise Refused(f"no Character is called '{ref.strip()}': write CharA, CharB, CharC or a name they took",
                          "nm_no_char_named", query=ref.strip())
        if not char.startswith(f"{author}:"):
            raise Refused(f"{state.label(char)} is not yours" + ("" if renaming else "; you order only your own"),
                          "nm_not_yours", query=state.label(char))
        return char

    def report(self, state: NMState, at: datetime) -> tuple[NMState, list[Event]]:
        """One reply per player whose orders changed in this batch: what stands now."""
        if not state.touched:
            return state, []
        events = [views.orders_event(state, p) for p in state.touched]
        return state.with_(touched=()), events

    # ---- time --------------------------------------------------------------------------------
    def next_deadline(self, state: NMState) -> datetime | None:
        return None if state.phase == OVER else state.ends

    def shift(self, state: NMState, delta: timedelta) -> NMState:
        return state if state.phase == OVER else state.with_(ends=state.ends + delta)

    def on_deadline(self, state: NMState, at: datetime, now: datetime | None = None) -> tuple[NMState, list[Event]]:
        state, replies = self.report(state, at)
        if state.phase == TIEBREAK:       # the host did not break the tie in time: the seeded draw does
            state, events = _settle(state.with_(tiebreaks=[*state.tiebreaks, {"chosen": None, "by": "seed"}]))
            return state, replies + events
        if state.phase != ROUND:
            return state, replies
        state, events = _end_round(state)
        return state, replies + events

    def tally(self, state: NMState, at: datetime) -> Event | None:
        return views.host_view_event(state)

    # ---- threads -----------------------------------------------------------------------------
    def threads(self, state: NMState) -> dict[str, str]:
        return {"game": state.options.game_thread}

    def command_threads(self, state: NMState) -> tuple[str, ...]:
        """Renames are first come, first served in the public thread."""
        return (state.options.game_thread,)

    # ---- storage, views, the ledger ----------------------------------------------------------
    def to_json(self, state: NMState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> NMState:
        return state_from_json(data)

    def eliminated(self, state: NMState) -> tuple[str, ...]:
        """Nisemonogatari puts no player out (Characters confess; players stay)."""
        return ()

    def summary(self, state: NMState) -> dict[str, Any]:
        return views.summary(state, [e.to_json() for e in self.ledger_entries(state)])

    def ledger_entries(self, state: NMState) -> list[Entry]:
        """A finished game's entries: the garnets spent (charged from each player's starting garnets), the
        Tokens of Life and the Elimination Candidate."""
        if state.phase != OVER:
            return []
        r = state.result
        start = [Entry(p, garnets=g) for p, g in state.options.garnets.items()]
        out = []
        for player in state.players:
            if state.spent.get(player):
                out.append(charge(start, player, garnets=state.spent[player], reason=f"{REASON}: garnets spent"))
            tol, ec = r["tol"].get(player, 0), 1 if r["ec"] == player else 0
            if tol or ec:
                out.append(Entry(player, tol=tol, ec=ec, reason=REASON))
        return out


# ---- the intents ----------------------------------------------------------------------------------
def _rename(state: NMState, char: str, name: str) -> NMState:
    name = " ".join(name.strip().strip(".!\"'«»").split())
    if not name or len(name) > 30 or ":" in name or "'" in name or "’" in name:
        raise Refused("a Character's name is 1 to 30 characters, without ':' or apostrophes", "nm_name_form")
    taken = {n.casefold(): c for c, n in state.names.items() if c != char}
    reserved = {f"char{s}".casefold() for s in SLOTS} | {p.casefold() for p in state.players}
    if name.casefold() in taken:
        raise Refused(f"the name {name} is already taken by {state.label(taken[name.casefold()])}; first come, "
                      "first served", "nm_name_taken", query=name, holder=state.label(taken[name.casefold()]))
    if name.casefold().replace(" ", "") in reserved:
        raise Refused(f"{name} cannot be a Character's name (a player's name or CharA/B/C)", "nm_name_reserved",
                      query=name)
    return state.with_(names={**state.names, char: name}).touch(char.rsplit(":", 1)[0])


def _spend(state: NMState, author: str, char: str, kind: str) -> NMState:
    o = state.options
    cost = o.hide_cost if kind == "hide" else o.boost_cost
    other = o.boost_cost if kind == "hide" and author in state.boosts else \
        o.hide_cost if kind == "boost" and author in state.hides else 0
    have = state.garnets_left(author)
    if cost + other > have:
        also = " on top of this round's other spend" if other else ""
        raise Refused(f"{kind} costs {cost} garnets{also}; you have {have}", "nm_cost_more" if other else "nm_cost",
                      spend=kind, cost=cost, have=have)
    table = "hides" if kind == "hide" else "boosts"
    return state.with_(**{table: {**getattr(state, table), author: char}}).touch(author)


def _order(state: NMState, author: str, char: str, text: str) -> NMState:
    events = state.events
    order = read_order(text, events)
    if order.unknown:
        raise Refused(f"'{order.unknown[0]}' is not a location, an event, Initiative, 'confess' or 'target X'",
                      "nm_unknown_word", query=order.unknown[0])
    if order.idle:
        orders = {c: o for c, o in state.orders.items() if c != char}
        return state.with_(orders=orders).touch(author)
    if order.event is None:
        places = f" at the {order.location.title()}" if order.location else ""
        names = [e["name"] for e in state.chart["events"] if not order.location or e["location"] == order.location]
        raise Refused(f"name the event{places}: " + ", ".join(names),
                      "nm_which_event_at" if places else "nm_which_event",
                      events=", ".join(names), location=order.location or "")
    event = events[order.event]
    if order.location and order.location != event["location"]:
        raise Refused(f"{event['name']} is at the {event['location'].title()}, not the {order.location.title()}",
                      "nm_event_elsewhere", event=event["name"], location=event["location"],
                      other_location=order.location)
    initiative = order.initiative or 0
    others = sum(o["initiative"] for c, o in state.orders.items() if c != char and c.startswith(f"{author}:"))
    if others + initiative > state.options.initiative:
        raise Refused(f"{initiative} Initiative would make {others + initiative} in total this round; you have "
                      f"{state.options.initiative} (your other Characters have {others})", "nm_initiative",
                      asked=initiative, total=others + initiative, limit=state.options.initiative, others=others)
    target = None
    if event["target"] != "none":
        if not order.target:
            raise Refused(f"{event['name']} needs a target: add 'target NAME' (a Character)", "nm_needs_target",
                          event=event["name"])
        target = resolve_char(order.target, author, state.players, state.names)
        if target is None:
            raise Refused(f"no Character is called '{order.target}'", "nm_no_char", query=order.target)
        if target == char:
            raise Refused(f"{event['name']} targets another Character", "nm_target_other", event=event["name"])
    new = {"location": event["location"], "event": event["key"], "initiative": initiative,
           "confess": order.confess, "target": target}
    return state.with_(orders={**state.orders, char: new}).touch(author)


# ---- the rounds -----------------------------------------------------------------------------------
def _round_orders(state: NMState) -> dict[str, dict[str, Any]]:
    """This round's orders, in the order of the players and their Characters; a Character without orders is
    idle (or repeats last round's orders without confessing, with missing_orders = "repeat")."""
    out = {}
    for char in state.characters:
        if char in state.orders:
            out[char] = state.orders[char]
        elif state.options.missing_orders == "repeat" and char in state.last_orders:
            out[char] = {**state.last_orders[char], "confess": False}
    return out


def _end_round(state: NMState) -> tuple[NMState, list[Event]]:
    o = state.options
    orders = _round_orders(state)
    rnd, adoration = resolve(orders, state.events, state.bonus, state.adoration, cap=o.crowd_cap,
                             counts_self=o.crowd_counts_self)
    boosts = {p: c for p, c in state.boosts.items() if orders.get(c, {}).get("confess")}
    confessions, stored = confess(orders, adoration, boosts, state.chart["tiers"], o.boost_cap)
    hides = {p: c for p, c in state.hides.items() if c in orders}
    spent = dict(state.spent)
    for player in state.players:
        cost = (o.hide_cost if player in hides else 0) + (o.boost_cost if player in boosts else 0)
        if cost:
            spent[player] = spent.get(player, 0) + cost
    held = {**adoration, **{row["character"]: 0 for row in confessions}}
    hearts = {p: state.hearts.get(p, 0) + stored.get(p, 0) for p in state.players}
    lessons = {p: state.lessons.get(p, 0) + rnd.lessons.get(p, 0) for p in state.players}
    record = {"round": state.round, "orders": orders, "hidden": sorted(hides.values()),
              "boosted": sorted(boosts.values()), "blocked": rnd.blocked, "moved": rnd.moved, "gain": rnd.gain,
              "adoration": adoration, "confessions": confessions, "stored": stored, "lessons": rnd.lessons,
              "reveals": rnd.reveals, "charged": {p: spent.get(p, 0) - state.spent.get(p, 0) for p in state.players
                                                  if spent.get(p, 0) != state.spent.get(p, 0)}}
    new = state.with_(orders={}, hides={}, boosts={}, spent=spent, adoration=held, bonus=rnd.bonus_next,
                      hearts=hearts, lessons=lessons, last_orders=orders, history=(*state.history, record))
    if state.round < o.rounds:
        new = new.with_(round=state.round + 1, ends=state.ends + timedelta(hours=o.round_hours))
        return new, [views.round_end_event(new, record), *views.private_events(new, record)]
    new, ending = _settle(new)
    return new, [views.round_end_event(new, record), *views.private_events(new, record), *ending]


class _AskHost(Exception):
    def __init__(self, tied: list[str]) -> None:
        self.tied = tied


def _settle(state: NMState) -> tuple[NMState, list[Event]]:
    """The end of the game: winners and the EC, the Universal Tiebreaker where needed. With
    universal_tiebreaker = "host" an undecided tie waits for the host's "tiebreak NAME" (or, after
    tiebreak_hours, the seeded draw); `tiebreaks` keeps the choices made so far, in order."""
    o = state.options
    rng = state.rng("universal-tiebreaker")
    made = list(state.tiebreaks)
    draws: list[dict[str, Any]] = []

    def draw(tied: list[str]) -> str:
        ranked = sorted(tied)
        seeded = rng.choice(ranked)
        if o.universal_tiebreaker == "host":
            if len(draws) >= len(made):
                raise _AskHost(ranked)
            by = made[len(draws)]["by"]
            chosen = made[len(draws)]["chosen"] if by == "host" else seeded
        else:
            chosen, by = seeded, "seed"
        draws.append({"tied": ranked, "chosen": chosen, "by": by})
        return chosen

    try:
        result = outcome(list(state.players), state.hearts, state.lessons, draw, sole_tol=o.sole_winner_tol,
                         joint_tol=o.joint_winner_tol)
    except _AskHost as ask:
        waiting = state.with_(phase=TIEBREAK, result={"tied": ask.tied},
                              ends=state.ends + timedelta(hours=o.tiebreak_hours))
        return waiting, [views.tiebreak_event(waiting)]
    over = state.with_(phase=OVER, result={"winners": list(result.winners), "tol": result.tol, "ec": result.ec,
                                           "decided_by": result.decided_by, "draws": draws})
    return over, [views.end_event(over)]


def _host_tiebreak(state: NMState, intent: Intent) -> tuple[NMState, list[Event]]:
    if intent.author != state.host:
        raise Refused("only the host applies the Universal Tiebreaker", "nm_host_only")
    if state.phase != TIEBREAK:
        raise Refused("there is no tie for the host to break now", "nm_no_tie")
    tied = state.result["tied"]
    chosen = next((p for p in tied if p.casefold() == str(intent.data.get("name", "")).strip().casefold()), None)
    if chosen is None:
        raise Refused(f"name one of the tied players: {', '.join(tied)}", "nm_name_tied", names=", ".join(tied))
    return _settle(state.with_(tiebreaks=[*state.tiebreaks, {"chosen": chosen, "by": "host"}]))
