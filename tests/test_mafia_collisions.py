"""One test per collision case of the priority table's power actions (seed 002, third part, 1).

"Все силовые НД выполняются одновременно"; the order а) blocks of the masseur and the bouncer, б) the
thief's block, в) theft, г) the taxi's redirect, д) status changes (politician, thief) settles only
actions aimed at each other; "в случае сложных коллизий, провалятся все силовые НД, для которых нельзя
однозначно указать, успех или провал".
"""

from __future__ import annotations

from test_mafia_night import CAST, act_of, codes, day_passes, game, lines, night


def with_loot(victim: str, action: str):
    """Night 1 with the thief holding what he stole from `victim` (who did `action` on the writer)."""
    state, _ = night(game(), ("Thi", "steal", victim), (victim, action, "Wri"))
    return day_passes(state)


def ok(state, actor, action=None) -> bool:
    return bool(act_of(state, actor, action)["succeeded"])


# ---- а) blocks of the masseur and the bouncer ------------------------------------------------------
def test_masseur_and_bouncer_block_each_other():
    # Neither can be blocked: both blocks arrive and do nothing, and both senders hear of the failure.
    state, events = night(game(), ("Mas", "block", "Bou"), ("Bou", "block", "Mas"))
    assert not ok(state, "Mas") and not ok(state, "Bou")
    assert codes(events, "Mas") == ["no_effect"] and codes(events, "Bou") == ["no_effect"]
    assert not any(a.get("collision") for a in state.nights[-1]["actions"])


def test_masseur_and_bouncer_block_the_same_player():
    state, events = night(game(), ("Mas", "block", "Ins"), ("Bou", "block", "Ins"), ("Ins", "check", "Det"))
    assert not ok(state, "Ins") and ok(state, "Mas") and ok(state, "Bou")
    assert ("visitors", {"target": "Ins", "count": 2}) in lines(events, "Bou")


def test_masseur_block_on_the_bouncer_does_not_stop_his_block():
    state, _ = night(game(), ("Mas", "block", "Bou"), ("Bou", "block", "Ast"), ("Ast", "heal", "Wri"),
                     ("Det", "kill", "Wri"))
    assert not ok(state, "Ast") and ok(state, "Bou") and "Wri" not in state.alive


# ---- а) before б): a block against the thief's block ----------------------------------------------
def test_masseur_block_beats_thiefs_block_aimed_at_each_other():
    state = with_loot("Bou", "block")
    state, events = night(state, ("Thi", "stolen", "Mas"), ("Mas", "block", "Thi"))
    assert act_of(state, "Thi")["action"] == "block" and not ok(state, "Thi") and ok(state, "Mas")
    assert "failed" in codes(events, "Thi")


def test_bouncer_block_beats_thiefs_block_aimed_at_each_other():
    state = with_loot("Mas", "block")
    state, _ = night(state, ("Thi", "stolen", "Bou"), ("Bou", "block", "Thi"))
    assert not ok(state, "Thi") and ok(state, "Bou")


def test_thiefs_block_stops_an_ordinary_action():
    state = with_loot("Mas", "block")
    state, _ = night(state, ("Thi", "stolen", "Ast"), ("Ast", "heal", "Wri"), ("Det", "kill", "Wri"))
    assert ok(state, "Thi") and not ok(state, "Ast") and "Wri" not in state.alive


# ---- а) before в): a block against the theft -------------------------------------------------------
def test_masseur_block_beats_theft_aimed_at_each_other():
    # The theft is stopped (no status, nothing to use tomorrow); the masseur is not blocked by a theft.
    state, events = night(game(), ("Thi", "steal", "Mas"), ("Mas", "block", "Thi"))
    assert not ok(state, "Thi") and ok(state, "Mas")
    assert not any(code == "status" for code in codes(events, "Thi"))
    assert not state.memory["Thi"].get("stolen")


