"""Food Chain as the bot plays it: selection and rounds by PM through the real grammar, seeded defaults,
what each post tells whom, the end of the game in each of the seed's cases, the EC vote, storage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from helpers import apply_post
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import load_ruleset
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.games.base import GameSetup
from forumbot.games.foodchain.rules import HABITATS
from forumbot.games.foodchain.state import EC_VOTE, OVER, ROUND, FCState
from forumbot.model import Intent, PlayerRef
from forumbot.render import Renderer

GAME = get_game("foodchain")
START = datetime(2026, 8, 1, 12, tzinfo=UTC)
_posts = iter(range(10**6))


def new(players, **options) -> FCState:
    return GAME.new(GameSetup("foodchain", tuple(PlayerRef(p) for p in players), START,
                              options={**load_ruleset("foodchain", "foodchain"), "seed": "t", **options}))


def pm(state: FCState, author: str, text: str, lang: str = "en"):
    """A PM read by the real grammar and applied, and the batch's replies."""
    return apply_post(GAME, state, author, text, lang=lang)


def started(cast: dict[str, str], **options) -> FCState:
    """A game in round 1 with each player's selection sent."""
    state = new(list(cast), **options)
    for player, text in cast.items():
        state, _ = pm(state, player, text)
    state, _ = GAME.on_deadline(state, state.ends)
    return state


def end_round(state: FCState):
    return GAME.on_deadline(state, state.ends)


def of(events, kind):
    return [e for e in events if e.kind == kind]


# ---- selection ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("lang", "text", "pick"), [
    ("en", "Predator, main habitat Forest, starting in River",
     {"animal": "predator", "main": "forest", "start": "river"}),
    ("en", "select Prey Sky Field", {"animal": "prey", "main": "sky", "start": "field"}),
    ("en", "Hunter, start Sky", {"animal": "hunter", "start": "sky"}),
    ("en", "I choose Scavenger, starting location: the River", {"animal": "scavenger", "start": "river"}),
    ("en", "Predator (Forest), start: Field", {"animal": "predator", "main": "forest", "start": "field"}),
    ("ru", "хищник, основной ареал лес, старт в небе", {"animal": "predator", "main": "forest", "start": "sky"}),
    ("ru", "выбор: охотник, старт в поле", {"animal": "hunter", "start": "field"}),
    ("ru", "жертва, дом река, начну в лесу", {"animal": "prey", "main": "river", "start": "forest"}),
])
def test_selection_by_pm_animal_main_habitat_and_starting_location(lang, text, pick):
    state, events = pm(new(["A", "B"]), "A", text, lang)
    assert state.picks["A"] == pick
    assert [(e.kind, e.data["pm_to"], e.data["missing"]) for e in events] == [("fc_reply", "A", [])]


def test_an_incomplete_selection_gets_a_pm_naming_what_is_missing_and_later_messages_add_to_it():
    state, events = pm(new(["A", "B"]), "A", "predator")
    assert events[0].data["missing"] == ["Main Habitat", "starting location"]
    assert "Still missing: Main Habitat, starting location" in Renderer("markdown").text(events[0], "foodchain")
    state, events = pm(state, "A", "I choose predator, home Sky, start Field")
    assert state.picks["A"] == {"animal": "predator", "main": "sky", "start": "field"}
    assert events[0].data["missing"] == []


def test_no_selection_randomizes_animal_habitat_and_location_from_the_seed():
    one, events = GAME.on_deadline(new(["A", "B", "C"]), START + timedelta(hours=48))
    again, _ = GAME.on_deadline(new(["A", "B", "C"]), START + timedelta(hours=48))
    assert one.animals == again.animals and one.location == again.location and one.phase == ROUND
    assert all(set(one.randomized[p]) >= {"animal", "start"} for p in "ABC")
    assigned = of(events, "fc_assigned")
    assert [e.data["pm_to"] for e in assigned] == ["A", "B", "C"] and all(e.data["randomized"] for e in assigned)
    others = [GAME.on_deadline(new(["A", "B", "C"], seed=s), START)[0].animals for s in "abcdefgh"]
    assert any(a != one.animals for a in others)


def test_a_game_needs_a_seed():
    with pytest.raises(ConfigError, match="seed"):
        new(["A", "B"], seed="")


