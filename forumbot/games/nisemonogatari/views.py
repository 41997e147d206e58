"""What Nisemonogatari's posts and messages show, as plain data for the templates. The public post of a
round shows locations, events and confessions, never those of a hidden Character; hearts and Adoration are
private until the end."""

from __future__ import annotations

import hashlib
from typing import Any

from forumbot.games.nisemonogatari.rules import owner
from forumbot.games.nisemonogatari.state import OVER, NMState
from forumbot.model import Event, format_time

SUBJECT = "Nisemonogatari"


def amount(hundredths: int) -> str:
    """Adoration as posts write it: 12.50."""
    sign = "-" if hundredths < 0 else ""
    return f"{sign}{abs(hundredths) // 100}.{abs(hundredths) % 100:02d}"


def _number(hundredths: int) -> float:
    return hundredths / 100


def _event_name(state: NMState, key: str | None) -> str:
    return state.events[key]["name"] if key in state.events else ""


def _order_row(state: NMState, char: str, order: dict[str, Any]) -> dict[str, Any]:
    return {"character": state.label(char), "location": order["location"].title(),
            "event": _event_name(state, order["event"]), "initiative": order["initiative"],
            "confess": bool(order["confess"]), "target": state.label(order["target"]) if order.get("target") else None}


def open_event(state: NMState) -> Event:
    o, chart = state.options, state.chart
    return Event("nm_open", {"thread": "game", "players": list(state.players), "rounds": o.rounds,
                             "deadline": format_time(state.ends), "initiative": o.initiative,
                             "hide_cost": o.hide_cost, "boost_cost": o.boost_cost, "boost_cap": o.boost_cap,
                             "example": chart["example"], "tiers": chart["tiers"],
                             "events": [{"location": e["location"].title(), "name": e["name"], "text": e["text"]}
                                        for e in chart["events"]],
                             "seed_hash": hashlib.sha256(o.seed.encode()).hexdigest()})


def orders_event(state: NMState, player: str) -> Event:
    """The answer to a player's orders: what stands now for each Character, and the garnets."""
    mine = [c for c in state.characters if owner(c) == player]
    rows = [_order_row(state, c, state.orders[c]) for c in mine if c in state.orders]
    used = sum(state.orders[c]["initiative"] for c in mine if c in state.orders)
    hide, boost = state.hides.get(player), state.boosts.get(player)
    return Event("nm_orders", {"pm_to": player, "subject": "nm", "round": state.round,
                               "deadline": format_time(state.ends), "orders": rows,
                               "idle": [state.label(c) for c in mine if c not in state.orders],
                               "initiative_left": state.options.initiative - used,
                               "bonus": {state.label(c): b for c, b in state.bonus.items() if owner(c) == player and b},
                               "hide": state.label(hide) if hide else None,
                               "boost": state.label(boost) if boost else None,
                               "garnets": state.garnets_left(player),
                               "names": [state.label(c) for c in mine if c in state.names]})


def round_end_event(state: NMState, record: dict[str, Any]) -> Event:
    """The public post after a round: each Character's location, event and confession; "hidden" for a
    hidden one (its confession is still shown)."""
    rows = []
    for char in state.characters:
        order = record["orders"].get(char)
        row: dict[str, Any] = {"character": state.label(char), "hidden": char in record["hidden"],
                               "idle": order is None, "confess": bool(order and order["confess"])}
        if order and not row["hidden"]:
            row.update(location=order["location"].title(), event=_event_name(state, order["event"]))
        rows.append(row)
    confessions = [{"character": state.label(c["character"]), "multiplier": c["multiplier"], "boosted": c["boosted"]}
                   for c in record["confessions"]]
    over = state.phase == OVER
    return Event("nm_round_end", {"thread": "game", "round": record["round"], "rows": rows,
                                  "confessions": confessions, "confessing": len(confessions),
                                  "next_round": None if over else state.round,
                                  "deadline": None if over else format_time(state.ends)})


