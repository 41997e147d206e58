"""The invisible marker: a letters-and-digits token no forum rewrites, and a tolerant reading that still finds
the older `#fb:KEY` form however a forum encoded it."""

from __future__ import annotations

from forumbot.platforms import markers


def test_the_token_is_letters_and_digits_and_reads_back():
    for key in ("mafia-1:20", "mafia-1:thread:game", "g:role:Ёжик", "k"):
        token = markers.token(key)
        assert token.isascii() and token.isalnum()
        assert markers.keys_in(f"text\n[url=#{token}][/url]") == [key]
        assert markers.keys_in(f"text\n\n[](#{token.upper()})") == [key]      # a forum that changes case


def test_the_older_form_is_found_as_sent_and_as_phpbb_stores_it():
    assert markers.keys_in("[url=#fb:mafia-1:20][/url]") == ["mafia-1:20"]
    assert markers.carries("x\n[url=#fb:mafia-1%3A20][/url]\n[url=#fb:mafia-1:thread%3Agame][/url]", "mafia-1:20")
    assert markers.carries("[url=#fb:mafia-1:thread%3Agame][/url]", "mafia-1:thread:game")
    assert markers.carries("[](#fb:mafia\\_1:3)", "mafia_1:3")                  # markdown escaping
    assert not markers.carries("[url=#fb:mafia-1%3A2][/url]", "mafia-1:20")
    assert markers.MARKDOWN.sub("", f"a\n[](#{markers.token('k')})") == "a"
    assert markers.BBCODE.sub("", "a\n[url=#fb:mafia-1%3A20][/url]") == "a"
