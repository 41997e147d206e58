"""What reading one post relies on: the parser's shortcuts give the answers of the plain computations they
replace."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from helpers import START, names, new_game
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine.loading import GameRun, setup_of
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.signup import player_of_account
from forumbot.model import Intent, PlayerRef, Post
from forumbot.text.grammar import load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser

NAMED = ["Том Хэнкс", "Мэрил Стрип", "Анджелина Джоли", "Джонни Депп", "Киану Ривз", "Брэд Питт",
         "Мерилин Монро", "Николь Кидман", "Хью Джекман", "Одри Хепбёрн", "Леонардо Ди Каприо",
         "Скарлетт Йоханссон"]
SAID = ["Деппа", "Киану Ривза", "Брэда Питта", "Монро"]          # NAMED[3:7] as players write them


def _day(players: int, posts: int) -> tuple[GameRun, Any, list[Post]]:
    roster = NAMED[:players] + [f"Участник{n:03d}" for n in range(13, players + 1)]
    config = GameConfig(name="g", game="mafia", lang="ru", start=START, players=tuple(PlayerRef(n) for n in roster),
                        options={"day_hours": 48, "vote_count_every": 0}, phase="day1")
    run = GameRun.build(config)
    texts = ["Голосую против {}", "Против {}", "> цитата\n\nПротив {}"]
    out = []
    votes = 0
    for number in range(posts):
        at = START + timedelta(minutes=number + 1)
        if number % 5 == 4:
            out.append(Post(f"local:{number}", "g/game", roster[number % players], at, "Обсуждаем, он не мирный."))
            continue
        voter, round_ = votes % players, votes // players   # a new round moves every voter to the next wagon
        votes += 1
        text = texts[number % 3].format(SAID[(voter + round_) % 4])
        out.append(Post(f"local:{number}", "g/votes", roster[voter], at, text, url=f"u/{number}"))
    return run, MAFIA.new(setup_of(config)), out




def _same_as_all_templates(grammar: Any, text: str) -> None:
    for at in range(len(text)):
        lead = at
        while lead < len(text) and text[lead].isspace():
            lead += 1
        if lead == len(text) or not grammar.may_start(text, lead):
            continue
        part = grammar._lead_regex(text[lead]).match(text, at)
        whole = grammar._regex.match(text, at)
        assert (part and (part.lastgroup, part.span())) == (whole and (whole.lastgroup, whole.span())), text


def test_a_line_is_matched_against_the_templates_of_its_first_character_as_against_all():
    grammar = load_grammar("mafia", "ru").with_commands(load_grammar("host", "ru").commands, "host commands")
    for line in ["Голосую против Тома", "голосую ПРОТИВ Деппа", "Против Деппа", "ПРОТИВ деппа", "Ёлка",
                 "против", "рпотив Деппа", "Снимаю голос", "снимаю", "[vote]Депп[/vote]", "Обсуждаем газету",
                 "ıvote x", "ſnimaю", "ᲀголосую", "Продлить на 2 часа", "#1 Депп", "   Против Деппа", "vote Bob",
                 "unvote", "Отменяю голос", "За Деппа", "заменить Деппа на Bob", "Продолжить игру"]:
        _same_as_all_templates(grammar, line)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="Пп Рр ОоТтИиВв ГгЛлСсУуЮюЯяЗзАаЁёЕеНнКк:;[]/#bBvVoOtTeEıſᲀ\u0130\u212a.!?", max_size=30))
def test_any_text_finds_the_command_all_templates_would(text):
    _same_as_all_templates(_GRAMMAR, text)


_GRAMMAR = load_grammar("mafia", "ru").with_commands(load_grammar("mafia", "en").commands, "english too")


def test_a_signed_up_roster_has_the_genders_and_masks_play_under():
    state = new_game(5).with_(masks={"M1": "acc1", "M2": "acc2", "M3": "acc1"}, genders={"P01": "f"})
    roster = MAFIA.roster(state)
    assert roster == MAFIA.roster(state.with_(seq=3))
    assert [(p.name, p.gender) for p in roster] == [("P01", "f")] + [(n, None) for n in names(5)[1:]]
    for account in ["acc1", "acc2", "acc9", "M1"]:
        assert MAFIA.account_player(state, account) == player_of_account(state, account)


def test_an_intent_the_parser_fills_itself_is_the_one_its_constructor_makes():
    run, _, _ = _day(12, 20)
    parsed = run.parser.parse_text("Голосую против Брэда Питта", "plain", author="Том Хэнкс", post_id="p1",
                                   at=START, url="u/1")
    [intent] = parsed.intents
    made = Intent(intent.kind, dict(intent.data), post_id="p1", author="Том Хэнкс", at=START,
                  line="Голосую против Брэда Питта", url="u/1")
    assert intent == made and vars(intent) == vars(made) and repr(intent) == repr(made)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab Ёё.,-'’\n\r\x0b\x85\u2028\u00a0ＡｂÀ½", max_size=20))
def test_the_shortcuts_of_folding_and_tidying_give_the_plain_answers(text):
    from forumbot.text import clean as clean_module
    from forumbot.text.normalize import _TOKEN, fold, tokens

    assert tokens(text) == _TOKEN.findall(fold(text))
    tidy = "\n".join([line.strip(clean_module._EDGE) for line in text.splitlines()])
    tidy = clean_module._BLANK_RUNS.sub("\n\n", tidy).strip("\n")
    assert clean_module._tidy_lines(text) == tidy


def test_parse_explain_still_says_how_each_name_was_read():
    run, _, _ = _day(12, 20)
    parsed = run.parser.parse_text("Голосую против Брэда Питта\nПротив Деппа", "markdown")
    assert [i.data["target"] for i in parsed.intents] == ["Брэд Питт", "Джонни Депп"]
    assert parsed.names == ["'Брэда Питта': 'Брэда Питта' → Брэд Питт (inflection)",
                            "'Деппа': 'Деппа' → Джонни Депп (partial)"]


# Rosters whose names test the direct answers: declensions, a form two players share (Петров/Петрова), aliases,
# a first name of two players (Bob), one-word and three-word names, a name that is a preposition or a chat word.
_ROSTERS = [
    Roster([PlayerRef("Том Хэнкс", ("Хэнк",)), PlayerRef("Мэрил Стрип"), PlayerRef("Анджелина Джоли"),
            PlayerRef("Джонни Депп", ("Капитан Воробей",)), PlayerRef("Пётр Петров"), PlayerRef("Анна Петрова"),
            PlayerRef("Мерилин Монро"), PlayerRef("Том"), PlayerRef("Леонардо Ди Каприо"), PlayerRef("Против"),
            PlayerRef("Alice"), PlayerRef("Bob Dylan"), PlayerRef("Bob Marley", ("Bob Jr",))], lang="ru"),
    Roster([PlayerRef("Alice"), PlayerRef("Bob", ("Bob Jr",)), PlayerRef("Joanna"), PlayerRef("Joe"),
            PlayerRef("Mr. Green", ("Greenie",)), PlayerRef("For"), PlayerRef("me")], lang="en"),
    Roster([PlayerRef(n) for n in NAMED], lang="ru"),
]


def _spellings(roster: Roster) -> list[str]:
    return sorted({*roster._whole, *roster._partial, *list(roster._prefix)[:300]})


@st.composite
def _typed(draw: Any) -> tuple[Roster, str]:
    """A text a player could type for a roster: one of its spellings (a whole name, a part, a prefix) as
    written, in some case, with ё, a preposition or words around it, or an odd character in it."""
    roster = draw(st.sampled_from(_ROSTERS))
    text = draw(st.sampled_from(_spellings(roster)))
    text = draw(st.sampled_from([text, text.title(), text.upper(), text.capitalize(), text.swapcase()]))
    if draw(st.booleans()):
        text = text.replace("е", "ё").replace("Е", "Ё")
    before = draw(st.sampled_from(["", "", "против ", "за ", "@", " ", "me "]))
    after = draw(st.sampled_from(["", "", " он мафия", ",", " if he lies", "!", "  ", "\u00a0x", "-а", "'у"]))
    odd = draw(st.sampled_from(["", "", "\u00a0", "İ", "K", "ß", "½", "_", "  "]))
    at = draw(st.integers(0, len(text)))
    return roster, before + text[:at] + odd + text[at:] + after


@settings(max_examples=600, deadline=None)
@given(_typed())
def test_a_name_read_by_its_direct_answer_reads_as_the_whole_chain_reads_it(typed):
    roster, text = typed
    assert roster.resolve(text) == roster._resolve(text), text


def test_every_direct_answer_is_the_whole_chain_s_answer():
    for roster in _ROSTERS:
        assert roster._direct
        for key in roster._direct:
            for text in (key, key.upper(), key.title()):
                assert roster.resolve(text) == roster._resolve(text), text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["Голосую против {}", "Против {}", "[vote]{}[/vote]", "**vote: {}**", "vote {} if he lies",
                        "vote {}?", "unvote {}", "lynch {}", "Голосую против {}, он мафия"]),
       _typed(), st.sampled_from(["plain", "markdown", "bbcode"]))
def test_a_post_reads_the_same_with_or_without_the_direct_answers(template, typed, dialect):
    roster, name = typed
    grammar = _GRAMMAR
    fast = PostParser(grammar, roster, host="Хост")
    slow = PostParser(grammar, roster, host="Хост")
    slow.roster = _Slow(roster)
    text = template.format(name)
    one, two = (parser.parse_text(text, dialect, author="Том", post_id="p", at=START, url="u")
                for parser in (fast, slow))
    assert [vars(i) for i in one.intents] == [vars(i) for i in two.intents]     # targets, matched, errors
    assert one.flags == two.flags and one.read == two.read


class _Slow:
    """A roster that answers every name through the whole chain (its direct answers unused)."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster
        self.names = roster.names

    def resolve(self, text: str) -> Any:
        return self.roster._resolve(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="Пп ротив,.;!?[]/bvVote и\t\u00a0я", max_size=40), st.sampled_from(["commands", "bold"]),
       st.booleans())
