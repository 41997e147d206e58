"""Every message answered, none read in part: lists of names read whole (Food Chain's attacks are in
test_foodchain_game.py), best-player ballots, private messages nobody could read, corrections, and the host's
messages answered once. English and Russian."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from test_mafia_signup import mafia, over, refused, town

from forumbot.engine.loading import shared_grammar
from forumbot.games.mafia import MAFIA
from forumbot.model import PlayerRef
from forumbot.render import Renderer
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser


def read(state, author, text, lang="en", where="pm"):
    """A PM read by the real grammar of Mafia (with the host's commands) and applied: (state, events)."""
    parser = PostParser(shared_grammar("mafia", lang), Roster([PlayerRef(p) for p in state.players], lang=lang))
    parsed = parser.parse_text(text, where=where, author=author, post_id=f"{author}-{text}",
                               at=state.phase_started + timedelta(minutes=5))
    events = []
    for intent in parsed.intents:
        state, happened = MAFIA.apply(state, intent)
        events += happened
    return state, events, parsed


# ---- best-player ballots ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_with_more_names_than_places_is_refused_whole_naming_the_limit(lang, head):
    state = over()
    t, m = town(state), mafia(state)
    names = [t[1], t[2], m[0], m[1]]
    after, events, _ = read(state, t[0], f"{head} {', '.join(names)}", lang)
    assert refused(events) == ["bp_too_many"] and after.best["ballots"] == {}
    text = Renderer("markdown", lang).text(events[0])
    assert ("at most 3 players, one for each place: you named 4" if lang == "en"
            else "не больше 3 имён, по одному на место, а вы назвали 4") in text
    assert all(name in text for name in names)


@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_names_every_place_in_order(lang, head):
    state = over()
    t, m = town(state), mafia(state)
    after, events, _ = read(state, t[0], f"{head} {t[1]}, {t[2]} and {m[0]}" if lang == "en"
                            else f"{head} {t[1]}, {t[2]} и {m[0]}", lang)
    assert [e.kind for e in events] == ["ballot_ack"]
    assert after.best["ballots"][t[0]]["places"] == [t[1], t[2], m[0]]


@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_naming_nobody_known_is_refused_with_the_name(lang, head):
    state = over()
    t = town(state)
    _, events, _ = read(state, t[0], f"{head} {t[1]}, Zzyzx Qwerty", lang)
    assert refused(events) == ["bp_name"] and "Zzyzx" in events[0].data["params"]["query"]


@pytest.mark.parametrize(("lang", "head", "said"), [
    ("en", "best:", "Your empty ballot is read as declining the places"),
    ("ru", "ЛИ:", "Пустой бюллетень я читаю как отказ от голосования"),
])
def test_an_empty_ballot_is_read_as_declining_and_withdraws_an_earlier_one(lang, head, said):
    state = over()
    t, m = town(state), mafia(state)
    state, _, _ = read(state, t[0], f"{head} {t[1]}, {t[2]}, {m[0]}", lang)
    assert t[0] in state.best["ballots"]
    state, events, _ = read(state, t[0], head, lang)
    assert [e.kind for e in events] == ["ballot_ack"] and t[0] not in state.best["ballots"]
    text = Renderer("markdown", lang).text(events[0])
    assert said in text and ("earlier ballot is withdrawn" if lang == "en" else "прежний бюллетень отозван") in text


def test_an_empty_ballot_is_answered_why_not_when_the_ruleset_refuses_it():
    state = over()
    state = state.with_(options=replace(state.options, best_player_empty="refuse"))
    t, m = town(state), mafia(state)
    state, _, _ = read(state, t[0], f"best: {t[1]}, {t[2]}, {m[0]}")
    state, events, _ = read(state, t[0], "best:")
    assert refused(events) == ["bp_empty"] and t[0] in state.best["ballots"]
