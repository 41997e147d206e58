"""One test per rule of the role list and the priority table (seed 002, second and third parts)."""

from __future__ import annotations

from datetime import timedelta

from test_mafia_night import act_of, codes, day_passes, game, last_night, lines, night, refusal, send

from forumbot.games.mafia import MAFIA
from forumbot.model import Intent


def two_nights(first, second, **options):
    state, _ = night(game(**options), *first)
    state = day_passes(state)
    return night(state, *second)


# ---- 1.1 private detective -------------------------------------------------------------------------
def test_detective_sees_where_target_went_and_kind():
    state, events = night(game(), ("Det", "trace", "Mas"), ("Mas", "block", "Ins"))
    assert lines(events, "Det") == [("went", {"target": "Mas", "to": "Ins", "kind": "minus"})]


def test_detective_sees_blocked_or_skipped_as_nowhere():
    _, events = night(game(), ("Det", "trace", "Ins"), ("Ins", "check", "Wri"), ("Mas", "block", "Ins"))
    assert lines(events, "Det") == [("went_nowhere", {"target": "Ins"})]
    _, events = night(game(), ("Det", "trace", "Wri"))
    assert lines(events, "Det") == [("went_nowhere", {"target": "Wri"})]


def test_detective_sees_the_final_target_of_a_redirect():
    _, events = night(game(), ("Det", "trace", "Ast"), ("Ast", "heal", "Ins"), ("Tax", "redirect", "Ast", "Wri"))
    assert lines(events, "Det") == [("went", {"target": "Ast", "to": "Wri", "kind": "plus"})]


def test_information_sees_the_future_kills_included():
    _, events = night(game(), ("Det", "trace", "Man"), ("Man", "kill", "Wri"))
    assert lines(events, "Det") == [("went", {"target": "Man", "to": "Wri", "kind": "minus"})]


def test_detective_has_one_protection_from_a_kill():
    state, _ = night(game(), ("Man", "kill", "Det"))
    assert "Det" in state.alive
    state, _ = night(day_passes(state), ("Man", "kill", "Det"))
    assert "Det" not in state.alive


# ---- 1.2 psychologist ------------------------------------------------------------------------------
def test_psychologist_learns_status():
    _, events = night(game(), ("Psy", "check", "Wri"))
    assert lines(events, "Psy") == [("status", {"target": "Wri", "status": "negative"})]


def test_psychologist_learns_assistant_who_visits_target():
    _, events = night(game(), ("Psy", "check", "Wri"), ("Ast", "heal", "Wri"))
    assert ("assistant_is", {"target": "Wri", "assistant": "Ast"}) in lines(events, "Psy")


# ---- 1.3 bouncer -----------------------------------------------------------------------------------
def test_bouncer_blocks_and_counts_visitors_himself_included_self_target_not():
    _, events = night(game(), ("Bou", "block", "Wri"), ("Wri", "weapon", "Wri"), ("Ast", "heal", "Wri"),
                      ("Ins", "check", "Wri"))
    assert ("visitors", {"target": "Wri", "count": 3}) in lines(events, "Bou")   # Bou, Ast, Ins
    assert codes(events, "Wri") == ["failed"]


def test_bouncer_cannot_block_same_player_twice_in_a_row():
    state, _ = night(game(), ("Bou", "block", "Wri"))
    state = day_passes(state)
    assert refusal(send(state, "Bou", "block", "Wri")[1]) == "streak"


def test_bouncer_block_ignored_by_maniac_is_a_failure():
    state, events = night(game(), ("Bou", "block", "Man"), ("Man", "kill", "Wri"))   # night 0: bypass block
    assert codes(events, "Bou") == ["no_effect"] and "Wri" not in state.alive
    assert not act_of(state, "Bou")["succeeded"]


def test_bouncer_is_not_blocked_and_blocker_gets_failure():
    state, events = night(game(), ("Mas", "block", "Bou"), ("Bou", "block", "Wri"))
    assert codes(events, "Mas") == ["no_effect"] and act_of(state, "Bou")["succeeded"]


# ---- 2 maniac --------------------------------------------------------------------------------------
def test_maniac_alternates_bypass_block_protection_redirect():
    state, _ = night(game(), ("Man", "kill", "Wri"), ("Mas", "block", "Man"))          # block ignored
    assert "Wri" not in state.alive and act_of(state, "Man")["bypass"] == "block"
    state, _ = night(day_passes(state), ("Man", "kill", "Ins"), ("Pol", "protect", "Ins"))
    assert "Ins" not in state.alive and act_of(state, "Man")["bypass"] == "protect"
    state, _ = night(day_passes(state), ("Man", "kill", "Ast"), ("Tax", "redirect", "Man", "Tax"))
    assert "Ast" not in state.alive and act_of(state, "Man")["bypass"] == "redirect"
    state, _ = night(day_passes(state), ("Man", "kill", "Psy"), ("Mas", "block", "Man"))
    assert act_of(state, "Man")["bypass"] == "block" and "Psy" not in state.alive
    state, _ = night(day_passes(state), ("Man", "kill", "Thi"), ("Mas", "block", "Man"))
    assert act_of(state, "Man")["bypass"] == "protect" and "Thi" in state.alive       # blocked this time