# ---- rounds --------------------------------------------------------------------------------------------
CAST = {"Pred": "Predator, main Forest, start Forest", "Hunt": "Hunter, start Forest",
        "Prey": "Prey, main Field, start Forest", "Scav": "Scavenger, start Sky"}


def test_attacks_are_on_players_in_the_same_habitat_at_most_two_a_round():
    state = started(CAST)
    state, events = pm(state, "Pred", "attack Scav")
    note = of(events, "fc_attack_note")[0].data
    assert (note["elsewhere"], note["kept"], state.attacks["Pred"]) == (["Scav"], [], [])
    state, _ = pm(state, "Pred", "attack Hunt and Prey")
    assert state.attacks["Pred"] == ["Hunt", "Prey"] and state.attempts["Pred"] == []
    _, events = pm(state, "Prey", "attack Hunt")
    assert events[0].data["reason"] == "only Hunters and Predators attack"
    _, events = pm(state, "Pred", "attack Hunt\nattack Pred")
    assert of(events, "fc_attack_note")[0].data["dropped"] == [{"name": "Pred", "why": "self"}]


def test_a_third_attack_in_one_submission_is_refused_and_a_new_submission_replaces_the_attacks():
    cast = {**CAST, "Extra": "Prey, main Sky, start Forest"}
    state = started(cast)
    state, events = pm(state, "Pred", "attack Hunt and Prey\nattack Extra")
    assert state.attacks["Pred"] == ["Hunt", "Prey"] and "at most 2 attacks" in events[0].data["reason"]
    state, _ = pm(state, "Pred", "attack Extra")
    assert state.attacks["Pred"] == ["Extra"]
    state, _ = pm(state, "Pred", "no attacks")
    assert state.attacks["Pred"] == []


CROWD = {"Pia": "Prey, main Sky, start Forest", "Pat": "Prey, main Sky, start Forest",
         "Pip": "Prey, main Sky, start Forest", "Hal": "Hunter, start Forest", "Sid": "Prey, main Sky, start Field",
         "Pred": "Predator, main Forest, start Forest"}


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "attack Pia, Pat and Pip"), ("en", "attack Pia, Pat, Pip"), ("en", "attack Pia and Pat and Pip"),
    ("ru", "атакую Pia, Pat и Pip"), ("ru", "убиваю Pia, Pat, Pip"),
])
def test_an_attack_naming_more_players_than_the_rules_allow_is_refused_whole_naming_the_limit(lang, text):
    state = started(CROWD)
    after, events = pm(state, "Hal", text, lang)
    assert after.attacks.get("Hal", []) == [] and after.attempts.get("Hal", []) == []
    refused = of(events, "rejected")[0].data
    assert refused["code"] == "fc_too_many_attacks" and refused["params"]["names"] == "Pia, Pat, Pip"
    text = Renderer("markdown", lang).text(of(events, "rejected")[0], "foodchain")
    assert ("at most 2 attacks a round: you named 3 (Pia, Pat, Pip)" if lang == "en"
            else "атак за раунд не больше 2, а вы назвали 3 (Pia, Pat, Pip)") in text


@pytest.mark.parametrize(("lang", "text"), [("en", "attack Hal and Sid"), ("ru", "атакую Hal и Sid")])
def test_an_attack_on_a_player_elsewhere_keeps_the_valid_target_and_reveals_the_attempt(lang, text):
    state = started(CROWD)
    state, events = pm(state, "Pred", text, lang)
    assert state.attacks["Pred"] == ["Hal"] and state.attempts["Pred"] == ["Sid"]
    note = Renderer("markdown", lang).text(of(events, "fc_attack_note")[0], "foodchain")
    assert ("Sid is not in the Forest with you this round" if lang == "en"
            else "Игрок Sid в этом раунде не в лесу с вами") in note
    assert "Hal" in Renderer("markdown", lang).text(of(events, "fc_reply")[0], "foodchain")
    after, events = end_round(state)
    assert "Hal" in after.dead                         # the valid attack stands: the Hunter is eaten
    tried = [a for a in after.history[0]["attacks"] if a["target"] == "Sid"]
    assert tried == [{"attacker": "Pred", "target": "Sid", "location": "forest", "succeeded": False,
                      "why": "the target was in another location"}]
    seen = {e.data["pm_to"]: e.data["attacks"] for e in of(events, "fc_attacks_seen")}
    assert {"attacker": "Pred", "target": "Sid"} in seen["Pia"]      # the Forest is told of the attempt
    assert "Sid" not in seen or {"attacker": "Pred", "target": "Sid"} not in seen["Sid"]


