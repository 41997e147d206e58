"""The game-thread checks (section 8.2/8.3) against a labelled set in both languages: precision and
recall are measured and printed; precision must stay at least 0.9."""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import START

from forumbot.config.game import load_ruleset
from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.moderation import findings, watch
from forumbot.games.mafia.state import Death
from forumbot.model import Intent, PlayerRef

BS = load_ruleset("bodysnatchers", "mafia")
LABELS = tomllib.loads((Path(__file__).parent / "data_moderation.toml").read_text(encoding="utf-8"))
PLAYERS = {"ru": ["Том Хэнкс", "Брэд Питт", "Киану Ривз"], "en": ["Tom Hanks", "Brad Pitt", "Keanu Reeves"]}


def game(lang: str):
    options = {**BS, "moderate": True, "slang": ["ваш медбот"]}
    setup = GameSetup("mafia", tuple(PlayerRef(n) for n in PLAYERS[lang]), START, options=options,
                      phase="day1", host="Host", lang=lang)
    return MAFIA.new(setup)


def measure(lang: str) -> tuple[float, float, list[str]]:
    state = game(lang)
    hits = wrong = missed = 0
    errors = []
    for item in LABELS[lang]:
        found = [check.rule for check, _ in findings(state, item["text"])]
        if item["rule"]:
            if item["rule"] in found:
                hits += 1
            else:
                missed += 1
                errors.append(f"missed {item['rule']}: {item['text']}")
        wrong_here = [r for r in found if r != item["rule"]]
        wrong += len(wrong_here)
        errors += [f"false {r}: {item['text']}" for r in wrong_here]
    precision = hits / (hits + wrong) if hits + wrong else 1.0
    recall = hits / (hits + missed) if hits + missed else 1.0
    return precision, recall, errors


def test_8_2_checks_precision_on_the_labelled_set_in_russian_and_english():
    for lang in ("ru", "en"):
        precision, recall, errors = measure(lang)
        print(f"{lang}: precision {precision:.2f}, recall {recall:.2f}, {len(LABELS[lang])} posts", errors)
        assert precision >= 0.9, errors
        assert recall >= 0.75, errors


def test_8_2_9_naming_a_real_account_and_8_2_8_slang_and_a_dead_player_are_flagged():
    state = game("ru").with_(masks={"Том Хэнкс": "vasya_mf", "Брэд Питт": "petya"})
    post = Intent("post", {"text": "Да это же vasya_mf, узнаю стиль. Ваш медбот"}, author="Брэд Питт")
    codes = [e.data["code"] for e in watch(state, post, "game")[1]]
    assert codes == ["mask_reveal", "slang"]
    state = state.with_(alive=("Брэд Питт", "Киану Ривз"), dead=(Death("Том Хэнкс", "night1", "night"),))
    post = Intent("post", {"text": "Привет из могилы"}, author="Том Хэнкс")
    assert [e.data["code"] for e in watch(state, post, "game")[1]] == ["dead_post"]


def test_8_3_quoted_claims_do_not_count():
    state = game("en")
    assert findings(state, "> I am the doctor.\n\nWhy would he say that") == []


# ---- section 4: notes held for the host ------------------------------------------------------------------
def night_game(lang: str = "ru"):
    players = [PlayerRef(n, role=r) for n, r in zip(PLAYERS[lang], ["inspector", "detective", "assistant"],
                                                   strict=True)]
    setup = GameSetup("mafia", tuple(players), START, options={**BS, "moderate": True}, phase="night0",
                      host="Host", lang=lang)
    return MAFIA.new(setup)


def note(state, author: str, text: str, minutes: int = 1):
    return MAFIA.apply(state, Intent("note", {"text": text}, author=author, at=START + timedelta(minutes=minutes)))


@pytest.mark.parametrize(("lang", "author", "text", "held"), [
    ("ru", "Том Хэнкс", "Я инспектор, верьте мне.", "own_role"),
    ("ru", "Том Хэнкс", "Хэнкс – Инспектор.", "own_role"),
    ("ru", "Том Хэнкс", "Ночь 1: Питт положительный. Ночь 2: Ривз отрицательный.", "nights"),
    ("ru", "Том Хэнкс", "Питт – Инспектор? Проверьте его.", None),
    ("ru", "Том Хэнкс", "Н1 была тихой, не верьте газете.", None),
    ("en", "Tom Hanks", "I am the inspector.", "own_role"),
    ("en", "Tom Hanks", "Night 1: Brad is clean, night 2: Keanu is not.", "nights"),
    ("en", "Tom Hanks", "Keanu looks like the inspector to me", None),
])
def test_4_notes_stating_their_writers_role_or_several_nights_wait_for_the_host(lang, author, text, held):
    state, events = note(night_game(lang), author, text)
    assert state.notes[-1].get("held") == held
    assert events[0].data["held"] == held and events[1].data["pm_to"] == "Host"


def test_4_a_held_note_is_published_only_when_the_host_approves_it():
    state, _ = note(night_game(), "Том Хэнкс", "Хэнкс – Инспектор.")
    state, _ = note(state, "Брэд Питт", "Я инспектор, честно.", 2)
    state, events = MAFIA.apply(state, Intent("approve_note", {"number": "1"}, author="Host", at=START))
    assert "held" not in state.notes[0] and state.notes[1]["held"] == "own_role"
    assert events[0].data["approved"]
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    paper = next(e for e in events if e.kind == "night_end")
    assert paper.data["notes"] == ["Хэнкс – Инспектор."]
    told = next(e for e in events if e.kind == "note_rejected")
    assert told.data["pm_to"] == "Брэд Питт" and told.data["held"] == "own_role"


def test_8_3_a_quoted_claim_in_bbcode_is_not_the_posters():
    state = game("ru")
    post = Intent("post", {"text": "[quote]Я инспектор.[/quote] Ну-ну.", "dialect": "bbcode"}, author="Брэд Питт")
    assert watch(state, post, "game")[1] == []
    post = Intent("post", {"text": "Я инспектор.", "dialect": "bbcode"}, author="Брэд Питт")
    assert [e.data["params"]["rule"] for e in watch(state, post, "game")[1]] == ["8.2.1"]
