"""Sections 1-3 of the Body Snatchers rules: sign-ups by PM with masks, the roles from the host's secret
table, role confirmation, the start (night 0); and section 8.1/8.2.7 (the ledger), section 9 (the
best-player vote). Each test is named after the rule it checks."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import load_ruleset
from forumbot.engine.chart import chart_of
from forumbot.engine.host import HostState
from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA, bestplayer, ledger
from forumbot.games.mafia.schedule import must_act
from forumbot.games.mafia.state import Death, MafiaState
from forumbot.games.tournament import standings_event
from forumbot.model import Event, Intent, PlayerRef
from forumbot.render import Renderer
from forumbot.storage import Store

BS = load_ruleset("bodysnatchers", "mafia")
ROLES = ["detective", "psychologist", "bouncer", "maniac", "inspector", "assistant", "writer", "masseur",
         "policeman", "thief", "taxi", "politician"]
TABLE = {str(n): role for n, role in enumerate(ROLES, start=1)}
MASKS = ["Tom Hanks", "Brad Pitt", "Keanu Reeves", "Meryl Streep", "Angelina Jolie", "Johnny Depp",
         "Nicole Kidman", "Morgan Freeman", "Scarlett Johansson", "Leonardo DiCaprio", "Cate Blanchett",
         "Hugh Jackman"]


def signup_game(**options: Any) -> MafiaState:
    setup = GameSetup("mafia", (), START, options={**BS, "role_table": TABLE, **options}, phase="signup",
                      host="Host", lang="en")
    return MAFIA.new(setup)


def say(state: MafiaState, author: str, kind: str, minutes: float = 1, **data: Any) -> tuple[MafiaState, list[Event]]:
    return MAFIA.apply(state, Intent(kind, data, post_id=f"{author}-{kind}", author=author,
                                     at=state.phase_started + timedelta(minutes=minutes)))


def refused(events: list[Event]) -> list[str]:
    return [e.data["code"] for e in events if e.kind == "rejected"]


def full_signup(state: MafiaState, count: int = 12) -> tuple[MafiaState, list[Event]]:
    events: list[Event] = []
    for n in range(1, count + 1):
        state, happened = say(state, f"acct{n}", "signup", n, number=str(n), mask=MASKS[n - 1])
        events += happened
    return state, events


def started() -> MafiaState:
    state, _ = full_signup(signup_game())
    for mask in state.players:
        state, _ = say(state, state.masks[mask], "confirm_role")
    return state


# ---- section 1: sign-ups ---------------------------------------------------------------------------
def test_1_signup_by_pm_is_confirmed_and_the_host_sees_the_list():
    state, events = say(signup_game(), "acct1", "signup", number="7", mask="Tom Hanks")
    assert state.signup["acct1"]["number"] == 7 and state.signup["acct1"]["mask"] == "Tom Hanks"
    reply = next(e for e in events if e.kind == "signup_reply")
    assert reply.data["pm_to"] == "acct1" and reply.data["what"] == "accepted"
    listing = next(e for e in events if e.kind == "signup_list")
    assert listing.data["pm_to"] == "Host"
    assert listing.data["entries"] == [{"number": 7, "mask": "Tom Hanks", "account": "acct1",
                                        "at": listing.data["entries"][0]["at"]}]
    assert all("thread" not in e.data for e in events)   # numbers and accounts are never posted


def test_1_taken_number_and_taken_mask_are_refused_first_come_first_served():
    state, _ = say(signup_game(), "acct1", "signup", number="7", mask="Tom Hanks")
    state, events = say(state, "acct2", "signup", 2, number="7", mask="Brad Pitt")
    assert refused(events) == ["number_taken"]
    state, events = say(state, "acct2", "signup", 3, number="8", mask="tom  hanks")
    assert refused(events) == ["mask_taken"]
    assert list(state.signup) == ["acct1"]


def test_1_number_outside_1_to_12_and_empty_mask_are_refused():
    state = signup_game()
    assert refused(say(state, "a", "signup", number="13", mask="X Y")[1]) == ["signup_number"]
    assert refused(say(state, "a", "signup", number="0", mask="X Y")[1]) == ["signup_number"]
    assert refused(say(state, "a", "signup", number="3", mask="  ")[1]) == ["mask_bad"]


def test_1_a_player_may_change_or_withdraw_until_the_deadline():
    state, _ = say(signup_game(), "acct1", "signup", number="7", mask="Tom Hanks")
    state, events = say(state, "acct1", "signup", 2, number="8", mask="Brad Pitt")
    assert state.signup["acct1"]["number"] == 8 and events[0].data["what"] == "changed"
    state, events = say(state, "acct1", "signup_withdraw", 3)
    assert state.signup == {} and events[0].data["what"] == "withdrawn"
    late = state.phase_ends - state.phase_started + timedelta(minutes=1)
    _, events = say(state, "acct2", "signup", late.total_seconds() / 60, number="1", mask="Keanu Reeves")
    assert refused(events) == ["signup_closed"]


def test_1_short_signups_stay_open_longer_and_the_host_is_told():
    state, _ = say(signup_game(), "acct1", "signup", number="7", mask="Tom Hanks")
    deadline = state.phase_ends
    state, events = MAFIA.on_deadline(state, deadline)
    assert state.phase == "signup" and state.phase_ends == deadline + timedelta(hours=24)
    assert [e.data["what"] for e in events if e.kind == "signup_list"] == ["short"]


def test_1_every_number_taken_deals_the_roles_of_the_hosts_table_by_pm():
    state, events = full_signup(signup_game())
    assert state.phase == "roles"
    assert state.players == tuple(sorted(MASKS, key=str.casefold))
    assert state.roles["Tom Hanks"] == "detective" and state.roles["Hugh Jackman"] == "politician"
    role_pms = [e for e in events if e.kind == "role_pm"]
    assert {e.data["pm_to"] for e in role_pms} == {f"acct{n}" for n in range(1, 13)}
    assert state.masks["Tom Hanks"] == "acct1"


def test_1_a_role_table_without_a_number_is_refused_to_the_host():
    state, events = full_signup(signup_game(role_table={"1": "inspector"}), count=12)
    assert state.phase == "signup" and refused(events)[-1] == "no_role_for"


# ---- sections 2-3: confirmation and the start -------------------------------------------------------
def test_2_silence_is_not_consent_reminders_and_the_host_is_told():
    state, _ = full_signup(signup_game())
    state, _ = say(state, "acct1", "confirm_role")
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    assert state.phase == "roles"
    reminders = [e.data["pm_to"] for e in events if e.kind == "role_pm"]
    assert len(reminders) == 11 and "acct1" not in reminders
    status = next(e for e in events if e.kind == "confirm_status")
    assert status.data["pm_to"] == "Host" and "Tom Hanks" not in status.data["missing"]


def test_3_the_night_is_announced_when_all_have_confirmed_with_the_masks_alphabetically():
    state, _ = full_signup(signup_game())
    events: list[Event] = []
    for mask in state.players:
        state, events = say(state, state.masks[mask], "confirm_role")
    assert state.phase == "night0"
    masks = next(e for e in events if e.kind == "masks_list")
    assert masks.data == {"thread": "game", "masks": sorted(MASKS, key=str.casefold)}
    assert [e.kind for e in events][-2:] == ["masks_list", "phase_start"]


def test_3_the_host_may_start_without_every_confirmation():
    state, _ = full_signup(signup_game())
    state, events = say(state, "acct1", "start_game")
    assert refused(events) == ["host_only"] and state.phase == "roles"
    state, events = say(state, "Host", "start_game")
    assert state.phase == "night0"
    assert len(next(e for e in events if e.kind == "confirm_status").data["missing"]) == 12


def test_3_the_mask_reads_pms_from_its_real_account_and_night_actions_wait_for_the_night():
    state, _ = full_signup(signup_game())
    assert MAFIA.account_player(state, "acct1") == "Tom Hanks"
    readers = chart_of("g", MAFIA, state, HostState(), "Host").readers()
    assert "acct1" in readers and "Tom Hanks" in readers
    _, events = say(state, "Tom Hanks", "action", action="check", target="Brad Pitt")
    assert refused(events) == ["not_night"]


def test_3_posts_before_the_night_and_from_a_real_account_are_flagged():
    state, _ = full_signup(signup_game(moderate=True))
    post = Intent("post", {"text": "hello"}, author="Tom Hanks", post_id="p1")
    assert [e.data["code"] for e in MAFIA.watch_post(state, post, "game")[1]] == ["early_post"]
    state = started()
    post = Intent("post", {"text": "hello"}, author="acct1", post_id="p2")
    assert [e.data["code"] for e in MAFIA.watch_post(state, post, "game")[1]] == ["real_account"]


def test_masks_are_revealed_only_by_the_hosts_command():
    state = started()
    assert refused(say(state, "Tom Hanks", "reveal_masks")[1]) == ["host_only"]
    _, events = say(state, "Host", "reveal_masks")
    assert {"mask": "Tom Hanks", "account": "acct1"} in events[0].data["masks"]


# ---- section 8: the ledger ---------------------------------------------------------------------------
def with_forums() -> MafiaState:
    state = started()
    return state.with_(forums={m: ("MF" if i % 3 == 0 else "BB" if i % 3 == 1 else "KF")
                               for i, m in enumerate(state.players)})


def warn(state: MafiaState, target: str, rule: str, text: str = "") -> tuple[MafiaState, list[Event]]:
    return say(state, "Host", "warn", target=target, rule=rule, text=text)


def test_8_1_first_warning_is_one_point_plus_the_violation_and_a_private_notice():
    state, events = warn(with_forums(), "Tom Hanks", "8.2.4", "hinted at a check")
    entry = state.ledger[-1]
    assert (entry["warning"], entry["warning_points"], entry["points"]) == (1, 1, 2)
    pm = next(e for e in events if e.kind == "warning_pm" and e.data["pm_to"] == "Tom Hanks")
    assert pm.data["total"] == 3 and pm.data["rule"] == "8.2.4"
    assert ledger.forum_totals(state) == {state.forums["Tom Hanks"]: 3}


def test_8_1_second_warning_is_six_to_the_forum_and_the_player_stays():
    state, _ = warn(with_forums(), "Tom Hanks", "8.2.4")
    state, _ = warn(state, "Tom Hanks", "8.2.5")
    assert state.ledger[-1]["warning_points"] == 6 and "Tom Hanks" in state.alive
    assert ledger.player_totals(state) == {"Tom Hanks": 1 + 2 + 6 + 1}


def test_8_1_third_warning_is_twelve_and_excludes_without_replacement():
    state = with_forums()
    for rule in ("8.2.4", "8.2.5", "8.2.10"):
        state, events = warn(state, "Tom Hanks", rule)
    assert state.ledger[-1]["warning_points"] == 12 and state.ledger[-1]["excluded"]
    assert "Tom Hanks" not in state.alive
    assert any(d.name == "Tom Hanks" and d.cause == "modkill" for d in state.dead)
    assert any(e.kind == "modkill" for e in events)
    assert refused(warn(state, "Tom Hanks", "8.2.4")[1]) == ["warn_dead"]


def test_8_2_9_direct_mask_reveal_excludes_at_once_for_at_least_twelve():
    state, _ = warn(with_forums(), "Brad Pitt", "8.2.9")
    assert "Brad Pitt" not in state.alive
    assert ledger.player_totals(state) == {"Brad Pitt": 3 + 12}


def test_8_2_a_rule_outside_the_table_and_a_warning_from_a_player_are_refused():
    state = with_forums()
    assert refused(warn(state, "Tom Hanks", "9.9")[1]) == ["warn_rule"]
    assert refused(say(state, "Brad Pitt", "warn", target="Tom Hanks", rule="8.2.1")[1]) == ["host_only"]


def test_8_2_modkill_without_warnings_costs_the_forum_twelve():
    state = with_forums()
    state, _ = MAFIA.apply(state, Intent("modkill", {"target": "Tom Hanks"}, author="Host", at=state.phase_started))
    assert ledger.player_totals(state) == {"Tom Hanks": 12}


def test_8_2_7_no_night_action_is_one_point_automatic_without_a_warning_pm():
    state = started().with_(options=started().options.__class__.from_dict({**BS, "moderate": True}))
    for mask in state.players:
        if mask != "Tom Hanks" and state.roles[mask] != "maniac":
            target = "Brad Pitt" if mask != "Brad Pitt" else "Keanu Reeves"
            state, _ = say(state, mask, "action", action="own", target=target)
    owed = must_act(state)
    assert "Tom Hanks" in owed and "Keanu Reeves" not in owed   # Keanu Reeves (bouncer) blocked Brad Pitt
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    auto = [e for e in state.ledger if e["rule"] == "8.2.7"]
    assert sorted(e["player"] for e in auto) == sorted(owed)
    assert all(e["auto"] and e["warning"] == 0 and e["points"] == 1 for e in auto)
    assert not [e for e in events if e.kind == "warning_pm"]


def test_8_1_the_forums_penalty_points_add_up_across_the_tournaments_games(tmp_path):
    first, _ = warn(with_forums(), "Tom Hanks", "8.2.4")          # 2 + 1
    second, _ = warn(with_forums(), "Tom Hanks", "8.2.1")         # 3 + 1, same forum
    second, _ = warn(second, "Brad Pitt", "8.2.5")                # 1 + 1
    store = Store(str(tmp_path / "s.db"))
    store.record_ledger("cup", "g1", MAFIA.ledger_entries(first))
    store.record_ledger("cup", "g2", MAFIA.ledger_entries(second))
    store.record_ledger("cup", "g2", MAFIA.ledger_entries(second))   # once per game
    event = standings_event("cup", store.ledger("cup"))
    hanks, pitt = first.forums["Tom Hanks"], second.forums["Brad Pitt"]
    assert event.data["forums"] == [{"forum": hanks, "penalty": 7}, {"forum": pitt, "penalty": 2}]
    assert event.data["standings"] == []                            # penalties are the forums', not standings
    assert "Forums' penalty points" in Renderer("markdown").text(event)


# ---- section 9: the best-player vote --------------------------------------------------------------------
def over(winner: str = "town", forums: dict[str, str] | None = None) -> MafiaState:
    state = started()
    state = state.with_(phase="over", winner=winner, forums=forums or {})
    state, events = say(state, "Host", "best_player_open")
    assert state.phase == "best_player" and events[0].kind == "best_player_open"
    return state


def town(state: MafiaState) -> list[str]:
    return [p for p in state.players if state.roles[p] not in ("detective", "psychologist", "bouncer", "maniac")]


def mafia(state: MafiaState) -> list[str]:
    return [p for p in state.players if state.roles[p] in ("detective", "psychologist", "bouncer")]


def ballot(state: MafiaState, voter: str, *names: str, minutes: float = 5) -> tuple[MafiaState, list[Event]]:
    return say(state, voter, "best_ballot", minutes, **dict(zip(bestplayer.SLOTS, names, strict=False)))


def test_9_winning_side_gets_two_places_and_the_losing_side_one_which_may_be_skipped():
    state = over()
    t, m = town(state), mafia(state)
    state, events = ballot(state, t[0], t[1], t[2], m[0])
    assert events[0].kind == "ballot_ack"
    state, events = ballot(state, t[1], t[0], t[2])
    assert events[0].kind == "ballot_ack"
    assert refused(ballot(state, t[0], m[0], t[2])[1]) in (["bp_side_win"], ["bp_side_lose"])
    assert refused(ballot(state, t[0], t[1], t[2], t[3])[1]) in (["bp_side_win"], ["bp_side_lose"])
    assert refused(ballot(state, t[0], t[1])[1]) == ["bp_count"]
    assert refused(ballot(state, t[0], t[0], t[1])[1]) == ["bp_self"]
    assert refused(ballot(state, t[0], t[1], t[1])[1]) == ["bp_twice"]


def test_9_the_maniacs_win_gives_him_the_first_place_and_two_places_to_the_losing_sides():
    state = over("maniac")
    maniac = next(p for p in state.players if state.roles[p] == "maniac")
    t, m = town(state), mafia(state)
    state, events = ballot(state, t[0], m[0], t[1])
    assert events[0].kind == "ballot_ack" and events[0].data["first"] == 2
    assert refused(ballot(state, t[0], maniac)[1]) in (["bp_side_win"], ["bp_side_lose"])
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    result = next(e for e in events if e.kind == "best_player_result").data
    assert result["places"][0] == {"player": maniac, "side": "auto", "votes": 0}


def test_9_each_non_voter_costs_every_player_of_his_forum_one_vote_organisers_example():
    # A 8, B 2, C 3 votes; C (same forum) did not vote → 7, 1, 2.
    state = over()
    t, m = town(state), mafia(state)
    a, b, c = t[0], t[1], m[0]
    forums = {p: f"F{i}" for i, p in enumerate(state.players)}
    forums.update({a: "MF", b: "MF", c: "MF"})
    state = state.with_(forums=forums)
    others = [p for p in state.players if p not in (a, b, c)]
    ballots = {}
    for i, voter in enumerate([*others, b, a]):
        places = [a] if i < 8 else []
        if i < 2:
            places.append(b)
        fill = [p for p in t[2:] if p != voter]
        while len(places) < 2:
            places.append(fill.pop(0))
        if i < 3:
            places.append(c)
        state, events = ballot(state, voter, *places)
        assert events[0].kind == "ballot_ack", events
        ballots[voter] = places
    raw = bestplayer.totals(state)["raw"]
    assert (raw[a], raw[b], raw[c]) == (8, 2, 3)
    result = bestplayer.totals(state)
    assert result["not_voted"] == [c]
    assert (result["totals"][a], result["totals"][b], result["totals"][c]) == (7, 1, 2)


def test_9_a_modkilled_member_cannot_vote_and_counts_as_one_more_non_voter():
    state = over(forums={})
    t = town(state)
    gone = t[5]
    state = state.with_(dead=(*state.dead, Death(gone, "day1", "modkill")),
                        forums={t[0]: "MF", gone: "MF"})
    assert refused(ballot(state, gone, t[0], t[1])[1]) == ["bp_voter"]
    for voter in state.players:
        if voter != gone:
            picks = [p for p in t if p != voter][:2]
            state, _ = ballot(state, voter, *picks)
    result = bestplayer.totals(state)
    assert result["deductions"]["MF"] == 1 and result["modkilled"] == [gone]
    assert result["totals"][t[0]] == result["raw"][t[0]] - 1


def test_9_a_late_ballot_is_refused_and_a_total_below_zero_shows_as_zero():
    state = over(forums={})
    t = town(state)
    late = (state.phase_ends - state.phase_started).total_seconds() / 60 + 1
    assert refused(ballot(state, t[0], t[1], t[2], minutes=late)[1]) == ["bp_late"]
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    result = next(e for e in events if e.kind == "best_player_result").data
    assert state.phase == "over" and all(v == 0 for v in result["totals"].values())
    assert len(result["not_voted"]) == 12


# ---- invariants ----------------------------------------------------------------------------------------
SIGNUP_STEPS = st.lists(st.tuples(st.sampled_from([f"acct{n}" for n in range(1, 16)]),
                                  st.sampled_from(["signup", "signup_withdraw"]),
                                  st.integers(min_value=-1, max_value=14), st.sampled_from(MASKS + ["tom hanks", ""])),
                        max_size=40)


@settings(max_examples=60, deadline=None)
@given(SIGNUP_STEPS)
def test_1_numbers_and_masks_stay_unique_whatever_the_order_of_the_pms(steps):
    state = signup_game()
    for minute, (account, kind, number, mask) in enumerate(steps, start=1):
        state, events = say(state, account, kind, minute, number=str(number), mask=mask)
        assert all(e.data.get("pm_to") for e in events)           # every PM answered, nothing in a thread
        if state.phase != "signup":
            break
    numbers = [e["number"] for e in state.signup.values()]
    masks = [e["mask"].casefold() for e in state.signup.values()]
    assert len(set(numbers)) == len(numbers) and len(set(masks)) == len(masks)
    assert all(1 <= n <= 12 for n in numbers)
    if state.phase == "roles":
        assert len(state.players) == 12 and set(state.masks.values()) == set(state.signup)


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(min_value=0, max_value=11)), st.lists(st.sampled_from(["MF", "BB", "KF"]), min_size=12,
                                                                  max_size=12))
def test_9_deductions_equal_the_forums_non_voters(voting, forums):
    state = over()
    state = state.with_(forums=dict(zip(state.players, forums, strict=True)))
    t = town(state)
    for index in sorted(voting):
        voter = state.players[index]
        state, events = ballot(state, voter, *[p for p in t if p != voter][:2])
        assert events[0].kind == "ballot_ack"
    result = bestplayer.totals(state)
    for forum in ("MF", "BB", "KF"):
        missing = sum(1 for i, p in enumerate(state.players) if forums[i] == forum and i not in voting)
        assert result["deductions"].get(forum, 0) == missing
    assert all(result["totals"][p] == max(result["raw"][p] - result["deductions"].get(state.forums[p], 0), 0)
               for p in state.players)


def test_9_with_best_player_start_auto_the_vote_opens_when_the_game_ends():
    state = started()
    state = state.with_(options=state.options.__class__.from_dict({**BS, "best_player_start": "auto"}))
    events: list[Event] = []
    for mask in [*mafia(state), next(p for p in state.players if state.roles[p] == "maniac")]:
        state, events = MAFIA.apply(state, Intent("modkill", {"target": mask}, author="Host", at=state.phase_started))
    assert state.winner == "town" and state.phase == "best_player"
    assert [e.kind for e in events][-2:] == ["game_over", "best_player_open"]
    assert bestplayer.voters(state) == town(state)            # the modkilled cannot vote


@pytest.mark.parametrize(("mask", "name", "gender"), [("Meryl Streep, f", "Meryl Streep", "f"),
                                                      ("Мэрил Стрип (ж)", "Мэрил Стрип", "f"),
                                                      ("Том Хэнкс, м", "Том Хэнкс", "m"),
                                                      ("Том Хэнкс", "Том Хэнкс", None)])
def test_1_a_sign_up_may_give_the_masks_gender_for_russian_posts(mask, name, gender):
    state, _ = say(signup_game(), "acct1", "signup", number="2", mask=mask)
    assert state.signup["acct1"]["mask"] == name and state.signup["acct1"].get("gender") == gender


def test_1_the_masks_gender_reaches_the_players_and_the_posts():
    state = signup_game()
    for n in range(1, 13):
        state, _ = say(state, f"acct{n}", "signup", n, number=str(n),
                       mask=MASKS[n - 1] + (", f" if MASKS[n - 1] == "Meryl Streep" else ""))
    assert state.genders == {"Meryl Streep": "f"}
    assert PlayerRef("Meryl Streep", gender="f") in MAFIA.roster(state)