@pytest.mark.parametrize(("lang", "text"), [("en", "attack Pia and move to River"),
                                            ("ru", "атакую Pia и иду в реку")])
def test_a_list_of_names_ends_where_another_command_starts(lang, text):
    state, events = pm(started(CROWD), "Hal", text, lang)
    assert (state.attacks["Hal"], state.moves["Hal"], of(events, "rejected")) == (["Pia"], "river", [])


@pytest.mark.parametrize(("lang", "text"), [("en", "attack Pia and Zed"), ("ru", "атакую Pia и Zed")])
def test_an_attack_naming_no_player_keeps_the_others_and_says_which_name_was_left_out(lang, text):
    state = started(CROWD)
    state, events = pm(state, "Hal", text, lang)
    assert state.attacks["Hal"] == ["Pia"]
    note = of(events, "fc_attack_note")[0]
    assert note.data["dropped"] == [{"name": "Zed", "why": "unknown"}]
    assert ("'Zed' is not a player: left out" if lang == "en" else "«Zed» — не игрок: не учтено") \
        in Renderer("markdown", lang).text(note, "foodchain")


def test_failure_to_submit_means_no_kills_and_a_random_new_location():
    state = started(CAST)
    state, _ = pm(state, "Pred", "move to the river\nattack Prey")
    after, _ = end_round(state)
    assert after.location["Pred"] == "river"
    assert after.history[0]["attacks"] == [{"attacker": "Pred", "target": "Prey", "location": "forest",
                                            "succeeded": True, "why": "predators kill prey"}]
    assert after.location["Hunt"] in HABITATS and after.location == end_round(state)[0].location


def test_attacks_target_the_current_location_moving_away_does_not_escape_them():
    state = started(CAST)
    state, _ = pm(state, "Prey", "move to Sky")
    state, _ = pm(state, "Hunt", "attack Prey")
    after, _ = end_round(state)
    assert after.dead == {"Prey": "hunted", "Pred": "starved"}


def test_the_dead_neither_move_nor_attack():
    state = started(CAST)
    state, _ = pm(state, "Hunt", "attack Prey")
    state, _ = end_round(state)
    _, events = pm(state, "Prey", "move to Field")
    assert events[0].data["reason"] == "you are dead; the dead neither move nor attack"
    _, events = pm(state, "Hunt", "attack Prey")
    assert events[0].data["reason"] == "no one to attack: Prey is dead"


def test_the_round_post_reveals_deaths_and_new_locations_never_animals_or_points():
    state = started(CAST)
    state, _ = pm(state, "Hunt", "attack Prey\nmove to Sky")
    state, _ = pm(state, "Scav", "move to Sky")
    state, events = end_round(state)
    (post,) = of(events, "fc_round_end")
    text = Renderer("markdown").text(post, "foodchain")
    assert "Died this round: Pred, Prey." in text and "**Sky**: Hunt, Scav" in text
    for secret in ("point", "Predator", "Hunter", "starved", "hunted"):
        assert secret not in text


def test_attempted_attacks_are_told_privately_to_the_players_who_were_in_that_location():
    state = started(CAST)
    state, _ = pm(state, "Pred", "attack Hunt")
    state, events = end_round(state)
    seen = of(events, "fc_attacks_seen")
    assert sorted(e.data["pm_to"] for e in seen) == ["Hunt", "Pred", "Prey"]           # not Scav, in the Sky
    assert seen[0].data["attacks"] == [{"attacker": "Pred", "target": "Hunt"}]


