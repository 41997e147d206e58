"""The best-player vote after the game (Body Snatchers section 9), by PM, for `best_player_hours` (a week).

A ballot names places in order. When the town or the mafia won: two places for the winning side, then one
for a losing side (mafia, maniac or town), which the voter may leave out. When the maniac won he takes the
first place himself and a ballot names up to two players of the losing sides. Each name is one vote.
Totals: for every member of a forum who did not vote, every player of that forum loses one vote, and for
every modkilled member (who cannot vote) `best_player_modkill_votes` votes (1 by our reading: the same
as a non-voter, "поэтому ... ещё минус 1 голос"; 2 reads "вдобавок" as one more on top of that) (the
organisers' example: A 8, B 2, C 3, C did not vote → 7, 1, 2). Readings (options and the README): a
total below zero shows as 0 (`best_player_negative`); a ballot after the deadline is refused and its voter
counts as not having voted; nobody votes for themselves; a player without a forum is a forum of their own;
the last ballot before the deadline counts.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.games.mafia.actions import refuser
from forumbot.games.mafia.roles import RoleDef
from forumbot.games.mafia.state import MafiaState
from forumbot.model import Event, Intent, format_time

SLOTS = ("target", "second", "third")
REFUSALS = {
    "host_only": "only the host can open the best-player vote",
    "bp_not_over": "the best-player vote opens after the game",
    "bp_no_winner": "nobody won, so there are no winning and losing sides",
    "bp_closed": "the best-player vote is not open",
    "bp_late": "the best-player vote closed at {ends}",
    "bp_voter": "{author} cannot vote for the best player",
    "bp_name": "'{query}' is not a player",
    "bp_twice": "{name} is named twice",
    "bp_self": "you cannot vote for yourself",
    "bp_count": "the ballot names too many or too few players",
    "bp_too_many": "a ballot names at most {limit} players, one for each place: you named {count} ({names}); "
                   "nothing was changed",
    "bp_empty": "an empty ballot does not count: name {want}",
    "bp_side_win": "{name} is not on the winning side (place {place})",
    "bp_side_lose": "{name} is not on a losing side (place {place})",
}


refuse = refuser(REFUSALS)


def _team(state: MafiaState, player: str) -> str:
    role: RoleDef | None = state.options.role(state.roles.get(player))
    return role.team if role else ""


def modkilled(state: MafiaState) -> list[str]:
    return [d.name for d in state.dead if d.cause == "modkill"]


def voters(state: MafiaState) -> list[str]:
    gone = set(modkilled(state))
    return [p for p in state.players if p not in gone]


def open_vote(state: MafiaState, intent: Intent | None, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Open the vote (the host's command, or the game's end with best_player_start = "auto")."""
    if intent is not None and (not state.host or intent.author != state.host):
        return state, [refuse(intent, "host_only")]
    if state.phase != "over" or state.best:
        return state, [refuse(intent, "bp_not_over")] if intent is not None else []
    if state.winner not in ("town", "mafia", "maniac"):
        return state, [refuse(intent, "bp_no_winner")] if intent is not None else []
    ends = at + timedelta(hours=state.options.best_player_hours)
    state = state.with_(phase="best_player", phase_started=at, phase_ends=ends,
                        best={"opened": format_time(at), "ends": format_time(ends), "ballots": {}})
    return state, [Event("best_player_open", {"thread": "game", "winner": state.winner, "ends": format_time(ends),
                                              "maniac": state.winner == "maniac"})]


def _places(state: MafiaState) -> list[tuple[str, bool]]:
    """The places a ballot fills: (side, may be left out). `side` "win" or "lose"."""
    if state.winner == "maniac":
        return [("lose", True), ("lose", True)]
    return [("win", False), ("win", False), ("lose", True)]


