"""What a vote and its count keep from the vote before (issue 16), beside what test_render_kept.py pins: a
wagon the vote did not touch is the very same view in the next count (so the renderer finds its text by
identity), the errors' view too; the vote entries' JSON written by the game's own encoder, and the fields a
step changed found by identity, are what json.dumps and a field-by-field comparison give."""

from __future__ import annotations

import json
import operator
from datetime import timedelta
from typing import Any
from unittest import mock

from helpers import act, names, new_game
from hypothesis import given, settings
from hypothesis import strategies as st
from test_render_kept import view_afresh

from forumbot.games.mafia import MAFIA
from forumbot.games.mafia import game as mafia
from forumbot.games.mafia import state as mafia_state
from forumbot.games.mafia.state import MafiaState, new_entry, struck, voted
from forumbot.kept import FrozenDict, FrozenList
from forumbot.model import Event, Intent
from forumbot.render import Renderer
from forumbot.stateparts import BASE


def _count(state: MafiaState) -> dict[str, Any]:
    return mafia.view(state, state.phase_started + timedelta(hours=1))


def test_a_wagon_the_vote_did_not_touch_is_the_same_view_in_the_next_count():
    state = new_game(9)
    for voter, target in [("P01", "P07"), ("P02", "P07"), ("P03", "P08"), ("P04", "P09"), ("P05", "P09")]:
        state, _ = act(state, voter, "vote", target)
    state, _ = act(state, "P06", "vote", "nobody-at-all")         # a vote error, shown in every count after
    before = {w["target"]: w for w in _count(state)["wagons"]}
    errors = _count(state)["errors"]
    state, _ = act(state, "P03", "vote", "P09")                   # P03 leaves P08's wagon for P09's
    after = {w["target"]: w for w in _count(state)["wagons"]}
    assert after["P07"] is before["P07"] and type(after["P07"]) is FrozenDict
    assert after["P08"] is not before["P08"] and after["P09"] is not before["P09"]
    assert [v["withdrawn"] for v in after["P08"]["voters"]] == [True]
    assert after["P09"]["count"] == 3 and after["P09"]["l_minus"] == after["P09"]["needed"] - 3
    assert _count(state)["errors"] is errors and type(errors) is FrozenList and errors[0]["author"] == "P06"


def test_a_wagon_shown_with_another_majority_is_a_view_of_its_own():
    state = new_game(9)
    state, _ = act(state, "P01", "vote", "P02")
    wagon = _count(state)["wagons"][0]
    simple = state.with_(no_lynch_used=state.options.no_lynch_limit)   # the same wagons, no majority needed
    shown = _count(simple)["wagons"][0]
    assert (wagon["needed"], shown["needed"], shown["l_minus"]) == (5, None, None)
    # the same voters' views (the renderer finds their texts by identity), in a list of its own
    assert shown["voters"] == wagon["voters"] and all(map(operator.is_, shown["voters"], wagon["voters"]))
    assert _count(state)["wagons"][0] is wagon


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ['a"b', "back\\slash", "line\nbreak", "\u2028", "\x00\x1f\x7f", "Ёж 🎉", ""])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(names(4)), st.sampled_from([*names(4), "no_lynch"]), texts, texts,
                          texts, st.booleans(), st.booleans()), max_size=25))
def test_the_entries_json_is_what_json_dumps_writes(moves):
    entries: tuple[Any, ...] = ()
    current: dict[str, str] = {}
    for seq, (voter, target, at, post, url, final, strike_only) in enumerate(moves, start=1):
        if voter in current:
            entries = struck(entries, voter, current.pop(voter))
        if not strike_only:
            entries = voted(entries, new_entry(voter, target, seq, at, post, url, final))
            current[voter] = target
        kept = mafia_state._derived(entries).texts
        assert list(kept) == [json.dumps(mafia_state._entry_json(e), ensure_ascii=False) for e in entries]


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | texts,
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
                           max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_the_games_json_encoder_writes_what_json_dumps_writes(value):
    assert mafia_state._dumps(value) == json.dumps(value, ensure_ascii=False)


PLAYERS = names(6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(["vote", "unvote", "no_lynch", "error"]),
                          st.sampled_from(PLAYERS), st.booleans()), max_size=30), st.booleans())
def test_a_step_writes_the_fields_a_field_by_field_comparison_finds(plan, shuffled):
    state = new_game(6, early_end=False, vote_count_every=1)
    for voter, kind, target, count in plan:
        if kind == "error":
            after, _ = MAFIA.apply(state, Intent("not_counted", {"error": "x"}, author=voter,
                                                 at=state.phase_started + timedelta(minutes=1)))
        else:
            after, _ = act(state, voter, kind, target if kind == "vote" else None)
        if count:
            after = MAFIA.report(after.with_(changes=max(after.changes, 1)), after.phase_started)[0]
        if shuffled:   # fields held in another order (no way of the game's makes one): compared one by one
            reordered = object.__new__(MafiaState)
            reordered.__dict__.update(reversed(vars(after).items()))
            after = reordered
        change = MAFIA.state_change(state, after)
        differ = {key for key, value in vars(after).items() if value is not getattr(state, key)} - {"current"}
        assert {name for name, key, _ in change.put if key == BASE or name != "entries"} == differ - {"entries"}
        assert ("entries" in differ) == any(name == "entries" for name, _, _ in change.put)
        for name, key, text in change.put:
            if key == BASE:
                assert json.loads(text) == MAFIA.to_json(after)[name]
        state = after


def _pm_authors_afresh(state: MafiaState) -> tuple[str, ...]:
    if state.phase == "signup":
        return ("*",)
    players = (*state.players, *state.masks.values())
    return (*players, state.host) if state.host and state.host not in players else players


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["masks", "host", "players", "phase", "seq"]),
                          st.sampled_from(["", "P01", "acc1", "Host"])), max_size=12))