def test_points_are_not_shown_until_the_end_and_the_final_post_reveals_animals_and_points():
    state = started(CAST, rounds=1)
    state, _ = pm(state, "Pred", "attack Hunt")
    state, events = end_round(state)
    # Pred and Prey (1 + 1 other in the room) both have 2: two winners choose the EC among Hunt and Scav.
    assert state.phase == EC_VOTE and state.result["winners"] == ["Pred", "Prey"] and of(events, "fc_end")
    text = Renderer("bbcode").text(of(events, "fc_end")[0], "foodchain")
    assert "Pred: Predator (Forest), 2 points" in text and "Scav: Scavenger, 1 point;" in text
    assert "met the Death Condition: fewer than 9 animals died" in text
    for e in events:
        if e.kind != "fc_end":
            assert "points" not in e.data or e.kind == "fc_host_view"


# ---- the end -------------------------------------------------------------------------------------------
def test_the_winners_choose_the_ec_by_pm_among_those_who_met_their_death_condition():
    cast = {"A": "Scavenger, start Sky", "B": "Scavenger, start Sky", "C": "Prey, main Sky, start Sky",
            "H": "Hunter, start Sky"}
    state = started(cast, rounds=1, scavenger_min_dead=1)
    state, _ = pm(state, "H", "attack C")
    state, events = end_round(state)
    # H: no predator ever, 0 points; A, B: 1 death each → winners, a Token each; candidates: C only.
    assert state.result["winners"] == ["A", "B"] and state.result["ec"] == "C" and state.phase == OVER
    assert GAME.summary(state)["ledger"] == [
        {"player": "A", "tol": 1, "garnets": 0, "ec": 0, "reason": "Food Chain"},
        {"player": "B", "tol": 1, "garnets": 0, "ec": 0, "reason": "Food Chain"},
        {"player": "C", "tol": 0, "garnets": 0, "ec": 1, "reason": "Food Chain"}]


def test_all_dead_the_highest_win_four_garnets_each_the_fewest_points_is_the_ec():
    state = started({"P": "Predator, main Sky, start Sky", "S": "Scavenger, start Sky"}, rounds=1)
    state, _ = end_round(state)       # P starves (S scores 1); S: fewer than 9 dead → everyone met it
    assert state.result["case"] == "all_dead" and state.result["winners"] == ["S"]
    assert state.result["garnets"] == {"S": 4} and state.result["tol"] == {"S": 2} and state.result["ec"] == "P"
    assert state.phase == OVER


def test_a_sole_winner_earns_two_tokens_of_life():
    cast = {"P1": "Predator, main Sky, start Sky", "P2": "Predator, main River, start Field",
            "H": "Hunter, start Sky"}
    state = started(cast, rounds=1)
    state, _ = pm(state, "P1", "attack H")
    state, _ = end_round(state)        # P1 eats H; P2 starves
    assert state.result["case"] == "survivors" and state.result["winners"] == ["P1"]
    assert state.result["tol"] == {"P1": 2} and state.result["ec_candidates"] == ["P2", "H"]


def test_everyone_dead_with_the_same_points_is_all_tied():
    cast = {f"P{i}": f"Predator, main River, start {h}" for i, h in enumerate(("Sky", "Field", "Field"))}
    state, _ = end_round(started(cast, rounds=1))      # all three starve with 0 points
    assert state.result["case"] == "all_tied" and state.phase == EC_VOTE and state.result["tol"] == {}


def test_all_tied_no_tokens_a_majority_vote_counts_revealed_not_voters_random_among_the_top():
    cast = {"A": "Scavenger, start Sky", "B": "Scavenger, start Sky", "C": "Scavenger, start Field"}
    state = started(cast, rounds=1, scavenger_min_dead=0)
    state, events = end_round(state)
    assert state.result["case"] == "all_tied" and state.result["tol"] == {} and state.phase == EC_VOTE
    assert sorted(e.data["pm_to"] for e in of(events, "fc_ec_open")) == ["A", "B", "C"]
    state, _ = pm(state, "A", "EC: C")
    state, _ = pm(state, "B", "EC: A")
    state, events = pm(state, "C", "EC: B")                    # every voter has voted: settled at once
    (result,) = of(events, "fc_ec_result")
    assert result.data["counts"] == {"A": 1, "B": 1, "C": 1} and result.data["drawn"]
    assert state.result["ec"] in ("A", "B", "C") and state.phase == OVER
    text = Renderer("markdown").text(result, "foodchain")
    assert "1 vote" in text and "voted" not in text and "drawn at random" in text


