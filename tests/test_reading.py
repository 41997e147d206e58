"""Reading posts as a careful human host does: the reading modes, every command of a post in order,
tolerant tags and keywords, guards against chat, invisible characters, hidden HTML, and flags for every
vote-like line that does not count. Table-driven, English and Russian; the examples are our own."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.cli import cli
from forumbot.errors import ConfigError
from forumbot.games import GameSetup, get_game
from forumbot.model import PlayerRef
from forumbot.text.clean import BOLD_CLOSE, BOLD_OPEN, clean
from forumbot.text.grammar import Command, load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import MAX_COMMANDS, PostParser
from forumbot.text.reading import lines_of

EN = [PlayerRef("Alice"), PlayerRef("Bob"), PlayerRef("Carol Danvers"), PlayerRef("DeathRowKitty")]
RU = [PlayerRef("Том Хэнкс"), PlayerRef("Мэрил Стрип"), PlayerRef("Брэд Питт")]


@pytest.fixture(scope="module")
def en() -> PostParser:
    return PostParser(load_grammar("mafia", "en"), Roster(EN, lang="en"), host="Moderator")


@pytest.fixture(scope="module")
def ru() -> PostParser:
    return PostParser(load_grammar("mafia", "ru"), Roster(RU, lang="ru"))


def read(parser: PostParser, text: str, dialect: str = "plain", reading: str | None = None) -> list[tuple]:
    """The counted commands of a post: (kind, target)."""
    parsed = parser.parse_text(text, dialect, reading=reading)
    return [(i.kind, i.data.get("target")) for i in parsed.intents if i.kind != "not_counted"]


def in_its_language(en: PostParser, ru: PostParser, text: str) -> PostParser:
    return ru if any("а" <= ch <= "я" for ch in text.lower()) else en


# ---- every command of a post, in order; the last one decides ---------------------------------------------

SEVERAL_EN = [
    ("[b]Unvote, vote: Bob[/b]", "bbcode", [("unvote", None), ("vote", "Bob")]),
    ("[b]unvote; vote: Alice[/b]", "bbcode", [("unvote", None), ("vote", "Alice")]),
    ("[b]Unvote Vote Alice[/b]", "bbcode", [("unvote", None), ("vote", "Alice")]),
    ("[b]Unvote Bob, vote Alice[/b]", "bbcode", [("unvote", None), ("vote", "Alice")]),
    ("[b]unvote and vote Bob[/b]", "bbcode", [("unvote", None), ("vote", "Bob")]),
    ("[unvote]Alice[/unvote] [vote]Bob[/vote]", "bbcode", [("unvote", None), ("vote", "Bob")]),
    ("[b]Unvote[/b]\nthinking...\n[b]Vote: Carol[/b]", "bbcode", [("unvote", None), ("vote", "Carol Danvers")]),
    ("[b]Unvote\n\nVote: Bob[/b]", "bbcode", [("unvote", None), ("vote", "Bob")]),
    ("unvote, vote Alice", "markdown", [("unvote", None), ("vote", "Alice")]),
    ("##vote Alice\n\nActually no. ##vote Bob", "markdown", [("vote", "Alice"), ("vote", "Bob")]),
]
SEVERAL_RU = [
    ("Снимаю голос, голосую против Хэнкса", "plain", [("unvote", None), ("vote", "Том Хэнкс")]),
    ("Против Стрип; против Питта", "plain", [("vote", "Мэрил Стрип"), ("vote", "Брэд Питт")]),
    ("Передумал. Снимаю голос и голосую против Питта", "plain", [("unvote", None), ("vote", "Брэд Питт")]),
]


SEVERAL = SEVERAL_EN + SEVERAL_RU


@pytest.mark.parametrize("text,dialect,expected", SEVERAL, ids=[c[0][:40] for c in SEVERAL])
def test_every_command_of_a_post_is_read_in_order(en, ru, text, dialect, expected):
    assert read(in_its_language(en, ru, text), text, dialect) == expected


# ---- the kinds of writing a careful host reads (games nobody tuned to) -----------------------------------

KINDS_ROSTER_EN = [PlayerRef(n) for n in ("Marlo", "Kit", "BlueKestrel", "TwoKingsOfSpades", "KineticEnergy")]
KINDS_ROSTER_RU = [PlayerRef(n) for n in ("Марло", "Том Хэнкс", "Мэрил Стрип")]
# (text, expected): every post read on a BBCode forum, where English Mafia reads `bold` and Russian `commands`
KINDS_EN = [
    # unvote and vote together in one bold span, any punctuation
    ("[b]Unvote: Vote: Marlo[/b]", [("unvote", None), ("vote", "Marlo")]),
    ("[b]Unvote.Vote: Marlo[/b]", [("unvote", None), ("vote", "Marlo")]),
    ("[b]unvote; vote: Marlo[/b]", [("unvote", None), ("vote", "Marlo")]),
    ("[b]UNVOTE VOTE: ML[/b]", [("unvote", None), ("vote", "Marlo")]),
    ("[b]Unvote, vote Marlo[/b]", [("unvote", None), ("vote", "Marlo")]),
    ("[b]Unvote - vote Kit[/b]", [("unvote", None), ("vote", "Kit")]),
    # tags whose content is a command word, or empty; two tags on one line
    ("[vote]Unvote[/vote]", [("unvote", None)]),
    ("[vote]unvote[/vote]", [("unvote", None)]),
    ("[unvote][/unvote]", [("unvote", None)]),
    ("[unvote]Marlo[/unvote] then [vote]Kit[/vote]", [("unvote", None), ("vote", "Kit")]),
    ("[unvote]Kit[/unvote] and [vote]Marlo[/vote]", [("unvote", None), ("vote", "Marlo")]),
    # names stretched or sung for emphasis
    ("[b]VOTE: MAAAAARLOOOOO[/b]", [("vote", "Marlo")]),
    ("[b]vote: marlooooooo[/b]", [("vote", "Marlo")]),
    ("[vote]lalalaMARLO[/vote]", [("vote", "Marlo")]),
    ("[vote]Kiiiiit[/vote]", [("vote", "Kit")]),
    # initials, number words, misspellings (two letters swapped and one dropped)
    ("[vote]BK[/vote]", [("vote", "BlueKestrel")]),
    ("[vote]2kings[/vote]", [("vote", "TwoKingsOfSpades")]),
    ("[vote]2KoS[/vote]", [("vote", "TwoKingsOfSpades")]),
    ("[vote]BlueKetsrl[/vote]", [("vote", "BlueKestrel")]),
    ("[vote]KinetcEnegry[/vote]", [("vote", "KineticEnergy")]),
    # decorated or doubled markup
    ("[b][VOTE: Marlo][/b]", [("vote", "Marlo")]),
    ("[b][color=red]v[/color][color=blue]o[/color][color=red]t[/color][color=blue]e[/color]: "
     "[color=red]M[/color][color=blue]arlo[/color][/b]", [("vote", "Marlo")]),
    ("[b]***vote:marlo***[/b]", [("vote", "Marlo")]),
    ('[b]"vote: Kit"[/b]', [("vote", "Kit")]),
    # a bold plea about oneself
    ("[b]LYNCH ME PLZ!!![/b]", []),
    ("[b]vote me please[/b]", []),
    # a mistyped keyword or tag
    ("[b]vot6e: Marlo[/b]", [("vote", "Marlo")]),
    ("[/unvote][/unvote]", [("unvote", None)]),
    # restating: no change
    ("[b]Vote stands.[/b]", []),
    ("[b]vote stays[/b]", []),
    # a non-player or a joke target: not a vote (flagged; the earlier vote stands)
    ("[vote]Marlo[/vote]\n[vote]Not Scum[/vote]", [("vote", "Marlo")]),
    # a bold sentence that talks about voting
    ('[b]"Don\'t vote until Kit is replaced"[/b]', []),
    ("[b]We should all vote Kit today[/b]", []),
]
KINDS_RU = [
    ("[b]анвот, голос: Марло[/b]", [("unvote", None), ("vote", "Марло")]),
    ("Анвот. Голосую: Марло", [("unvote", None), ("vote", "Марло")]),
    ("[vote]снимаю[/vote]", [("unvote", None)]),
    ("[vote]Снимаю голос[/vote]", [("unvote", None)]),
    ("[vote]Мааарлоооо[/vote]", [("vote", "Марло")]),
    ("Голосую против ХЭЭЭНКСА", [("vote", "Том Хэнкс")]),
    ("[vote]ТХ[/vote]", [("vote", "Том Хэнкс")]),
    ("[b]***Голосую против Стрип***[/b]", [("vote", "Мэрил Стрип")]),
    ("Голос в силе.", []),
    ("[unvote]Марло[/unvote] и [vote]Хэнкс[/vote]", [("unvote", None), ("vote", "Том Хэнкс")]),
]
KINDS = KINDS_EN + KINDS_RU


@pytest.fixture(scope="module")
def kinds() -> tuple[PostParser, PostParser]:
    return (PostParser(load_grammar("mafia", "en"), Roster(KINDS_ROSTER_EN), host="Moderator"),
            PostParser(load_grammar("mafia", "ru"), Roster(KINDS_ROSTER_RU, lang="ru")))


@pytest.mark.parametrize("text,expected", KINDS, ids=[c[0][:40] for c in KINDS])
def test_the_kinds_of_writing_a_careful_host_reads(kinds, text, expected):
    parser = in_its_language(*kinds, text)
    parsed = parser.parse_text(text, "bbcode", author="Kit" if parser is kinds[0] else "Марло")
    assert [(i.kind, i.data.get("target")) for i in parsed.intents if i.kind != "not_counted"] == expected


def test_a_joke_target_is_flagged_and_the_earlier_vote_stands(kinds):
    parsed = kinds[0].parse_text("[vote]Marlo[/vote]\n[vote]Not Scum[/vote]", "bbcode", author="Kit")
    assert [i.kind for i in parsed.intents] == ["vote", "not_counted"]
    assert "the target is not a name" in parsed.flags[0].reason


def test_two_fits_are_a_flag_never_a_guess():
    parser = PostParser(load_grammar("mafia", "en"), Roster([PlayerRef("BlueKestrel"), PlayerRef("BigKahuna")]))
    parsed = parser.parse_text("[vote]BK[/vote]", "bbcode")
    assert [(i.kind, i.data.get("target")) for i in parsed.intents] == [("vote", None)]
    assert "'BK' matches BlueKestrel and BigKahuna" in parsed.flags[0].reason
    ru = PostParser(load_grammar("mafia", "ru"), Roster([PlayerRef("Том Хэнкс"), PlayerRef("Тина Хэй")], lang="ru"))
    assert ru.parse_text("[vote]ТХ[/vote]", "bbcode").intents[0].data["target"] is None


def test_restating_and_pleas_raise_no_flag(kinds):
    for text in ("[b]Vote stands.[/b]", "[b]LYNCH ME PLZ!!![/b]"):
        assert kinds[0].parse_text(text, "bbcode", author="Kit").flags == []


# ---- explicit commands count in every mode; a plan is not a vote ----------------------------------------

EXPLICIT = [
    ("en", "##vote Bob"), ("en", "## vote: Bob"), ("en", "[vote]Bob[/vote]"), ("en", "/vote Bob"),
    ("ru", "[vote]Хэнкс[/vote]"), ("ru", "##vote Хэнкс"), ("ru", "/vote Хэнкс"),
]


@pytest.mark.parametrize("reading", ["commands", "bold", "natural"])
@pytest.mark.parametrize("lang,text", EXPLICIT, ids=[c[1] for c in EXPLICIT])
def test_explicit_commands_count_in_every_reading_mode(en, ru, lang, text, reading):
    parser = en if lang == "en" else ru
    expected = [("vote", "Bob" if lang == "en" else "Том Хэнкс")]
    assert read(parser, f"I have thought about it.\n{text}", "bbcode", reading=reading) == expected


@pytest.mark.parametrize("dialect", ["plain", "markdown", "bbcode", "html"])
def test_a_russian_vote_with_a_colon_counts_on_every_forum(ru, dialect):
    """«Голосую: X» is an explicit command in the Russian grammar: it counts on every dialect and in every
    reading mode, bold or not; «Голосую против X» is a keyword like any other, bold only in `bold`."""
    assert read(ru, "Подумал.\nГолосую: Хэнкс", dialect) == [("vote", "Том Хэнкс")]
    assert read(ru, "Голос: Стрип", dialect, reading="natural") == [("vote", "Мэрил Стрип")]
    assert read(ru, "Подумал.\nГолосую: Хэнкс", dialect, reading="bold") == [("vote", "Том Хэнкс")]
    assert read(ru, "Голос: Стрип", dialect, reading="bold") == [("vote", "Мэрил Стрип")]
    assert read(ru, "Голосую против Хэнкса", dialect, reading="bold") == []


def test_a_host_makes_the_english_vote_with_a_colon_explicit_in_a_bold_game():
    """`VOTE: X` is bold-only in a `bold` game until the game's config lists it in a command's `explicit`."""
    players = [PlayerRef("Alice"), PlayerRef("Bob")]
    shipped = load_grammar("mafia", "en")
    host_made = shipped.with_commands([Command("vote", ("vote: {player}",), {}, "thread", ("vote: {player}",))],
                                      "game.toml")
    text = "Thinking.\nVote: Bob"
    assert read(PostParser(shipped, Roster(players, lang="en")), text, "bbcode", reading="bold") == []
    assert read(PostParser(host_made, Roster(players, lang="en")), text, "bbcode", reading="bold") == [("vote", "Bob")]


PLANS = [
    ("I'm voting for Alice tomorrow maybe, we'll see.", "commands"),
    ("I'm voting for Alice tomorrow maybe, we'll see.", "natural"),
    ("[b]vote Alice tomorrow[/b]", "bold"),
    ("Vote Bob later, probably", "commands"),
    ("I will vote Alice", "natural"),
    ("I'm going to vote Bob when he claims", "natural"),
    ("Голосую против Хэнкса завтра", "commands"),
    ("Против Стрип, наверное", "commands"),
    ("vote Alice maybe", "commands"),
    ("Собираюсь голосовать против Хэнкса", "natural"),
    ("Завтра буду голосовать против Питта", "natural"),
    ("[b]Голосую против Хэнкса завтра[/b]", "bold"),
    ("[b]vote Alice maybe[/b]", "bold"),
]


@pytest.mark.parametrize("text,reading", PLANS, ids=[f"{c[1]}: {c[0][:40]}" for c in PLANS])
def test_a_statement_of_intent_is_not_a_vote_in_any_mode(en, ru, text, reading):
    assert read(in_its_language(en, ru, text), text, "bbcode", reading=reading) == []


@pytest.mark.parametrize("text,target", [("vote Alice, probably scum", "Alice"),
                                         ("Против Стрип, наверное мафия", "Мэрил Стрип")])
def test_a_doubt_followed_by_more_words_is_a_comment_on_a_vote(en, ru, text, target):
    assert read(in_its_language(en, ru, text), text, "markdown") == [("vote", target)]


def test_a_plan_said_as_a_command_reaches_the_host_as_not_counted(en):
    parsed = en.parse_text("I'm voting for Alice tomorrow maybe", "markdown", author="Bob")
    assert [i.data.get("error_code") for i in parsed.intents] == ["not_counted_plan"]
    assert "a plan, not a vote" in parsed.flags[0].reason


# ---- the bold mode: bold text and vote tags anywhere; nothing else -------------------------------------

BOLD = [
    ("I'll randomly [b]Vote: Alice[/b] for now.", [("vote", "Alice")]),
    ("Also [unvote]Bob[/unvote]", [("unvote", None)]),
    ("[vote]Bob[/vote] and let's see what happens.", [("vote", "Bob")]),
    ("so [b]vote Carol. [/b]", [("vote", "Carol Danvers")]),
    ("[b]vote:[/b] Alice", [("vote", "Alice")]),
    ("[b][color=red]VOTE: bob[/color][/b]", [("vote", "Bob")]),
    ("VOTE: Alice", []),                                      # not bold: a flag, no vote
    ("[b]I do not like his vote.[/b]", []),                   # bold, but no command starts it
    ('[quote="Bob"][b]vote Alice[/b][/quote]', []),           # someone else's words
]


@pytest.mark.parametrize("text,expected", BOLD, ids=[c[0][:40] for c in BOLD])
def test_bold_mode_reads_bold_text_and_tags_anywhere(en, text, expected):
    assert en.mode("bbcode") == "bold"       # the English grammar's default for BBCode forums
    assert read(en, text, "bbcode") == expected


def test_bold_mode_reads_markdown_and_html_bold_too(en):
    assert read(en, "I think **vote Bob** is right", "markdown", reading="bold") == [("vote", "Bob")]
    assert read(en, "<p>Fine, <strong>vote: Alice</strong></p>", "html") == [("vote", "Alice")]
    assert read(en, "<p>vote: Alice</p>", "html") == []
    # phpBB renders [vote]X[/vote] as a span of class bbvote: a vote tag
    assert read(en, '<p>so <span class="bbvote">VOTE: Bob</span> now</p>', "html") == [("vote", "Bob")]
    assert read(en, '<p>ok <span style="font-weight: bold">vote: Alice</span></p>', "html") == [("vote", "Alice")]


def test_a_vote_that_is_not_bold_is_flagged_in_a_bold_game(en):
    parsed = en.parse_text("vote: Alice", "bbcode", author="Bob", post_id="p7")
    assert [i.kind for i in parsed.intents] == ["not_counted"]
    assert len(parsed.flags) == 1 and "not bold" in parsed.flags[0].reason and parsed.flags[0].post_id == "p7"


def test_private_messages_are_always_read_as_commands(en):
    assert en.mode("bbcode", "pm") == "commands"
    parsed = en.parse_text("kill Alice", "bbcode", where="pm")
    assert [(i.kind, i.data.get("target")) for i in parsed.intents] == [("action", "Alice")]


def test_night_actions_are_not_judged_as_chat(en):
    parsed = en.parse_text("kill him", "plain", where="pm")       # an unknown name: a flag, as before
    assert [(i.kind, i.data.get("target")) for i in parsed.intents] == [("action", None)]
    assert "'him'" in parsed.flags[0].reason


def test_the_russian_grammar_reads_commands_on_bbcode_forums(ru):
    assert ru.mode("bbcode") == "commands"
    assert read(ru, "Голосую против Хэнкса", "bbcode") == [("vote", "Том Хэнкс")]


def test_bold_spans_run_over_lines():
    lines = lines_of(clean("[b]one\ntwo[/b] three\n[b]four[/b]", "bbcode", marks=True))
    assert [(line.text, line.bold) for line in lines] == [("one", ((0, 3),)), ("two three", ((0, 3),)),
                                                          ("four", ((0, 4),))]
    assert BOLD_OPEN not in clean(f"{BOLD_OPEN}vote Bob{BOLD_CLOSE}", "plain")   # a player cannot forge bold


# ---- tolerant tags and keywords --------------------------------------------------------------------------

TOLERANT = [
    ("[vote]Alice[/unvote]", [("vote", "Alice")]),            # the forum still showed it as a vote
    ("[vote]Vote: Bob[/vote]", [("vote", "Bob")]),
    ("[vote]Bob", [("vote", "Bob")]),                          # the closing tag lost
    ("[b] Unvote [/b]", [("unvote", None)]),
    ("[b]unvote[[/b]", [("unvote", None)]),
    ("[b]vtoe: Alice[/b]", [("vote", "Alice")]),
    ("[b]unvoet[/b]", [("unvote", None)]),
    ("[b]vote; Bob[/b]", [("vote", "Bob")]),
    ("[b]vote u/bob[/b]", [("vote", "Bob")]),
    ("[b]Vote: @Alice[/b]", [("vote", "Alice")]),
]


@pytest.mark.parametrize("text,expected", TOLERANT, ids=[c[0][:40] for c in TOLERANT])
def test_tolerant_tags_and_keywords(en, text, expected):
    assert read(en, text, "bbcode") == expected


# ---- guards against chat ---------------------------------------------------------------------------------

CHAT_EN = [
    ("No lynch today would be a mistake", "commands", []),
    ("Vote Bob? No way, he is town.", "commands", []),
    ("unvote me then dude, I'm town", "commands", []),
    ("Lynch his bum, Marquis!", "commands", []),
    ("Vote on you was a gut read", "commands", []),
    ("vote Bob if he doesn't claim", "commands", []),
    ("unvote for now", "commands", [("unvote", None)]),
    ("No lynch please", "commands", [("no_lynch", None)]),
    ("unvote is what I'd do", "commands", []),
    ("Unvote Alice", "commands", [("unvote", None)]),
    ("I won't vote Bob", "natural", []),
    ("If we vote Alice we lose", "natural", []),
    ("his vote on Bob was bad", "natural", []),
    ("so I vote Alice.", "natural", [("vote", "Alice")]),
    ("I think I'll finally vote Bob", "natural", [("vote", "Bob")]),
]
CHAT_RU = [
    ("Против Хэнкса? Не уверен.", "commands", []),
    ("Я не против Тома Хэнкса", "natural", []),
    ("Если голосовать против Стрип, проиграем", "natural", []),
    ("Против Хэнкса, если он не откроется", "commands", []),
    ("ННВ сегодня было бы ошибкой", "commands", []),
    ("Снимаю голос, пока что", "commands", [("unvote", None)]),
    ("Ладно, против Питта.", "natural", [("vote", "Брэд Питт")]),
]


CHAT = CHAT_EN + CHAT_RU


@pytest.mark.parametrize("text,reading,expected", CHAT, ids=[c[0][:40] for c in CHAT])
def test_chat_is_not_read_as_a_command(en, ru, text, reading, expected):
    assert read(in_its_language(en, ru, text), text, "markdown", reading=reading) == expected


def test_chat_that_looks_like_a_command_reaches_the_host(en):
    parsed = en.parse_text("Vote Bob? No way.", "markdown", author="Carol Danvers", post_id="p3")
    assert [i.kind for i in parsed.intents] == ["not_counted"]
    assert "a question" in parsed.flags[0].reason and parsed.flags[0].author == "Carol Danvers"
    # inside a sentence, in natural mode, chat is only chat: no flag
    assert en.parse_text("I won't vote Bob", "markdown", reading="natural").flags == []


# ---- ordinary phrasings ----------------------------------------------------------------------------------

PHRASES = [
    (None, "I vote for Bob because he is quiet", [("vote", "Bob")]),
    (None, "I'm voting Alice", [("vote", "Alice")]),
    (None, "/vote Bob", [("vote", "Bob")]),
    (None, "## vote Alice", [("vote", "Alice")]),
    ("ru", "Я голосую против Хэнкса", [("vote", "Том Хэнкс")]),
    ("ru", "Голосую за Стрип", [("vote", "Мэрил Стрип")]),    # in Mafia one votes "for" a hanging
    ("ru", "Голосую за ННВ", [("no_lynch", None)]),
]


@pytest.mark.parametrize("lang,text,expected", PHRASES, ids=[c[1][:40] for c in PHRASES])
def test_ordinary_phrasings(en, ru, lang, text, expected):
    assert read(ru if lang else en, text, "markdown") == expected


# ---- invisible characters and hidden HTML --------------------------------------------------------------

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u00ad",
             "\ufe0f", "\x00"]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_invisible_characters_never_hide_a_command(en, ru, char):
    assert read(en, f"{char}##vo{char}te Al{char}ice", "markdown") == [("vote", "Alice")]
    assert read(ru, f"{char}Голо{char}сую против Хэнкса", "plain") == [("vote", "Том Хэнкс")]


@pytest.mark.parametrize("html", [
    '<p style="display:none">vote: Bob</p><p>vote: Alice</p>',
    '<p><span style="visibility: hidden">vote: Bob</span></p><p>vote: Alice</p>',
    '<div hidden><b>vote: Bob</b></div><p>vote: Alice</p>',
    '<p><span style="color:red; DISPLAY : NONE">vote: Bob</span></p><p>vote: Alice</p>',
])
def test_hidden_html_never_counts_issue_9_item_19(en, html):
    """Text a browser does not show is never a command."""
    assert read(en, html, "html", reading="commands") == [("vote", "Alice")]
    assert "Bob" not in clean(html, "html")


# ---- nothing dropped in silence --------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["[b]vote:[/b]", "[vote][/vote]", "[b]Vote: [/b]", "[vote] [/vote]"])
def test_a_vote_that_names_nobody_is_flagged(en, text):
    parsed = en.parse_text(text, "bbcode", author="Alice")
    assert [i.kind for i in parsed.intents] == ["not_counted"]
    assert [f.reason.endswith("(a vote that names nobody)") for f in parsed.flags] == [True]


def test_no_flags_for_chat_outside_bold_nor_for_the_hosts_own_posts(en):
    assert en.parse_text("Lynch his bum, Marquis!", "bbcode", author="Bob").flags == []
    assert en.parse_text("[b]Vote Count 1.2[/b]", "bbcode", author="Moderator").flags == []
    assert len(en.parse_text("[b]Vote Count 1.2[/b]", "bbcode", author="Bob").flags) == 1


def test_me_in_bold_or_in_a_tag_is_a_self_vote(en, ru):
    def targets(parser, text, dialect="bbcode", reading=None):
        parsed = parser.parse_text(text, dialect, author=parser.roster.names[1], reading=reading)
        return [(i.kind, i.data.get("target")) for i in parsed.intents]

    assert targets(en, "[b]vote: me[/b]") == [("vote", "Bob")]
    assert targets(en, "[vote]myself[/vote]") == [("vote", "Bob")]
    assert targets(en, "vote me if you dare", "markdown") == [("not_counted", None)]   # chat, not bold
    assert targets(ru, "[b]Голосую против себя[/b]", reading="bold") == [("vote", "Мэрил Стрип")]


def test_a_vote_for_the_host_withdraws_and_is_flagged(en):
    parsed = en.parse_text("[b]vote: Mod[/b]", "bbcode", author="Bob")
    assert [(i.kind, i.data) for i in parsed.intents] == [("unvote", {"for_host": "Moderator"})]
    assert "is the host" in parsed.flags[0].reason


def test_not_counted_lines_show_in_the_vote_counts_errors(en):
    from forumbot.games.mafia.game import view

    game = get_game("mafia")
    state = game.new(GameSetup(game="mafia", players=tuple(EN), start=datetime(2026, 1, 1, tzinfo=UTC),
                               options={"day_hours": 48}, phase="day1", lang="en"))
    at = datetime(2026, 1, 1, 1, tzinfo=UTC)
    for intent in en.parse_text("vote: Alice", "bbcode", author="Bob", post_id="p1", at=at).intents:
        state, events = game.apply(state, intent)
        assert events == []
    shown = view(state, at)
    assert [e["author"] for e in shown["errors"]] == ["Bob"] and "not bold" in shown["errors"][0]["reason"]
    assert shown["wagons"] == []


def test_a_post_with_too_many_commands_is_cut_and_flagged(en):
    parsed = en.parse_text("vote Bob. " * (MAX_COMMANDS + 50), "plain")
    assert len(parsed.intents) == MAX_COMMANDS
    assert "the rest is not read" in parsed.flags[-1].reason


def test_parse_explain_lists_every_name_and_the_mode(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("Lil Uzi Vert\nBob\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["parse", "--roster", str(roster), "--dialect", "bbcode", "--explain"],
                                input="[b]Unvote, vote: LUV[/b]\n[vote]Zed[/vote]")
    out = json.loads(result.output)
    assert out["reading"] == "bold"
    assert out["names"] == ["'LUV': 'LUV' → Lil Uzi Vert (initials)", "'Zed': unknown: 'Zed' matches no player"]
    result = CliRunner().invoke(cli, ["parse", "--roster", str(roster), "--dialect", "bbcode", "--reading",
                                      "commands"], input="vote Bob")
    assert [i["target"] for i in json.loads(result.output)["intents"]] == ["Bob"]


def test_a_reading_mode_must_be_known():
    with pytest.raises(ConfigError, match="reading mode"):
        PostParser(load_grammar("mafia", "en"), Roster(EN), reading="loose")


def test_the_game_config_chooses_the_reading(tmp_path):
    from forumbot.config.game import load_scenario
    from forumbot.engine.loading import GameRun

    base = '[game]\nname = "mafia"\nstart = "2026-01-01T00:00:00Z"\ndialect = "bbcode"\n{}\n[[players]]\nname = "A"\n'
    path = tmp_path / "g.toml"
    path.write_text(base.format('reading = "natural"'), encoding="utf-8")
    assert GameRun.build(load_scenario(path).config).parser.mode("bbcode") == "natural"
    path.write_text(base.format('reading = "loud"'), encoding="utf-8")
    with pytest.raises(ConfigError, match="reading = 'loud'") as err:
        load_scenario(path)
    assert err.value.line == 5


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("vote unVOTE[]/b:;,.?!Bob Alice\n*_<>") + INVISIBLE),
                    max_size=200),
       dialect=st.sampled_from(["plain", "markdown", "bbcode", "html"]),
       reading=st.sampled_from(["commands", "bold", "natural"]))
def test_any_text_in_any_mode_reads_without_raising(en, text, dialect, reading):
    parsed = en.parse_text(text, dialect, reading=reading)
    assert len(parsed.intents) <= MAX_COMMANDS
    for intent in parsed.intents:
        assert intent.kind in ("vote", "unvote", "no_lynch", "not_counted")
        assert intent.data.get("target") in (None, "Alice", "Bob", "Carol Danvers", "DeathRowKitty")


def test_not_counted_reasons_are_shown_in_the_posts_language(ru):
    from forumbot.games.mafia.game import view
    from forumbot.render.renderer import Renderer

    game = get_game("mafia")
    state = game.new(GameSetup(game="mafia", players=tuple(RU), start=datetime(2026, 1, 1, tzinfo=UTC),
                               options={"day_hours": 48}, phase="day1", lang="ru"))
    at = datetime(2026, 1, 1, 1, tzinfo=UTC)
    posts = [("Брэд Питт", "Голосую против Хэнкса"), ("Том Хэнкс", "[b]Голосую против[/b]"),
             ("Мэрил Стрип", "[b]Голосую против Питта?[/b]")]
    for number, (author, text) in enumerate(posts):
        for intent in ru.parse_text(text, "bbcode", author=author, post_id=f"p{number}", at=at,
                                    reading="bold").intents:
            state, _ = game.apply(state, intent)
    errors = view(state, at)["errors"]
    assert [e["code"] for e in errors] == ["not_counted_not_bold", "not_counted_nobody", "not_counted_question"]
    reasons = [Renderer("bbcode", "ru")._reason(e) for e in errors]
    assert reasons[0].startswith("не засчитано: «Голосую против Хэнкса» (не жирным шрифтом")
    assert reasons[1].endswith("(голос без имени)") and reasons[2].endswith("(это вопрос)")
    assert all("not counted" not in r for r in reasons)