def test_whose_pms_a_game_reads_is_kept_while_the_roster_masks_and_host_are_the_same(changes):
    state = new_game(5)
    shown = MAFIA.pm_authors(state)
    assert MAFIA.pm_authors(state.with_(seq=9)) is shown          # the roster is not copied at every step
    for field, value in changes:
        if field == "masks":
            state = state.with_(masks={**state.masks, f"M{len(state.masks)}": value or "acc0"})
        elif field == "host":
            state = state.with_(host=value or None)
        elif field == "players":
            state = state.with_(players=(*state.players, value or "P99"))
        elif field == "phase":
            state = state.with_(phase="signup" if state.phase != "signup" else "day1")
        else:
            state = state.with_(seq=state.seq + 1)
        assert MAFIA.pm_authors(state) == _pm_authors_afresh(state)


# ---- issue 16, round 6: the count's data path redoes only what the last votes changed ------------------------
KINDS = ["vote", "vote", "vote", "final", "unvote", "no_lynch", "error", "modkill", "count"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(PLAYERS), st.sampled_from(PLAYERS)),
                max_size=40), st.integers(0, 2), st.sampled_from(["markdown", "bbcode"]), st.booleans())
def test_the_kept_count_is_the_count_made_from_scratch(plan, used, dialect, early_end):
    """Over random days (votes, final votes, unvotes, no-lynch votes, vote errors, modkills, counts after
    some changes or none): each count's view, the day's end's, and their texts from one renderer kept all day
    are those made from scratch (view_afresh; a new renderer of plain JSON copies, where nothing is kept)."""
    state = new_game(6, no_lynch_used=used, early_end=early_end, final_votes="always", vote_count_every=1)
    live = Renderer(dialect, "en")
    ended_from: list[MafiaState] = []          # the state a day's end shows the count of
    end_day = mafia._end_day

    def same_text(event: Event) -> None:
        plain = Event(event.kind, json.loads(json.dumps(event.data)))
        assert live.text(event) == Renderer(dialect, "en").text(plain)

    for step, (kind, who, target) in enumerate(plan):
        at = state.phase_started + timedelta(minutes=step + 1)
        if kind == "modkill":
            intent = Intent("modkill", {"target": target}, author="host", at=at)
        elif kind == "error":
            intent = Intent("not_counted", {"error": "x"}, author=who, at=at)
        else:
            data = {"target": target, "final": kind == "final"} if kind in ("vote", "final") else {}
            intent = Intent("vote" if kind == "final" else kind, data, post_id=f"p{step}", author=who,
                            url=f"u/{step}", at=at)
        if kind != "count":
            with mock.patch.object(mafia, "_end_day", lambda s, *a: ended_from.append(s) or end_day(s, *a)):
                state, events = MAFIA.apply(state, intent)
            for event in events:
                if event.kind == "day_end":
                    assert event.data["view"] == view_afresh(ended_from[-1], at)
                    same_text(event)
        if not state.is_day:
            break
        counted, events = MAFIA.report(state, at)
        for event in events:
            assert event.data == view_afresh(counted, at)
            same_text(event)
            assert live._with_voter_lists(event.data) == Renderer(dialect, "en")._with_voter_lists(
                json.loads(json.dumps(event.data)))
        state = counted


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(names(4)), st.sampled_from(names(4) + [None]),
                          st.sampled_from(names(4))), max_size=30))
def test_a_vote_moved_in_one_change_is_the_vote_struck_then_cast(moves):
    """state.moved (one tuple, one derivation a vote) leaves what struck then voted leave: the same entries, the
    same JSON of each, and the same positions written by the step."""
    entries: tuple[Any, ...] = ()
    for seq, (voter, left, target) in enumerate(moves, start=1):
        if left == target:
            continue
        entry = new_entry(voter, target, seq, "t", f"p{seq}", f"u{seq}")
        two = voted(struck(entries, voter, left) if left is not None else entries, entry)
        one = mafia_state.moved(entries, left, entry)
        assert one == two
        assert mafia_state._derived(one).texts == mafia_state._derived(two).texts
        assert mafia_state._derived(one).index == mafia_state._derived(two).index
        assert mafia_state._changed_since(entries, one) == mafia_state._changed_since(entries, two)
        entries = one


def test_no_other_kind_the_game_reads_is_a_vote_kind():
    """MafiaGame._apply looks for the vote kinds first: no table of other kinds may hold one."""
    from forumbot.games.mafia.actions import NIGHT_KINDS
    from forumbot.games.mafia.signup import SIGNUP_KINDS

    assert not set(mafia.VOTE_KINDS) & {*NIGHT_KINDS, *SIGNUP_KINDS, *mafia.OUTSIDE_KINDS, "modkill", "not_counted"}


def test_those_not_voting_are_the_same_list_while_nobody_joins_or_leaves_them():
    """A vote that moves a voter leaves those not voting as they were: the same FrozenList in the next count;
    a first vote makes a new one."""
    state = new_game(9)
    state, _ = act(state, "P01", "vote", "P02")
    renderer = Renderer("bbcode", "en")
    first = _count(state)["not_voting"]
    state, _ = act(state, "P01", "vote", "P03")
    assert _count(state)["not_voting"] is first and type(first) is FrozenList
    state, _ = act(state, "P02", "vote", "P03")
    assert _count(state)["not_voting"] == [n for n in names(9) if n not in ("P01", "P02")]
    assert renderer._with_voter_lists(_count(state))["not_voting_text"] == ", ".join(
        n for n in names(9) if n not in ("P01", "P02"))
