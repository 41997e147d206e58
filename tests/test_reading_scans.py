"""The scans that let a common post skip work when read: clean()'s one scan for a post with nothing to clean, and
starts()' two scans for a line of one piece. Each must give exactly what the full passes give."""

from __future__ import annotations

import re
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.text import clean as cleaning
from forumbot.text import reading
from forumbot.text.clean import clean
from forumbot.text.grammar import load_grammar
from forumbot.text.reading import Line, starts

# Characters each scan or pass looks for, their case variants, characters the regex engine folds to plain ones
# under IGNORECASE (ᲂ ~ о, ᲄ ~ т, K ~ k, ſ ~ s, İ ~ i), spaces plain and not, marks, invisible ones.
_PIECES = st.sampled_from([
    *"aAnNdDtThHeEиИпПоОтТмМгГ", *"ᲂᲄᲅKſİı", *".!?…,;[]/:", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "\x1c",
    "\x85", "\u2028", "&", "&amp;", *"`\\>~^*_", "\u200b", "\u00ad", "\ue000", "\ue001", " and ", " AND ", " then ",
    " и ", " И ", " потом ", " ПОТОМ ", " пᲂтᲂм ", "Голосую против Тома", "vote Bob", "[vote]", "[/b]", "    ",
    "> q", "```", "**", "~~", "Против Хэнкса", "Тома Хэнкса"])
_TEXTS = st.lists(_PIECES, max_size=12).map("".join)
_RU = load_grammar("mafia", "ru")
_EN = load_grammar("mafia", "en")
_LOOKAHEADS = ["", _RU.start_pattern, _EN.start_pattern]


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, dialect=st.sampled_from(["markdown", "plain"]), marks=st.booleans())
def test_a_post_with_nothing_to_clean_is_cleaned_as_every_pass_would(text, dialect, marks):
    with patch.object(cleaning, "_QUIET_DIALECTS", frozenset()):    # every pass, as before the scan
        passes = clean(text, dialect, marks=marks)
    assert clean(text, dialect, marks=marks) == passes


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, lookahead=st.sampled_from(_LOOKAHEADS))
def test_every_boundary_holds_what_the_scans_look_for(text, lookahead):
    boundary = reading._finders(lookahead)[0]
    if boundary.search(text) is not None or reading._BOUNDARY.search(text) is not None:
        assert reading._MAY_SPLIT.search(text) is not None or reading._MAY_JOIN.search(text) is not None
    # starts() asks both in one search
    assert (reading._MAY_BREAK.search(text) is None) == (reading._MAY_SPLIT.search(text) is None
                                                          and reading._MAY_JOIN.search(text) is None)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, lookahead=st.sampled_from(_LOOKAHEADS), mode=st.sampled_from(["commands", "bold"]))
def test_the_starts_of_a_line_are_those_found_without_the_scans(text, lookahead, mode):
    line = Line(text.replace("\n", " "), ())
    with patch.object(reading, "_MAY_BREAK", re.compile("")):       # every line to the boundary regex
        before = list(starts(line, mode, lookahead))
    assert list(starts(line, mode, lookahead)) == before


class _NoPass:
    """A pass or a regex that must not run."""

    def __call__(self, *args: object) -> str:
        raise AssertionError("a pass ran on a post with nothing to clean")

    def search(self, *args: object) -> None:
        raise AssertionError("the boundary regex ran on a line of one piece")


@pytest.mark.parametrize("text", ["Голосую против Тома Хэнкса", "Против Хэнкса", "Vote Bob", "ннв"])
def test_a_one_line_vote_is_cleaned_by_one_scan(text):
    with patch.dict(cleaning._CLEANERS, {"markdown": _NoPass(), "plain": _NoPass()}):
        assert clean(text, "markdown", marks=True) == text
        assert clean(f"{text}  ", "plain") == text


@pytest.mark.parametrize("text", ["Голосую против Тома Хэнкса", "Против Хэнкса", "Vote Bob", "ннв"])
def test_a_line_of_one_piece_does_not_run_the_boundary_regex(text):
    boundary, word, check = reading._finders(_RU.start_pattern)
    with patch.object(reading, "_finders", lambda lookahead: (_NoPass(), word, check)):
        assert starts(Line(text, ()), "commands", _RU.start_pattern) == ((0, "start"),)


_ASKED_BITS = ["Голосую против ", "Vote ", "Bob", "Хэнкса", "?", ".", "…", "!", "\n", " ", "и", "x", "??", "?."]


@settings(max_examples=400, deadline=None)
@given(rest=st.lists(st.sampled_from(_ASKED_BITS), max_size=8).map("".join),
       lead=st.sampled_from(["Голосую против ", "Vote "]), bound=st.integers(0, 60))
def test_a_question_is_told_as_is_question_tells_it(rest, lead, bound):
    """PostParser._check_chat looks for a "?" before it asks the terminator regex: a command is a question
    exactly when is_question says so."""
    from forumbot.model import PlayerRef
    from forumbot.text.names import Roster
    from forumbot.text.parse import PostParser, _Chat
    grammar = _RU if lead.startswith("Г") else _EN
    parser = PostParser(grammar, Roster([PlayerRef("Bob")], lang=grammar.lang))
    text = lead + rest
    found = grammar.match_at(text, 0)
    if found is None or found.command.kind not in ("vote", "unvote", "no_lynch"):
        return
    end = min(bound + found.literal_end, len(text))
    span = (0, end)
    try:
        parser._check_chat(Line(text, (span,)), found, "bold", "bold", span)
        asked = False
    except _Chat as chat:
        asked = chat.reason == "a question"
    assert asked == reading.is_question(text, found.literal_end, end)
