"""Food Chain (seed 003): one test per rule of the seed, named after it, on the pure rules; hypothesis for
the invariants of a round."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.games.foodchain.rules import (
    ANIMALS,
    HABITATS,
    Animal,
    crowd_penalty,
    death_conditions,
    may_kill,
    outcome,
    resolve_round,
)

PRED_FOREST, PRED_RIVER = Animal("predator", "forest"), Animal("predator", "river")
PREY_RIVER, PREY_FOREST = Animal("prey", "river"), Animal("prey", "forest")
HUNTER, SCAV = Animal("hunter"), Animal("scavenger")


def run(cast: dict[str, tuple[Animal, str]], attacks: dict[str, list[str]]):
    animals = {p: a for p, (a, _) in cast.items()}
    where = {p: w for p, (_, w) in cast.items()}
    return resolve_round(animals, where, list(cast), attacks)


def deaths(result) -> dict[str, str]:
    return {d["player"]: d["cause"] for d in result.deaths}


# ---- who may kill whom ----------------------------------------------------------------------------
def test_hunters_may_kill_prey_and_scavengers():
    assert may_kill(HUNTER, PREY_RIVER, "river")[0] and may_kill(HUNTER, SCAV, "sky")[0]


def test_hunters_may_never_kill_predators_or_other_hunters():
    assert may_kill(HUNTER, PRED_FOREST, "forest") == (False, "hunters never kill predators")
    assert may_kill(HUNTER, HUNTER, "sky") == (False, "hunters never kill hunters")


def test_predators_can_always_kill_hunters():
    for where in HABITATS:
        assert may_kill(PRED_FOREST, HUNTER, where)[0]


def test_predators_kill_other_predators_in_their_main_habitat_while_the_other_is_not():
    # The seed's example: Forest kills River iff both are in the Forest; in the Sky neither kills.
    assert may_kill(PRED_FOREST, PRED_RIVER, "forest")[0]
    assert not may_kill(PRED_RIVER, PRED_FOREST, "forest")[0]
    assert not may_kill(PRED_FOREST, PRED_RIVER, "sky")[0] and not may_kill(PRED_RIVER, PRED_FOREST, "sky")[0]
    assert not may_kill(PRED_FOREST, Animal("predator", "forest"), "forest")[0]


def test_predators_may_not_kill_prey_in_its_main_habitat_outside_their_own():
    # The seed's example: a Forest Predator may not kill a River Prey when both are in the River.
    assert may_kill(PRED_FOREST, PREY_RIVER, "river") == (
        False, "prey in its main habitat is safe from a predator outside its own")
    assert may_kill(PRED_RIVER, PREY_RIVER, "river")[0] and may_kill(PRED_FOREST, PREY_RIVER, "sky")[0]


def test_predators_may_never_kill_scavengers():
    assert may_kill(PRED_FOREST, SCAV, "forest") == (False, "predators never kill scavengers")


# ---- a round ---------------------------------------------------------------------------------------
def test_hunter_attacks_occur_before_predator_attacks():
    result = run({"h": (HUNTER, "river"), "p": (PRED_RIVER, "river"), "x": (PREY_RIVER, "river")},
                 {"h": ["x"], "p": ["x"]})
    assert deaths(result) == {"x": "hunted", "p": "starved"}
    assert result.attacks[1] == {"attacker": "p", "target": "x", "location": "river", "succeeded": False,
                                 "why": "already killed by a hunter this round"}


def test_two_hunters_on_one_scavenger_or_prey_kill_it():
    result = run({"h1": (HUNTER, "sky"), "h2": (HUNTER, "sky"), "s": (SCAV, "sky")}, {"h1": ["s"], "h2": ["s"]})
    assert deaths(result) == {"s": "hunted"}


def test_two_predators_on_one_kill_it_but_neither_is_fed_nor_scores():
    result = run({"a": (PRED_FOREST, "forest"), "b": (PRED_FOREST, "forest"), "h": (HUNTER, "forest")},
                 {"a": ["h"], "b": ["h"]})
    assert deaths(result) == {"a": "starved", "b": "starved", "h": "eaten"}
    assert result.fed == {} and result.points == {}


def test_a_predator_that_is_not_the_sole_killer_of_some_animal_starves():
    result = run({"a": (PRED_FOREST, "forest"), "b": (PRED_FOREST, "forest"), "h": (HUNTER, "forest"),
                  "x": (PREY_FOREST, "forest")}, {"a": ["h", "x"], "b": ["h"]})
    assert deaths(result) == {"b": "starved", "h": "eaten", "x": "eaten"}
    assert result.fed == {"a": 1} and result.points["a"] == 2


def test_a_predator_earns_one_a_round_alive_and_one_for_each_animal_eaten():
    result = run({"a": (PRED_FOREST, "forest"), "h": (HUNTER, "forest"), "x": (PREY_FOREST, "forest")},
                 {"a": ["h", "x"]})
    assert result.points == {"a": 3}


def test_prey_points_count_the_others_in_the_room_after_deaths_divided_by_four_rounded_up():
    # The seed's example: five others in the room, two die: +1.
    cast = {"x": (PREY_RIVER, "river"), "h": (HUNTER, "river"), "s1": (SCAV, "river"), "s2": (SCAV, "river"),
            "s3": (SCAV, "river"), "s4": (SCAV, "river"), "far": (SCAV, "sky")}
    assert run(cast, {"h": ["s1", "s2"]}).points["x"] == 1 + 1
    assert run(cast, {}).points["x"] == 1 + 2          # five others: 5/4 rounded up
    assert run({"x": (PREY_RIVER, "river")}, {}).points["x"] == 1


def test_scavengers_earn_the_number_of_animals_that_died_that_round():
    result = run({"h": (HUNTER, "sky"), "x": (PREY_RIVER, "sky"), "y": (PREY_RIVER, "sky"), "s": (SCAV, "field"),
                  "p": (PRED_RIVER, "river")}, {"h": ["x", "y"]})
    assert len(result.deaths) == 3 and result.points["s"] == 3      # two hunted, one starved


def test_hunters_earn_the_predators_alive_and_one_for_each_predator_that_died():
    result = run({"h": (HUNTER, "sky"), "a": (PRED_FOREST, "forest"), "b": (PRED_RIVER, "forest"),
                  "x": (PREY_FOREST, "forest")}, {"a": ["b", "x"]})
    assert deaths(result) == {"b": "eaten", "x": "eaten"} and result.points["h"] == 1 + 1


def test_if_you_die_in_a_round_you_gain_no_points_from_it():
    result = run({"h": (HUNTER, "sky"), "s": (SCAV, "sky")}, {"h": ["s"]})
    assert "s" not in result.points and result.points["h"] == 0


# ---- the end ---------------------------------------------------------------------------------------
def test_more_than_five_of_one_animal_each_lose_the_count_minus_five():
    animals = {f"p{i}": Animal("predator", "sky") for i in range(7)} | {"s": SCAV}
    assert crowd_penalty(animals) == {**{f"p{i}": 2 for i in range(7)}, "s": 0}
    assert set(crowd_penalty({f"p{i}": HUNTER for i in range(5)}).values()) == {0}


def test_scavengers_die_at_the_end_when_fewer_than_nine_animals_died():
    animals = {"s": SCAV, "t": SCAV}
    assert death_conditions(animals, {}, 8) == {"s": "few_dead", "t": "few_dead"}
    assert death_conditions(animals, {}, 9) == {}


def test_hunters_die_at_the_end_when_any_predator_is_still_alive():
    animals = {"h": HUNTER, "a": PRED_FOREST}
    assert death_conditions(animals, {}, 0) == {"h": "predator_alive"}
    assert death_conditions(animals, {"a": "starved"}, 1) == {"a": "starved"}


def test_highest_points_among_those_alive_win_a_token_two_for_a_sole_winner_and_garnets_a_third():
    players = ["a", "b", "c", "d"]
    won = outcome(players, {"a": 9, "b": 7, "c": 11, "d": 2}, {"c": "eaten", "d": "starved"})
    assert won.case == "survivors" and won.winners == ("a",) and won.tol == {"a": 2}
    assert won.garnets == {"a": 3, "b": 2} and won.ec_candidates == ("c", "d") and won.ec_voters == ("a",)
    tied = outcome(players, {"a": 7, "b": 7, "c": 1, "d": 2}, {"c": "eaten", "d": "x"})
    assert tied.case == "survivors" and tied.winners == ("a", "b") and tied.tol == {"a": 1, "b": 1}


def test_all_dead_the_highest_win_with_four_garnets_and_the_fewest_points_is_the_ec():
    won = outcome(["a", "b", "c"], {"a": 5, "b": 1, "c": 3}, {"a": "x", "b": "x", "c": "x"})
    assert (won.case, won.winners, won.tol, won.garnets) == ("all_dead", ("a",), {"a": 2}, {"a": 4})
    assert won.ec_candidates == ("b",) and won.ec_voters == ()
    tie = outcome(["a", "b", "c"], {"a": 5, "b": 1, "c": 1}, {"a": "x", "b": "x", "c": "x"})
    assert tie.ec_candidates == ("b", "c") and tie.ec_voters == ("a",)     # the winners' choice


def test_no_one_dead_the_lowest_points_is_the_ec_ties_broken_by_the_winners():
    won = outcome(["a", "b", "c"], {"a": 5, "b": 1, "c": 1}, {})
    assert won.case == "none_dead" and won.winners == ("a",) and won.ec_candidates == ("b", "c")
    assert won.ec_voters == ("a",) and won.garnets == {"a": 1, "b": 0, "c": 0}


def test_all_players_tie_no_tokens_and_a_majority_vote_for_the_ec():
    for met in ({}, {"a": "eaten", "b": "starved", "c": "x"}):
        won = outcome(["a", "b", "c"], {"a": 4, "b": 4, "c": 4}, met)
        assert won.case == "all_tied" and won.tol == {} and won.winners == ("a", "b", "c")
        assert won.ec_voters == won.ec_candidates == ("a", "b", "c")


# ---- invariants ------------------------------------------------------------------------------------
players = [f"p{i}" for i in range(8)]
animal = st.builds(lambda kind, main: Animal(kind, main if kind in ("predator", "prey") else None),
                   st.sampled_from(ANIMALS), st.sampled_from(HABITATS))


@settings(max_examples=200, deadline=None)
@given(st.lists(animal, min_size=8, max_size=8), st.lists(st.sampled_from(HABITATS), min_size=8, max_size=8),
       st.lists(st.lists(st.integers(0, 7), max_size=2), min_size=8, max_size=8))
def test_round_invariants(kinds, places, picks):
    animals = dict(zip(players, kinds, strict=True))
    where = dict(zip(players, places, strict=True))
    attacks = {p: list(dict.fromkeys(players[i] for i in pick if players[i] != p and where[players[i]] == where[p]))
               for p, pick in zip(players, picks, strict=True) if animals[p].kind in ("hunter", "predator")}
    result = resolve_round(animals, where, players, attacks)
    dead = deaths(result)
    assert set(dead).isdisjoint(result.points) and set(dead) | set(result.points) == set(players)
    for p in players:
        a = animals[p]
        if a.kind == "predator":          # a living predator always ate alone
            assert (p in dead) or result.fed.get(p, 0) >= 1
        if dead.get(p) == "hunted":      # only prey and scavengers fall to hunters
            assert a.kind in ("prey", "scavenger")
        if dead.get(p) == "eaten":
            assert a.kind in ("prey", "hunter", "predator")
        if a.kind == "scavenger" and p in dead:
            assert dead[p] == "hunted"
    assert all(v >= 0 for v in result.points.values())
    assert sum(result.fed.values()) <= sum(1 for c in dead.values() if c == "eaten")