def test_an_ec_vote_nobody_sends_is_drawn_at_its_deadline():
    state = started({"A": "Scavenger, start Sky", "B": "Scavenger, start Sky"}, rounds=1, scavenger_min_dead=0)
    state, _ = end_round(state)
    _, events = pm(state, "A", "EC: Nobody")
    assert events[0].kind == "rejected"
    state, events = GAME.on_deadline(state, state.ends)
    assert state.phase == OVER and state.result["ec"] in ("A", "B") and state.result["ec_drawn"]


def test_the_crowd_penalty_counts_in_the_final_points():
    cast = {f"S{i}": "Scavenger, start Sky" for i in range(6)}
    state = started(cast, rounds=1, scavenger_min_dead=0)
    state, events = end_round(state)
    assert state.result["final_points"] == {f"S{i}": -1 for i in range(6)}
    assert "after -1 for too many scavengers" in Renderer("markdown").text(of(events, "fc_end")[0], "foodchain")


def test_state_survives_storage():
    state = started(CAST)
    state, _ = pm(state, "Pred", "attack Hunt\nmove to Sky")
    assert GAME.from_json(GAME.to_json(state)) == state
    state, _ = end_round(state)
    assert GAME.from_json(GAME.to_json(state)) == state


# ---- a whole game at random ----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from(HABITATS)),
                                       max_size=40))
def test_a_random_game_keeps_its_invariants(seed, moves):
    names = [f"P{i}" for i in range(8)]
    state = GAME.on_deadline(new(names, seed=str(seed)), START)[0]
    plan = iter(moves)
    while state.phase == ROUND:
        for a, b, place in [next(plan, (0, 0, "sky")) for _ in range(4)]:
            actor, target = names[a], names[b]
            if actor in state.alive:
                state, _ = pm(state, actor, f"attack {target}\nmove to {place}")
        before = dict(state.dead)
        state, _ = end_round(state)
        assert before.items() <= state.dead.items()                        # the dead stay dead
    r = state.result
    assert set(r["winners"]) and all(r["final_points"][w] == max(r["final_points"][p] for p in (
        [p for p in names if p not in r["met"]] or names)) for w in r["winners"])
    if r["case"] == "survivors":
        assert not set(r["winners"]) & set(r["met"]) and set(r["ec_candidates"]) == set(r["met"])
    assert sum(r["tol"].values()) in (0, 2) or sum(r["tol"].values()) == len(r["winners"])


# ---- the location channels -------------------------------------------------------------------------
def test_location_channels_refuse_posts_by_players_not_there_and_the_dead_get_their_own():
    from forumbot.config.paths import data_dir
    from forumbot.engine.replay import replay

    result = replay(data_dir("samples") / "foodchain-game.toml")
    forum = result.forum
    assert forum is not None
    sky = forum.thread_posts("foodchain-game/sky")
    assert [p["body"] for p in sky if p["author"] == "Lou"] == [
        "[removed by the bot: Lou is in the River, not the Sky, this round]"]
    forest = [p["body"] for p in forum.thread_posts("foodchain-game/forest")]
    assert "Nice day in the forest, Ben." in forest and "[removed by the bot: the dead may only talk in the dead's " \
        "channel]" in forest
    assert [p["body"] for p in forum.thread_posts("foodchain-game/dead")] == ["Dee got me."]
    told = [m for m in result.messages if m.get("pm") == "Lou" and m["kind"] == "rejected"]
    assert "not in the Sky" in told[0]["text"]


def test_a_channel_is_open_to_the_players_there_this_round_and_the_dead_to_the_dead():
    state = started(CAST)
    post = Intent("post", author="Pred", post_id="x")
    assert GAME.guard_post(state, "Pred", "forest", post) == []
    assert GAME.guard_post(state, "Pred", "game", post) == []
    assert GAME.guard_post(state, "Scav", "forest", post)[0].data["reason"] == \
        "Scav is in the Sky, not the Forest, this round"
    assert GAME.guard_post(state, "Pred", "dead", post)[0].data["reason"] == "only the dead talk in the dead's channel"
    state, _ = pm(state, "Hunt", "attack Prey")
    state, _ = end_round(state)
    assert GAME.guard_post(state, "Prey", "dead", post) == []
    assert GAME.guard_post(new(["A", "B"]), "A", "sky", post) == []            # before round 1: open
    assert "sky" not in GAME.threads(new(["A", "B"], channels=False))


