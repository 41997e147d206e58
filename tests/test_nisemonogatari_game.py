"""Nisemonogatari as the bot plays it: orders by PM through the real grammar (English and Russian), renames
in the thread, the Adoration formula, confessions and multipliers, garnets, the events of the example
chart, the end of the game, the sample replayed against the numbers computed by hand."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest
from helpers import apply_post
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import load_ruleset
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.games.base import GameSetup
from forumbot.games.nisemonogatari.chart import LOCATIONS, boosted, multiplier
from forumbot.games.nisemonogatari.rules import earned, outcome
from forumbot.games.nisemonogatari.state import OVER, NMState
from forumbot.model import PlayerRef
from forumbot.render import Renderer

GAME = get_game("nisemonogatari")
START = datetime(2026, 9, 1, 12, tzinfo=UTC)
PLAYERS = ["Ana", "Bo", "Cy"]
TIERS = load_ruleset("nisemonogatari", "nisemonogatari")   # the options; the chart comes from chart.py
_posts = iter(range(10**6))


def new(players=PLAYERS, **options) -> NMState:
    opts = {**TIERS, "seed": "t", "chart": "example", "garnets": {p: 4 for p in players}, **options}
    return GAME.new(GameSetup("nisemonogatari", tuple(PlayerRef(p) for p in players), START, options=opts,
                              host="Host"))


def send(state: NMState, author: str, text: str, lang: str = "en", where: str = "pm"):
    """A post read by the real grammar and applied; the events of the batch, replies included."""
    return apply_post(GAME, state, author, text, lang=lang, where=where)


def end_round(state: NMState):
    return GAME.on_deadline(state, state.ends)


def refused(events) -> list[str]:
    return [e.data["reason"] for e in events if e.kind == "rejected"]


def last(state: NMState) -> dict:
    return state.history[-1]


# ---- the formula -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("crowd", "initiative", "hundredths"), [
    (1, 5, 900), (3, 5, 700), (2, 3, 480), (9, 5, 100), (12, 5, 100), (3, 0, 0), (3, -2, 0), (4, 6, 720)])
def test_adoration_earned_is_ten_minus_a_times_b_over_five_with_a_capped_at_nine(crowd, initiative, hundredths):
    assert earned(crowd, initiative) == hundredths


def test_a_counts_every_character_at_the_location_unless_the_host_reads_other_characters():
    state = new()
    for player in PLAYERS:
        state, _ = send(state, player, "CharA: Rooftop, Wait for Senpai, 5")
    state, _ = end_round(state)
    assert last(state)["gain"]["Ana:A"] == 700                      # A = 3: (10 - 3) x 5 / 5
    state = new(crowd_counts_self=False)
    for player in PLAYERS:
        state, _ = send(state, player, "CharA: Rooftop, Wait for Senpai, 5")
    state, _ = end_round(state)
    assert last(state)["gain"]["Ana:A"] == 800                      # A = 2 others


# ---- orders by PM ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("lang", "text", "order"), [
    ("en", "CharA: Rooftop, Lunch Alone, 3 initiative, confess",
     {"location": "rooftop", "event": "lunch alone", "initiative": 3, "confess": True, "target": None}),
    ("en", "chara: the Cafeteria, Food Fight, 2, target Bo's CharB",
     {"location": "cafeteria", "event": "food fight", "initiative": 2, "confess": False, "target": "Bo:B"}),
    ("en", "CharB: Study Session, initiative 4, target Cy's CharC",
     {"location": "classroom", "event": "study session", "initiative": 4, "confess": False, "target": "Cy:C"}),
    ("ru", "CharA: крыша, Lunch Alone, 3 инициативы, признаться",
     {"location": "rooftop", "event": "lunch alone", "initiative": 3, "confess": True, "target": None}),
    ("ru", "CharC: столовая, Share Lunch, 1 инициатива",
     {"location": "cafeteria", "event": "share lunch", "initiative": 1, "confess": False, "target": None}),
])
def test_an_order_names_location_event_initiative_confession_and_target(lang, text, order):
    state, events = send(new(), "Ana", text, lang)
    assert refused(events) == []
    char = next(iter(state.orders))
    assert state.orders[char] == order


def test_orders_for_three_characters_in_one_message_one_line_each_or_separated_by_semicolons():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 1\nCharB: Schoolyard, Sports Practice, 2; "
                                  "CharC: Classroom, Study Session, 2, target Bo's CharA")
    assert {c: o["initiative"] for c, o in state.orders.items()} == {"Ana:A": 1, "Ana:B": 2, "Ana:C": 2}


@pytest.mark.parametrize(("text", "why"), [
    ("CharA: Rooftop, Lunch Alone, 6", "6 Initiative would make 6 in total this round; you have 5"),
    ("CharA: Rooftop, Picnic, 2", "'Picnic' is not a location, an event"),
    ("CharA: Rooftop, 2", "name the event at the Rooftop: Lunch Alone, Wait for Senpai"),
    ("CharA: Rooftop, Share Lunch, 2", "Share Lunch is at the Cafeteria, not the Rooftop"),
    ("CharA: Cafeteria, Food Fight, 2", "Food Fight needs a target"),
    ("CharD: Rooftop, Lunch Alone, 2", "no Character is called 'CharD'"),
    ("Bo's CharA: Rooftop, Lunch Alone, 2", "Bo's CharA is not yours"),
])
def test_a_refused_order_line_gets_a_pm_saying_why(text, why):
    state, events = send(new(), "Ana", text)
    [event] = [e for e in events if e.kind == "rejected"]
    assert why in event.data["reason"] and event.data["pm_to"] == "Ana"
    assert state.orders == {}


def test_more_than_five_initiative_in_total_is_refused_and_the_earlier_orders_stand():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 3")
    state, events = send(state, "Ana", "CharB: Schoolyard, Sports Practice, 3")
    assert refused(events) == ["3 Initiative would make 6 in total this round; you have 5 (your other Characters "
                               "have 3)"]
    state, events = send(state, "Ana", "CharA: Rooftop, Lunch Alone, 2\nCharB: Schoolyard, Sports Practice, 3")
    assert refused(events) == [] and sum(o["initiative"] for o in state.orders.values()) == 5


def test_the_last_valid_orders_before_the_deadline_count():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 3, confess")
    state, _ = send(state, "Ana", "CharA: Cafeteria, Share Lunch, 2")
    state, _ = send(state, "Ana", "CharA: Cafeteria, Lunch Alone, 9")           # refused: stays as before
    assert state.orders["Ana:A"] == {"location": "cafeteria", "event": "share lunch", "initiative": 2,
                                     "confess": False, "target": None}


def test_initiative_does_not_carry_over_each_round_gives_five_again():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 1")
    state, _ = end_round(state)
    state, events = send(state, "Ana", "CharA: Rooftop, Lunch Alone, 5")
    assert refused(events) == [] and state.orders["Ana:A"]["initiative"] == 5


def test_missing_orders_leave_a_character_idle_at_no_location_or_repeat_them_as_an_option():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 5, confess")
    state, _ = end_round(state)
    state, _ = end_round(state)
    assert last(state)["orders"] == {} and last(state)["gain"] == {}
    state, _ = send(new(missing_orders="repeat"), "Ana", "CharA: Rooftop, Lunch Alone, 5, confess")
    state, _ = end_round(state)
    state, _ = end_round(state)
    assert last(state)["orders"]["Ana:A"]["event"] == "lunch alone"
    assert last(state)["confessions"] == [] and state.adoration["Ana:A"] == 1200



@pytest.mark.parametrize(("lang", "text", "where", "hides", "boosts", "names"), [
    ("en", "hide CharB\nboost CharA", "pm", {"Ana": "Ana:B"}, {"Ana": "Ana:A"}, {}),
    ("ru", "скрыть CharB\nусилить CharA", "pm", {"Ana": "Ana:B"}, {"Ana": "Ana:A"}, {}),
    ("en", "hide CharB\nno hide", "pm", {}, {}, {}),
    ("ru", "усилить CharC\nне усиливать", "pm", {}, {}, {}),
    ("en", "rename CharC to Nadeko", "thread", {}, {}, {"Ana:C": "Nadeko"}),
    ("ru", "переименовать CharC в Надеко", "thread", {}, {}, {"Ana:C": "Надеко"}),
])
def test_garnet_spends_and_renames_in_english_and_russian(lang, text, where, hides, boosts, names):
    state, events = send(new(), "Ana", text, lang, where)
    assert refused(events) == []
    assert (state.hides, state.boosts, state.names) == (hides, boosts, names)

# ---- renames ---------------------------------------------------------------------------------------
def test_renames_are_first_come_first_served_in_the_thread_and_player_s_charx_always_works():
    state, events = send(new(), "Ana", "rename CharA to Hitagi", where="thread")
    assert refused(events) == []
    state, events = send(state, "Bo", "rename CharB to hitagi", where="thread")
    assert refused(events) == ["the name hitagi is already taken by Hitagi (Ana's CharA); first come, first served"]
    state, events = send(state, "Bo", "rename CharA to Ana", where="thread")
    assert "cannot be a Character's name" in refused(events)[0]
    state, _ = send(state, "Ana", "Hitagi: Rooftop, Lunch Alone, 2")
    state, _ = send(state, "Bo", "CharA: Classroom, Study Session, 1, target Ana's CharA")
    state, _ = send(state, "Cy", "CharA: Classroom, Study Session, 1, target hitagi")
    assert state.orders["Ana:A"]["initiative"] == 2
    assert state.orders["Bo:A"]["target"] == state.orders["Cy:A"]["target"] == "Ana:A"
    assert send(state, "Ana", "rename CharA to X", where="pm")[0].names == state.names   # renames are public


# ---- confessions -----------------------------------------------------------------------------------
def test_the_multiplier_comes_from_the_chart_by_the_number_of_confessing_characters():
    tiers = [{"characters": n, "multiplier": m} for n, m in ((1, 1.5), (4, 1.25), (7, 1.0), (10, 0.75), (13, 0.5))]
    assert [multiplier(tiers, n) for n in (1, 3, 4, 6, 7, 9, 10, 11, 12, 13, 18)] == \
        [1.5, 1.5, 1.25, 1.25, 1.0, 1.0, 0.75, 0.75, 0.75, 0.5, 0.5]
    # The seed's example: 11 confess (x.75); a boosted Character gets x1 instead.
    assert boosted(tiers, 0.75, 1.5) == 1.0
    assert boosted(tiers, 1.25, 1.5) == 1.5 and boosted(tiers, 1.5, 1.5) == 1.5
    assert boosted(tiers + [{"characters": 20, "multiplier": 2.0}], 1.5, 1.5) == 1.5


def test_confessing_stores_the_sum_times_the_multiplier_per_player_and_resets_the_characters():
    state = new()
    state, _ = send(state, "Ana", "CharA: Schoolyard, Sports Practice, 3, confess\nCharB: Rooftop, Lunch Alone, 2")
    state, _ = send(state, "Bo", "CharA: Schoolyard, Sports Practice, 5, confess")
    state, _ = send(state, "Cy", "CharA: Classroom, Study Session, 5, target Ana's CharB, confess")
    state, _ = end_round(state)
    # Schoolyard A=2: Ana 8 x 3 / 5 = 4.80, Bo 8.00; Cy alone 9.00 + 0.50. N = 3: x1.5.
    assert last(state)["stored"] == {"Ana": 720, "Bo": 1200, "Cy": 1425}
    assert state.adoration["Ana:A"] == 0 and state.adoration["Ana:B"] == 9 * 2 * 20 + 300   # kept: not confessed
    assert state.hearts == {"Ana": 720, "Bo": 1200, "Cy": 1425}


def test_a_boost_raises_one_confessing_characters_multiplier_on_its_own():
    state = new(garnets={"Ana": 2})
    for player in PLAYERS:
        for slot in "AB":
            state, _ = send(state, player, f"Char{slot}: Schoolyard, Sports Practice, 1, confess")
    state, _ = send(state, "Ana", "boost CharA")
    state, _ = end_round(state)
    # A = 6: 4 x 1 / 5 = 0.80 each; N = 6: x1.25; Ana's CharA x1.5: 1.20 + 1.00.
    assert last(state)["stored"] == {"Ana": 220, "Bo": 200, "Cy": 200}
    assert [c["multiplier"] for c in last(state)["confessions"] if c["character"].startswith("Ana")] == [1.5, 1.25]
    assert state.spent == {"Ana": 2}


# ---- garnets ---------------------------------------------------------------------------------------
def test_hide_and_boost_cost_two_garnets_each_once_a_round_and_need_the_garnets():
    state = new(garnets={"Ana": 3})
    state, events = send(state, "Ana", "hide CharA\nboost CharB")
    assert refused(events) == ["boost costs 2 garnets on top of this round's other spend; you have 3"]
    state, events = send(state, "Ana", "hide CharB")                      # once a round: the later one stands
    assert state.hides == {"Ana": "Ana:B"}
    state, events = send(state, "Bo", "hide CharA")
    assert refused(events) == ["hide costs 2 garnets; you have 0"]


def test_a_hide_of_an_idle_character_or_a_boost_without_a_confession_is_not_charged():
    state, _ = send(new(), "Ana", "hide CharA\nboost CharB\nCharB: Rooftop, Lunch Alone, 1")
    state, events = end_round(state)
    assert state.spent == {} and last(state)["charged"] == {}


def test_a_hidden_location_and_event_never_appear_in_the_public_post_but_reveals_see_through():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 5, confess\nhide CharA")
    state, _ = send(state, "Bo", "CharA: Classroom, Study Session, 2, target Ana's CharA")
    state, events = end_round(state)
    [post] = [e for e in events if e.kind == "nm_round_end"]
    text = Renderer("markdown").text(post, "nisemonogatari")
    assert "Ana's CharA: hidden; confessed" in text and "Lunch Alone" not in text and "Rooftop" not in text
    [bo] = [e for e in events if e.kind == "nm_private" and e.data["pm_to"] == "Bo"]
    assert "Ana's CharA was at the Rooftop, Lunch Alone" in Renderer("bbcode").text(bo, "nisemonogatari")
    assert state.spent == {"Ana": 2}


def test_each_player_is_told_privately_the_total_in_sam_senpais_heart():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 5, confess")
    state, events = end_round(state)
    private = {e.data["pm_to"]: e for e in events if e.kind == "nm_private"}
    assert set(private) == set(PLAYERS)
    assert "heart holds 18.00 of your Adoration" in Renderer("markdown").text(private["Ana"], "nisemonogatari")


# ---- the example chart's events ----------------------------------------------------------------------
def test_student_council_activities_has_no_effect_on_the_character_using_it():
    state, _ = send(new(), "Ana", "CharA: Classroom, Student Council Activities, 5")
    state, _ = send(state, "Bo", "CharA: Classroom, Study Session, 5, target Ana's CharA")
    state, _ = end_round(state)
    assert state.bonus == {"Bo:A": -1}
    state, _ = send(state, "Bo", "CharA: Classroom, Study Session, 5, target Ana's CharA")
    state, _ = end_round(state)
    assert last(state)["gain"]["Bo:A"] == 9 * 4 * 20 + 50                      # B = 5 - 1


def test_food_fight_moves_its_target_and_the_target_s_event_does_not_happen():
    state, _ = send(new(), "Ana", "CharA: Cafeteria, Food Fight, 5, target Bo's CharA")
    state, _ = send(state, "Bo", "CharA: Cafeteria, Share Lunch, 5")
    state, _ = send(state, "Cy", "CharA: Schoolyard, Sports Practice, 5")
    state, _ = end_round(state)
    record = last(state)
    assert record["moved"] == {"Bo:A": "schoolyard"}
    assert record["gain"]["Bo:A"] == 800 and record["gain"]["Ana:A"] == 900   # A = 2 there, no x1.5; Ana alone


def test_teaching_rob_a_lesson_is_counted_per_player():
    state, events = send(new(), "Ana", "CharA: Schoolyard, Teach Rob a Lesson, 1\nCharB: the Schoolyard, "
                                       "teach rob a lesson, 1")
    state, more = send(state, "Bo", "CharA: Schoolyard, Teach Rob a Lesson, 1")
    assert refused(events + more) == []
    state, _ = end_round(state)
    assert state.lessons == {"Ana": 2, "Bo": 1, "Cy": 0}


# ---- the end -------------------------------------------------------------------------------------
def _draw_first(tied):
    return sorted(tied)[0]


@pytest.mark.parametrize(("hearts", "lessons", "winners", "tol", "ec", "how"), [
    ({"A": 30, "B": 20, "C": 10, "D": 5}, {}, ("A",), {"A": 2}, "D", {"winner": "hearts", "ec": "hearts"}),
    ({"A": 30, "B": 30, "C": 10, "D": 5}, {}, ("A", "B"), {"A": 1, "B": 1}, "D", {"winner": "hearts", "ec": "hearts"}),
    ({"A": 30, "B": 30, "C": 30, "D": 5}, {"B": 2, "C": 1}, ("B",), {"B": 2}, "D",
     {"winner": "lessons", "ec": "hearts"}),
    ({"A": 30, "B": 30, "C": 30, "D": 5}, {"B": 2, "C": 2}, ("B",), {"B": 2}, "D", {"winner": "draw", "ec": "hearts"}),
    ({"A": 30, "B": 20, "C": 5, "D": 5}, {"C": 1}, ("A",), {"A": 2}, "D", {"winner": "hearts", "ec": "lessons"}),
    ({"A": 30, "B": 20, "C": 5, "D": 5}, {}, ("A",), {"A": 2}, "C", {"winner": "hearts", "ec": "draw"}),
])
def test_winners_tokens_of_life_and_the_elimination_candidate_with_the_tiebreakers(hearts, lessons, winners, tol, ec,
                                                                                    how):
    result = outcome(list(hearts), hearts, lessons, _draw_first)
    assert (result.winners, result.tol, result.ec, result.decided_by) == (winners, tol, ec, how)


def test_the_universal_tiebreaker_is_a_seeded_draw_whose_hash_is_posted_first_and_seed_last():
    state = new(rounds=1)
    [opening] = GAME.start_events(state)
    assert opening.data["seed_hash"] == hashlib.sha256(b"t").hexdigest()
    state, events = end_round(state)                       # nobody played: all tie at 0, no lessons
    assert state.phase == OVER and state.result["decided_by"] == {"winner": "draw", "ec": "draw"}
    [winner] = state.result["winners"]
    assert [(d["tied"], d["by"]) for d in state.result["draws"]] == \
        [(PLAYERS, "seed"), ([p for p in PLAYERS if p != winner], "seed")]
    again, _ = end_round(new(rounds=1))
    assert again.result == state.result                      # the same seed, the same draw
    [end] = [e for e in events if e.kind == "nm_end"]
    assert "seed was: t" in Renderer("markdown").text(end, "nisemonogatari")


def test_with_the_host_as_universal_tiebreaker_the_host_names_the_pick_or_the_seed_draws_after_the_wait():
    state, events = end_round(new(rounds=1, universal_tiebreaker="host"))
    [ask] = [e for e in events if e.kind == "nm_tiebreak"]
    assert state.phase == "tiebreak" and ask.data["tied"] == PLAYERS
    assert "tiebreak NAME" in Renderer("markdown").text(ask, "nisemonogatari")
    assert refused(send(state, "Ana", "tiebreak Ana")[1]) == ["only the host applies the Universal Tiebreaker"]
    assert refused(send(state, "Host", "tiebreak Zed")[1]) == ["name one of the tied players: Ana, Bo, Cy"]
    state, events = send(state, "Host", "tiebreak bo")
    assert state.phase == "tiebreak" and state.result["tied"] == ["Ana", "Cy"]        # now the EC's tie
    state, events = GAME.on_deadline(state, state.ends)                                  # the host is silent
    assert state.phase == OVER and state.result["winners"] == ["Bo"] and state.result["tol"] == {"Bo": 2}
    assert [(d["tied"], d["chosen"], d["by"]) for d in state.result["draws"]] == \
        [(PLAYERS, "Bo", "host"), (["Ana", "Cy"], state.result["ec"], "seed")]
    assert [e.kind for e in events] == ["nm_end"]


def test_the_ledger_charges_the_garnets_spent_and_awards_the_tokens_and_the_ec():
    state = new(rounds=1, garnets={"Ana": 2})
    state, _ = send(state, "Ana", "CharA: Rooftop, Lunch Alone, 5, confess\nhide CharA")
    state, _ = send(state, "Bo", "CharA: Schoolyard, Sports Practice, 1, confess")
    state, _ = end_round(state)
    assert [e.to_json() for e in GAME.ledger_entries(state)] == [
        {"player": "Ana", "tol": 0, "garnets": -2, "ec": 0, "reason": "Nisemonogatari: garnets spent"},
        {"player": "Ana", "tol": 2, "garnets": 0, "ec": 0, "reason": "Nisemonogatari"},
        {"player": "Cy", "tol": 0, "garnets": 0, "ec": 1, "reason": "Nisemonogatari"},
    ]


def test_the_hosts_tally_shows_the_orders_hides_and_boosts_standing():
    state, _ = send(new().with_(names={"Ana:A": "Hitagi"}), "Ana", "Hitagi: Rooftop, Lunch Alone, 2, confess\n"
                                                                     "hide CharA\nboost CharA")
    text = Renderer("bbcode").text(GAME.tally(state, state.ends), "nisemonogatari")
    assert "Hitagi (Ana's CharA): Rooftop, Lunch Alone, 2, confesses" in text
    assert "Hidden: Hitagi (Ana's CharA). Boosted: Hitagi (Ana's CharA)." in text


def test_the_state_survives_storage_as_json():
    state, _ = send(new(), "Ana", "CharA: Rooftop, Lunch Alone, 5, confess\nhide CharA")
    state, _ = send(state, "Bo", "rename CharA to Koyomi", where="thread")
    state, _ = end_round(state)
    assert GAME.from_json(GAME.to_json(state)) == state


# ---- setup -------------------------------------------------------------------------------------------
def test_the_game_refuses_to_start_without_the_hosts_chart():
    with pytest.raises(ConfigError, match="cannot start without the host's chart") as err:
        new(chart="")
    assert 'chart = "example"' in (err.value.fix or "")
    with pytest.raises(ConfigError, match="no chart file 'nowhere.toml'"):
        new(chart="nowhere.toml")
    with pytest.raises(ConfigError, match="garnets are given for 'Zed'"):
        new(garnets={"Zed": 2})


# ---- properties --------------------------------------------------------------------------------------
EVENT_NAMES = ["Sports Practice", "Teach Rob a Lesson", "Share Lunch", "Food Fight", "Student Council Activities",
               "Study Session", "Lunch Alone", "Wait for Senpai"]
_order = st.tuples(st.sampled_from(PLAYERS), st.sampled_from("ABC"), st.sampled_from(EVENT_NAMES),
                   st.integers(0, 7), st.booleans(), st.sampled_from(PLAYERS), st.sampled_from("ABC"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_order, max_size=9), min_size=1, max_size=4),
       st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(("hide", "boost")), st.sampled_from("ABC")),
                max_size=4))
def test_adoration_is_never_negative_initiative_stays_within_five_and_hidden_places_stay_hidden(rounds, spends):
    state = new(rounds=len(rounds))
    renderer = Renderer("markdown")
    for orders in rounds:
        for player, slot, event, init, confess, who, target in orders:
            line = f"Char{slot}: {event}, {init} initiative, target {who}'s Char{target}" + (", confess" * confess)
            state, _ = send(state, player, line)
            for p in PLAYERS:
                assert sum(o["initiative"] for c, o in state.orders.items() if c.startswith(f"{p}:")) <= 5
        for player, kind, slot in spends:
            state, _ = send(state, player, f"{kind} Char{slot}")
        state, events = end_round(state)
        record = last(state)
        assert all(v >= 0 for v in state.adoration.values()) and all(v >= 0 for v in state.hearts.values())
        [post] = [e for e in events if e.kind == "nm_round_end"]
        text = renderer.text(post, "nisemonogatari")
        for char in record["hidden"]:
            label = state.label(char)
            line = next(x for x in text.splitlines() if x.startswith(f"- {label}:"))
            assert not any(place.title() in line for place in LOCATIONS)
            assert not any(name in line for name in EVENT_NAMES)
    assert state.phase == OVER


# ---- the sample --------------------------------------------------------------------------------------
def test_the_sample_game_replays_to_the_rounds_computed_by_hand():
    from forumbot.config.paths import data_dir
    from forumbot.engine.replay import replay

    result = replay(data_dir("samples") / "nisemonogatari-game.toml")
    assert result.differences() == []
    rounds = result.state["rounds"]
    assert [r["stored"] for r in rounds] == [
        {"Ana": 10.5, "Bo": 10.5, "Cy": 10.5},
        {"Ana": 10.0, "Bo": 10.0, "Cy": 10.0, "Di": 21.88, "Ed": 33.0},
        {},
        {"Ana": 24.75, "Bo": 24.75, "Cy": 24.75, "Di": 26.88, "Ed": 18.0},
        {"Ana": 12.0, "Bo": 12.0, "Cy": 12.0},
        {"Ana": 9.38, "Bo": 9.38, "Cy": 9.38, "Di": 16.88, "Ed": 15.0},
    ]
    assert [sorted({c["multiplier"] for c in r["confessions"]}) for r in rounds] == \
        [[1.5], [1.25, 1.5], [], [1.25, 1.5], [1.5], [1.25]]
    assert [r["hidden"] for r in rounds] == [["Bo:A"], [], ["Ana:C"], [], [], []]
    assert rounds[3]["moved"] == {"Ed:A": "schoolyard"} and rounds[2]["adoration"]["Ana:C"] == 10.5
    assert rounds[0]["reveals"] == [{"to": "Di", "by": "Di:A", "about": "Bo:A", "location": "schoolyard",
                                     "event": "sports practice"}]
    public = [m["text"] for m in result.messages if m["kind"] == "nm_round_end"]
    assert "Bo's CharA: hidden; confessed" in public[0] and "Ana's CharC: hidden" in public[2]


def test_a_short_russian_game_posts_every_line_in_russian():
    ru = Renderer("bbcode", "ru")
    state = new(["Анна", "Борис", "Вера"], rounds=1)
    [opening] = [ru.text(e, "nisemonogatari") for e in GAME.start_events(state)]
    assert "Игроки: Анна, Борис, Вера. 1 раунд; в каждом раунде у вас 5 инициатив на ваших персонажей" in opening
    assert "«скрыть CharB» (2 граната)" in opening and "[b]Локации и события[/b]" in opening
    assert "- Школьный двор: Sports Practice:" in opening and "- от 4: x1.25" in opening
    state, events = send(state, "Анна", "CharA: школьный двор, Sports Practice, 3 инициативы, признаться\n"
                                        "CharB: крыша, Lunch Alone, 2 инициативы", "ru")
    state, events = send(state, "Анна", "усилить CharA", "ru")
    orders = ru.text(events[-1], "nisemonogatari")
    assert "[b]Раунд 1: ваши приказы[/b]" in orders
    assert "- CharB игрока Анна: Крыша, Lunch Alone, 2 инициативы" in orders
    assert "- CharA игрока Анна: Школьный двор, Sports Practice, 3 инициативы, признаётся" in orders
    assert "- CharC игрока Анна: приказов нет (бездействует)" in orders and "Осталось инициативы: 0." in orders
    assert "Усилен в этом раунде: CharA игрока Анна." in orders
    state, _ = send(state, "Борис", "CharA: двор, Sports Practice, 5 инициатив, признаться", "ru")
    state, events = end_round(state)
    public = ru.text(next(e for e in events if e.kind == "nm_round_end"), "nisemonogatari")
    assert "[b]Nisemonogatari: раунд 1 окончен[/b]" in public and "- CharA игрока Вера: бездействует" in public
    assert "Сэму-семпаю признались 2 персонажа: CharA игрока Анна (x1.5, усилен), CharA игрока Борис (x1.5)." in public
    private = ru.text(next(e for e in events if e.data.get("pm_to") == "Анна"), "nisemonogatari")
    assert "[b]Раунд 1: в сердце Сэма-семпая 7.20 вашего Обожания[/b]" in private
    assert "+1 инициативы в следующем раунде" in private and "Списано гранатов: 2; осталось 2." in private
    end = ru.text(next(e for e in events if e.kind == "nm_end"), "nisemonogatari")
    assert "- Борис: в сердце Сэма-семпая 12.00, уроков Робу: 0; 2 Жетона Жизни" in end
    assert "Победитель: Борис." in end and "Кандидат на выбывание: Вера." in end
    for text in (orders, public, private, end):
        for english in ("Round", "Initiative", "confess", "Winner", "Garnets", "idle", "heart"):
            assert english not in text