def test_maniac_skipped_night_does_not_turn_the_rotation():
    state, _ = night(game())
    state, _ = night(day_passes(state), ("Man", "kill", "Wri"))
    assert act_of(state, "Man")["bypass"] == "block"


def test_maniac_may_skip_only_one_night():
    state, events = night(game())
    assert "missed_kill" not in codes(events, "Host")
    state, events = night(day_passes(state))
    assert "missed_kill" in codes(events, "Host")


def test_maniac_one_protection_from_attempt_or_hanging():
    state, _ = night(game(), ("Det", "kill", "Man"))
    assert "Man" in state.alive
    state, _ = night(day_passes(state), ("Det", "kill", "Man"))
    assert "Man" not in state.alive


def test_maniac_protection_from_hanging_is_the_same_charge():
    state = game("day1")
    for voter in state.alive[:7]:
        state, _ = MAFIA.apply(state, Intent("vote", {"target": "Man"}, author=voter,
                                             at=state.phase_started + timedelta(minutes=1)))
    assert state.days[-1].saved == ("Man",) and "Man" in state.alive
    state, _ = night(state, ("Det", "kill", "Man"))
    assert "Man" not in state.alive


# ---- 3.1 inspector ---------------------------------------------------------------------------------
def test_inspector_checks_status():
    _, events = night(game(), ("Ins", "check", "Det"))
    assert lines(events, "Ins") == [("status", {"target": "Det", "status": "negative"})]


def test_inspector_checking_assistant_gets_acquainted():
    _, events = night(game(), ("Ins", "check", "Ast"))
    assert ("met_assistant", {"assistant": "Ast"}) in lines(events, "Ins")
    assert ("met_inspector", {"inspector": "Ins"}) in lines(events, "Ast")


# ---- 3.2 assistant ---------------------------------------------------------------------------------
def test_assistant_heal_saves_and_learns_role():
    state, events = night(game(), ("Man", "kill", "Wri"), ("Ast", "heal", "Wri"))
    assert "Wri" in state.alive and ("healed_role", {"target": "Wri", "role": "Writer"}) in lines(events, "Ast")


def test_assistant_cannot_heal_same_player_twice_in_a_row():
    state, _ = night(game(), ("Ast", "heal", "Wri"))
    assert refusal(send(day_passes(state), "Ast", "heal", "Wri")[1]) == "streak"


def test_assistant_may_heal_again_after_a_redirect():
    state, _ = night(game(), ("Ast", "heal", "Wri"), ("Tax", "redirect", "Ast", "Ins"))
    state = day_passes(state)
    assert send(state, "Ast", "heal", "Wri")[1][0].kind == "action_ack"
    assert refusal(send(state, "Ast", "heal", "Ins")[1]) == "streak"   # Ins was the one actually healed


# ---- 3.3 writer ------------------------------------------------------------------------------------
def test_writer_learns_weapon():
    _, events = night(game(), ("Wri", "weapon", "Ast"))
    assert lines(events, "Wri") == [("weapon", {"target": "Ast", "weapon": "syringe"})]


def test_writer_learns_town_count_of_the_previous_night_end():
    state, events = night(game(), ("Man", "kill", "Ins"))
    assert "town_count" not in codes(events, "Wri")
    state, events = night(day_passes(state), ("Man", "kill", "Ast"))
    assert ("town_count", {"count": 7, "night": 0}) in lines(events, "Wri")


# ---- 3.4 masseur -----------------------------------------------------------------------------------
def test_masseur_blocks_the_action():
    state, events = night(game(), ("Mas", "block", "Det"), ("Det", "kill", "Wri"))
    assert "Wri" in state.alive and codes(events, "Det") == ["failed"]


def test_masseur_same_player_at_most_twice_in_a_row():
    state, _ = two_nights([("Mas", "block", "Det")], [("Mas", "block", "Det")])
    assert refusal(send(day_passes(state), "Mas", "block", "Det")[1]) == "streak"


def test_masseur_cannot_be_blocked():
    state, events = night(game(), ("Bou", "block", "Mas"), ("Mas", "block", "Det"))
    assert act_of(state, "Mas")["succeeded"] and codes(events, "Bou") == ["no_effect"]


