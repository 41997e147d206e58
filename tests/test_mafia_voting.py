"""Day voting by section 6 of seed 002, with the seed's three examples."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import act, kinds, names, new_game, votes

from forumbot.errors import ConfigError
from forumbot.games.mafia import MAFIA, voting


def end_day(state):
    return MAFIA.on_deadline(state, state.phase_ends)


def pass_night(state):
    assert state.phase.startswith("night")
    return MAFIA.on_deadline(state, state.phase_ends)[0]


# ---- the seed's examples ------------------------------------------------------------------------
def test_seed_example_1_six_of_twelve_is_no_lynch():
    """(1) Day 1, 12 players, A has 6 votes: no lynch, because 7 were needed."""
    state = new_game(12)
    p = names(12)
    state, _ = votes(state, [(v, p[0]) for v in p[1:7]])
    assert voting.counts(state)[p[0]] == 6 and voting.needed(state) == 7
    state, events = end_day(state)
    day = state.days[-1]
    assert (day.result, day.lynched, day.needed, day.ended, day.rule) == ("no_lynch", (), 7, "deadline", "absolute")
    assert state.no_lynch_used == 1 and len(state.alive) == 12
    assert kinds(events) == ["day_end", "phase_start"]


def test_seed_example_2_second_no_lynch_switches_to_simple():
    """(2) Day 2, 10 alive, A has 5: no lynch again (6 needed); from now on someone always hangs."""
    state = new_game(12, dead=2, phase="day2", no_lynch_used=1)
    p = names(10)
    state, _ = votes(state, [(v, p[0]) for v in p[1:6]])
    assert voting.needed(state) == 6
    state, events = end_day(state)
    assert state.days[-1].result == "no_lynch" and state.days[-1].needed == 6
    assert state.no_lynch_used == 2
    assert events[0].data["next_rule"] == "simple"
    state = pass_night(state)
    assert state.phase == "day3" and voting.rule(state) == "simple"


def test_seed_example_3_lynch_then_no_lynch_still_absolute():
    """(3) Day 1 a lynch, Day 2 a no-lynch: Day 3 still needs 50% + 1."""
    state = new_game(12)
    p = names(12)
    state, events = votes(state, [(v, p[0]) for v in p[1:8]])   # 7 of 12: early lynch
    assert state.days[-1].result == "lynch" and state.days[-1].ended == "early"
    state = pass_night(state)
    state, _ = end_day(state)                                   # day 2: nobody votes
    assert state.days[-1].result == "no_lynch" and state.no_lynch_used == 1
    state = pass_night(state)
    assert state.phase == "day3" and voting.rule(state) == "absolute"
    assert voting.needed(state) == len(state.alive) // 2 + 1 == 6
    p = state.alive
    state, _ = votes(state, [(v, p[0]) for v in p[1:5]])        # 4 of 11 is not enough
    state, _ = end_day(state)
    assert state.days[-1].result == "no_lynch" and state.days[-1].rule == "absolute"
    assert state.no_lynch_used == 2


# ---- absolute majority ---------------------------------------------------------------------------
def test_absolute_majority_ends_the_day_the_moment_it_is_reached():
    state = new_game(10)
    p = names(10)
    state, events = votes(state, [(v, p[9]) for v in p[:5]])
    assert state.is_day and voting.counts(state)[p[9]] == 5
    state, events = act(state, p[5], "vote", p[9])
    assert kinds(events) == ["vote", "day_end", "phase_start"]
    assert state.phase == "night1" and p[9] not in state.alive
    assert state.dead[-1].cause == "lynch" and state.dead[-1].phase == "day1"
    assert state.days[-1].tally[p[9]] == 6 and state.days[-1].ended == "early"
    # the night starts when the day ended, not at the day's deadline
    assert state.phase_started == state.days[-1].at


def test_early_end_off_waits_for_the_deadline():
    state = new_game(10, early_end=False)
    p = names(10)
    state, _ = votes(state, [(v, p[9]) for v in p[:7]])
    assert state.is_day
    state, _ = end_day(state)
    assert state.days[-1].lynched == (p[9],) and state.days[-1].ended == "deadline"


def test_absolute_majority_for_no_lynch_ends_early_as_no_lynch():
    state = new_game(6)
    p = names(6)
    state, _ = votes(state, [(v, "no_lynch") for v in p[:4]])
    assert state.phase == "night1"
    assert state.days[-1].result == "no_lynch" and state.days[-1].ended == "early"
    assert state.no_lynch_used == 1


def test_no_lynch_majority_waits_when_early_no_lynch_is_off():
    state = new_game(6, early_no_lynch=False)
    state, _ = votes(state, [(v, "no_lynch") for v in names(6)[:4]])
    assert state.is_day


def test_votes_change_without_limit_and_self_votes_count():
    state = new_game(5)
    p = names(5)
    for target in [p[1], p[2], p[1], p[0]]:
        state, _ = act(state, p[0], "vote", target)
    assert state.current == {p[0]: p[0]}
    assert voting.counts(state) == {p[0]: 1}


def test_self_votes_can_be_forbidden():
    state = new_game(5, self_votes=False)
    state, events = act(state, "P01", "vote", "P01")
    assert kinds(events) == ["rejected"] and not state.current


def test_unvote_removes_the_vote_and_strikes_it():
    state = new_game(5)
    state, _ = act(state, "P01", "vote", "P02")
    state, events = act(state, "P01", "unvote")
    assert not state.current and kinds(events) == ["vote"]
    wagon = voting.wagons(state)[0]
    assert wagon.count == 0 and [e.voter for e in wagon.withdrawn] == ["P01"]


@pytest.mark.parametrize("voter,target,reason", [
    ("P12", "P01", "dead and cannot vote"),
    ("P01", "P12", "dead and cannot be voted for"),
    ("Stranger", "P01", "not a player"),
])
def test_only_the_living_vote_and_are_voted_for(voter, target, reason):
    state = new_game(12, dead=1)
    state, events = act(state, voter, "vote", target)
    assert kinds(events) == ["rejected"] and reason in events[0].data["reason"]
    assert not state.current and state.error_total == 1


def test_votes_after_the_deadline_are_ignored():
    state = new_game(5)
    late = state.phase_ends + timedelta(seconds=1)
    state, events = act(state, "P01", "vote", "P02", at=late)
    assert kinds(events) == ["rejected"] and "deadline" in events[0].data["reason"]
    at_deadline = state.phase_ends
    state, events = act(state, "P01", "vote", "P02", at=at_deadline)
    assert kinds(events) == ["vote"]


def test_votes_at_night_are_refused():
    state = new_game(5, phase="night1")
    state, events = act(state, "P01", "vote", "P02")
    assert kinds(events) == ["rejected"] and "night1" in events[0].data["reason"]


def test_unresolved_name_counts_as_no_vote():
    state = new_game(5)
    state, _ = act(state, "P01", "vote", "P02")
    state, events = act(state, "P01", "vote", None)
    assert "P01" not in state.current and state.error_total == 1


def test_unresolved_name_can_keep_the_old_vote():
    state = new_game(5, unresolved_vote="keep")
    state, _ = act(state, "P01", "vote", "P02")
    state, _ = act(state, "P01", "vote", None)
    assert state.current == {"P01": "P02"} and state.error_total == 1


# ---- simple majority after the limit -------------------------------------------------------------
def simple_day(count: int = 8, **options):
    return new_game(count, no_lynch_used=2, **options)


def test_simple_majority_hangs_the_most_voted():
    state = simple_day()
    p = names(8)
    state, _ = votes(state, [(p[0], p[1]), (p[2], p[1]), (p[3], p[4])])
    state, _ = end_day(state)
    day = state.days[-1]
    assert (day.result, day.lynched, day.rule, day.needed) == ("lynch", (p[1],), "simple", None)


def test_simple_majority_tie_hangs_everyone_tied():
    state = simple_day()
    p = names(8)
    state, _ = votes(state, [(p[0], p[1]), (p[2], p[1]), (p[3], p[4]), (p[5], p[4]), (p[6], p[7])])
    state, _ = end_day(state)
    assert set(state.days[-1].lynched) == {p[1], p[4]}
    assert p[1] not in state.alive and p[4] not in state.alive


def test_simple_majority_with_no_votes_is_no_lynch():
    state, _ = end_day(simple_day())
    assert state.days[-1].result == "no_lynch" and state.no_lynch_used == 3


def test_no_lynch_vote_after_the_limit_is_refused_or_allowed():
    state, events = act(simple_day(), "P01", "no_lynch")
    assert kinds(events) == ["rejected"] and "limit" in events[0].data["reason"]
    state = simple_day(no_lynch_after_limit="allow")
    state, events = votes(state, [("P01", "no_lynch"), ("P02", "no_lynch"), ("P03", "P04")])
    state, _ = end_day(state)
    assert state.days[-1].lynched == ("P04",)


def test_final_votes_lock_the_voter():
    state = simple_day()
    state, _ = act(state, "P01", "vote", "P02", final=True)
    assert "P01" in state.locked
    state, events = act(state, "P01", "vote", "P03")
    assert kinds(events) == ["rejected"] and "locked" in events[0].data["reason"]
    state, events = act(state, "P01", "unvote")
    assert kinds(events) == ["rejected"] and state.current["P01"] == "P02"


def test_final_votes_end_the_day_once_they_decide_it():
    state = simple_day(8)
    p = names(8)
    # 5 final votes on P02: the 3 free voters can bring another player to 3 at most.
    for voter in p[2:6]:
        state, _ = act(state, voter, "vote", p[1], final=True)
    assert state.is_day           # 4 locked vs 4 free: still open
    state, events = act(state, p[6], "vote", p[1], final=True)
    assert "day_end" in kinds(events)
    assert state.days[-1].lynched == (p[1],) and state.days[-1].ended == "early"


def test_final_votes_do_not_end_the_day_while_a_tie_is_possible():
    state = simple_day(6)
    p = names(6)
    for voter in p[:3]:
        state, _ = act(state, voter, "vote", p[5], final=True)
    assert state.is_day           # 3 locked, 3 free: the free ones could tie it


def test_everyone_locked_decides_even_a_tie():
    state = simple_day(4)
    p = names(4)
    state, _ = votes(state, [(p[0], p[1]), (p[1], p[0]), (p[2], p[1]), (p[3], p[0])], final=True)
    assert state.phase == "night1" and set(state.days[-1].lynched) == {p[0], p[1]}


def test_final_votes_are_plain_votes_under_the_absolute_rule():
    state = new_game(8)
    state, _ = act(state, "P01", "vote", "P02", final=True)
    assert not state.locked
    state, events = act(state, "P01", "vote", "P03")
    assert kinds(events) == ["vote"]


def test_final_votes_can_lock_always():
    state = new_game(8, final_votes="always")
    state, _ = act(state, "P01", "vote", "P02", final=True)
    assert state.locked == frozenset({"P01"})


# ---- the immunity hook ---------------------------------------------------------------------------
def test_immune_player_is_saved_and_the_day_is_not_a_no_lynch():
    state = simple_day()
    state = state.with_(immune=frozenset({"P02"}))
    state, _ = votes(state, [("P01", "P02"), ("P03", "P02")])
    state, events = end_day(state)
    day = state.days[-1]
    assert day.lynched == () and day.saved == ("P02",) and "P02" in state.alive
    assert state.no_lynch_used == 2


# ---- wagons and the count ------------------------------------------------------------------------
def test_wagons_sorted_by_size_then_by_who_reached_it_first():
    state = new_game(12)
    p = names(12)
    state, _ = votes(state, [(p[0], p[5]), (p[1], p[6]), (p[2], p[6]), (p[3], p[5]), (p[4], p[7])])
    order = [(w.target, w.count) for w in voting.wagons(state)]
    assert order == [(p[6], 2), (p[5], 2), (p[7], 1)]


def test_report_posts_a_count_after_changes_only():
    state = new_game(6)
    state, events = MAFIA.report(state, state.phase_started)
    assert events == []
    state, _ = act(state, "P01", "vote", "P02")
    state, events = MAFIA.report(state, state.phase_started)
    assert kinds(events) == ["vote_count"] and events[0].data["count"] == 1
    assert events[0].data["wagons"][0]["l_minus"] == 3
    state, events = MAFIA.report(state, state.phase_started)
    assert events == []


def test_summary_has_the_replay_fields():
    state = new_game(6)
    state, _ = votes(state, [("P01", "P02"), ("P03", "no_lynch")])
    summary = MAFIA.summary(state)
    assert summary["votes"] == {"P02": ["P01"], "no_lynch": ["P03"]}
    assert summary["not_voting"] == ["P02", "P04", "P05", "P06"]
    assert {"phase", "alive", "dead", "days", "no_lynch_used"} <= set(summary)


def test_state_survives_json():
    state = new_game(6)
    state, _ = votes(state, [("P01", "P02"), ("P03", "no_lynch")], final=False)
    again = MAFIA.from_json(MAFIA.to_json(state))
    assert again == state


@pytest.mark.parametrize("options,needle", [
    ({"day_hourz": 3}, "day_hours"),
    ({"final_votes": "sometimes"}, "simple_only"),
    ({"day_hours": "long"}, "number"),
])
def test_bad_options_are_config_errors(options, needle):
    with pytest.raises(ConfigError) as err:
        new_game(5, **options)
    assert needle in str(err.value)
