"""A vote count's view keeps each entry's and each wagon's voters by the identity of what cannot change.
Pinned here: what is kept is exactly what is made afresh, for any day and after a trip through JSON, and
renders as the same view read back from JSON; a vote makes only its own voters afresh."""

from __future__ import annotations

import copy
import json
import pickle
from dataclasses import replace
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA, voting
from forumbot.games.mafia import game as mafia
from forumbot.games.mafia.state import NO_LYNCH, MafiaState, VoteEntry
from forumbot.kept import FrozenDict, FrozenList
from forumbot.model import Event, Intent, PlayerRef, format_time
from forumbot.render import Renderer
from forumbot.render.defuse import _BIDI, BIDI_CONTROLS, strip_bidi

ROSTER = ["P01", "P02", "Ann [x](http://a.b)", "www.evil.com", "Bob_*bold*", "Ева Жук", "Zed\u202eevil", "P08"]
URLS = ["", "https://forum/p?1", "https://forum/a b)c]"]


def new_day(no_lynch_used: int) -> MafiaState:
    setup = GameSetup("mafia", tuple(PlayerRef(n) for n in ROSTER), START, options={}, phase="day1",
                      state={"no_lynch_used": no_lynch_used})
    return MAFIA.new(setup)


def vote(state: MafiaState, voter: str, target: str, final: bool, url: str) -> MafiaState:
    kind = {"unvote": "unvote", NO_LYNCH: "no_lynch"}.get(target, "vote")
    data: dict[str, Any] = {"target": target, "final": final} if kind == "vote" else {}
    intent = Intent(kind, data, post_id=f"p{state.seq}", author=voter, url=url,
                    at=state.phase_started + timedelta(minutes=state.seq + 1))
    return MAFIA.apply(state, intent)[0]


def view_afresh(state: MafiaState, at: Any) -> dict[str, Any]:
    """The count's view as it was made before anything was kept: every entry grouped, sorted and copied."""
    by_target: dict[str, list[Any]] = {}
    for entry in sorted(state.entries, key=lambda e: e.seq):
        by_target.setdefault(entry.target, []).append(entry)
    need = len(state.alive) // 2 + 1 if state.no_lynch_used < state.options.no_lynch_limit else None
    wagons = []
    for target, entries in by_target.items():
        current = [e for e in entries if not e.withdrawn]
        reached = current[-1].seq if current else entries[0].seq
        wagons.append((-len(current), reached, {
            "target": target, "no_lynch": target == NO_LYNCH, "count": len(current), "needed": need,
            "l_minus": need - len(current) if need is not None else None,
            "voters": [{"name": e.voter, "url": e.url, "post": e.post, "final": e.final,
                        "withdrawn": e.withdrawn, "at": e.at} for e in entries]}))
    wagons.sort(key=lambda w: w[:2])
    return {"day": state.number, "count": state.count_number, "at": format_time(at),
            "deadline": format_time(state.phase_ends), "rule": "absolute" if need else "simple",
            "alive": len(state.alive), "needed": need, "no_lynch_used": state.no_lynch_used,
            "no_lynch_limit": state.options.no_lynch_limit, "wagons": [w[2] for w in wagons],
            "not_voting": [n for n in state.alive if n not in state.current], "locked": sorted(state.locked),
            "errors": [{"author": e.author, "reason": e.reason, "url": e.url, "code": e.code, "params": e.params}
                       for e in state.errors], "error_total": state.error_total}


