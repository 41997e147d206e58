"""Table-driven parser tests: post text → intents, in English and Russian, through the real grammar,
cleaning and name resolution."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.model import PlayerRef
from forumbot.text.grammar import Command, load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser

RU = [PlayerRef("Том Хэнкс", ("Томми",)), PlayerRef("Мэрил Стрип"), PlayerRef("Анджелина Джоли", ("Анджи",)),
      PlayerRef("Джонни Депп"), PlayerRef("Киану Ривз"), PlayerRef("Брэд Питт"), PlayerRef("Пётр Петров")]
EN = [PlayerRef("Alice"), PlayerRef("Bob", ("Bobby",)), PlayerRef("Joanna"), PlayerRef("Joe"),
      PlayerRef("Mr. Green"), PlayerRef("Carol_99")]


@pytest.fixture(scope="module")
def ru() -> PostParser:
    return PostParser(load_grammar("mafia", "ru"), Roster(RU, lang="ru"))


@pytest.fixture(scope="module")
def en() -> PostParser:
    return PostParser(load_grammar("mafia", "en"), Roster(EN, lang="en"))


def summary(parsed):
    return [(i.kind, i.data.get("target"), bool(i.data.get("final"))) for i in parsed.intents]


RU_CASES = [
    ("Голосую против Тома Хэнкса", "plain", [("vote", "Том Хэнкс", False)]),
    ("голосую ПРОТИВ тома хэнкса", "plain", [("vote", "Том Хэнкс", False)]),
    ("Голос против Мэрил Стрип", "plain", [("vote", "Мэрил Стрип", False)]),
    ("Против Хэнкса", "plain", [("vote", "Том Хэнкс", False)]),
    ("Против Анджелины Джоли", "plain", [("vote", "Анджелина Джоли", False)]),
    ("Против Джоли, она мафия", "plain", [("vote", "Анджелина Джоли", False)]),
    ("Против Анджи", "plain", [("vote", "Анджелина Джоли", False)]),
    ("Голосую против Петра Петрова", "plain", [("vote", "Пётр Петров", False)]),
    ("Голосую против Пётра", "plain", [("vote", "Пётр Петров", False)]),
    ("Окончательно против Киану Ривза", "plain", [("vote", "Киану Ривз", True)]),
    ("ННВ", "plain", [("no_lynch", None, False)]),
    ("ннв!", "plain", [("no_lynch", None, False)]),
    ("Никого не вешать", "plain", [("no_lynch", None, False)]),
    ("Голосую против ННВ", "plain", [("no_lynch", None, False)]),
    ("Снимаю голос", "plain", [("unvote", None, False)]),
    ("Передумал. Голосую против Брэда Питта", "plain", [("vote", "Брэд Питт", False)]),
    ("Я не против Тома Хэнкса", "plain", []),
    ("Противник Тома", "plain", []),
    ("> Голосую против Тома Хэнкса\n\nГолосую против Мэрил Стрип", "markdown", [("vote", "Мэрил Стрип", False)]),
    ("[quote=\"Брэд Питт\"]Против Джоли[/quote]\nПротив Деппа", "bbcode", [("vote", "Джонни Депп", False)]),
    (">!Против Хэнкса!<", "markdown", []),
    ("~~Против Хэнкса~~\nПротив Деппа", "markdown", [("vote", "Джонни Депп", False)]),
    ("<blockquote>Против Деппа</blockquote><p>Против Питта</p>", "html", [("vote", "Брэд Питт", False)]),
    ("Против Хэнкса\nСнимаю голос\nННВ", "plain",
     [("vote", "Том Хэнкс", False), ("unvote", None, False), ("no_lynch", None, False)]),
]

EN_CASES = [
    ("##vote Alice", "plain", [("vote", "Alice", False)]),
    ("Vote: bob", "plain", [("vote", "Bob", False)]),
    ("**vote Joanna**", "markdown", [("vote", "Joanna", False)]),
    ("[b]vote Joanna[/b]", "bbcode", [("vote", "Joanna", False)]),
    ("[vote]Joe[/vote]", "bbcode", [("vote", "Joe", False)]),
    ("vote Bobby", "plain", [("vote", "Bob", False)]),
    ("vote mr. green", "plain", [("vote", "Mr. Green", False)]),
    ("vote Carol_99", "markdown", [("vote", "Carol_99", False)]),
    ("vote Aliec", "plain", [("vote", "Alice", False)]),
    ("vote Alice because she lied", "plain", [("vote", "Alice", False)]),
    ("unvote", "plain", [("unvote", None, False)]),
    ("##unvote", "plain", [("unvote", None, False)]),
    ("no lynch", "plain", [("no_lynch", None, False)]),
    ("##vote no lynch", "plain", [("no_lynch", None, False)]),
    ("final vote Alice", "plain", [("vote", "Alice", True)]),
    ("I won't vote for anyone yet", "plain", []),
    ("> ##vote Alice\n\n##vote Bob", "markdown", [("vote", "Bob", False)]),
    ("`##vote Alice`", "markdown", []),
    ("unvoted yesterday", "plain", []),
]


@pytest.mark.parametrize("text,dialect,expected", RU_CASES, ids=[c[0][:40] for c in RU_CASES])
def test_russian(ru, text, dialect, expected):
    parsed = ru.parse_text(text, dialect)
    assert summary(parsed) == expected
    assert parsed.flags == []


@pytest.mark.parametrize("text,dialect,expected", EN_CASES, ids=[c[0][:40] for c in EN_CASES])
def test_english(en, text, dialect, expected):
    parsed = en.parse_text(text, dialect)
    assert summary(parsed) == expected
    assert parsed.flags == []


@pytest.mark.parametrize("parser,text,needle,candidates", [
    ("en", "vote Jo", "'Jo' matches Joanna and Joe", ("Joanna", "Joe")),
    ("en", "##vote Zed", "matches no player", ()),
    ("ru", "Против Джокера", "matches no player", ()),
])
def test_unknown_and_ambiguous_names_are_flags_not_guesses(request, parser, text, needle, candidates):
    parsed = request.getfixturevalue(parser).parse_text(text, "plain", author="X", post_id="p1")
    assert [(i.kind, i.data["target"]) for i in parsed.intents] == [("vote", None)]
    assert len(parsed.flags) == 1 and needle in parsed.flags[0].reason
    assert parsed.flags[0].post_id == "p1" and parsed.flags[0].author == "X"
    if candidates:
        assert parsed.flags[0].candidates == candidates


def test_host_synonyms_without_code():
    grammar = load_grammar("mafia", "ru").with_commands(
        [Command("vote", ("казнить {player}",)), Command("no_lynch", ("пощадить всех",))], "game.toml")
    parser = PostParser(grammar, Roster(RU, lang="ru"))
    assert summary(parser.parse_text("Казнить Тома Хэнкса")) == [("vote", "Том Хэнкс", False)]
    assert summary(parser.parse_text("Пощадить всех!")) == [("no_lynch", None, False)]


def test_intents_keep_their_post(en):
    parsed = en.parse_text("vote Alice", author="Bob", post_id="t1_abc", url="https://x/y")
    intent = parsed.intents[0]
    assert (intent.post_id, intent.author, intent.url, intent.line) == ("t1_abc", "Bob", "https://x/y", "vote Alice")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300), dialect=st.sampled_from(["plain", "markdown", "bbcode", "html"]))
def test_no_text_makes_the_parser_raise(ru, en, text, dialect):
    for parser in (ru, en):
        parsed = parser.parse_text(text, dialect)
        for intent in parsed.intents:
            target = intent.data.get("target")
            assert target is None or target in parser.roster.names


@settings(max_examples=200, deadline=None)
@given(prefix=st.sampled_from(["Голосую против ", "Против ", "vote ", "##vote ", "Окончательно против "]),
       tail=st.text(max_size=60))
def test_command_prefixes_with_any_tail_never_raise(ru, prefix, tail):
    parsed = ru.parse_text(prefix + tail, "markdown")
    assert all(i.data.get("target") is None or i.data["target"] in ru.roster.names for i in parsed.intents)
