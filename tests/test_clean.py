"""clean(raw, dialect): what may carry a command survives intact, what must never carry one is gone."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from forumbot.errors import ConfigError
from forumbot.text.clean import DIALECTS, clean

# (id, raw, expected) rows, one table per dialect.
Case = tuple[str, str, str]


def _params(cases: list[Case]) -> list[object]:
    return [pytest.param(raw, expected, id=case_id) for case_id, raw, expected in cases]


# ---------------------------------------------------------------------------------------------- all dialects

LINE_CASES: list[Case] = [
    ("crlf", "##vote Alice\r\nVote: Bob", "##vote Alice\nVote: Bob"),
    ("lone-cr", "##vote Alice\rVote: Bob", "##vote Alice\nVote: Bob"),
    ("lines-stripped", "   ##vote Alice  \n\tVote: Bob\t", "##vote Alice\nVote: Bob"),
    ("blank-runs-collapse", "one\n\n\n\n\ntwo", "one\n\ntwo"),
    ("whitespace-only-lines-are-blank", "one\n  \n\t\n \ntwo", "one\n\ntwo"),
    ("edge-blank-lines-dropped", "\n\n  \nvote Alice\n\n\n", "vote Alice"),
    ("zero-width-edges-stripped", "\u200b##vote Alice\ufeff\n\u200b\nVote: Bob", "##vote Alice\n\nVote: Bob"),
    ("unicode-line-separators", "Vote: Alice \u2028 ##vote Bob\x85x\x0by", "Vote: Alice\n##vote Bob\nx\ny"),
    ("vote-tag-kept", "[vote]Alice[/vote]", "[vote]Alice[/vote]"),
    ("hash-commands-kept", "##vote Alice\n# Day 1\n### notes", "##vote Alice\n# Day 1\n### notes"),
    ("russian", "Голосую против Тома Хэнкса", "Голосую против Тома Хэнкса"),
    ("empty", "", ""),
    ("only-whitespace", " \n\t\r\n ", ""),
]


@pytest.mark.parametrize("dialect", ["plain", "markdown", "bbcode"])
@pytest.mark.parametrize(("raw", "expected"), _params(LINE_CASES))
def test_line_handling_is_the_same_in_text_dialects(dialect: str, raw: str, expected: str) -> None:
    assert clean(raw, dialect) == expected


# In HTML a newline in the source is only whitespace; lines come from <br> and block elements.
HTML_LINE_CASES: list[Case] = [
    ("source-crlf-is-a-space", "##vote Alice\r\nVote: Bob", "##vote Alice Vote: Bob"),
    ("br-lines-stripped", "   ##vote Alice  <br>\tVote: Bob\t", "##vote Alice\nVote: Bob"),
    ("blank-runs-collapse", "one<br><br><br><br>two", "one\n\ntwo"),
    ("edge-blank-lines-dropped", "<br><br> <br>vote Alice<br><br>", "vote Alice"),
    ("zero-width-edges-stripped", "&#x200B;##vote Alice\ufeff<br>\u200b<br>Vote: Bob",
     "##vote Alice\n\nVote: Bob"),
    ("vote-tag-kept", "[vote]Alice[/vote]", "[vote]Alice[/vote]"),
    ("hash-commands-kept", "##vote Alice<br># Day 1<br>### notes", "##vote Alice\n# Day 1\n### notes"),
    ("russian", "<p>Голосую против Тома Хэнкса</p>", "Голосую против Тома Хэнкса"),
    ("empty", "", ""),
    ("only-whitespace", " \n\t\r\n ", ""),
]


@pytest.mark.parametrize(("raw", "expected"), _params(HTML_LINE_CASES))
def test_html_line_handling(raw: str, expected: str) -> None:
    assert clean(raw, "html") == expected


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_unicode_space_is_stripped_from_line_edges(dialect: str) -> None:
    spaces = [chr(code) for code in range(0x110000) if chr(code).isspace()]
    if dialect == "markdown":
        spaces.remove("\t")  # a tab at line start opens an indented code block (test_markdown)
    for space in spaces:
        assert clean(f"{space}vote{space}Alice{space}", dialect).split() == ["vote", "Alice"], repr(space)
        assert clean(f"{space}{space}##vote Alice{space}", dialect) == "##vote Alice", repr(space)


@pytest.mark.parametrize("dialect", ["Markdown", "bb", "", "text", "phpbb"])
def test_unknown_dialect_raises_config_error(dialect: str) -> None:
    with pytest.raises(ConfigError) as caught:
        clean("##vote Alice", dialect)
    assert repr(dialect) in str(caught.value)
    assert caught.value.fix is not None and "markdown" in caught.value.fix


def test_dialects_are_the_four_documented() -> None:
    assert DIALECTS == ("plain", "markdown", "bbcode", "html")


# ---------------------------------------------------------------------------------------------- plain

PLAIN_CASES: list[Case] = [
    ("markdown-quote-kept", "> ##vote Alice", "> ##vote Alice"),
    ("bbcode-quote-kept", "[quote]##vote Alice[/quote]", "[quote]##vote Alice[/quote]"),
    ("emphasis-kept", "**vote Alice**", "**vote Alice**"),
    ("entities-kept", "Tom &amp; Jerry", "Tom &amp; Jerry"),
    ("html-kept", "<b>vote</b> Alice", "<b>vote</b> Alice"),
    ("code-fence-kept", "```\n##vote Alice\n```", "```\n##vote Alice\n```"),
]


@pytest.mark.parametrize(("raw", "expected"), _params(PLAIN_CASES))
def test_plain_removes_nothing(raw: str, expected: str) -> None:
    assert clean(raw, "plain") == expected


# ---------------------------------------------------------------------------------------------- markdown

MARKDOWN_CASES: list[Case] = [
    # quotes
    ("quote-then-own-vote", "> ##vote Alice\n\n##vote Bob", "##vote Bob"),
    ("quote-ru-api-escaped", "&gt; Голосую против Тома Хэнкса\n\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("quote-ru-raw", "> Голосую против Тома Хэнкса\n\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("quote-without-space", ">Vote: Alice\n\nVote: Bob", "Vote: Bob"),
    ("quote-indented-3", "   > vote Alice\n\nvote Bob", "vote Bob"),
    ("nested-quote", "> > ##vote Alice\n> ##vote Bob\n\n##vote Carol", "##vote Carol"),
    ("nested-quote-tight", ">>##vote Alice\n>##vote Bob\n\n##vote Carol", "##vote Carol"),
    ("quote-lazy-continuation", "> I think\n##vote Alice\nis right\n\n##vote Bob", "##vote Bob"),
    ("quote-lazy-continuation-ru", "> Том пишет:\nГолосую против Тома Хэнкса\n\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("quote-after-text", "I agree with this:\n> ##vote Alice\n\n##vote Bob",
     "I agree with this:\n\n##vote Bob"),
    ("quote-blank-quote", "> ##vote Alice\n>\n> ##vote Bob\n\nVote: Carol", "Vote: Carol"),
    ("quote-at-end", "##vote Bob\n\n> ##vote Alice", "##vote Bob"),
    ("escaped-gt-is-not-a-quote", "\\> not a quote", "> not a quote"),
    ("quote-u3000-line-is-lazy", "> ##vote Alice\n\u3000\n##vote Bob\n\n##vote Carol", "##vote Carol"),
    # spoilers
    ("spoiler-mid-line", "I think >!##vote Alice!< we should vote Bob", "I think  we should vote Bob"),
    ("spoiler-line-start", ">!Alice is mafia!< ##vote Bob", "##vote Bob"),
    ("spoiler-whole-line", ">!##vote Alice!<\n\n##vote Bob", "##vote Bob"),
    ("spoiler-api-escaped", "&gt;!Голосую против Тома Хэнкса!&lt; Голосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("two-spoilers", "a >!b!< c >!d!< e", "a  c  e"),
    ("spoiler-unclosed-line-start-is-quote", ">!vote Alice\n\nvote Bob", "vote Bob"),
    ("spoiler-escaped-close-is-quote", ">!vote Alice \\!<\n\nvote Bob", "vote Bob"),
    ("spoiler-unclosed-mid-line-literal", "I love >!this", "I love >!this"),
    # fenced code
    ("fence-backticks", "```\n##vote Alice\n```\n##vote Bob", "##vote Bob"),
    ("fence-tildes", "~~~\n##vote Alice\n~~~\n##vote Bob", "##vote Bob"),
    ("fence-info-string", "```python\nvote Alice\n```\nvote Bob", "vote Bob"),
    ("fence-longer-close", "````\n```\nvote Alice\n````\nvote Bob", "vote Bob"),
    ("fence-other-char-does-not-close", "```\n~~~\nvote Alice\n```\nvote Bob", "vote Bob"),
    ("fence-interrupts-paragraph", "Look:\n```\nvote Alice\n```\nvote Bob", "Look:\n\nvote Bob"),
    ("fence-unclosed-hides-rest", "vote Bob\n```\nvote Alice\nvote Carol", "vote Bob"),
    ("fence-ru", "```\nГолосую против Тома Хэнкса\n```\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    # indented code
    ("indented-code-at-start", "    ##vote Alice\n\n##vote Bob", "##vote Bob"),
    ("indented-code-after-blank", "Example:\n\n    ##vote Alice\n    more\n\n##vote Bob",
     "Example:\n\n##vote Bob"),
    ("tab-indented-code", "Example:\n\n\t##vote Alice\n\n##vote Bob", "Example:\n\n##vote Bob"),
    ("indented-code-spans-blank-lines", "    vote Alice\n\n    vote Carol\nvote Bob", "vote Bob"),
    ("indented-continuation-is-text", "I say\n    ##vote Bob", "I say\n##vote Bob"),
    ("three-spaces-is-text", "   ##vote Bob", "##vote Bob"),
    # inline code
    ("inline-code", "vote `Alice` Bob", "vote  Bob"),
    ("inline-code-at-line-start", "`##vote Alice`\n##vote Bob", "##vote Bob"),
    ("inline-code-double-backticks", "a ``code with ` inside`` b", "a  b"),
    ("inline-triple-backticks-one-line", "```vote Alice``` vote Bob", "vote Bob"),
    ("inline-code-unclosed-literal", "it costs `5", "it costs `5"),
    ("inline-code-escaped-opener", "\\`vote Alice`", "`vote Alice`"),
    ("inline-code-ru", "`Голосую против Тома Хэнкса` Голосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    # strike-through
    ("strike", "~~##vote Alice~~\n##vote Bob", "##vote Bob"),
    ("strike-mid-line", "vote ~~Alice~~ Bob", "vote  Bob"),
    ("strike-ru", "~~Голосую против Тома Хэнкса~~ Голосую против Мэрил Стрип", "Голосую против Мэрил Стрип"),
    ("strike-unclosed-literal", "~~vote Alice", "~~vote Alice"),
    ("single-tilde-kept", "~5 players", "~5 players"),
    # emphasis
    ("bold-stars", "**vote Alice**", "vote Alice"),
    ("bold-underscores", "__vote Alice__", "vote Alice"),
    ("italic-star", "*vote* Alice", "vote Alice"),
    ("italic-underscore", "_vote_ Alice", "vote Alice"),
    ("bold-italic", "***vote Alice***", "vote Alice"),
    ("nested-emphasis", "**vote *Alice* now**", "vote Alice now"),
    ("bold-ru", "**Голосую против Мэрил Стрип**", "Голосую против Мэрил Стрип"),
    ("bold-vote-colon", "**Vote:** Alice", "Vote: Alice"),
    ("user-name-intact", "vote user_name_1", "vote user_name_1"),
    ("snake-case-intact", "snake_case_name and __init__ x", "snake_case_name and init x"),
    ("bold-user-name", "__user_name__", "user_name"),
    ("italic-user-name", "*user_name_1*", "user_name_1"),
    ("spaced-stars-kept", "2 * 3 * 4", "2 * 3 * 4"),
    ("bullet-kept", "* vote Alice", "* vote Alice"),
    ("lone-star-kept", "vote Alice*", "vote Alice*"),
    ("emphasis-in-vote-tag", "[vote]**Alice**[/vote]", "[vote]Alice[/vote]"),
    # links and superscript
    ("link", "##vote [Alice](https://reddit.com/u/Alice)", "##vote Alice"),
    ("link-url-with-parens", "see [this](https://en.wikipedia.org/wiki/Mafia_(party_game)) now",
     "see this now"),
    ("link-url-underscores-do-not-emphasise", "[a](http://x.com/_b_) _c_", "a c"),
    ("superscript-word", "vote ^Alice", "vote Alice"),
    ("superscript-group", "^(vote Alice) now", "vote Alice now"),
    ("superscript-stacked", "^^^tiny", "tiny"),
    ("caret-alone-kept", "a ^ b", "a ^ b"),
    # escapes
    ("escaped-stars", "\\*\\*not bold\\*\\*", "**not bold**"),
    ("escaped-underscore", "user\\_name", "user_name"),
    ("escaped-hash", "\\##vote Alice", "##vote Alice"),
    ("escaped-brackets-vote-tag", "\\[vote\\]Alice\\[/vote\\]", "[vote]Alice[/vote]"),
    ("escaped-backslash", "a\\\\b", "a\\b"),
    ("backslash-before-letter-kept", "C:\\Users", "C:\\Users"),
    # entities
    ("api-escaped-ampersand", "Tom &amp; Jerry", "Tom & Jerry"),
    ("api-escaped-lt-gt", "I &lt;3 Bob &gt;:(", "I <3 Bob >:("),
    ("typed-entity-rendered", "AT&amp;amp;T", "AT&T"),
    ("zero-width-entity-line", "##vote Alice\n\n&amp;#x200B;\n\n##vote Bob", "##vote Alice\n\n##vote Bob"),
    # kept verbatim
    ("hash-vote", "##vote Alice", "##vote Alice"),
    ("vote-colon", "Vote: Alice", "Vote: Alice"),
    ("vote-tag", "[vote]Alice[/vote]", "[vote]Alice[/vote]"),
    ("heading-kept", "# Day 1\n## vote Alice", "# Day 1\n## vote Alice"),
    ("html-not-rendered", "<b>vote</b>", "<b>vote</b>"),
    ("russian-vote", "Голосую против Мэрил Стрип", "Голосую против Мэрил Стрип"),
    # a whole post
    ("full-post",
     ("&gt; **Alice** wrote: ##vote Bob\n&gt; &gt; nested\n\n"
      "Bob has been *very* quiet, >!I peeked!< and user_name_1 is town, ~~maybe~~.\n\n"
      "```\n##vote Dave\n```\n\n**##vote Carol**"),
     "Bob has been very quiet,  and user_name_1 is town, .\n\n##vote Carol"),
]


@pytest.mark.parametrize(("raw", "expected"), _params(MARKDOWN_CASES))
def test_markdown(raw: str, expected: str) -> None:
    assert clean(raw, "markdown") == expected


# ---------------------------------------------------------------------------------------------- bbcode

BBCODE_CASES: list[Case] = [
    # quotes
    ("quote-then-own-vote-next-line", "[quote=Alice]##vote Bob[/quote]\n##vote Carol", "##vote Carol"),
    ("quote-then-own-vote-same-line", "[quote]##vote Bob[/quote]##vote Carol", "##vote Carol"),
    ("quote-ru", "[quote=Том]Голосую против Тома Хэнкса[/quote]\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("quote-text-before", "I agree[quote]vote Bob[/quote]vote Carol", "I agree\n\nvote Carol"),
    ("quote-phpbb-attributes",
     '[quote="Alice" post_id=12 time=1700000000 user_id=5]##vote Bob[/quote]##vote Carol', "##vote Carol"),
    ("quote-phpbb-uid", "[quote:3f2a1b]##vote Bob[/quote:3f2a1b]##vote Carol", "##vote Carol"),
    ("quote-phpbb30-entity-attr", "[quote=&quot;Alice&quot;:3f2a1b]vote Bob[/quote:3f2a1b]vote Carol",
     "vote Carol"),
    ("quote-name-with-bracket", '[quote="[Mod] Bob"]vote Alice[/quote]vote Carol', "vote Carol"),
    ("quote-name-stray-quote-mark", '[quote="Al"ice"]vote Alice[/quote]vote Carol', "vote Carol"),
    ("quote-uppercase", "[QUOTE]vote Bob[/Quote]vote Carol", "vote Carol"),
    ("nested-quotes", "[quote=A][quote=B]vote X[/quote]vote Y[/quote]vote Z", "vote Z"),
    ("nested-quotes-uid", "[quote:1a][quote:1a]vote X[/quote:1a]vote Y[/quote:1a]vote Z", "vote Z"),
    ("two-quotes", "[quote]a[/quote]mine[quote]b[/quote]", "mine"),
    ("quote-multiline", "[quote]\n##vote Alice\n\n##vote Bob\n[/quote]\n##vote Carol", "##vote Carol"),
    # unclosed and stray tags (see the module docstring)
    ("unclosed-quote-hides-rest", "vote Bob\n[quote]vote Alice\nvote Carol", "vote Bob"),
    ("unclosed-inner-quote-hides-rest", "[quote][quote]vote Alice[/quote]vote Carol", ""),
    ("stray-closer-hides-before", "vote Alice[/quote]\nvote Carol", "vote Carol"),
    ("stray-closer-after-quote", "[quote=A]vote X[/quote]vote Y[/quote]\nvote Z", "vote Z"),
    ("stray-closer-keeps-text-before-quote", "mine\n[quote]x[/quote]\n[/quote]\nmore", "mine\n\nmore"),
    ("unclosed-code-hides-rest", "vote Bob [code]vote Alice", "vote Bob"),
    # spoilers, hide, code, strike, img
    ("spoiler", "[spoiler]##vote Alice[/spoiler]##vote Bob", "##vote Bob"),
    ("spoiler-titled", "[spoiler=Role PM]vote Alice[/spoiler]vote Bob", "vote Bob"),
    ("spoiler-mid-line", "I think [spoiler]Alice[/spoiler] is town", "I think\n\nis town"),
    ("spoiler-ru", "[spoiler]Голосую против Тома Хэнкса[/spoiler]Голосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("hide", "[hide]vote Alice[/hide]vote Bob", "vote Bob"),
    ("code", "[code]##vote Alice[/code]##vote Bob", "##vote Bob"),
    ("code-with-lang-and-uid", "[code=php:9f]vote Alice[/code:9f]vote Bob", "vote Bob"),
    ("code-ru", "[code]Голосую против Тома Хэнкса[/code]\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("code-does-not-nest", "[code][code]vote Alice[/code]vote Bob", "vote Bob"),
    ("code-hides-quote-tags", "[code][quote][/code]vote Bob", "vote Bob"),
    ("strike-s", "[s]##vote Alice[/s]\n##vote Bob", "##vote Bob"),
    ("strike-strike", "vote [strike]Alice[/strike]Bob", "vote Bob"),
    ("strike-del", "vote [del]Alice[/del]Bob", "vote Bob"),
    ("strike-ru", "[s]Голосую против Тома Хэнкса[/s]\nГолосую против Мэрил Стрип",
     "Голосую против Мэрил Стрип"),
    ("img", "[img]http://x/vote_Alice.png[/img]vote Bob", "vote Bob"),
    # unwrapped formatting
    ("bold", "[b]vote Alice[/b]", "vote Alice"),
    ("bold-uid", "[b:3f2a1b]vote Alice[/b:3f2a1b]", "vote Alice"),
    ("bold-ru", "[b]Голосую против Мэрил Стрип[/b]", "Голосую против Мэрил Стрип"),
    ("italic-underline", "[i]vote[/i] [u]Alice[/u]", "vote Alice"),
    ("color", "[color=#FF0000]vote Alice[/color]", "vote Alice"),
    ("color-phpbb30-uid", "[color=red:3f2a1b]vote Alice[/color:3f2a1b]", "vote Alice"),
    ("size-font", "[size=150][font=Arial]vote Alice[/font][/size]", "vote Alice"),
    ("center-is-a-block", "text[center]##vote Alice[/center]more", "text\n##vote Alice\nmore"),
    ("url-with-text", "##vote [url=https://forum/u/12]Alice[/url]", "##vote Alice"),
    ("url-bare", "see [url]https://example.com[/url]", "see https://example.com"),
    ("list-items-are-lines", "[list][*]vote Alice[*]vote Bob[/list]", "vote Alice\nvote Bob"),
    ("uppercase-bold", "[B]vote Alice[/B]", "vote Alice"),
    # kept verbatim
    ("vote-tag", "[vote]Alice[/vote]", "[vote]Alice[/vote]"),
    ("vote-tag-case-kept", "[VOTE]Alice[/VOTE]", "[VOTE]Alice[/VOTE]"),
    ("vote-tag-in-bold", "[b][vote]Alice[/vote][/b]", "[vote]Alice[/vote]"),
    ("unknown-tag-with-attr", "[unvote=now]", "[unvote=now]"),
    ("hash-vote", "##vote Alice", "##vote Alice"),
    ("markdown-not-rendered", "**vote Alice** > x", "**vote Alice** > x"),
    ("brackets-in-text", "[5 players] left [", "[5 players] left ["),
    ("user-name", "vote user_name_1", "vote user_name_1"),
    # entities
    ("entities", "Tom &amp; Jerry &quot;hi&quot;", 'Tom & Jerry "hi"'),
    ("escaped-bracket-is-text-not-tag", "&#91;quote&#93;vote Alice", "[quote]vote Alice"),
    ("entity-vote-tag", "&#91;vote&#93;Alice&#91;/vote&#93;", "[vote]Alice[/vote]"),
]


@pytest.mark.parametrize(("raw", "expected"), _params(BBCODE_CASES))
def test_bbcode(raw: str, expected: str) -> None:
    assert clean(raw, "bbcode") == expected


# ---------------------------------------------------------------------------------------------- html

HTML_CASES: list[Case] = [
    ("blockquote-then-own-vote", "<blockquote>Vote: Alice</blockquote>Vote: Bob", "Vote: Bob"),
    ("blockquote-ru",
     ("<blockquote><cite>Том написал:</cite>Голосую против Тома Хэнкса</blockquote>"
      "<p>Голосую против Мэрил Стрип</p>"),
     "Голосую против Мэрил Стрип"),
    ("nested-blockquote", "<blockquote>a<blockquote>vote X</blockquote>vote Y</blockquote>vote Z", "vote Z"),
    ("class-quote", '<div class="quote">vote Alice</div>vote Bob', "vote Bob"),
    ("class-quotecontent-phpbb",
     '<div class="quotetitle">Alice wrote:</div><div class="quotecontent">vote A</div>vote Bob', "vote Bob"),
    ("class-mentions-quote-xenforo",
     '<div class="bbCodeBlock bbCodeBlock--Quote">vote A</div>vote Bob', "vote Bob"),
    ("class-js-hook-is-not-a-quote-xenforo",
     '<div class="message-body js-selectToQuote"><div class="bbWrapper">##vote Bob</div></div>',
     "##vote Bob"),
    ("class-spoiler", '<div class="spoiler"><div class="spoiler-content">vote Alice</div></div>vote Bob',
     "vote Bob"),
    ("class-spoiler-inline", 'I think <span class="SpoilerTarget">Alice</span> is town', "I think  is town"),
    ("code", "vote <code>Alice</code> Bob", "vote  Bob"),
    ("pre", "<pre>##vote Alice</pre>##vote Bob", "##vote Bob"),
    ("del", "vote <del>Alice</del>Bob", "vote Bob"),
    ("del-ru", "<p><del>Голосую против Тома Хэнкса</del></p><p><b>Голосую против Мэрил Стрип</b></p>",
     "Голосую против Мэрил Стрип"),
    ("spoiler-ru", '<div class="spoiler">Голосую против Тома Хэнкса</div>Голосую против Мэрил Стрип',
     "Голосую против Мэрил Стрип"),
    ("s", "vote <s>Alice</s>Bob", "vote Bob"),
    ("strike", "vote <strike>Alice</strike>Bob", "vote Bob"),
    ("script-style", "<script>var v='vote Alice';</script><style>p{}</style>vote Bob", "vote Bob"),
    ("comment", "<!-- vote Alice -->vote Bob", "vote Bob"),
    ("details-spoiler", "<details><summary>Spoiler</summary>vote Alice</details>vote Bob", "vote Bob"),
    ("br-breaks-lines", "##vote Alice<br>Vote: Bob<br/>x", "##vote Alice\nVote: Bob\nx"),
    ("paragraphs", "<p>one</p><p>two</p>", "one\ntwo"),
    ("divs", "<div>one</div><div>two</div>", "one\ntwo"),
    ("list-items", "<ul><li>vote Alice</li><li>vote Bob</li></ul>", "vote Alice\nvote Bob"),
    ("headings", "<h1>Day 1</h1><h3>vote Alice</h3>", "Day 1\nvote Alice"),
    ("table-rows", "<table><tr><td>vote</td><td>Alice</td></tr><tr><td>two</td></tr></table>",
     "vote Alice\ntwo"),
    ("inline-formatting-kept", "<b>vote</b> <i>Alice</i> <a href='/u/1'>now</a>", "vote Alice now"),
    ("bold-vote", "<strong>##vote Alice</strong>", "##vote Alice"),
    ("source-whitespace-collapses", "<p>Vote:\n    Alice</p>", "Vote: Alice"),
    ("entities", "<p>Tom &amp; Jerry &lt;3</p>", "Tom & Jerry <3"),
    ("nbsp-edges-stripped", "<p>&nbsp;vote Alice&nbsp;</p>", "vote Alice"),
    ("vote-tag-kept", "<p>[vote]Alice[/vote]</p>", "[vote]Alice[/vote]"),
    ("hash-vote-kept", "<div>##vote Alice</div>", "##vote Alice"),
    ("user-name", "<p>vote user_name_1</p>", "vote user_name_1"),
    ("markdown-not-rendered", "<p>**vote Alice**</p>", "**vote Alice**"),
    ("no-tags-entities", "Tom &amp; Jerry", "Tom & Jerry"),
    ("no-tags-escaped-tag-is-text", "&lt;b&gt;vote&lt;/b&gt;", "<b>vote</b>"),
    ("full-page",
     ("<html><head><title>Game thread</title></head><body><div class='post'>"
      "<blockquote class='uncited'><div>##vote Alice</div></blockquote>"
      "<p>##vote Bob</p></div></body></html>"),
     "##vote Bob"),
]


@pytest.mark.parametrize(("raw", "expected"), _params(HTML_CASES))
def test_html(raw: str, expected: str) -> None:
    assert clean(raw, "html") == expected


@pytest.mark.parametrize("raw", ["http://example.com/vote", "notes.txt", "https://x.io/a?b=c"])
def test_html_text_that_looks_like_a_locator_gives_no_warning(raw: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clean(raw, "html") == raw


def test_html_deep_nesting_does_not_recurse() -> None:
    raw = "<div>" * 5000 + "vote Alice" + "</div>" * 5000
    assert clean(raw, "html") == "vote Alice"


# ---------------------------------------------------------------------------------------------- properties

# Pieces of every dialect's markup, so that generated posts hit the parsers' edge cases, not only plain text.
_MARKUP = st.sampled_from([
    "[quote]", "[/quote]", '[quote="A" post_id=1]', "[quote:1a]", "[/quote:1a]", "[spoiler]", "[/spoiler]",
    "[code]", "[/code]", "[s]", "[/s]", "[b]", "[/b]", "[*]", "[url=", "]", "[", '"', "[vote]", "[/vote]",
    "**", "*", "__", "_", "~~", "`", "```", "~~~", ">!", "!<", "> ", ">", "\n", "\n\n", "    ", "\t", "\\",
    "[a](b)", "](", "(", ")", "^", "^(", "&amp;", "&gt;", "&#91;", "&", ";", "\r", "\r\n",
    "<blockquote>", "</blockquote>", "<br>", "<p>", "</p>", "<div class='quote'>", "</div>", "<!--", "-->",
    "<code>", "<", ">", "##vote Alice", "Голосую против", " ", "x", "\u200b", "\ud800", "\x00", "\ufdd0",
])
_POSTS = st.one_of(st.text(), st.lists(st.one_of(_MARKUP, st.text(max_size=5)), max_size=40).map("".join))


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_POSTS)
def test_never_raises_and_returns_tidy_lines(dialect: str, raw: str) -> None:
    out = clean(raw, dialect)
    assert isinstance(out, str)
    assert "\r" not in out
    assert "\n\n\n" not in out
    assert out == out.strip()
    # The caller reads the result with splitlines(): it must see the same, stripped, lines.
    assert out.splitlines() == (out.split("\n") if out else [])
    for line in out.split("\n"):
        assert line == line.strip()


# Letters (Latin, Cyrillic, any script), digits, spaces and punctuation that no dialect treats as markup.
_NO_MARKUP_CHARS = st.characters(
    whitelist_categories=("L", "N", "Zs"), whitelist_characters=".,;:?!'\"-+=/@#$%|",
    blacklist_characters="\u3000",  # (Zs, but markdown's blank-line test is about spaces and tabs only)
)
# Lines without leading spaces: four of them would be an indented code block in markdown.
_NO_MARKUP_TEXT = st.lists(st.text(_NO_MARKUP_CHARS, max_size=30), max_size=8).map(
    lambda lines: "\n".join(line.lstrip() for line in lines))


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=200, deadline=None)
@given(text=_NO_MARKUP_TEXT)
def test_text_without_markup_is_unchanged_up_to_whitespace(dialect: str, text: str) -> None:
    assert clean(text, dialect).split() == text.split()


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.text(_NO_MARKUP_CHARS, max_size=30).map(str.strip), max_size=8))
@example(lines=["0  0", "vote  X"])
def test_lines_without_markup_survive_as_lines(dialect: str, lines: list[str]) -> None:
    # Every line break survives (html only through <br>), so a vote on its own line stays at line start.
    # HTML collapses a run of spaces into one (found by hypothesis: "0  0" is "0 0" there).
    raw = "<br>".join(lines) if dialect == "html" else "\n".join(lines)
    want = [_collapsed(line) if dialect == "html" else line for line in lines]
    assert [line for line in clean(raw, dialect).split("\n") if line] == [line for line in want if line]


def _collapsed(line: str) -> str:
    """A line as HTML shows it: each run of ASCII whitespace one space."""
    return re.sub(r"[ \t\n\r\f]+", " ", line)


_SECRET = "ZQXsecret"
# Anything after the quote opener, on the same line for markdown (a newline would end its quote line).
_TAIL = st.lists(st.one_of(_MARKUP, st.text(max_size=5)), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(tail=_TAIL)
def test_bbcode_quoted_text_never_survives(tail: str) -> None:
    assume(_SECRET.lower() not in tail.lower())
    for tag in ("quote", 'quote="Alice" post_id=1', "quote:3f2a", "spoiler", "hide", "code", "s", "strike"):
        assert _SECRET not in clean(f"[{tag}]{_SECRET} {tail}", "bbcode")


@settings(max_examples=300, deadline=None)
@given(tail=_TAIL.map(lambda text: text.replace("\n", " ").replace("\r", " ")))
def test_markdown_quoted_text_never_survives(tail: str) -> None:
    assume(_SECRET.lower() not in tail.lower())
    for opener in ("> ", ">", "&gt; ", "> > ", ">!", "   >"):
        assert _SECRET not in clean(f"{opener}{_SECRET} {tail}", "markdown")


@settings(max_examples=150, deadline=None)
@given(tail=_TAIL)
def test_html_quoted_text_never_survives(tail: str) -> None:
    assume(_SECRET.lower() not in tail.lower())
    for opener in ("<blockquote>", "<div class='quote'>", "<code>", "<del>"):
        assert _SECRET not in clean(f"{opener}{_SECRET} {tail}", "html")


# ---------------------------------------------------------------------------------------------- speed

# Every input is 100 KB or so. A quadratic pass (a lazy regex retried at each unclosed opener, a greedy run
# that backtracks) takes minutes on these; linear ones take milliseconds. The bounds leave room for a slow CI.
ADVERSARIAL = {
    "unclosed-quote": "[quote]" * 15000,
    "unclosed-quote-attr": '[quote="x ' * 10000,
    "stray-closers": "a[/quote]" * 12000,
    "tag-without-bracket": "[b " * 35000,
    "unclosed-bold": "**a " * 25000,
    "unclosed-bold-close": "a** " * 25000,
    "unclosed-underscore": "_a _b " * 17000,
    "unclosed-spoiler": ">!" * 50000,
    "unclosed-spoiler-words": "x >!a " * 17000,
    "spoiler-closers": "a!< " * 25000,
    "backtick-runs": " ".join("`" * n for n in range(1, 440)),
    "unclosed-strike": "~~a " * 25000,
    "link-openers": "[a](" * 25000,
    "link-nested-parens": "[a](b(" * 17000,
    "brackets": "[" * 100000,
    "carets": "^" * 100000,
    "backslashes": "\\" * 100000,
    "quote-lines": "> a\n" * 25000,
    "lazy-lines": "> a\nb\n" * 17000,
    "fences": "```\n" * 25000,
    "indented": "\n    a\n" * 14000,
    "entities": "&amp;" * 20000,
    "newlines": "\n" * 100000,
}


@pytest.mark.parametrize("dialect", ["plain", "markdown", "bbcode"])
@pytest.mark.parametrize("raw", [pytest.param(raw, id=key) for key, raw in ADVERSARIAL.items()])
def test_adversarial_input_is_handled(dialect: str, raw: str) -> None:
    # No timing here (bench/bench_parse.py measures it): a pattern that backtracks catastrophically on
    # these 100 KB inputs would not finish at all, which is what this test would show.
    out = clean(raw, dialect)
    assert len(out) <= len(raw)


@pytest.mark.parametrize("raw", [
    pytest.param("<blockquote>" * 10000, id="unclosed-blockquotes"),
    pytest.param("<div>" * 10000, id="unclosed-divs"),
    pytest.param("<b>x" * 10000, id="unclosed-bold"),
    pytest.param("<" * 100000, id="angle-brackets"),
])
def test_adversarial_html_finishes(raw: str) -> None:
    assert isinstance(clean(raw, "html"), str)


TYPICAL = {
    "markdown": (
        "&gt; **Alice** wrote: I think ##vote Bob is right, see [this](https://example.com/a_b) post.\n"
        "&gt; &gt; nested quote here\n\n"
        "I disagree with that. Bob has been *very* quiet and his __claim__ doesn't add up. "
        "Also >!I peeked at the spoiler!< and user_name_1 is clearly town, ~~maybe not~~.\n\n"
        "Let me think about `the code` for a bit... ^(small note) &amp; more.\n\n"
        "##vote Carol\n\nVote: Carol"
    ),
    "bbcode": (
        '[quote="Alice" post_id=12 time=1700000000 user_id=5]I think [b]##vote Bob[/b] is right, see '
        "[url=https://example.com/x]this[/url] post.[quote=Bob]nested[/quote][/quote]\n"
        "I disagree with that. Bob has been [i:3f2a1b]very[/i:3f2a1b] quiet and his [u]claim[/u] doesn't "
        "add up. Also [spoiler]I peeked[/spoiler] and user_name_1 is clearly town, [s]maybe not[/s].\n\n"
        "Let me think about [code]the code[/code] for a bit... [color=red]red[/color] &amp; more.\n\n"
        "##vote Carol\n\n[vote]Carol[/vote]"
    ),
}


@pytest.mark.parametrize("dialect", ["markdown", "bbcode"])
def test_typical_post_keeps_its_own_vote(dialect: str) -> None:
    raw = TYPICAL[dialect]
    lines = clean(raw, dialect).split("\n")
    assert "##vote Carol" in lines
    assert not any("##vote Bob" in line for line in lines)
