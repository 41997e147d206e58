"""The ranked vote (seed 003's "Choose Your Own Adventure"): full rankings by PM, the most #1 picks wins, ties
broken by dropping every option that did not tie for first and moving those ballots on."""

from forumbot.games.rankedvote.game import RankedVoteGame

RANKED_VOTE = RankedVoteGame()

__all__ = ["RANKED_VOTE", "RankedVoteGame"]
