"""Grammar.finder's templates by first character (PostParser.may_hold_vote): trying only the templates that
can start with a place's character answers as trying them all, whatever the character."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.engine.loading import shared_grammar
from forumbot.text.grammar import _start_keys, _trie
from forumbot.text.parse import VOTE_KINDS

_FINDERS = [shared_grammar("mafia", lang).finder(VOTE_KINDS) for lang in ("ru", "en")]
# Vote words in both languages, their typos and cases, and characters the regex engine folds with a plain one
# (ᲀ ~ в, ſ ~ s, K ~ k, İ ~ i) or that str.lower() changes in length.
_BITS = ["vote", "Vote: ", "VOTE", "vtoe ", "unvote", "no lynch", "##", "[vote]", "[b]", "Голосую против ", "ГОЛОСУЮ",
         "оглосую ", "против ", "я ", "Против", "ннв", "снимаю голос", "Ё", "ё", "е", "и ", "не ", "lynch ",
         "ᲀ", "ᲁ", "ſ", "\u212a", "İ", "ı", "Σ", " ", "\u00a0", "x", "Деппа", "Bob"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_BITS), max_size=6).map("".join), st.sampled_from(range(2)))
def test_the_templates_by_first_character_match_where_all_of_them_match(line, which):
    finder = _FINDERS[which]
    assert finder is not None
    for at in range(len(line)):
        narrow = finder.by_first.get(line[at], finder.templates).match(line, at)
        assert (narrow is None) == (finder.templates.match(line, at) is None), (line, at)


def test_a_place_tries_only_the_templates_that_can_start_with_its_character():
    finder = _FINDERS[0]
    assert finder is not None
    assert finder.by_first["я"].pattern.count("(?P<") < finder.templates.pattern.count("(?P<") / 4
    assert finder.by_first["Я"] is finder.by_first["я"]
    assert "ᲀ" not in finder.by_first     # folded with в by the regex engine only: tried with every template


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_BITS), max_size=6).map("".join), st.sampled_from(range(2)))
def test_the_places_without_ignorecase_hold_every_place_the_folded_keys_find(line, which):
    """Grammar.finder's places regex folds no case: it finds every place the keys' IGNORECASE trie finds (a
    character that is not plain, which the regex engine may fold with a plain one, is a place of its own)."""
    finder = _FINDERS[which]
    assert finder is not None
    assert not finder.places.flags & re.IGNORECASE
    grammar = shared_grammar("mafia", ("ru", "en")[which])
    chosen = [c for _, c in grammar._compiled if c.command.kind in VOTE_KINDS]
    keys, short = _start_keys(chosen)
    folded = re.compile(_trie(keys | short), re.IGNORECASE)
    for at in range(len(line)):
        if folded.match(line, at) is not None:
            assert finder.places.match(line, at) is not None, (line, at)
