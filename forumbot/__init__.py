"""forumbot: a game-master bot for play-by-post games."""

__version__ = "0.1.0"
