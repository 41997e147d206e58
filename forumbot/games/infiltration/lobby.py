"""The Infiltration lobby: a thread where players challenge each other. An accepted challenge spawns a new
Infiltration game (the runner creates it from `spawned`); when it ends, its result comes back here, so
the lobby keeps every player's wins and money and lets only players of the same win tier meet.

A pure state machine like every game: challenges, accepts, declines and results are intents.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, refusal
from forumbot.games.infiltration.endgame import may_challenge
from forumbot.model import Event, Intent, format_time, parse_time

KINDS = ("challenge", "accept", "decline", "withdraw", "result")


def _key(name: str) -> str:
    """Accounts as players write them: "u/Bob", "@bob" and "Bob" are one player."""
    return name.strip().removeprefix("u/").removeprefix("/u/").lstrip("@").casefold()


@dataclass(frozen=True)
class LobbyState:
    host: str | None
    started: datetime
    game_options: dict[str, Any]                     # options of every spawned game (ruleset + overrides)
    prefix: str = "duel"                             # spawned games are named <prefix>-1, <prefix>-2, ...
    challenges: tuple[tuple[str, str, str], ...] = ()   # (challenger, opponent, when)
    games: tuple[dict[str, Any], ...] = ()           # {"name", "players", "created", "result"}
    records: dict[str, dict[str, int]] = field(default_factory=dict)   # player → {"wins", "money"}
    phase: str = "open"

    def wins(self, player: str) -> int:
        return self.records.get(player, {}).get("wins", 0)

    def busy(self, player: str) -> bool:
        return any(player in g["players"] and g.get("result") is None for g in self.games)


def _notice(what: str, **data: Any) -> Event:
    return Event("lobby_notice", {"thread": "lobby", "what": what, **data})


def _refuse(intent: Intent, reason: str, code: str, **params: Any) -> tuple[None, list[Event]]:
    """A private answer refusing a lobby command: the English `reason` and phrase refuse_<code>."""
    return None, [refusal(intent, reason, code=code, params=params, pm=True, subject="inf_lobby")]


class InfiltrationLobby:
    name = "infiltration-lobby"

    def new(self, setup: GameSetup) -> LobbyState:
        options = dict(setup.options)
        game_options = options.pop("game_options", {})
        prefix = options.pop("prefix", "duel")
        seed = options.pop("seed", None)        # a live bot gives the lobby a secret seed; each game derives one
        if options:
            raise ConfigError(f"unknown lobby options: {', '.join(options)}", fix="known: game_options, prefix, seed")
        if not isinstance(game_options, dict) or not isinstance(prefix, str):
            raise ConfigError("the lobby's game_options must be a table and prefix a string")
        game_options = dict(game_options)
        if seed is not None:
            game_options.setdefault("seed", str(seed))
        return LobbyState(setup.host, setup.start, game_options, prefix)

    def start_events(self, state: LobbyState) -> list[Event]:
        return [_notice("open")]

    def apply(self, state: LobbyState, intent: Intent) -> tuple[LobbyState, list[Event]]:
        handler = {"challenge": _challenge, "accept": _accept, "decline": _decline, "withdraw": _withdraw,
                   "result": _result}.get(intent.kind)
        if handler is None:
            return state, []
        new, events = handler(state, intent)
        return (new if new is not None else state), events

    # ---- what the runner asks ------------------------------------------------------------------
    def spawned(self, state: LobbyState) -> list[dict[str, Any]]:
        """The games the lobby has started, each as the runner needs it to build or find the game."""
        out = []
        for game in state.games:
            players = list(game["players"])
            options = {**state.game_options,
                       "wins": {p: state.wins(p) for p in players} | game.get("wins", {}),
                       "money": {p: state.records.get(p, {}).get("money", 0) for p in players} | game.get("money", {})}
            if "seed" in state.game_options:
                options["seed"] = f"{state.game_options['seed']}:{game['name']}"
            out.append({"name": game["name"], "game": "infiltration", "players": players, "host": state.host,
                        "start": game["created"], "options": options, "finished": game.get("result") is not None})
        return out

    def next_deadline(self, state: LobbyState) -> datetime | None:
        return None

    def on_deadline(self, state: LobbyState, at: datetime, now: datetime | None = None
                    ) -> tuple[LobbyState, list[Event]]:
        return state, []

    def shift(self, state: LobbyState, delta: Any) -> LobbyState:
        return state

    def report(self, state: LobbyState, at: datetime) -> tuple[LobbyState, list[Event]]:
        return state, []

    def tally(self, state: LobbyState, at: datetime) -> Event | None:
        return _notice("standings", records=_standings(state))

    def threads(self, state: LobbyState) -> dict[str, str]:
        return {"lobby": "lobby"}

    def command_threads(self, state: LobbyState) -> tuple[str, ...]:
        return ("lobby",)

    def to_json(self, state: LobbyState) -> dict[str, Any]:
        return {"host": state.host, "started": format_time(state.started), "game_options": state.game_options,
                "prefix": state.prefix, "challenges": [list(c) for c in state.challenges],
                "games": [dict(g) for g in state.games], "records": state.records, "phase": state.phase}

    def from_json(self, data: dict[str, Any]) -> LobbyState:
        return LobbyState(data.get("host"), parse_time(data["started"]), dict(data.get("game_options", {})),
                          data.get("prefix", "duel"), tuple(tuple(c) for c in data.get("challenges", [])),  # type: ignore[misc]
                          tuple(data.get("games", [])), {p: dict(r) for p, r in data.get("records", {}).items()},
                          data.get("phase", "open"))

    def eliminated(self, state: LobbyState) -> tuple[str, ...]:
        """A lobby puts nobody out."""
        return ()

    def summary(self, state: LobbyState) -> dict[str, Any]:
        return {"phase": state.phase, "challenges": [{"challenger": c, "opponent": o} for c, o, _ in state.challenges],
                "games": [dict(g) for g in state.games], "records": _standings(state)}


def _standings(state: LobbyState) -> dict[str, dict[str, int]]:
    return {p: dict(r) for p, r in sorted(state.records.items(), key=lambda i: (-i[1].get("wins", 0), i[0]))}


def _opponent(intent: Intent, slot: str) -> str:
    """The account named first in the slot ("bob, let's go" → "bob")."""
    words = str(intent.data.get(slot) or "").split()
    name = words[0] if words else ""
    return name.strip(",.!?;:").removeprefix("u/").removeprefix("/u/").lstrip("@")


def _challenge(state: LobbyState, intent: Intent) -> tuple[LobbyState | None, list[Event]]:
    me, them = intent.author, _opponent(intent, "opponent")
    if not them or _key(them) == _key(me):
        return _refuse(intent, "challenge someone else: `challenge NAME`", "inf_challenge_whom")
    if state.busy(me) or state.busy(them):
        return _refuse(intent, "one of you is still playing a game from this lobby", "inf_busy")
    if state.game_options.get("enforce_tiers", True) and not may_challenge(state.wins(me), state.wins(them)):
        return _refuse(intent, f"{me} has {state.wins(me)} wins and {them} has {state.wins(them)}: only players "
                               "with as many wins may play each other", "inf_tier", author=me, name=them,
                       mine=state.wins(me), theirs=state.wins(them))
    kept = tuple(c for c in state.challenges if not (_key(c[0]) == _key(me) and _key(c[1]) == _key(them)))
    when = format_time(intent.at) if intent.at else format_time(state.started)
    return replace(state, challenges=(*kept, (me, them, when))), [_notice("challenge", challenger=me, opponent=them)]


def _accept(state: LobbyState, intent: Intent) -> tuple[LobbyState | None, list[Event]]:
    me, them = intent.author, _opponent(intent, "challenger")
    found = next((c for c in state.challenges if _key(c[0]) == _key(them) and _key(c[1]) == _key(me)), None)
    if found is None:
        return _refuse(intent, f"{them or 'nobody'} has not challenged you", "inf_not_challenged", name=them or "?")
    if state.busy(found[0]) or state.busy(me):
        return _refuse(intent, "one of you is still playing a game from this lobby", "inf_busy")
    name = f"{state.prefix}-{len(state.games) + 1}"
    when = format_time(intent.at) if intent.at else format_time(state.started)
    game = {"name": name, "players": [found[0], me], "created": when, "result": None}
    challenges = tuple(c for c in state.challenges if c is not found)
    return (replace(state, challenges=challenges, games=(*state.games, game)),
            [_notice("spawned", name=name, players=[found[0], me])])


def _decline(state: LobbyState, intent: Intent) -> tuple[LobbyState | None, list[Event]]:
    me, them = intent.author, _opponent(intent, "challenger")
    kept = tuple(c for c in state.challenges if not (_key(c[0]) == _key(them) and _key(c[1]) == _key(me)))
    if len(kept) == len(state.challenges):
        return _refuse(intent, f"{them or 'nobody'} has not challenged you", "inf_not_challenged", name=them or "?")
    return replace(state, challenges=kept), [_notice("declined", challenger=them, opponent=me)]


def _withdraw(state: LobbyState, intent: Intent) -> tuple[LobbyState | None, list[Event]]:
    kept = tuple(c for c in state.challenges if _key(c[0]) != _key(intent.author))
    if len(kept) == len(state.challenges):
        return _refuse(intent, "you have no open challenge", "inf_no_challenge")
    return replace(state, challenges=kept), [_notice("withdrawn", challenger=intent.author)]


def _result(state: LobbyState, intent: Intent) -> tuple[LobbyState | None, list[Event]]:
    """A spawned game ended (sent by the runner): its ledger becomes the players' records."""
    name, ledger = intent.data.get("game"), intent.data.get("ledger") or {}
    games = []
    for game in state.games:
        if game["name"] == name and game.get("result") is None:
            game = {**game, "result": {"winner": intent.data.get("winner"), "ledger": ledger}}
        games.append(game)
    records = {**state.records, **{p: {"wins": int(r.get("wins", 0)), "money": int(r.get("money", 0))}
                                   for p, r in ledger.items()}}
    return (replace(state, games=tuple(games), records=records),
            [_notice("result", name=name, winner=intent.data.get("winner"))])
