"""Names in the bot's Russian posts as a host writes them: declined, and with words in the
player's gender instead of "ходил(а)"; notes of several lines; the classic detective's "mafia"."""

from __future__ import annotations

import pytest
from helpers import START

from forumbot.config.game import load_ruleset
from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA
from forumbot.model import Event, Intent, PlayerRef
from forumbot.render import Renderer
from forumbot.text.decline import decline, guess_gender
from forumbot.text.grammar import load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser

CASES = [
    ("Брэд Питт", "accs", None, "Брэда Питта"),
    ("Киану Ривз", "datv", None, "Киану Ривзу"),
    ("Том Хэнкс", "ablt", None, "Томом Хэнксом"),
    ("Анджелина Джоли", "accs", None, "Анджелину Джоли"),
    ("Анна Петрова", "datv", None, "Анне Петровой"),
    ("Пётр Петров", "gent", None, "Петра Петрова"),
    ("Мэрил Стрип", "gent", "f", "Мэрил Стрип"),        # a woman's surname on a consonant stays
    ("Одри Хепбёрн", "datv", None, "Одри Хепбёрн"),
    ("Леонардо Ди Каприо", "gent", None, "Леонардо Ди Каприо"),
    ("Tom Hanks", "gent", None, "Tom Hanks"),              # Latin names never change
]


@pytest.mark.parametrize(("name", "case", "gender", "want"), CASES)
def test_names_are_declined_where_russian_declines_them(name, case, gender, want):
    assert decline(name, case, gender) == want


@pytest.mark.parametrize(("name", "want"), [("Анджелина Джоли", "f"), ("Брэд Питт", "m"), ("Мерилин Монро", "f"),
                                            ("Джонни Депп", "m"), ("Скарлетт Йоханссон", "f")])
def test_gender_is_guessed_from_the_name(name, want):
    assert guess_gender(name) == want


def line(code: str, **params: str) -> Event:
    return Event("night_result", {"pm_to": "X", "night": 1, "lines": [{"code": code, "params": params}]})


def test_night_results_decline_names_and_agree_with_the_players_gender():
    ru = Renderer("markdown", "ru")
    text = ru.text(line("went", target="Анджелина Джоли", to="Брэд Питт", kind="plus"))
    assert "Анджелина Джоли ходила к Брэду Питту" in text
    assert "Покушение на Киану Ривза удалось." in ru.text(line("kill_done", target="Киану Ривз"))
    assert "У Тома Хэнкса этой ночью 2 гостя." in ru.text(line("visitors", target="Том Хэнкс", count=2))
    assert "(" not in ru.text(line("went_nowhere", target="Том Хэнкс"))   # no "ходил(а)"


def test_the_rosters_gender_beats_the_guess():
    roles = [{"name": "Мэрил Стрип", "role": "Психолог", "alive": False, "team": "mafia"},
             {"name": "Том Хэнкс", "role": "Инспектор", "alive": False, "team": "town"}]
    event = Event("game_over", {"thread": "game", "winner": "town", "roles": roles, "at": "2026-03-01T20:00:00Z",
                                "alive": []})
    guessed = Renderer("markdown", "ru").text(event)
    told = Renderer("markdown", "ru", genders={"Мэрил Стрип": "f"}).text(event)
    assert "Мэрил Стрип: Психолог (погиб)" in guessed       # "Мэрил" looks masculine to the dictionary
    assert "Мэрил Стрип: Психолог (погибла)" in told and "Том Хэнкс: Инспектор (погиб)" in told


def test_english_posts_keep_names_as_they_are():
    en = Renderer("markdown", "en")
    assert "Tom Hanks went to Brad Pitt" in en.text(line("went", target="Tom Hanks", to="Brad Pitt", kind="plus"))
    assert "Tom Hanks is mafia." in en.text(line("check_team", target="Tom Hanks", status="mafia"))


@pytest.mark.parametrize(("lang", "text"), [("ru", "Записка: первая строка\nвторая строка\nПроверяю Тома"),
                                            ("en", "Note: first line\nsecond line\ncheck Tom")])
def test_a_note_of_several_lines_keeps_its_lines_up_to_the_next_command(lang, text):
    name = "Том Хэнкс" if lang == "ru" else "Tom Hanks"
    parser = PostParser(load_grammar("mafia", lang), Roster([PlayerRef(name)], lang=lang))
    intents = parser.parse_text(text, where="pm").intents
    assert [i.kind for i in intents] == ["note", "action"]
    assert intents[0].data["text"].split("\n")[1] in ("вторая строка", "second line")
    assert "more_lines" not in intents[0].data


def test_a_game_without_notes_says_so_rather_than_all_0_notes_are_used():
    setup = GameSetup("mafia", (PlayerRef("Cop", role="detective"), PlayerRef("M", role="mafia"),
                                PlayerRef("T", role="townsfolk")), START,
                      options=load_ruleset("classic", "mafia"), phase="night0", host="Host")
    state = MAFIA.new(setup)
    _, events = MAFIA.apply(state, Intent("note", {"text": "hi"}, author="Cop", at=START))
    assert events[0].data["code"] == "notes_none"
    assert "0" not in Renderer("markdown", "en").text(events[0])


