"""Mafia (Werewolf): day voting with the no-lynch limit; nights and roles build on it."""

from forumbot.games.mafia.game import MafiaGame

MAFIA = MafiaGame()

__all__ = ["MAFIA", "MafiaGame"]