def test_bouncer_block_beats_theft_aimed_at_each_other():
    state, _ = night(game(), ("Thi", "steal", "Bou"), ("Bou", "block", "Thi"))
    assert not ok(state, "Thi") and ok(state, "Bou")


def test_theft_does_not_block_the_robbed_blocker():
    state, _ = night(game(), ("Thi", "steal", "Mas"), ("Mas", "block", "Det"), ("Det", "kill", "Wri"))
    assert ok(state, "Thi") and ok(state, "Mas") and "Wri" in state.alive


# ---- а), б) before г): blocks against the taxi's redirect ---------------------------------------------
def test_masseur_block_beats_taxi_redirect_aimed_at_each_other():
    state, _ = night(game(), ("Mas", "block", "Tax"), ("Tax", "redirect", "Mas", "Wri"))
    assert act_of(state, "Mas")["final_target"] == "Tax" and ok(state, "Mas") and not ok(state, "Tax")


def test_bouncer_block_beats_taxi_redirect_aimed_at_each_other():
    state, _ = night(game(), ("Bou", "block", "Tax"), ("Tax", "redirect", "Bou", "Wri"))
    assert act_of(state, "Bou")["final_target"] == "Tax" and ok(state, "Bou") and not ok(state, "Tax")


def test_thiefs_block_beats_taxi_redirect_aimed_at_each_other():
    state = with_loot("Mas", "block")
    state, _ = night(state, ("Thi", "stolen", "Tax"), ("Tax", "redirect", "Thi", "Wri"))
    assert act_of(state, "Thi")["final_target"] == "Tax" and ok(state, "Thi") and not ok(state, "Tax")


def test_taxi_moves_a_blocker_not_aimed_at_him():
    # Not aimed at each other: simultaneous, so the block lands where the taxi sends it.
    state, _ = night(game(), ("Mas", "block", "Det"), ("Tax", "redirect", "Mas", "Wri"), ("Det", "kill", "Ins"))
    assert act_of(state, "Mas")["final_target"] == "Wri" and ok(state, "Mas") and ok(state, "Tax")
    assert "Ins" not in state.alive


def test_taxi_moves_the_blocked_player_who_still_goes_nowhere():
    state, events = night(game(), ("Mas", "block", "Det"), ("Tax", "redirect", "Det", "Psy"), ("Det", "kill", "Ins"))
    assert not ok(state, "Det") and ok(state, "Mas") and "Ins" in state.alive and "Psy" in state.alive


def test_taxi_moves_the_blocked_player_onto_the_blocker():
    state, _ = night(game(), ("Mas", "block", "Det"), ("Tax", "redirect", "Det", "Mas"), ("Det", "kill", "Ins"))
    assert not ok(state, "Det") and "Mas" in state.alive and "Ins" in state.alive


def test_taxi_moves_a_block_onto_the_unblockable():
    state, events = night(game(), ("Bou", "block", "Ins"), ("Tax", "redirect", "Bou", "Mas"),
                          ("Mas", "block", "Det"), ("Det", "kill", "Wri"))
    assert act_of(state, "Bou")["final_target"] == "Mas" and not ok(state, "Bou") and ok(state, "Mas")
    assert "no_effect" in codes(events, "Bou") and "Wri" in state.alive


# ---- в) before г): the theft against the taxi's redirect -------------------------------------------
def test_theft_beats_taxi_redirect_aimed_at_each_other():
    # The theft comes first: it lands on the taxi before his redirect could move it, so the redirect
    # reaches the thief with nothing left to move.
    state, events = night(game(), ("Thi", "steal", "Tax"), ("Tax", "redirect", "Thi", "Wri"))
    assert act_of(state, "Thi")["final_target"] == "Tax" and ok(state, "Thi") and not ok(state, "Tax")
    assert ("status", {"target": "Tax", "status": "positive"}) in lines(events, "Thi")
    assert "redirected" not in codes(events, "Thi") and "no_effect" in codes(events, "Tax")
    assert state.memory["Thi"]["stolen"]["action"] == "redirect"


