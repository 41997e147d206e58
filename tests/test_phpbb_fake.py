"""The fake phpBB board stays honest: its pages, read by the adapter's parser and by the same selectors, give
what the recorded pages of the real board (../shared/phpbb) give."""

from __future__ import annotations

import pytest
import requests
from fakephpbb import FakePhpbb
from fakephpbb.recorded import SHARED, recorded_board, recorded_page

from forumbot.platforms import phpbb_html as html

pytestmark = pytest.mark.skipif(not SHARED.exists(), reason="the phpBB recordings are not here")
UA = {"User-Agent": "test-agent"}


@pytest.fixture()
def fake():
    with FakePhpbb(recorded_board(form_min_age=0)) as server:
        yield server


def _shape(tag) -> list[tuple[str, tuple[str, ...]]]:
    """The element skeleton of a post: tag names and classes, in document order (attributes' values aside)."""
    return [(el.name, tuple(sorted(el.get("class", [])))) for el in tag.find_all(True)]


def _login(fake: FakePhpbb) -> requests.Session:
    http = requests.Session()
    http.headers.update(UA)
    form = html.parse(http.get(f"{fake.url}/ucp.php?mode=login").text).select_one("form#login")
    data = dict(html.form_fields(form, "login")) | {"username": "forumbot", "password": "bot-pass-1234"}
    assert http.post(f"{fake.url}/ucp.php?mode=login", data=data, allow_redirects=False).status_code == 302
    return http


@pytest.mark.parametrize("start,recording", [(0, "anon_topic_start0"), (10, "anon_topic_start10"),
                                             (20, "anon_topic_start20")])
def test_topic_pages_parse_like_the_recorded_board(fake, start, recording):
    mine = html.topic_page(html.parse(requests.get(f"{fake.url}/viewtopic.php?t=3&start={start}", headers=UA).text))
    real = html.topic_page(html.parse(recorded_page(recording)))
    assert mine == real          # ids, authors, author ids, times, bodies (BBCode back), pagination, forum, title


def test_bot_topic_page_has_the_recorded_structure(fake):
    http = _login(fake)
    mine = html.parse(http.get(f"{fake.url}/viewtopic.php?t=3").text)
    real = html.parse(recorded_page("bot_topic_start0"))
    for selector in ("div.post[id=p15] p.author", "div.post[id=p15] div.postbody div.content",
                     "div.post[id=p20] div.content blockquote", "div.post[id=p22] div.content div.codebox"):
        assert _shape(mine.select_one(selector)) == _shape(real.select_one(selector)), selector
    for selector in ("form#qr_postform", 'a[href*="mode=logout"]', "div.pagination li.active span",
                     "li.arrow.next a[rel=next]", 'span.crumb[data-forum-id="3"]', "h2.topic-title a",
                     'a[href="./ucp.php?i=pm&folder=inbox"] strong.badge'):
        assert (mine.select_one(selector) is None) == (real.select_one(selector) is None), selector
    assert [n for n, _ in html.form_fields(mine.select_one("form#qr_postform"))] == \
        [n for n, _ in html.form_fields(real.select_one("form#qr_postform"))]


def test_edited_and_deleted_posts_look_as_recorded(fake):
    board = fake.board
    board.edit_post(18, "[vote]Dave[/vote]")
    board.edit_post(18, "[vote]Bob Stone[/vote]")
    board.edit_post(23, board.posts[23].text + "\n\n[size=85][i](host: fixed a broken tag)[/i][/size]", by=61,
                    reason="fixed formatting")
    mine = html.topic_page(html.parse(requests.get(f"{fake.url}/viewtopic.php?t=3", headers=UA).text))
    real = html.topic_page(html.parse(recorded_page("bot_topic_after_edit")))
    assert [(p.id, p.body, p.edit_count) for p in mine.posts] == [(p.id, p.body, p.edit_count) for p in real.posts]
    assert "Reason: fixed formatting" in mine.posts[-1].edit_notice
    board.soft_delete(35)
    board.hard_delete(40)
    mine = html.topic_page(html.parse(requests.get(f"{fake.url}/viewtopic.php?t=3&start=20", headers=UA).text))
    real = html.topic_page(html.parse(recorded_page("bot_topic_after_delete_start20")))
    assert [p.id for p in mine.posts] == [p.id for p in real.posts] and mine.total == real.total
    assert requests.get(f"{fake.url}/viewtopic.php?p=40", headers=UA).status_code == 404


