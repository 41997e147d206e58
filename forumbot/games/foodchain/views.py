"""What Food Chain's posts and messages show, as plain data for the templates. Points stay hidden until
the final post; animals too, except each player's own."""

from __future__ import annotations

from typing import Any

from forumbot.games.foodchain.state import EC_VOTE, OVER, SELECTION, FCState
from forumbot.model import Event, format_time


def _animal(state: FCState, player: str) -> dict[str, Any]:
    a = state.animals[player]
    return {"player": player, "animal": a.kind, "main": a.main}


def _places(state: FCState) -> list[dict[str, str]]:
    return [{"player": p, "location": state.location[p]} for p in state.alive]


def open_event(state: FCState) -> Event:
    o = state.options
    data = {"thread": "game", "players": list(state.players), "deadline": format_time(state.ends),
            "rounds": o.rounds, "max_attacks": o.max_attacks}
    if o.tokens:   # (a game of a tournament: the Tokens of Life each player holds as it starts)
        data["tokens"] = [{"player": p, "tol": o.tokens[p]} for p in state.players if o.tokens.get(p)]
    return Event("fc_open", data)


def reply_event(state: FCState, player: str) -> Event:
    """The answer to a player's submission: what stands now, and what is still missing."""
    data: dict[str, Any] = {"pm_to": player, "subject": "fc", "phase": state.phase, "round": state.round,
                            "deadline": format_time(state.ends)}
    if state.phase == SELECTION:
        pick = state.picks.get(player, {})
        missing = [] if "animal" in pick else ["animal"]
        if pick.get("animal") in ("predator", "prey") and "main" not in pick:
            missing.append("Main Habitat")
        if "start" not in pick:
            missing.append("starting location")
        data.update(pick=pick, missing=missing)
    elif state.phase == EC_VOTE:
        data.update(ec_vote=state.ec_votes.get(player), candidates=state.result["ec_candidates"])
    else:
        data.update(location=state.location[player], move=state.moves.get(player),
                    attacks=state.attacks.get(player, []), attempts=state.attempts.get(player, []),
                    last=state.round >= state.options.rounds)
    return Event("fc_reply", data)


def assigned_event(state: FCState, player: str) -> Event:
    return Event("fc_assigned", {"pm_to": player, "subject": "fc", **_animal(state, player),
                                 "location": state.location[player], "randomized": state.randomized.get(player, [])})


def round_start_event(state: FCState, deaths: list[dict[str, Any]]) -> Event:
    return Event("fc_round_start", {"thread": "game", "round": state.round, "places": _places(state),
                                    "deadline": format_time(state.ends)})


def round_end_event(state: FCState, record: dict[str, Any], moved_at_random: list[str]) -> Event:
    """The public post after a round: who died (not how) and where everyone is now."""
    return Event("fc_round_end", {"thread": "game", "round": record["round"],
                                  "deaths": [d["player"] for d in record["deaths"]],
                                  "places": _places(state), "next_round": state.round if state.phase != OVER
                                  and state.phase != EC_VOTE else None,
                                  "deadline": format_time(state.ends) if state.phase not in (OVER, EC_VOTE) else None,
                                  "moved_at_random": moved_at_random})


def attacks_seen_events(state: FCState, record: dict[str, Any]) -> list[Event]:
    """Every attempted attack, told privately to each player who was in that location that round."""
    events = []
    for player, where in record["locations"].items():
        seen = [{"attacker": a["attacker"], "target": a["target"]} for a in record["attacks"]
                if a["location"] == where]
        if seen:
            events.append(Event("fc_attacks_seen", {"pm_to": player, "subject": "fc_round",
                                                    "round": record["round"], "location": where, "attacks": seen}))
    return events


def end_event(state: FCState) -> Event:
    r = state.result
    rows = [{**_animal(state, p), "points": r["final_points"][p], "penalty": r["penalty"][p],
             "condition": r["met"].get(p), "tol": r["tol"].get(p, 0), "garnets": r["garnets"].get(p, 0)}
            for p in state.players]
    return Event("fc_end", {"thread": "game", "case": r["case"], "winners": r["winners"], "rows": rows,
                            "ec": r["ec"], "ec_candidates": r["ec_candidates"], "ec_voters": r["ec_voters"],
                            "min_dead": state.options.scavenger_min_dead,
                            "deadline": format_time(state.ends) if state.phase == EC_VOTE else None})


def ec_open_event(state: FCState, voter: str) -> Event:
    return Event("fc_ec_open", {"pm_to": voter, "subject": "fc_ec",
                                "candidates": state.result["ec_candidates"], "case": state.result["case"],
                                "deadline": format_time(state.ends)})


def ec_result_event(state: FCState) -> Event:
    r = state.result
    return Event("fc_ec_result", {"thread": "game", "ec": r["ec"], "counts": r["ec_counts"], "drawn": r["ec_drawn"]})


def host_view_event(state: FCState) -> Event:
    return Event("fc_host_view", {"phase": state.phase, "round": state.round,
                                  "animals": [_animal(state, p) for p in state.animals],
                                  "places": _places(state) if state.location else [], "points": state.points,
                                  "dead": state.dead, "moves": state.moves, "attacks": state.attacks})


def summary(state: FCState, ledger: list[dict[str, Any]]) -> dict[str, Any]:
    r = state.result
    return {"phase": state.phase, "round": state.round, "deadline": format_time(state.ends),
            "animals": {p: {"animal": a.kind, **({"main": a.main} if a.main else {})}
                        for p, a in state.animals.items()},
            "randomized": state.randomized, "rounds": list(state.history), "dead": state.dead,
            "points": r.get("final_points") if r else None, "case": r.get("case"), "met": r.get("met"),
            "winners": r.get("winners"), "tol": r.get("tol"), "garnets": r.get("garnets"),
            "ec_candidates": r.get("ec_candidates"), "ec_counts": r.get("ec_counts"), "ec": r.get("ec"),
            "ledger": ledger if state.phase == OVER else None}
