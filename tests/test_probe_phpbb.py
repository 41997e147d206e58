"""Probing the phpBB page reader with pages a board (or a player writing on it) controls: quotes and tags
nested thousands deep, numbers int() refuses, dates that are no dates, truncated HTML. A page is read or
refused with a PlatformError; never a RecursionError or a ValueError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.errors import PlatformError
from forumbot.platforms import phpbb_html as html

WHEN = '<p class="author"><a class="username" href="./memberlist.php?mode=viewprofile&amp;u=5">Ann</a>' \
       '<time datetime="2026-11-30T10:00:00+00:00">x</time></p>'


def topic(content: str, post_id: str = "p1", when: str = WHEN) -> html.TopicPage:
    return html.topic_page(html.parse(f'<div id="{post_id}" class="post">{when}<div class="postbody">'
                                      f'<div class="content">{content}</div></div></div>'))


@pytest.mark.parametrize(("opener", "closer"), [("<strong>", "</strong>"), ("<em>", "</em>"), ("<span>", "</span>"),
                                               ("<blockquote>", "</blockquote>"), ("<ul><li>", "</li></ul>"),
                                               ("<a>", "</a>"), ("<div>", "</div>")])
def test_tags_nested_ten_thousand_deep_read_as_text_past_the_depth_limit(opener, closer):
    page = topic(opener * 10_000 + "vote Bob" + closer * 10_000)
    assert "vote Bob" in page.posts[0].body


def test_quotes_and_lists_nested_24_deep_keep_every_level():
    for tag in ("<blockquote><div>", "<ul><li>"):
        closer = "</div></blockquote>" if tag.startswith("<b") else "</li></ul>"
        page = topic(tag * 24 + "x" + closer * 24)
        assert page.posts[0].body.count("[quote]" if "quote" in tag else "[list]") == 24


def test_quotes_within_the_depth_limit_keep_their_tags():
    page = topic("<blockquote><div><cite>Bo wrote:</cite>" * 3 + "hi" + "</div></blockquote>" * 3 + "vote Ann")
    assert page.posts[0].body == '[quote="Bo"]' * 3 + "hi" + "[/quote]" * 3 + "\nvote Ann"


@pytest.mark.parametrize("text", ["²", "٣", "9" * 5000, "-", "", " 12 ", "1e3", "0x1f"])
def test_numbers_int_refuses_are_no_number(text):
    assert html._int(text) is None


def test_ordinary_numbers_still_read():
    assert [html._int(t) for t in ("0", "12", "-3", "9" * 18)] == [0, 12, -3, int("9" * 18)]


def test_a_post_id_of_thousands_of_digits_is_not_a_post():
    assert topic("x", post_id="p" + "9" * 5000).posts == []


def test_pagination_with_superscripts_and_huge_numbers():
    block = '<div class="pagination">3 posts <ul><li class="active"><span>²</span></li><li>{}</li></ul></div>'
    assert html.pagination(html.parse(block.format("9" * 5000))) == (3, 1, 1, None)
    assert html.pagination(html.parse(block.format("4"))) == (3, 1, 4, None)


def test_a_post_time_that_is_no_date_is_a_platform_error_naming_it():
    with pytest.raises(PlatformError, match="'garbage'"):
        topic("x", when='<p class="author"><time datetime="garbage">x</time></p>')


def test_a_board_date_that_does_not_exist_is_none():
    assert html.board_time("Last edited by Ann on Mon Nov 99, 2026 11:25 am") is None
    assert html.board_time("Mon Nov 30, 2026 11:25 am").hour == 11


def test_a_pm_page_with_an_id_that_is_no_number_is_no_pm():
    assert html.pm_view(html.parse('<div class="post pm" id="post-xx"><div class="content">x</div></div>')) is None


PIECES = ["<blockquote>", "</blockquote>", "<div>", "</div>", "<cite>", "</cite>", "<strong>", "</strong>", "<ul>",
          "<li>", "</ul>", "<br>", "<span style=\"color: red\">", "<span class=\"bbvote\">", "</span>", "<a href=x>",
          '<a class="postlink" href="http://x">', "</a>", "<img alt=z>", "<!--", "-->", "&amp;", "<", ">", "x", "\n",
          '<div class="codebox"><code>', "</code>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_any_post_markup_is_read_without_raising(content):
    page = topic(content)
    assert len(page.posts) == 1 and isinstance(page.posts[0].body, str)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=20))
def test_any_pagination_and_pm_page_is_read_or_none(text, number):
    soup = html.parse(f'<div class="pagination">{text}<ul><li class="active"><span>{number}</span></li>'
                      f'<li>{number}</li></ul></div><div class="post pm" id="post-{number}"></div>')
    total, page, pages, _ = html.pagination(soup)
    assert page >= 1 and pages >= page
    html.pm_view(soup)