def test_the_sample_with_more_dead_needed_by_scavengers_has_a_sole_winner_and_a_drawn_ec():
    """The same game with scavenger_min_dead = 11: Lou and Max meet their Death Condition (10 died), Fay alone
    wins two Tokens of Life; she sends no EC, so it is drawn among the twelve others at the deadline, and
    Lou's and Max's EC messages are refused (they are not winners)."""
    from dataclasses import replace

    from forumbot.config.game import load_scenario
    from forumbot.config.paths import data_dir
    from forumbot.engine.replay import replay

    scenario = load_scenario(data_dir("samples") / "foodchain-game.toml")
    config = replace(scenario.config, options={**scenario.config.options, "scavenger_min_dead": 11})
    state = replay(replace(scenario, config=config, expect={})).state
    assert state["case"] == "survivors" and state["winners"] == ["Fay"] and state["tol"] == {"Fay": 2}
    assert state["met"]["Lou"] == state["met"]["Max"] == "few_dead"
    assert state["garnets"] == {"Fay": 2} and state["ec"] in state["ec_candidates"]
    assert len(state["ec_candidates"]) == 12 and sum(state["ec_counts"].values()) == 0


# ---- in Russian ----------------------------------------------------------------------------------------
def test_a_short_russian_game_posts_every_line_in_russian():
    cast = {"Анна": "хищник, основной ареал лес, старт в лесу", "Борис": "охотник, старт в лесу",
            "Вера": "жертва, основной ареал поле, старт в лесу", "Глеб": "падальщик, старт в небе"}
    ru = Renderer("bbcode", "ru")
    state = new(list(cast), rounds=1)
    opening = "\n".join(ru.text(e, "foodchain") for e in GAME.start_events(state))
    assert "[b]Пищевая цепь: выберите животное[/b]" in opening and "В игре 1 раунд;" in opening
    assert "до 2 атак на игроков в своей локации" in opening
    for player, text in cast.items():
        state, replies = pm(state, player, text, "ru")
    assert "[b]Ваш выбор:[/b] Падальщик, старт в небе." in ru.text(of(replies, "fc_reply")[0], "foodchain")
    state, events = GAME.on_deadline(state, state.ends)
    assigned = ru.text(next(e for e in events if e.data.get("pm_to") == "Анна"), "foodchain")
    assert "Вы — Хищник, ваш основной ареал — Лес; вы начинаете в лесу." in assigned
    state, replies = pm(state, "Анна", "атакую Борис", "ru")
    reply = ru.text(of(replies, "fc_reply")[0], "foodchain")
    assert "[b]Раунд 1[/b]: вы в лесу." in reply and "- Атаки: Борис" in reply
    state, events = end_round(state)
    seen = ru.text(next(e for e in of(events, "fc_attacks_seen") if e.data["pm_to"] == "Борис"), "foodchain")
    assert "[b]Нападения в лесу в раунде 1[/b]" in seen and "- Анна напала на Бориса" in seen
    end = ru.text(of(events, "fc_end")[0], "foodchain")
    assert "[b]Пищевая цепь: итоги[/b]" in end and "- Анна: Хищник (Лес), 2 очка; 1 Жетон Жизни" in end
    assert "- Глеб: Падальщик, 1 очко; выполнено Условие смерти:" in end
    assert "[b]Победители: Анна, Вера[/b]" in end and "Победители выбирают Кандидата на выбывание" in end
    state, replies = pm(state, "Анна", "кандидат: Глеб", "ru")
    assert "Ваш выбор Кандидата на выбывание:[/b] Глеб" in ru.text(of(replies, "fc_reply")[0], "foodchain")
    state, events = pm(state, "Вера", "кандидат: Борис", "ru")         # both winners voted: settled
    result = ru.text(of(events, "fc_ec_result")[0], "foodchain")
    assert "- Глеб: 1 голос" in result and "- Борис: 1 голос" in result
    assert "(жребий среди набравших больше всех голосов)" in result
    for text in (opening, assigned, reply, seen, end, result):
        for english in ("Food Chain", "Round", "point", "Winner", "vote", "Forest", "nobody"):
            assert english not in text
