"""Nisemonogatari (seed 000): Characters sent to locations, Initiative and Adoration, confessions to Sam
senpai with the host's multipliers and event chart, garnets."""

from forumbot.games.nisemonogatari.game import NisemonoGame

NISEMONOGATARI = NisemonoGame()

__all__ = ["NISEMONOGATARI", "NisemonoGame"]
