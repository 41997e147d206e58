"""The games forumbot runs. A new game is a package here with a Game object, added to GAMES."""

from __future__ import annotations

import difflib

from forumbot.errors import ConfigError
from forumbot.games.base import Game, GameSetup
from forumbot.games.foodchain import FOOD_CHAIN
from forumbot.games.infiltration import INFILTRATION
from forumbot.games.infiltration.lobby import InfiltrationLobby
from forumbot.games.mafia import MAFIA
from forumbot.games.nisemonogatari import NISEMONOGATARI
from forumbot.games.rankedvote import RANKED_VOTE

LOBBY = InfiltrationLobby()
GAMES: dict[str, Game] = {MAFIA.name: MAFIA, INFILTRATION.name: INFILTRATION, LOBBY.name: LOBBY,
                       RANKED_VOTE.name: RANKED_VOTE, FOOD_CHAIN.name: FOOD_CHAIN,
                       NISEMONOGATARI.name: NISEMONOGATARI}


def get_game(name: str) -> Game:
    """The game registered under `name`. Raises ConfigError naming the known games."""
    try:
        return GAMES[name]
    except KeyError:
        close = difflib.get_close_matches(name, sorted(GAMES), n=1)
        raise ConfigError(f"unknown game '{name}'", fix=(f"did you mean '{close[0]}'? " if close else "")
                          + "games: " + ", ".join(sorted(GAMES))) from None


__all__ = ["GAMES", "Game", "GameSetup", "get_game"]