def ballot(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """One voter's ballot: checked against the places, kept (replacing an earlier one), acknowledged."""
    if state.phase != "best_player":
        if state.best.get("result"):
            return state, [refuse(intent, "bp_late", ends=str(state.best.get("ends", "")))]
        return state, [refuse(intent, "bp_closed")]
    if intent.at is not None and intent.at > state.phase_ends:
        return state, [refuse(intent, "bp_late", ends=format_time(state.phase_ends))]
    voter = intent.author
    if voter not in voters(state):
        return state, [refuse(intent, "bp_voter", author=voter)]
    data = intent.data
    places = _places(state)
    if "places" in data:     # the list slot: every name, in order (forumbot/text/parse.py)
        listed = [*data["places"], *data.get("unresolved", {}).get("places", [])]
        if len(listed) > len(places):
            return state, [refuse(intent, "bp_too_many", limit=len(places), count=len(listed),
                                  names=", ".join(map(str, listed)))]
        unresolved = data.get("unresolved", {}).get("places", [])
        if unresolved:
            return state, [refuse(intent, "bp_name", query=unresolved[0])]
        raw = list(data["places"])
        if len(raw) != len(set(raw)):
            return state, [refuse(intent, "bp_twice", name=next(n for n in raw if raw.count(n) > 1))]
    elif not any(slot in data for slot in SLOTS):
        return _empty(state, intent)
    else:
        raw = []
        for slot in SLOTS:
            if slot not in data:
                continue
            if data[slot] is None:
                return state, [refuse(intent, "bp_name", query=data.get("unresolved", {}).get(slot, "?"))]
            if data[slot] in raw:
                return state, [refuse(intent, "bp_twice", name=data[slot])]
            raw.append(data[slot])
    names: list[str] = []
    for name in raw:
        if name == voter:
            return state, [refuse(intent, "bp_self")]
        names.append(name)
    required = sum(1 for _, optional in places if not optional)
    if not required <= len(names) <= len(places) or not names:
        return state, [refuse(intent, "bp_count", want=_want(state))]
    winners = _winning_team(state)
    for place, (name, (side, _)) in enumerate(zip(names, places, strict=False), start=1):
        on_winning = _team(state, name) in winners
        if (side == "win") != on_winning:
            return state, [refuse(intent, f"bp_side_{side}", name=name,
                                  place=place + (1 if state.winner == "maniac" else 0))]
    ballots = {**state.best.get("ballots", {}), voter: {"places": names, "at": format_time(intent.at)
                                                                             if intent.at else ""}}
    state = state.with_(best={**state.best, "ballots": ballots})
    return state, [Event("ballot_ack", {"pm_to": voter, "subject": "best_player", "places": names,
                                        "first": 2 if state.winner == "maniac" else 1})]


def _empty(state: MafiaState, intent: Intent) -> tuple[MafiaState, list[Event]]:
    """An empty ballot ("best:"): with best_player_empty = "decline" the voter declines the places (an earlier
    ballot is withdrawn; the voter counts as not having voted); with "refuse" it is answered why not."""
    if state.options.best_player_empty != "decline":
        return state, [refuse(intent, "bp_empty", want=_want(state))]
    ballots = {k: v for k, v in state.best.get("ballots", {}).items() if k != intent.author}
    withdrawn = intent.author in state.best.get("ballots", {})
    state = state.with_(best={**state.best, "ballots": ballots})
    return state, [Event("ballot_ack", {"pm_to": intent.author, "subject": "best player", "places": [],
                                        "first": 2 if state.winner == "maniac" else 1, "declined": True,
                                        "withdrawn": withdrawn})]


def _winning_team(state: MafiaState) -> set[str]:
    return {str(state.winner)}


def _want(state: MafiaState) -> str:
    """What a ballot must name, as an id (phrase bp_want_<id>)."""
    return "losers" if state.winner == "maniac" else "winners"


def totals(state: MafiaState) -> dict[str, Any]:
    """Raw votes, the forums' deductions, the final totals and the places."""
    ballots = state.best.get("ballots", {})
    raw = {p: 0 for p in state.players}
    for entry in ballots.values():
        for name in entry["places"]:
            raw[name] = raw.get(name, 0) + 1

    def forum(player: str) -> str:
        return state.forums.get(player) or f"@{player}"

    missing = [p for p in voters(state) if p not in ballots]
    deductions: dict[str, int] = {}
    for player in missing:
        deductions[forum(player)] = deductions.get(forum(player), 0) + 1
    for player in modkilled(state):   # (best_player_modkill_votes: 1 by our reading, the same as a non-voter)
        deductions[forum(player)] = deductions.get(forum(player), 0) + state.options.best_player_modkill_votes
    final = {}
    for player, votes in raw.items():
        value = votes - deductions.get(forum(player), 0)
        final[player] = value if state.options.best_player_negative == "allow" else max(value, 0)
    winners = _winning_team(state)
    if state.winner == "maniac":
        groups = [([p for p in state.players if _team(state, p) == "maniac"], 1, "auto"),
                  ([p for p in state.players if _team(state, p) not in winners], 2, "lose")]
    else:
        groups = [([p for p in state.players if _team(state, p) in winners], 2, "win"),
                  ([p for p in state.players if _team(state, p) not in winners], 1, "lose")]
    places = []
    for members, count, side in groups:
        ranked = sorted(members, key=lambda p: (-final[p], p)) if side != "auto" else members
        if side != "auto":
            ranked = [p for p in ranked if final[p] > 0]
        cut = final[ranked[count - 1]] if len(ranked) >= count and side != "auto" else None
        chosen = ranked[:count] if cut is None else [p for p in ranked if final[p] >= cut]
        places += [{"player": p, "side": side, "votes": final.get(p, 0)} for p in chosen]
    return {"ballots": {v: list(b["places"]) for v, b in ballots.items()}, "raw": raw,
            "not_voted": missing, "modkilled": modkilled(state), "deductions": deductions, "totals": final,
            "places": places, "forums": {p: state.forums.get(p, "") for p in state.players}}


def close(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """The vote's deadline: the result post; the game is over again."""
    result = totals(state)
    state = state.with_(phase="over", phase_started=at, phase_ends=at, best={**state.best, "result": result})
    return state, [Event("best_player_result", {"thread": "game", **result, "winner": state.winner})]


def summary(state: MafiaState) -> dict[str, Any] | None:
    if not state.best:
        return None
    return state.best.get("result") or {**totals(state), "open": True}


def place_numbers(places: list[dict[str, Any]]) -> list[int]:
    """The place (1, 2, 3) of each entry of a result's `places`: the winning side's two places, then the
    losing side's one (when the maniac won: his first place, then the losing sides' two); players tied at
    a side's last place share it."""
    maniac = any(p["side"] == "auto" for p in places)
    first = {"auto": 1, "win": 1, "lose": 2 if maniac else 3}
    last = {"auto": 1, "win": 2, "lose": 3}
    seen: dict[str, int] = {}
    out = []
    for entry in places:
        side = entry["side"]
        out.append(min(first[side] + seen.get(side, 0), last[side]))
        seen[side] = seen.get(side, 0) + 1
    return out