# ---- 3.5 policeman ---------------------------------------------------------------------------------
def test_policeman_protection_turns_the_attempt_on_himself():
    state, _ = night(game(), ("Det", "kill", "Wri"), ("Pol", "protect", "Wri"))
    assert "Wri" in state.alive and "Pol" in state.alive
    assert state.memory["Pol"]["kill_shields_used"] == 1


def test_policeman_has_two_protections_from_attempts():
    state, _ = night(game(), ("Det", "kill", "Pol"))
    state, _ = night(day_passes(state), ("Det", "kill", "Pol"))
    assert "Pol" in state.alive
    state, _ = night(day_passes(state), ("Det", "kill", "Pol"))
    assert "Pol" not in state.alive


def test_policeman_kills_thief_he_visits():
    state, events = night(game(), ("Pol", "protect", "Thi"), ("Det", "trace", "Pol"))
    assert "Thi" not in state.alive and ("killed_thief", {"target": "Thi"}) in lines(events, "Pol")
    assert lines(events, "Det") == [("went", {"target": "Pol", "to": "Thi", "kind": "minus"})]


def test_blocked_policeman_neither_kills_thief_nor_learns():
    state, events = night(game(), ("Pol", "protect", "Thi"), ("Bou", "block", "Pol"))
    assert "Thi" in state.alive and codes(events, "Pol") == ["failed"]


# ---- 3.6 thief -------------------------------------------------------------------------------------
def test_thief_learns_status_and_uses_the_stolen_action_next_night():
    state, events = night(game(), ("Thi", "steal", "Ast"), ("Ast", "heal", "Wri"))
    assert ("status", {"target": "Ast", "status": "positive"}) in lines(events, "Thi")
    assert "heal_done" in codes(events, "Ast")
    state = day_passes(state)
    state, events = night(state, ("Thi", "stolen", "Ins"), ("Man", "kill", "Ins"))
    assert "Ins" in state.alive and act_of(state, "Thi")["action"] == "heal"


def test_thief_stolen_kill_and_redirect_become_a_block():
    state, _ = night(game(), ("Thi", "steal", "Man"), ("Man", "kill", "Wri"))
    state = day_passes(state)
    state, events = night(state, ("Thi", "stolen", "Det"), ("Det", "kill", "Ins"))
    assert act_of(state, "Thi")["action"] == "block" and "Ins" in state.alive


def test_thief_robbed_player_is_not_blocked():
    state, _ = night(game(), ("Thi", "steal", "Det"), ("Det", "kill", "Wri"))
    assert "Wri" not in state.alive


def test_thief_cannot_revisit_until_everyone_else_was_robbed():
    cast = {"T": "thief", "A": "writer", "B": "inspector", "C": "masseur", "D": "assistant", "E": "maniac"}
    state, _ = night(game(cast=cast), ("T", "steal", "A"))
    state = day_passes(state)
    assert refusal(send(state, "T", "steal", "A")[1]) == "revisit"
    for victim in ("B", "C", "D", "E"):
        state, _ = night(state, ("T", "steal", victim))
        state = day_passes(state) if state.phase != "over" else state
    assert send(state, "T", "steal", "A")[1][0].kind == "action_ack"


def test_thief_stolen_action_is_only_for_the_next_night():
    state, _ = night(game(), ("Thi", "steal", "Ast"))
    state, _ = night(day_passes(state))
    assert refusal(send(day_passes(state), "Thi", "stolen", "Wri")[1]) == "no_loot"


def test_thief_knows_at_night_end_whether_the_policeman_is_alive():
    state, events = night(game(), ("Man", "kill", "Pol"))          # the policeman's shields save him
    assert codes(events, "Thi") == ["policeman_alive"]
    state, events = night(game(dead=("Pol",)))
    assert codes(events, "Thi") == ["policeman_gone"]


# ---- 3.7 taxi --------------------------------------------------------------------------------------
def test_taxi_redirects_and_the_redirected_player_knows():
    state, events = night(game(), ("Det", "kill", "Wri"), ("Tax", "redirect", "Det", "Ins"))
    assert "Ins" not in state.alive and "Wri" in state.alive
    assert "redirected" in codes(events, "Det")


def test_taxi_cannot_move_himself_but_may_move_others_onto_himself():
    state = game()
    assert refusal(send(state, "Tax", "redirect", "Tax", "Wri")[1]) == "self_target"
    assert send(state, "Tax", "redirect", "Wri", "Tax")[1][0].kind == "action_ack"


