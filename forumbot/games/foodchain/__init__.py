"""Food Chain (seed 003): animals in four habitats, secret moves and attacks by PM, four rounds, points,
winners, garnets and the Elimination Candidate."""

from forumbot.games.foodchain.game import FoodChainGame

FOOD_CHAIN = FoodChainGame()

__all__ = ["FOOD_CHAIN", "FoodChainGame"]