def test_posting_and_pm_pages_answer_as_recorded(fake):
    http = _login(fake)
    form = html.parse(http.get(f"{fake.url}/posting.php?mode=reply&t=3").text).select_one("form#postform")
    real = html.parse(recorded_page("bot_reply_form")).select_one("form#postform")
    wanted = {"subject", "message", "topic_cur_post_id", "creation_time", "form_token", "post", "attach_sig"}
    assert wanted <= {n for n, _ in html.form_fields(form)} and wanted <= {n for n, _ in html.form_fields(real)}
    fields = dict(html.form_fields(form)) | {"message": "x", "form_token": "bad"}
    again = html.parse(http.post(f"{fake.url}/posting.php?mode=reply&t=3", data=fields).text)
    assert html.form_errors(again) == html.form_errors(html.parse(recorded_page("bot_reply_post_bad_token")))
    fake.board.topics[2].locked = True
    locked = html.parse(http.get(f"{fake.url}/posting.php?mode=reply&t=2").text)
    assert html.info_message(locked) == html.info_message(html.parse(recorded_page("bot_reply_form_locked")))
    fake.board.add_pm(65, [62], "Re: Role PM", "[quote=forumbot]You are the Doctor.[/quote]\nProtect: Dave")
    inbox = html.pm_rows(html.parse(http.get(f"{fake.url}/ucp.php?i=pm&folder=inbox").text))
    assert [(r.user, r.unread) for r in inbox] == [("Alice", True)]
    view = html.pm_view(html.parse(http.get(f"{fake.url}/ucp.php?i=pm&mode=view&f=0&p={inbox[0].id}").text))
    recorded = html.pm_view(html.parse(recorded_page("pm_view_quote")))
    assert (view.author, view.author_id, view.recipients) == (recorded.author, recorded.author_id, recorded.recipients)
    assert view.body == '[quote="forumbot"]You are the Doctor.[/quote]\nProtect: Dave'
    login_box = html.parse(requests.get(f"{fake.url}/posting.php?mode=reply&t=3", headers=UA).text)
    recorded_box = html.parse(recorded_page("session_invalid_sid_reply_form"))
    assert html.login_reason(login_box) == html.login_reason(recorded_box)


def test_forum_list_pm_folders_and_members_parse_like_the_recordings(fake):
    http = _login(fake)
    mine = html.topic_rows(html.parse(http.get(f"{fake.url}/viewforum.php?f=3").text))
    real = html.topic_rows(html.parse(recorded_page("bot_viewforum")))
    assert [(r.id, r.title, r.last_post, r.replies) for r in mine] == \
        [(r.id, r.title, r.last_post, r.replies) for r in real]
    for sender, subject in ((63, "Ночное действие"), (65, "Re: Role PM"), (67, "Night kill"), (68, "Question")):
        fake.board.add_pm(sender, [62], subject, "x")
    inbox = html.pm_rows(html.parse(http.get(f"{fake.url}/ucp.php?i=pm&folder=inbox").text))
    recorded = html.pm_rows(html.parse(recorded_page("pm_inbox_4_unread")))
    assert [(r.subject, r.user, r.user_id, r.unread) for r in inbox] == \
        [(r.subject, r.user, r.user_id, r.unread) for r in recorded]
    members = html.member_rows(html.parse(http.get(f"{fake.url}/memberlist.php").text))
    assert members == html.member_rows(html.parse(recorded_page("memberlist_bot")))
    profile = html.parse(http.get(f"{fake.url}/memberlist.php?mode=viewprofile&un=Мэрил Стрип").text)
    assert html.profile_id(profile) == html.profile_id(html.parse(recorded_page("profile_by_name"))) == 64
    assert http.get(f"{fake.url}/memberlist.php?mode=viewprofile&un=NoSuchUser").status_code == 404


def test_a_client_without_cookies_gets_sids_in_links_and_fresh_guest_cookies(fake):
    first = requests.get(f"{fake.url}/ucp.php?mode=login", headers=UA)
    recorded = html.parse(recorded_page("login_form"))
    assert {c.name.rsplit("_", 1)[1] for c in first.cookies} == {"u", "k", "sid"}
    assert first.cookies[f"{fake.board.cookie_name}_u"] == "1"
    mine = html.parse(first.text)
    assert "sid=" in mine.select_one("form#login")["action"] and "sid=" in recorded.select_one("form#login")["action"]