moves = st.lists(st.tuples(st.sampled_from(ROSTER), st.sampled_from([*ROSTER, NO_LYNCH, "unvote"]),
                           st.booleans(), st.sampled_from(URLS)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(moves, st.integers(0, 2), st.sampled_from(["markdown", "bbcode"]), st.sampled_from(["en", "ru"]),
       st.booleans())
def test_what_a_count_keeps_is_what_it_would_make_afresh(moves, used, dialect, lang, small):
    state = new_day(used)
    # small: what is kept is dropped all along
    with mock.patch.object(mafia._ENTRY_VIEWS, "size", 1 if small else 8192):
        live = Renderer(dialect, lang)            # one renderer for the whole day, as a running game has
        for voter, target, final, url in moves:
            state = vote(state, voter, target, final, url)
            if not state.is_day:
                break
            at = state.phase_started + timedelta(hours=1)
            shown = mafia.view(state, at)
            assert shown == view_afresh(state, at)
            read_back = MAFIA.from_json(json.loads(json.dumps(MAFIA.to_json(state))))   # new entries: none kept
            assert mafia.view(read_back, at) == shown
            text = live.text(Event("vote_count", shown))
            plain = json.loads(json.dumps(shown))                   # plain dicts: nothing found by identity
            assert text == Renderer(dialect, lang).text(Event("vote_count", plain))
            assert text == live.text(Event("vote_count", plain))
            assert text == live.text(Event("vote_count", mafia.view(read_back, at)))


def test_a_vote_makes_only_its_own_voters_afresh():
    state = new_day(0)
    targets = [ROSTER[1], ROSTER[2], ROSTER[1], ROSTER[2], ROSTER[1], NO_LYNCH, "P08"]
    for voter, target in zip(ROSTER[:7], targets, strict=True):
        state = vote(state, voter, target, False, "")
    mafia.view(state, START)
    state = vote(state, ROSTER[0], ROSTER[2], False, "")    # P01 leaves P02's wagon for Ann's
    made = []
    with mock.patch.object(mafia, "_voter_view", side_effect=lambda e: made.append(e) or FrozenDict(
            name=e.voter, url=e.url, post=e.post, final=e.final, withdrawn=e.withdrawn, at=e.at)):
        mafia.view(state, START)
    # P01's struck vote on P02 and its new vote on Ann: seven other voters are shown as they were
    assert sorted((e.voter, e.target, e.withdrawn) for e in made) == [("P01", ROSTER[2], False), ("P01", "P02", True)]


def test_frozen_views_cannot_be_changed_and_copy_as_themselves():
    voter = FrozenDict(name="P01", final=False)
    for change in (lambda d: d.__setitem__("name", "x"), lambda d: d.update(name="x"), lambda d: d.pop("name"),
                   lambda d: d.clear(), lambda d: d.setdefault("x", 1), lambda d: d.popitem(),
                   lambda d: d.__delitem__("name"), lambda d: d.__ior__({"x": 1})):
        with pytest.raises(TypeError):
            change(voter)
    voters = FrozenList([voter, FrozenDict(name="P02")])
    for change in (lambda v: v.append(1), lambda v: v.extend([1]), lambda v: v.insert(0, 1), lambda v: v.pop(),
                   lambda v: v.remove(voter), lambda v: v.reverse(), lambda v: v.sort(), lambda v: v.clear(),
                   lambda v: v.__setitem__(0, 1), lambda v: v.__delitem__(0), lambda v: v.__iadd__([1]),
                   lambda v: v.__imul__(2)):
        with pytest.raises(TypeError):
            change(voters)
    assert voters == [{"name": "P01", "final": False}, {"name": "P02"}]
    assert json.dumps(voters) == json.dumps([dict(voter), {"name": "P02"}])
    for view in (voter, voters):
        for copied in (copy.copy(view), copy.deepcopy(view), pickle.loads(pickle.dumps(view))):
            assert type(copied) is type(view) and copied == view


def test_the_bidi_controls_are_what_the_pattern_strips():
    assert [chr(c) for c in range(0x10000) if _BIDI.match(chr(c))] == sorted(BIDI_CONTROLS)


@given(st.text(alphabet=st.sampled_from(["a", "я", "\n", "\u200b", *BIDI_CONTROLS])))
def test_strip_bidi_is_the_pattern(text):
    assert strip_bidi(text) == _BIDI.sub("", text)


def wagons_afresh(entries: tuple[VoteEntry, ...]) -> list[tuple[Any, ...]]:
    """The wagons as they were made before the last ones were kept: (target, voters, withdrawn, reached)."""
    by_target: dict[str, list[VoteEntry]] = {}
    for entry in sorted(entries, key=lambda e: e.seq):
        by_target.setdefault(entry.target, []).append(entry)
    out = []
    for target, group in by_target.items():
        current = tuple(e for e in group if not e.withdrawn)
        out.append((target, current, tuple(e for e in group if e.withdrawn),
                    current[-1].seq if current else group[0].seq))
    out.sort(key=lambda w: (-len(w[1]), w[3]))
    return out


# What changes a day's entries from one count to the next: an entry replaced (by a new vote, or struck with
# its seq), one added, one dropped, or entries that are all new (a state read back from JSON).
changes = st.lists(st.tuples(st.sampled_from(["replace", "strike", "add", "drop", "anew"]), st.integers(0, 99),
                             st.sampled_from(ROSTER[:4]), st.sampled_from(ROSTER[:4])), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(changes, st.booleans())
def test_wagons_kept_from_the_count_before_are_the_wagons_made_afresh(changes, same_seq):
    state = new_day(0)
    entries: tuple[VoteEntry, ...] = ()
    seq = 0
    for change, at, voter, target in changes:
        seq += 1
        if change == "add" or not entries:
            entries = (*entries, VoteEntry(voter, target, seq, "t"))
        elif change == "replace":
            at %= len(entries)
            entries = entries[:at] + (VoteEntry(voter, target, seq, "t"),) + entries[at + 1:]
        elif change == "strike":
            at %= len(entries)
            entries = entries[:at] + (replace(entries[at], withdrawn=not entries[at].withdrawn),) + entries[at + 1:]
        elif change == "drop":
            entries = entries[:at % len(entries)] + entries[at % len(entries) + 1:]
        else:
            entries = tuple(replace(e) for e in entries)
        if same_seq and len(entries) > 1 and at % 3 == 0:    # not from the game: two votes with one seq
            entries = (*entries[:-1], replace(entries[-1], seq=entries[0].seq))
        kept = voting.wagons(state.with_(entries=entries))
        with mock.patch.object(voting, "_RECENT", {}):
            made = voting.wagons(state.with_(entries=entries))
        assert kept == made
        if not same_seq:
            assert [(w.target, w.voters, w.withdrawn, w.reached) for w in kept] == wagons_afresh(entries)