def private_events(state: NMState, record: dict[str, Any]) -> list[Event]:
    """Each player's private report of the round: the heart's total, each Character's Adoration, what a
    confession stored, what their events revealed, the garnets charged."""
    out = []
    for player in state.players:
        mine = [c for c in state.characters if owner(c) == player]
        chars = [{"character": state.label(c), "earned": amount(record["gain"].get(c, 0)),
                  "adoration": amount(state.adoration.get(c, 0)), "blocked": c in record["blocked"],
                  "moved": record["moved"].get(c, "").title() or None, "bonus": state.bonus.get(c, 0)}
                 for c in mine]
        reveals = [{"by": state.label(r["by"]), "about": state.label(r["about"]),
                    "location": (r["location"] or "").title() or None, "event": _event_name(state, r["event"])}
                   for r in record["reveals"] if r["to"] == player]
        confessed = [{"character": state.label(c["character"]), "adoration": amount(c["adoration"]),
                      "multiplier": c["multiplier"]} for c in record["confessions"] if owner(c["character"]) == player]
        out.append(Event("nm_private", {"pm_to": player, "subject": "nm_round",
                                        "round": record["round"], "heart": amount(state.hearts.get(player, 0)),
                                        "stored": amount(record["stored"].get(player, 0)), "characters": chars,
                                        "confessed": confessed, "reveals": reveals,
                                        "charged": record["charged"].get(player, 0),
                                        "garnets": state.garnets_left(player)}))
    return out


def end_event(state: NMState) -> Event:
    r = state.result
    ranking = sorted(state.players, key=lambda p: (-state.hearts.get(p, 0), -state.lessons.get(p, 0), p))
    rows = [{"player": p, "heart": amount(state.hearts.get(p, 0)), "lessons": state.lessons.get(p, 0),
             "tol": r["tol"].get(p, 0)} for p in ranking]
    return Event("nm_end", {"thread": "game", "rows": rows, "winners": r["winners"], "ec": r["ec"],
                            "decided_by": r["decided_by"], "draws": r["draws"], "seed": state.options.seed})


def tiebreak_event(state: NMState) -> Event:
    """The host is asked to apply the Universal Tiebreaker (universal_tiebreaker = "host")."""
    return Event("nm_tiebreak", {"thread": "game", "tied": state.result["tied"], "host": state.host,
                                 "deadline": format_time(state.ends)})


def host_view_event(state: NMState) -> Event:
    return Event("nm_host_view", {"phase": state.phase, "round": state.round,
                                  "orders": [_order_row(state, c, o) for c, o in state.orders.items()],
                                  "hides": {p: state.label(c) for p, c in state.hides.items()},
                                  "boosts": {p: state.label(c) for p, c in state.boosts.items()},
                                  "hearts": {p: amount(v) for p, v in state.hearts.items()},
                                  "adoration": {state.label(c): amount(v) for c, v in state.adoration.items() if v}})


def _round_json(state: NMState, record: dict[str, Any]) -> dict[str, Any]:
    orders = {c: {**o, "event": _event_name(state, o["event"])} for c, o in record["orders"].items()}
    return {"round": record["round"], "orders": orders, "hidden": record["hidden"], "boosted": record["boosted"],
            "blocked": record["blocked"], "moved": record["moved"],
            "earned": {c: _number(v) for c, v in record["gain"].items()},
            "adoration": {c: _number(v) for c, v in record["adoration"].items() if c in record["orders"]},
            "confessions": [{**c, "adoration": _number(c["adoration"])} for c in record["confessions"]],
            "stored": {p: _number(v) for p, v in record["stored"].items()}, "lessons": record["lessons"],
            "reveals": record["reveals"], "charged": record["charged"]}


def summary(state: NMState, ledger: list[dict[str, Any]]) -> dict[str, Any]:
    r = state.result
    characters = {p: {c.rsplit(":", 1)[1]: state.name(c) for c in state.characters if owner(c) == p}
                  for p in state.players}
    return {"phase": state.phase, "round": state.round, "deadline": format_time(state.ends),
            "characters": characters, "rounds": [_round_json(state, rec) for rec in state.history],
            "hearts": {p: _number(v) for p, v in state.hearts.items()}, "lessons": dict(state.lessons),
            "garnets_spent": dict(state.spent), "winners": r.get("winners"), "tol": r.get("tol"), "ec": r.get("ec"),
            "decided_by": r.get("decided_by"), "draws": r.get("draws"),
            "ledger": ledger if state.phase == OVER else None}