def test_taxi_moves_a_theft_not_aimed_at_him():
    state, events = night(game(), ("Thi", "steal", "Ast"), ("Tax", "redirect", "Thi", "Wri"))
    assert act_of(state, "Thi")["final_target"] == "Wri" and ok(state, "Tax")
    assert ("status", {"target": "Wri", "status": "negative"}) in lines(events, "Thi")


# ---- а), б), в), г) before д): against status changes ---------------------------------------------------
def test_masseur_block_beats_status_change_aimed_at_each_other():
    state, _ = night(game(), ("Mas", "block", "Pli"), ("Pli", "status", "Mas"))
    assert ok(state, "Mas") and not ok(state, "Pli") and "Mas" not in state.immune


def test_thiefs_block_beats_status_change_aimed_at_each_other():
    state = with_loot("Mas", "block")
    state, events = night(state, ("Thi", "stolen", "Pli"), ("Pli", "status", "Thi"), ("Ins", "check", "Thi"))
    assert ok(state, "Thi") and not ok(state, "Pli") and "Thi" not in state.immune
    assert lines(events, "Ins") == [("status", {"target": "Thi", "status": "negative"})]


def test_theft_and_status_change_aimed_at_each_other_both_happen():
    # The theft does not block, so the politician's change still lands on the thief.
    state, events = night(game(), ("Thi", "steal", "Pli"), ("Pli", "status", "Thi"), ("Ins", "check", "Thi"))
    assert ok(state, "Thi") and ok(state, "Pli") and state.immune == frozenset({"Thi"})
    assert ("status", {"target": "Pli", "status": "positive"}) in lines(events, "Thi")
    assert lines(events, "Ins") == [("status", {"target": "Thi", "status": "positive"})]


def test_taxi_redirect_beats_status_change_aimed_at_each_other():
    state, events = night(game(), ("Tax", "redirect", "Pli", "Wri"), ("Pli", "status", "Tax"),
                          ("Ins", "check", "Wri"))
    assert ok(state, "Tax") and act_of(state, "Pli")["final_target"] == "Wri"
    assert state.immune == frozenset({"Wri"})
    assert lines(events, "Ins") == [("status", {"target": "Wri", "status": "positive"})]


# ---- д) status changes of the politician and the thief -------------------------------------------------
def test_politician_and_thief_change_each_others_status():
    state = with_loot("Pli", "status")
    state, events = night(state, ("Thi", "stolen", "Pli"), ("Pli", "status", "Thi"),
                          ("Ins", "check", "Thi"), ("Psy", "check", "Pli"))
    assert ok(state, "Thi") and ok(state, "Pli") and state.immune == frozenset({"Thi", "Pli"})
    assert lines(events, "Ins") == [("status", {"target": "Thi", "status": "positive"})]
    assert lines(events, "Psy") == [("status", {"target": "Pli", "status": "negative"})]


def test_politician_and_thief_status_changes_on_different_players_both_apply():
    state = with_loot("Pli", "status")
    state, events = night(state, ("Thi", "stolen", "Ins"), ("Pli", "status", "Wri"), ("Psy", "check", "Ins"))
    assert state.immune == frozenset({"Ins", "Wri"})
    assert lines(events, "Psy") == [("status", {"target": "Ins", "status": "negative"})]


def test_two_status_changes_on_one_player_cancel_out_but_both_protect():
    # "меняет статус игрока на противоположный": changed twice, the status is back where it was.
    state = with_loot("Pli", "status")
    state, events = night(state, ("Thi", "stolen", "Wri"), ("Pli", "status", "Wri"), ("Ins", "check", "Wri"))
    assert ok(state, "Thi") and ok(state, "Pli") and state.immune == frozenset({"Wri"})
    assert lines(events, "Ins") == [("status", {"target": "Wri", "status": "negative"})]


