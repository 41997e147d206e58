"""Vote modifiers (double voter, voteless, mayor, loved, hated), self-hammers, no-lynch votes and ties."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import act, kinds, names, new_game, votes

from forumbot.errors import ConfigError
from forumbot.games.mafia import MAFIA, voting
from forumbot.model import Event, Intent
from forumbot.render.renderer import Renderer

P = names(8)   # 8 alive: 5 needed


def game(**options):
    return new_game(8, votes_only=True, **options)


def end_day(state):
    return MAFIA.on_deadline(state, state.phase_ends)


def refused(events):
    return [e.data["code"] for e in events if e.kind == "rejected"]


def test_double_voter_counts_twice_and_hammers_early():
    state = game(vote_modifiers={P[0]: "double_voter"})
    state, _ = votes(state, [(P[1], P[7]), (P[2], P[7]), (P[3], P[7])])
    assert voting.counts(state)[P[7]] == 3 and state.phase == "day1"
    state, events = act(state, P[0], "vote", P[7])           # 3 + 2 = 5 of 8
    assert state.days[-1].lynched == (P[7],) and state.days[-1].ended == "early"
    assert state.days[-1].tally[P[7]] == 5


def test_voteless_player_is_refused_and_not_listed_as_not_voting():
    state = game(vote_modifiers={P[0]: "voteless"})
    state, events = act(state, P[0], "vote", P[1])
    assert refused(events) == ["voteless"] and P[0] not in state.current
    assert P[0] not in voting.not_voting(state)
    assert state.errors[-1].code == "voteless"


def test_mayor_counts_once_until_revealed_then_twice():
    state = game(vote_modifiers={P[0]: "mayor"})
    state, _ = votes(state, [(P[0], P[7]), (P[1], P[7]), (P[2], P[7])])
    assert voting.counts(state)[P[7]] == 3
    state, events = act(state, P[3], "mayor_reveal")
    assert refused(events) == ["not_mayor"]
    state, events = act(state, P[0], "mayor_reveal")
    assert kinds(events) == ["mayor_revealed"] and voting.counts(state)[P[7]] == 4
    state, events = act(state, P[0], "mayor_reveal")
    assert refused(events) == ["mayor_revealed"]
    state, events = act(state, P[4], "vote", P[7])           # 4 + 1 = 5: hammer
    assert state.days[-1].lynched == (P[7],)


def test_revealing_can_itself_reach_the_majority():
    state = game(vote_modifiers={P[0]: "mayor"})
    state, _ = votes(state, [(P[0], P[7]), (P[1], P[7]), (P[2], P[7]), (P[3], P[7])])
    state, events = act(state, P[0], "mayor_reveal")
    assert kinds(events)[:2] == ["mayor_revealed", "day_end"] and state.days[-1].lynched == (P[7],)


@pytest.mark.parametrize("modifier, needed", [("loved", 6), ("hated", 4), ("", 5)])
def test_loved_and_hated_need_one_more_or_one_fewer(modifier, needed):
    state = game(vote_modifiers={P[7]: modifier} if modifier else {})
    assert voting.needed_for(state, P[7]) == needed
    state, _ = votes(state, [(v, P[7]) for v in P[:needed - 1]])
    assert state.phase == "day1"
    state, _ = act(state, P[needed - 1], "vote", P[7])
    assert state.days[-1].lynched == (P[7],)


def test_count_shows_needed_number_and_label_per_player():
    state = game(vote_modifiers={P[7]: "hated", P[6]: "loved", P[0]: "double_voter"})
    state, _ = votes(state, [(P[0], P[7]), (P[1], P[6])])
    view = MAFIA.tally(state, state.phase_started).data
    wagons = {w["target"]: w for w in view["wagons"]}
    assert (wagons[P[7]]["count"], wagons[P[7]]["needed"], wagons[P[7]]["l_minus"]) == (2, 4, 2)
    assert wagons[P[7]]["labels"] == ["hated"] and wagons[P[6]]["labels"] == ["loved"]
    assert wagons[P[7]]["voters"][0]["weight"] == 2
    en = Renderer("markdown", "en").text(Event("vote_count", view))
    assert "**P08** (2/4, L-2, hated): P01 (×2)" in en
    assert "**P07** (1/6, L-5, loved): P02" in en
    ru = Renderer("markdown", "ru").text(Event("vote_count", view))
    assert "(2/4, L-2, ненавистный)" in ru and "(1/6, L-5, любимчик)" in ru


def test_hidden_modifiers_keep_the_numbers_without_the_labels():
    state = game(vote_modifiers={P[7]: "hated", P[0]: "double_voter"}, show_modifiers=False)
    state, _ = votes(state, [(P[0], P[7])])
    text = Renderer("markdown", "en").text(MAFIA.tally(state, state.phase_started))
    assert "**P08** (2/4, L-2): P01" in text and "hated" not in text and "×" not in text


def test_role_passives_give_modifiers():
    roles = {"mayor": {"passives": ["mayor"]}, "townie": {}, "hated_town": {"passives": ["hated"]}}
    from helpers import START

    from forumbot.games.base import GameSetup
    from forumbot.model import PlayerRef
    players = tuple(PlayerRef(n, role="mayor" if n == P[0] else "hated_town" if n == P[7] else "townie") for n in P)
    state = MAFIA.new(GameSetup("mafia", players, START, options={"roles": roles}))
    assert voting.needed_for(state, P[7]) == 4
    state, events = act(state, P[0], "mayor_reveal")
    assert kinds(events) == ["mayor_revealed"]


def test_unknown_modifier_is_a_config_error():
    with pytest.raises(ConfigError, match="vote modifier"):
        game(vote_modifiers={P[0]: "triple_voter"})


def test_self_hammer_rejected_when_the_option_says_so():
    state = game(self_hammer="reject")
    state, _ = votes(state, [(v, P[0]) for v in P[1:5]])        # 4 on P01
    state, events = act(state, P[0], "vote", P[0])
    assert refused(events) == ["self_hammer"] and state.phase == "day1"
    allowed = game()
    allowed, _ = votes(allowed, [(v, P[0]) for v in P[1:5]])
    allowed, _ = act(allowed, P[0], "vote", P[0])
    assert allowed.days[-1].lynched == (P[0],)


def test_self_vote_below_the_hammer_is_fine_with_self_hammer_rejected():
    state = game(self_hammer="reject")
    state, events = act(state, P[0], "vote", P[0])
    assert refused(events) == [] and state.current[P[0]] == P[0]


def test_no_lynch_votes_can_be_turned_off():
    state = game(no_lynch_votes=False)
    state, events = act(state, P[0], "no_lynch")
    assert refused(events) == ["no_lynch_off"]


def simple_tie(**options):
    """Day 3 under the simple rule, P01 and P02 tied at 2 (P02 reached 2 first)."""
    state = new_game(8, phase="day3", no_lynch_used=2, votes_only=True, **options)
    state, _ = votes(state, [(P[2], P[1]), (P[3], P[1]), (P[4], P[0]), (P[5], P[0])])
    return state


@pytest.mark.parametrize("tie, lynched", [("all", (P[0], P[1])), ("no_lynch", ()), ("earliest", (P[1],))])
def test_tie_options(tie, lynched):
    state, events = end_day(simple_tie(tie=tie))
    assert state.days[-1].lynched == lynched
    end = events[0].data
    assert ("tie" in end) == (tie != "all")
    if tie != "all":
        assert end["tie"] == {"policy": tie, "tied": [P[0], P[1]]}


def test_random_tie_is_drawn_from_the_seed():
    drawn = {end_day(simple_tie(tie="random", seed=seed))[0].days[-1].lynched for seed in range(12)}
    assert drawn == {(P[0],), (P[1],)}     # both can be drawn, one at a time
    again = [end_day(simple_tie(tie="random", seed=5))[0].days[-1].lynched for _ in range(3)]
    assert len(set(again)) == 1


def test_host_breaks_the_tie_by_pm():
    state = simple_tie(tie="host").with_(host="Host")
    state, events = end_day(state)
    assert kinds(events) == ["tie_pending"] and events[0].data["pm_to"] == "Host"
    assert state.tie == (P[0], P[1]) and state.phase == "day3" and MAFIA.next_deadline(state) is None
    late, events = act(state, P[6], "vote", P[0], at=state.phase_ends + timedelta(minutes=1))
    assert refused(events) == ["after_deadline"]
    at = state.phase_ends + timedelta(hours=2)
    _, events = MAFIA.apply(state, Intent("tie_break", {"target": P[2]}, author="Host", at=at))
    assert refused(events) == ["not_tied"]
    _, events = MAFIA.apply(state, Intent("tie_break", {"target": P[0]}, author=P[3], at=at))
    assert refused(events) == ["host_only"]
    state, events = MAFIA.apply(state, Intent("tie_break", {"target": P[1]}, author="Host", at=at))
    assert state.days[-1].lynched == (P[1],) and state.phase == "night3" and state.phase_started == at
    assert events[0].data["tie"] == {"policy": "host", "tied": [P[0], P[1]]}
    _, events = MAFIA.apply(state, Intent("tie_break", {"target": P[1]}, author="Host", at=at))
    assert refused(events) == ["no_tie"]


def test_host_may_hang_nobody_and_the_tie_survives_storage():
    state, _ = end_day(simple_tie(tie="host").with_(host="Host"))
    state = MAFIA.from_json(MAFIA.to_json(state))
    assert state.tie == (P[0], P[1]) and MAFIA.summary(state)["tie"] == [P[0], P[1]]
    state, events = MAFIA.apply(state, Intent("tie_break", {"nobody": True}, author="Host", at=state.phase_ends))
    assert state.days[-1].result == "no_lynch"


def test_tie_texts_in_english_and_russian():
    state, events = end_day(simple_tie(tie="earliest"))
    en = Renderer("markdown", "en").text(events[0])
    ru = Renderer("markdown", "ru").text(events[0])
    assert "P01, P02 were tied: P02 reached that count first." in en
    assert "Поровну голосов у игроков P01, P02" in ru
    count = MAFIA.tally(simple_tie(tie="no_lynch"), simple_tie().phase_started)
    assert "On a tie, nobody hangs." in Renderer("markdown", "en").text(count)
    assert "all of them on a tie" not in Renderer("markdown", "en").text(count)
    assert "При равенстве никого не вешают." in Renderer("markdown", "ru").text(count)


def test_hated_players_can_both_hold_a_majority_at_the_deadline():
    """Without early endings two hated players can both reach 4 of 8: the tie option decides."""
    state = game(vote_modifiers={P[6]: "hated", P[7]: "hated"}, early_end=False, tie="earliest")
    state, _ = votes(state, [(v, P[7]) for v in P[:4]] + [(v, P[6]) for v in P[4:7]])
    state, _ = act(state, P[7], "vote", P[6])
    assert voting.majorities(state) == (P[7], P[6])
    state, events = end_day(state)
    assert state.days[-1].lynched == (P[7],)


def test_an_unrevealed_mayor_still_counts_twice_for_what_final_votes_decide():
    """Simple rule, 5 alive: P01-P03 locked on P05; P04 and P05 free. Two ordinary free votes cannot beat
    3, so the day ends; with P04 a mayor who may still reveal (2 votes), it is not decided yet."""
    p = names(5)
    for mods, phase in (({"P04": "mayor"}, "day3"), ({}, "night3")):
        state = new_game(5, phase="day3", no_lynch_used=2, votes_only=True, vote_modifiers=mods)
        for voter in p[:3]:
            state, _ = act(state, voter, "vote", p[4], final=True)
        assert state.phase == phase


def test_replaced_seats_are_named_in_russian_counts():
    state = game()
    state, _ = votes(state, [(P[0], P[3])])
    renderer = Renderer("markdown", "ru")
    renderer.replaced = {P[3]: ("Zoe", P[3], 2), P[0]: ("Ann", P[0], 0)}
    text = renderer.text(MAFIA.tally(state, state.phase_started))
    assert "**Zoe (вместо P04, день 2)** (1/5, L-4): Ann (вместо P01)" in text
    assert "Zoe (вместо P04, день 2)" in text.split("Не голосуют")[1]


def test_a_replaced_seat_is_named_with_its_player_declined_in_russian():
    from forumbot.config.paths import data_dir
    from forumbot.engine.replay import replay

    result = replay(data_dir("samples") / "mafia-replacement-ru.toml")
    text = "\n".join(m["text"] for m in result.messages)
    assert result.differences() == []
    assert "Живы (5): Анна, Борис, Вера, Зоя (вместо Дениса, день 2), Ева" in text
    assert "* **Зоя (вместо Дениса, день 2)** (2/3, L-1)" in text
    result.close()


@pytest.mark.parametrize(("lang", "said"), [("en", "Bob, Carol were tied: all of them hang."),
                                            ("ru", "Поровну голосов у игроков Bob, Carol: вешают всех.")])
def test_a_tie_under_all_where_a_protection_saves_one_is_told(lang, said):
    """tie = "all" hangs every tied player; when a protection saves one, the day's end says they were tied."""
    end = Event("day_end", {"day": 2, "result": "lynch", "lynched": ["Bob"], "rule": "simple", "needed": None,
                            "ended": "deadline", "at": "2026-03-02T20:00:00Z", "tally": {"Bob": 2, "Carol": 2},
                            "saved": ["Carol"], "tie": {"policy": "all", "tied": ["Bob", "Carol"]}, "view": {},
                            "roles": {}, "alive": ["Alice"], "no_lynch_used": 0, "no_lynch_limit": 2,
                            "next_rule": "simple"})
    assert said in Renderer("markdown", lang).text(end, "mafia")