def test_the_starts_of_a_line_without_bold_are_those_the_general_reading_finds(text, mode, anything):
    from forumbot.text.reading import Line, _finders, _marked_starts, starts

    lookahead = "" if anything else _GRAMMAR.start_pattern
    boundary, word, check = _finders(lookahead)
    line = Line(text, ())
    assert list(starts(line, mode, lookahead)) == list(_marked_starts(line, mode, text, boundary, word, check))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab \t\n\r>`~*_&;!]()[^\\#", "&amp;", "&amp;#42;", "&lt;", "&#95;", "&nbsp;",
                                 "    "]), max_size=15).map("".join), st.booleans())
def test_markdown_with_nothing_to_unwrap_is_cleaned_as_every_pass_would(text, marks):
    import html

    from forumbot.text import clean as clean_module

    unescaped = clean_module._newlines(html.unescape(text) if "&" in text else text)     # as _clean_markdown
    if clean_module._MD_BLOCK_START.match(unescaped) or clean_module._MD_BLOCK_START_AFTER_NL.search(unescaped):
        return
    paragraphs = clean_module._MD_BLANK_LINE.split(unescaped)
    every_pass = clean_module._tidy_lines("\n\n".join([clean_module._markdown_inline(para, marks)
                                                       for para in paragraphs]))
    assert clean_module._clean_markdown(text, marks) == every_pass


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["Голосую против {}", "Против {}", "[vote]{}[/vote]", "**vote: {}**", "[b]vote: {}[/b]",
                        "vote {}", "vote {}?", "unvote {}", "lynch {}", "Голосую против {}, он мафия", "Unvote Vote {}",
                        "{}: vote", "записка: {}"]),
       _typed(), st.sampled_from(["", "me", "меня", "себя", "ннв", "no lynch", "Хост", "Том"]),
       st.sampled_from(["plain", "markdown", "bbcode"]), st.sampled_from(["Том", "Alice", "me", "Хост", ""]),
       st.sampled_from([None, "commands", "bold", "natural"]))
def test_a_command_read_again_reads_as_a_fresh_parser_reads_it(template, typed, word, dialect, author, reading):
    """PostParser._keep_read: the second post with the same command reads as a parser that never read the
    first, whoever wrote either (a self-vote is the author's own), in every reading mode."""
    roster, name = typed
    text = template.format(word or name)
    kept = PostParser(_GRAMMAR, roster, host="Хост")
    kept.parse_text(text, dialect, author="Том", post_id="p1", at=START, url="u1", reading=reading)
    again = kept.parse_text(text, dialect, author=author, post_id="p2", at=START, url="u2", reading=reading)
    fresh = PostParser(_GRAMMAR, roster, host="Хост").parse_text(text, dialect, author=author, post_id="p2",
                                                                 at=START, url="u2", reading=reading)
    assert [vars(i) for i in again.intents] == [vars(i) for i in fresh.intents], text
    assert again.flags == fresh.flags and again.read == fresh.read and again.found == fresh.found
    for intent in again.intents:     # each post's intent has its own data: changing one changes no other
        intent.data.setdefault("matched", {})["x"] = "changed"
    third = kept.parse_text(text, dialect, author=author, post_id="p2", at=START, url="u2", reading=reading)
    assert [vars(i) for i in third.intents] == [vars(i) for i in fresh.intents], text


def test_a_kept_reading_is_kept_for_its_roster_only():
    run, _, _ = _day(12, 20)
    parser = run.parser
    assert parser.parse_text("Против Деппа", "plain").intents[0].data["target"] == "Джонни Депп"
    assert parser._read      # the reading was kept ...
    parser.roster = Roster([PlayerRef("Деппа")], lang="ru")
    assert parser.parse_text("Против Деппа", "plain").intents[0].data["target"] == "Деппа"   # ... for that roster


def test_the_next_deadline_is_the_one_worked_out_for_every_state():
    """MafiaGame.next_deadline: the next reminder before the phase's end, else the end."""
    from forumbot.games.mafia.schedule import next_reminder

    def worked_out(state: Any) -> Any:
        if state.phase == "over":
            return None
        reminder = next_reminder(state) if state.phase not in ("signup", "roles", "best_player") else None
        return reminder if reminder is not None and reminder < state.phase_ends else state.phase_ends

    plain = new_game(5)
    reminded = plain.with_(options=replace(plain.options, remind_hours=(24.0, 1.0)))
    states = [plain, reminded, reminded.with_(reminded=("day1:24",)), plain.with_(phase="over"), plain,
              reminded.with_(phase_ends=reminded.phase_ends + timedelta(hours=5))]
    for state in states:
        assert MAFIA.next_deadline(state) == worked_out(state)
    assert MAFIA.next_deadline(reminded) < reminded.phase_ends      # a reminder comes first
    assert MAFIA.threads(plain) == {"game": plain.options.game_thread, "votes": plain.options.vote_threads[0],
                                    **{t: t for t in plain.options.vote_threads}}


_VOTE_BITS = ["vote", "Vote: ", "vtoe ", "unvote", "no lynch", "##", "[vote]", "[/vote]", "**", "[b]", "[/b]", "me",
              "Голосую против ", "против ", "я ", "Против", "ннв", "снимаю голос", "Деппа", "Брэда Питта", "?", ". ",
              ", ", "\n", "> ", "\u00a0", "K", "Ё", "е", "и ", "не ", "if ", "lynch ", "Обсуждаем газету", "&gt; "]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_VOTE_BITS), max_size=8).map("".join), st.sampled_from(["plain", "markdown", "bbcode"]),
       st.sampled_from([None, "commands", "bold", "natural"]), st.sampled_from(["thread", "pm"]))
def test_a_post_said_to_hold_no_vote_gives_no_vote_in_any_reading(text, dialect, reading, where):
    """PostParser.may_hold_vote, the talk's cheap test: False only when the full reading finds no vote kind."""
    run, _, _ = _day(12, 20)
    parser = PostParser(_GRAMMAR, run.parser.roster, host="Хост")
    post = Post("p", "g/game", "Том Хэнкс", START, text, dialect=dialect)
    parsed = parser.parse_text(text, dialect, where=where, author="Том Хэнкс", reading=reading)
    if any(i.kind in ("vote", "unvote", "no_lynch") for i in parsed.intents):
        assert parser.may_hold_vote(post), text