def test_taxi_cannot_use_last_nights_names_unless_fewer_than_five_alive():
    state, _ = night(game(), ("Tax", "redirect", "Wri", "Ins"))
    state = day_passes(state)
    assert refusal(send(state, "Tax", "redirect", "Ast", "Ins")[1]) == "taxi_names"
    assert refusal(send(state, "Tax", "redirect", "Wri", "Ast")[1]) == "taxi_names"
    cast = {"T": "taxi", "A": "writer", "B": "inspector", "M": "maniac"}
    small, _ = night(game(cast=cast), ("T", "redirect", "A", "B"))
    assert send(day_passes(small), "T", "redirect", "A", "B")[1][0].kind == "action_ack"


# ---- 3.8 politician --------------------------------------------------------------------------------
def test_politician_flips_status_for_the_night():
    _, events = night(game(), ("Pli", "status", "Det"), ("Ins", "check", "Det"))
    assert lines(events, "Ins") == [("status", {"target": "Det", "status": "positive"})]


def test_politician_protege_cannot_be_hanged_and_he_learns_the_role():
    state, _ = night(game(), ("Pli", "status", "Det"))
    assert state.immune == frozenset({"Det"})
    events = []
    for voter in state.alive[1:8]:
        state, events = MAFIA.apply(state, Intent("vote", {"target": "Det"}, author=voter,
                                                  at=state.phase_started + timedelta(minutes=1)))
    assert state.days[-1].saved == ("Det",) and "Det" in state.alive
    told = [e for e in events if e.kind == "night_result" and e.data["pm_to"] == "Pli"]
    assert told and told[0].data["lines"][0]["params"]["role"] == "Private detective"
    end = next(e for e in events if e.kind == "day_end")
    assert "detective" not in str(end.data).lower()


def test_politician_cannot_target_himself_or_one_player_three_nights_in_a_row():
    state = game()
    assert refusal(send(state, "Pli", "status", "Pli")[1]) == "self_target"
    state, _ = two_nights([("Pli", "status", "Wri")], [("Pli", "status", "Wri")])
    assert refusal(send(day_passes(state), "Pli", "status", "Wri")[1]) == "streak"


def test_politician_hang_protection_only_after_sending_an_action():
    def hang_politician(state):
        for voter in [n for n in state.alive if n != "Pli"][:7]:
            state, _ = MAFIA.apply(state, Intent("vote", {"target": "Pli"}, author=voter,
                                                 at=state.phase_started + timedelta(minutes=1)))
        return state
    state, _ = night(game())
    assert "Pli" not in hang_politician(day_passes_only(state)).alive
    state, _ = night(game(), ("Pli", "status", "Wri"))
    state = hang_politician(day_passes_only(state))
    assert "Pli" in state.alive and state.days[-1].saved == ("Pli",)


def day_passes_only(state):
    assert state.is_day
    return state


# ---- the priority table: power actions -> tests/test_mafia_collisions.py, one test per collision case --


# ---- the priority table: kills, protection, healing --------------------------------------------------
def test_protector_who_dies_still_protects():
    state, _ = night(game(), ("Man", "kill", "Ast"), ("Ast", "heal", "Wri"), ("Det", "kill", "Wri"))
    assert "Ast" not in state.alive and "Wri" in state.alive


def test_policeman_protection_takes_the_maniacs_attempt_first():
    state, _ = night(game(), ("Man", "kill", "Wri"), ("Det", "kill", "Wri"), ("Pol", "protect", "Wri"),
                     ("Mas", "block", "Bou"))
    assert "Wri" not in state.alive                           # one attempt taken, the mafia's still lands
    assert state.memory["Pol"]["kill_shields_used"] == 1


def test_healing_after_protection_saves_the_target_from_every_attempt():
    state, _ = night(game(), ("Man", "kill", "Wri"), ("Det", "kill", "Wri"), ("Ast", "heal", "Wri"))
    assert "Wri" in state.alive


def test_personal_protection_comes_last_after_healing():
    state, _ = night(game(), ("Man", "kill", "Det"), ("Ast", "heal", "Det"))
    assert "Det" in state.alive and not state.memory.get("Det", {}).get("kill_shields_used")


def test_maniac_protection_bypass_ignores_protect_but_not_heal_by_default():
    state, _ = night(game())                                  # skip: the rotation still starts at block
    state, _ = night(day_passes(state), ("Man", "kill", "Wri"))
    state, _ = night(day_passes(state), ("Man", "kill", "Ins"), ("Ast", "heal", "Ins"))
    assert act_of(state, "Man")["bypass"] == "protect" and "Ins" in state.alive
    state, _ = night(game(maniac_protect_bypass=["protect", "heal"]), ("Man", "kill", "Psy"))
    state, _ = night(day_passes(state), ("Man", "kill", "Ins"), ("Ast", "heal", "Ins"))
    assert "Ins" not in state.alive
    assert last_night(state)["deaths"] == ["Ins"]