def test_the_day_end_says_hanged_in_the_players_gender_and_number():
    ru = Renderer("markdown", "ru")

    def day_end(*names: str) -> str:
        return ru.text(Event("day_end", {"day": 1, "result": "lynch", "lynched": list(names), "rule": "simple",
                                         "needed": None, "ended": "deadline", "at": "2026-03-01T20:00:00Z",
                                         "tally": {n: 3 for n in names}, "saved": [], "roles": {},
                                         "view": {"wagons": []}, "alive": [], "no_lynch_used": 2,
                                         "no_lynch_limit": 2, "next_rule": "simple"}))
    assert "Повешен: Том Хэнкс" in day_end("Том Хэнкс")
    assert "Повешена: Анджелина Джоли" in day_end("Анджелина Джоли")
    assert "Повешены: Анджелина Джоли, Джонни Депп" in day_end("Анджелина Джоли", "Джонни Депп")


@pytest.mark.parametrize(("lang", "count", "want"), [
    ("ru", 1, "1 гость"), ("ru", 2, "2 гостя"), ("ru", 5, "5 гостей"), ("ru", 11, "11 гостей"),
    ("ru", 21, "21 гость"), ("ru", 0, "0 гостей"), ("en", 1, "1 visitor"), ("en", 3, "3 visitors")])
def test_numbers_agree_with_their_words(lang, count, want):
    text = Renderer("markdown", lang).text(line("visitors", target="Том Хэнкс" if lang == "ru" else "Tom", count=count))
    assert want in text and "(s)" not in text


def test_a_roster_made_by_the_game_brings_its_genders_to_the_posts():
    from forumbot.config.game import load_scenario
    from forumbot.config.paths import data_dir
    from forumbot.engine.loading import GameRun

    run = GameRun.build(load_scenario(data_dir("samples") / "bodysnatchers-signup.toml").config)
    run.use_roster((PlayerRef("Мэрил Стрип", gender="f"), PlayerRef("Том Хэнкс")))
    assert run.parser.roster.names == ("Мэрил Стрип", "Том Хэнкс")
    event = Event("modkill", {"thread": "game", "name": "Мэрил Стрип", "role": None, "alive": []})
    assert "Мэрил Стрип исключена из игры ведущим" in run.renderer.text(event)


def test_a_roster_made_by_the_game_keeps_the_reading_mode_and_the_host():
    """Sign-ups make the roster as they go: the parser built for it still reads as the game's config says
    (its reading mode) and still knows the host (a vote for the host is no vote)."""
    from dataclasses import replace

    from forumbot.config.game import load_scenario
    from forumbot.config.paths import data_dir
    from forumbot.engine.loading import GameRun
    from forumbot.model import Post

    config = load_scenario(data_dir("samples") / "bodysnatchers-signup.toml").config
    run = GameRun.build(replace(config, reading="bold"))
    assert config.host == "Ведущий"
    run.use_roster((PlayerRef("Мэрил Стрип", gender="f"), PlayerRef("Том Хэнкс")))
    assert run.parser.reading == "bold"
    post = Post(platform_id="p1", thread="votes", author="Том Хэнкс", created=config.start,
                body="**Голосую против Ведущий**", dialect="markdown")
    intents = run.parser.parse(post).intents
    assert [(i.kind, i.data) for i in intents] == [("unvote", {"for_host": "Ведущий"})]


@pytest.mark.parametrize(("name", "want"), [
    ("Anna", "f"), ("Maria", "f"), ("Julia Roberts", "f"), ("Sonya", "f"), ("Kate", "f"), ("Alice", "f"),
    ("Nikita", "m"), ("Ilya", "m"), ("Bob", "m"), ("Boris", "m"), ("Luca", "m"), ("Bo", "m"), ("vasya", "m"),
])
def test_a_latin_name_gets_a_guessed_gender(name, want):
    assert guess_gender(name) == want


@pytest.mark.parametrize(("name", "gender", "said"), [
    ("Anna", None, "Anna выбыла, но написала в игровой теме"),
    ("Maria", None, "Maria выбыла, но написала в игровой теме"),
    ("Kate", None, "Kate выбыла, но написала в игровой теме"),
    ("Nikita", None, "Nikita выбыл, но написал в игровой теме"),
    ("Ilya", None, "Ilya выбыл, но написал в игровой теме"),
    ("Bob", None, "Bob выбыл, но написал в игровой теме"),
    ("Nikita", "f", "Nikita выбыла, но написала в игровой теме"),      # the roster's gender decides
    ("Anna", "m", "Anna выбыл, но написал в игровой теме"),
])
def test_a_russian_phrase_agrees_with_a_latin_names_gender_the_roster_first(name, gender, said):
    from forumbot.model import Flag

    ru = Renderer("markdown", "ru")
    if gender:
        ru.genders[name] = gender
    flag = Flag(reason="", code="flag_dead_post", params=(("author", name),))
    assert ru.flag(flag).reason == said
