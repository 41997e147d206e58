"""phpbb_html against the recorded pages of a real phpBB 3.3.15 board (../shared/phpbb): bodies back to BBCode,
posts, pagination, forms (the fields a browser sends), errors and info pages, PMs, members."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from fakephpbb.recorded import SHARED, recorded_page

from forumbot.platforms import phpbb_html as html

pytestmark = pytest.mark.skipif(not SHARED.exists(), reason="the phpBB recordings are not here")


def page(name: str):
    return html.parse(recorded_page(name))


def post(name: str, number: int) -> html.PagePost:
    return next(p for p in html.topic_page(page(name)).posts if p.id == number)


@pytest.mark.parametrize("name,number,bbcode", [
    ("bot_topic_start0", 15, "Голосую против Тома Хэнкса"),
    ("bot_topic_start0", 18, "[vote]Bob[/vote]"),
    ("bot_topic_start0", 19, "[b]Unvote, vote Carol[/b]"),
    ("bot_topic_start0", 20, '[quote="Bob Stone"][b]Unvote, vote Carol[/b][/quote]\n\n'
                             "Why me? I haven't even posted yet."),
    ("bot_topic_start0", 22, "[code]##vote Alice\n[vote]Dave[/vote][/code]\nThat's how you format votes, folks. "
                             "The box above is NOT my vote."),
    ("bot_topic_start0", 23, "[i]I think[/i] [u]Alice[/u] is scummy.\n[b]VOTE: Alice[/b]"),
    ("bot_topic_start10", 25, "Rules are here: [url=https://wiki.mafiascum.net/index.php?title=Vote]the wiki page on "
                              "voting[/url], also see http://example.org/rules :)"),
    ("bot_topic_start10", 26, '[quote="Мэрил Стрип"]Голосую против Тома Хэнкса[/quote]\nЭто несправедливо! :(\n\n'
                              "Голосую за Мэрил Стрип."),
    ("bot_topic_start10", 29, "[quote]VOTE: Dave[/quote]\nSomeone said that in another game. Not me. Anyway: unvote"),
    ("bot_topic_start10", 30, "[color=#FF0000]VOTE: Dave[/color]"),
    ("bot_topic_start10", 31, "I'm 🙂 about this. Vote: Bob Stone"),
    ("bot_topic_start10", 32, '<b>Я</b> & вы — проверка "экранирования" <script>alert(1)</script>. [vote]Dave[/vote]'),
    ("bot_topic_start10", 33, "[size=150]Reminder: 24 hours left[/size]"),
    ("bot_topic_start20", 35, ":lol: :roll: 8-)"),
    ("bot_topic_start20", 37, "My reads:\n[list=1]\n[*]Tom - town\n[*]Meryl - scum\n[/list]\nvote: Мэрил Стрип"),
    ("bot_topic_start20", 41, "[vote]Дэйв[/vote]"),
])
def test_bodies_come_back_as_bbcode(name, number, bbcode):
    assert post(name, number).body == bbcode


def test_a_vote_tag_template_with_a_prefix_of_its_own():
    content = html.parse('<div class="content"><span class="bbvote" title="Vote">VOTE: Alice</span></div>')
    assert html.to_bbcode(content.select_one("div.content")) == "[vote]Alice[/vote]"


def test_nested_quotes_three_deep():
    body = post("bot_topic_start20", 36).body
    assert body.startswith('[quote="Alice"][quote="Carol_K"][quote="Bob Stone"][b]Unvote, vote Carol[/b][/quote]')
    assert body.count("[quote=") == 3 and body.count("[/quote]") == 3


def test_a_post_as_the_board_shows_it():
    host = post("bot_topic_start0", 14)
    assert (host.author, host.author_id, host.subject) == ("Host", 61, "Day 1 votes")      # a coloured name
    assert host.created == datetime(2026, 11, 28, 9, 31, 14, tzinfo=UTC)
    assert host.body.startswith("[b]Day 1 has begun![/b]\n\nAlive players:\n[list]\n[*]Том Хэнкс\n")
    edited = post("bot_topic_after_edit", 18)
    assert edited.edit_count == 2 and "Last edited by Alice" in edited.edit_notice
    assert html.board_time(edited.edit_notice) == datetime(2026, 11, 30, 11, 32, tzinfo=UTC)
    by_host = post("bot_topic_after_edit", 23)
    assert by_host.edit_count == 1 and by_host.edit_notice.endswith("Reason: fixed formatting")
    assert not post("bot_topic_start0", 15).deleted
    moderator_view = html.topic_page(page("host_topic_after_delete_start20"))
    assert [p.id for p in moderator_view.posts if p.deleted] == [35]


@pytest.mark.parametrize("name,total,current,pages,next_start,locked", [
    ("bot_topic_start0", 29, 1, 3, 10, False),
    ("bot_topic_start10", 29, 2, 3, 20, False),
    ("bot_topic_start20", 29, 3, 3, None, False),
    ("bot_topic_start_past_end", 34, 4, 4, None, False),
    ("bot_topic_locked", 4, 1, 1, None, True),
    ("bot_topic_night1", 2, 1, 1, None, False),
])
def test_pagination_and_lock(name, total, current, pages, next_start, locked):
    topic = html.topic_page(page(name))
    assert (topic.total, topic.page, topic.pages, topic.next_start, topic.locked) == \
        (total, current, pages, next_start, locked)
    assert topic.forum_id == 3


def _sent(seq: int) -> list[str]:
    for line in (SHARED / "exchanges.jsonl").read_text(encoding="utf-8").splitlines():
        exchange = json.loads(line)
        if exchange["seq"] == seq:
            return [name for name, _ in exchange["form"]]
    raise KeyError(seq)


@pytest.mark.parametrize("name,form,submit,posted", [
    ("login_form", "login", "login", 3), ("bot_reply_form", "postform", "post", 43),
    ("bot_edit_form", "postform", "post", 63), ("bot_newtopic_form", "postform", "post", 66),
    ("pm_compose_form_u", "postform", "post", 80), ("bot_topic_start0", "qr_postform", "post", 60),
])
def test_forms_give_the_fields_a_browser_sent(name, form, submit, posted):
    fields = html.form_fields(page(name).select_one(f"form#{form}"), submit)
    assert sorted(n for n, _ in fields) == sorted(_sent(posted))


@pytest.mark.parametrize("name,errors,info", [
    ("login_post_wrong_password", ["You have specified an incorrect password"], None),
    ("bot_reply_post_too_fast", ["The submitted form was invalid. Try submitting again."], None),
    ("bot_reply_post_bad_token", ["The submitted form was invalid. Try submitting again."], None),
    ("bot_reply_post_flood", ["You cannot make another post so soon after your last."], None),
    ("bot_reply_post_too_long", ["Your message contains 359 characters. The maximum number of allowed characters is "
                                 "100."], None),
    ("bot_reply_post_empty", ["Your message contains too few characters."], None),
    ("bot_newtopic_post_no_subject", ["You must specify a subject when posting a new topic."], None),
    ("pm_compose_unknown_user", ["The requested users to be added do not exist."], None),
    ("bot_reply_post_locked", [], "This topic is locked, you cannot edit posts or make further replies."),
    ("bot_topic_missing", [], "The requested topic does not exist."),
    ("pm_view_missing", [], "Private message could not be found."),
    ("pm_reply_wrong_url", [], "General Error Module not accessible"),
])
def test_errors_and_info_pages(name, errors, info):
    soup = page(name)
    assert [e[:len(want)] for e, want in zip(html.form_errors(soup), errors, strict=True)] == errors
    found = html.info_message(soup)
    assert (found is None) if info is None else found.startswith(info)


def test_sessions_as_the_pages_show_them():
    assert html.logged_in(page("bot_topic_start0")) and not html.logged_in(page("anon_topic_start0"))
    expired = page("session_expired_viewtopic")
    assert not html.logged_in(expired)
    assert html.login_box(page("session_invalid_sid_reply_form"))
    assert html.login_reason(page("session_invalid_sid_reply_form")) == \
        "You need to login in order to reply to topics within this forum."
    assert html.unread_pm_count(page("bot_index_with_unread_pms")) == 4
    assert html.unread_pm_count(page("bot_topic_start0")) == 0
    assert html.unread_pm_count(page("anon_topic_start0")) is None


def test_private_messages():
    inbox = html.pm_rows(page("pm_inbox_4_unread"))
    assert [(r.id, r.user, r.user_id, r.unread) for r in inbox] == [
        (5, "Dave", 68, True), (4, "Carol_K", 67, True), (3, "Alice", 65, True), (2, "Том Хэнкс", 63, True)]
    assert [r.unread for r in html.pm_rows(page("pm_inbox_all_read"))] == [False] * 4
    assert [r.user for r in html.pm_rows(page("pm_outbox"))][0] == "Carol_K"        # "To" the recipient
    russian = html.pm_view(page("pm_view_russian"))
    assert (russian.id, russian.subject, russian.author, russian.author_id) == (2, "Ночное действие", "Том Хэнкс", 63)
    assert russian.body == "Привет! Этой ночью проверяю [b]Мэрил Стрип[/b].\nСпасибо."
    assert russian.sent == datetime(2026, 11, 30, 11, 32, tzinfo=UTC)
    moscow = html.pm_view(page("pm_view_russian"), timezone(timedelta(hours=3)))
    assert moscow.sent == datetime(2026, 11, 30, 8, 32, tzinfo=UTC)
    assert html.pm_view(page("pm_view_multi_recipient")).recipients == ["Host", "forumbot"]
    assert html.sent_pm_id(page("pm_send_post")) == 6


def test_members_and_forum_lists():
    assert html.member_rows(page("memberlist_bot"))["Мэрил Стрип"] == 64
    assert html.profile_id(page("profile_by_name")) == 64
    rows = html.topic_rows(page("bot_viewforum"))
    assert [(r.id, r.last_post, r.replies) for r in rows] == [(3, 42, 28), (2, 13, 3)]
    after = {r.id: r for r in html.topic_rows(page("bot_viewforum_after_newtopic"))}
    assert after[4].last_post == 47 and after[2].locked


@pytest.mark.parametrize("name,review", [("bot_reply_post_new_posts_warning", True), ("bot_reply_form", False),
                                         ("bot_reply_post_too_fast", False)])
def test_the_new_posts_review_is_told_apart_from_the_topic_review(name, review):
    assert html.new_posts_review(page(name)) is review
