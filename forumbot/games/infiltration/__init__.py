"""Infiltration: the 1-vs-1 hidden-piece board game (seed 004), played from thread posts like `A1->B1`."""

from forumbot.games.infiltration.game import InfiltrationGame

INFILTRATION = InfiltrationGame()

__all__ = ["INFILTRATION", "InfiltrationGame"]