# ---- chains and cycles -------------------------------------------------------------------------------
def test_chain_masseur_frees_the_taxi_from_the_thiefs_block():
    # Masseur → thief → taxi → detective: each is settled by the one before it.
    state = with_loot("Bou", "block")
    state, _ = night(state, ("Mas", "block", "Thi"), ("Thi", "stolen", "Tax"),
                     ("Tax", "redirect", "Det", "Psy"), ("Det", "kill", "Ins"))
    assert not ok(state, "Thi") and ok(state, "Tax") and "Psy" not in state.alive and "Ins" in state.alive


def test_cycle_settled_by_order_thiefs_block_beats_the_redirect_that_would_stop_it():
    # The taxi would move the masseur onto the thief, whose block would stop the taxi: both outcomes
    # hold together, and the order (б before г) keeps the thief's block and the masseur's target.
    state = with_loot("Bou", "block")
    state, _ = night(state, ("Thi", "stolen", "Tax"), ("Tax", "redirect", "Mas", "Thi"),
                     ("Mas", "block", "Wri"), ("Wri", "weapon", "Det"))
    assert ok(state, "Thi") and not ok(state, "Tax") and act_of(state, "Mas")["final_target"] == "Wri"
    assert not ok(state, "Wri")
    assert not any(a.get("collision") for a in state.nights[-1]["actions"])


def test_paradox_taxi_moves_the_masseur_onto_himself_all_fail():
    # If the redirect works the masseur blocks the taxi, so it does not; if it does not, it does.
    state, _ = night(game(), ("Mas", "block", "Wri"), ("Tax", "redirect", "Mas", "Tax"), ("Wri", "weapon", "Det"))
    assert not ok(state, "Mas") and not ok(state, "Tax") and ok(state, "Wri")
    assert act_of(state, "Mas").get("collision") and act_of(state, "Tax").get("collision")


def test_paradox_taxi_moves_the_bouncer_onto_himself_all_fail_others_unaffected():
    state, events = night(game(), ("Bou", "block", "Ins"), ("Tax", "redirect", "Bou", "Tax"),
                          ("Ins", "check", "Det"), ("Det", "kill", "Wri"))
    assert not ok(state, "Bou") and not ok(state, "Tax") and ok(state, "Ins") and "Wri" not in state.alive
    assert codes(events, "Bou")[-1] == "failed" and "visitors" not in codes(events, "Bou")


def test_paradox_taxi_moves_the_thiefs_block_onto_himself_all_fail():
    state = with_loot("Mas", "block")
    state, _ = night(state, ("Thi", "stolen", "Ast"), ("Tax", "redirect", "Thi", "Tax"),
                     ("Ast", "heal", "Wri"), ("Det", "kill", "Wri"))
    assert not ok(state, "Thi") and not ok(state, "Tax") and ok(state, "Ast") and "Wri" in state.alive
    assert act_of(state, "Thi").get("collision") and act_of(state, "Tax").get("collision")



def test_undecidable_same_priority_blocks_on_each_other_all_fail():
    # Two thieves (a ruleset may deal the role twice) block each other with stolen blocks: either block
    # alone is consistent, and the table puts both at б), so neither can be called the winner.
    cast = {**CAST, "Th2": "thief"}
    state, _ = night(game(cast=cast), ("Thi", "steal", "Mas"), ("Th2", "steal", "Bou"))
    state, events = night(day_passes(state), ("Thi", "stolen", "Th2"), ("Th2", "stolen", "Thi"),
                          ("Mas", "block", "Wri"))
    assert not ok(state, "Thi") and not ok(state, "Th2") and ok(state, "Mas")
    assert act_of(state, "Thi").get("collision") and act_of(state, "Th2").get("collision")
    assert codes(events, "Thi")[0] == "failed"
