"""Table-driven tests of the sign-up, confirmation, warning and best-player commands in Russian and English
(parsers/mafia.{ru,en}.toml), read as PMs through the real grammar and names."""

from __future__ import annotations

import pytest

from forumbot.model import PlayerRef
from forumbot.text.grammar import load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser

RU = [PlayerRef("Том Хэнкс"), PlayerRef("Брэд Питт"), PlayerRef("Киану Ривз"), PlayerRef("Мэрил Стрип")]
EN = [PlayerRef("Tom Hanks"), PlayerRef("Brad Pitt"), PlayerRef("Keanu Reeves"), PlayerRef("Meryl Streep")]
FIELDS = ("number", "mask", "target", "rule", "text", "places")

RU_CASES = [
    ("Записываюсь: 7, Том Хэнкс", ("signup", {"number": "7", "mask": "Том Хэнкс"})),
    ("записываюсь 12, Скарлетт Йоханссон", ("signup", {"number": "12", "mask": "Скарлетт Йоханссон"})),
    ("Меняю запись: 3, Одри Хепбёрн", ("signup", {"number": "3", "mask": "Одри Хепбёрн"})),
    ("Выписываюсь", ("signup_withdraw", {})),
    ("Подтверждаю", ("confirm_role", {})),
    ("подтверждаю роль", ("confirm_role", {})),
    ("Раздать роли", ("deal_roles", {})),
    ("Начать игру", ("start_game", {})),
    ("Раскрыть маски", ("reveal_masks", {})),
    ("Предупреждение Тому Хэнксу п. 8.2.4 намёк на проверку",
     ("warn", {"target": "Том Хэнкс", "rule": "8.2.4", "text": "намёк на проверку"})),
    ("Предупреждение Брэду Питту п. 8.2.1", ("warn", {"target": "Брэд Питт", "rule": "8.2.1"})),
    ("Голосование за лучшего игрока", ("best_player_open", {})),
    ("ЛИ: Тома Хэнкса, Брэд Питт, Киану Ривз",
     ("best_ballot", {"places": ["Том Хэнкс", "Брэд Питт", "Киану Ривз"]})),
    ("ЛИ: Хэнкс, Питт", ("best_ballot", {"places": ["Том Хэнкс", "Брэд Питт"]})),
]
EN_CASES = [
    ("sign up: 7, Tom Hanks", ("signup", {"number": "7", "mask": "Tom Hanks"})),
    ("Sign up 3, Audrey Hepburn", ("signup", {"number": "3", "mask": "Audrey Hepburn"})),
    ("withdraw", ("signup_withdraw", {})),
    ("Confirm", ("confirm_role", {})),
    ("I confirm", ("confirm_role", {})),
    ("deal roles", ("deal_roles", {})),
    ("start game", ("start_game", {})),
    ("warn Tom Hanks rule 8.2.4 hinted at his check",
     ("warn", {"target": "Tom Hanks", "rule": "8.2.4", "text": "hinted at his check"})),
    ("warn Brad rule 8.2.9", ("warn", {"target": "Brad Pitt", "rule": "8.2.9"})),
    ("best: Tom Hanks, Brad Pitt, Keanu Reeves",
     ("best_ballot", {"places": ["Tom Hanks", "Brad Pitt", "Keanu Reeves"]})),
    ("best: Hanks, Pitt", ("best_ballot", {"places": ["Tom Hanks", "Brad Pitt"]})),
]


def read(roster, lang: str, text: str):
    parser = PostParser(load_grammar("mafia", lang), Roster(roster, lang=lang))
    intents = parser.parse_text(text, where="pm").intents
    return [(i.kind, {k: v for k, v in i.data.items() if k in FIELDS}) for i in intents]


@pytest.mark.parametrize(("text", "want"), RU_CASES)
def test_russian_before_and_after_the_game_commands(text, want):
    assert read(RU, "ru", text) == [want]


@pytest.mark.parametrize(("text", "want"), EN_CASES)
def test_english_before_and_after_the_game_commands(text, want):
    assert read(EN, "en", text) == [want]


@pytest.mark.parametrize("text", ["Записываюсь: 7, Том Хэнкс", "Подтверждаю", "ЛИ: Хэнкс, Питт"])
def test_the_commands_are_pm_only(text):
    parser = PostParser(load_grammar("mafia", "ru"), Roster(RU, lang="ru"))
    assert parser.parse_text(text, where="thread").intents == []
