"""The fake phpBB board answers as the second recording of the real board (../shared/phpbb/exchanges-2.jsonl,
pages-2/) does: markers stored with their last colon encoded, failed sign-ins that end in a CAPTCHA, a post held
for approval and approved later, a soft-deleted and restored post, the unread-PM badge, a locked topic, a
disabled board and `[s]` shown literally. Each step sends what the recording sent and reads both answers with
the adapter's parser."""

from __future__ import annotations

import pytest
import requests
from fakephpbb import FakePhpbb
from fakephpbb.recorded import SHARED, recorded_board_2, recorded_exchange, recorded_page

from forumbot.platforms import phpbb_html as html

pytestmark = pytest.mark.skipif(not (SHARED / "exchanges-2.jsonl").exists(),
                                reason="the second phpBB recording is not here")
UA = {"User-Agent": "test-agent"}


def real(name: str):
    return html.parse(recorded_page(name, "pages-2"))


def sent(name: str) -> dict[str, str]:
    """The form fields the recording sent in exchange `name` (the message, the subject...)."""
    return dict(recorded_exchange(name)["form"] or [])


@pytest.fixture()
def fake():
    with FakePhpbb(recorded_board_2(form_min_age=0)) as server:
        yield server


def login(fake: FakePhpbb, name: str, password: str) -> tuple[requests.Session, requests.Response]:
    http = requests.Session()
    http.headers.update(UA)
    form = html.parse(http.get(f"{fake.url}/ucp.php?mode=login").text).select_one("form#login")
    data = dict(html.form_fields(form, "login")) | {"username": name, "password": password}
    return http, http.post(f"{fake.url}/ucp.php?mode=login", data=data, allow_redirects=False)


def reply(fake: FakePhpbb, http: requests.Session, topic: int, message: str) -> requests.Response:
    form = html.parse(http.get(f"{fake.url}/posting.php?mode=reply&t={topic}").text).select_one("form#postform")
    data = dict(html.form_fields(form)) | {"message": message}
    return http.post(f"{fake.url}/posting.php?mode=reply&t={topic}", data=data, allow_redirects=False)


def bodies(soup) -> list[tuple[int, str, int | None, str]]:
    return [(p.id, p.author, p.author_id, p.body) for p in html.topic_page(soup).posts]


def test_failed_sign_ins_end_in_a_captcha_that_refuses_the_right_password_too(fake):
    for attempt in (1, 2, 3):
        _, answer = login(fake, "forumbot", "wrong")
        assert answer.status_code == recorded_exchange(f"login_fail_{attempt}")["status"] == 200
        assert html.form_errors(html.parse(answer.text)) == html.form_errors(real(f"login_fail_{attempt}"))
    _, answer = login(fake, "forumbot", "wrong")
    mine, recorded = html.parse(answer.text), real("login_fail_4")
    assert html.form_errors(mine) == html.form_errors(recorded)
    for selector in ("form#login input[name=confirm_code]", "form#login input[name=confirm_id]",
                     "form#login dd.captcha img"):
        assert mine.select_one(selector) is not None and recorded.select_one(selector) is not None, selector
    form = html.parse(requests.get(f"{fake.url}/ucp.php?mode=login", headers=UA).text)
    assert form.select_one("form#login input[name=confirm_code]") is None
    assert real("login_form_after_failures").select_one("form#login input[name=confirm_code]") is None
    _, answer = login(fake, "forumbot", "bot-pass-1234")
    assert answer.status_code == 200
    assert html.form_errors(html.parse(answer.text)) == html.form_errors(real("login_correct_password_no_captcha"))
    fake.board.users[59].login_attempts = 0               # the board admin resets the counter
    _, answer = login(fake, "forumbot", "bot-pass-1234")
    assert answer.status_code == recorded_exchange("bot_login_post")["status"] == 302


def test_markers_come_back_encoded_as_phpbb_stores_them(fake):
    http, _ = login(fake, "forumbot", "bot-pass-1234")
    answer = reply(fake, http, 5, sent("marker_reply_post")["message"])
    assert answer.status_code == 302 and answer.headers["Location"].endswith("viewtopic.php?p=84#p84")
    assert recorded_exchange("marker_reply_post")["status"] == 302
    page = html.parse(http.get(f"{fake.url}/viewtopic.php?t=5").text)
    assert bodies(page) == bodies(real("marker_topic_page"))
    assert 'href="#fb:mafia-1%3A20"' in str(page.select_one("#p84 div.content"))
    edit = html.parse(http.get(f"{fake.url}/posting.php?mode=edit&p=84").text)
    assert edit.select_one("textarea#message").get_text() == \
        real("marker_edit_form").select_one("textarea#message").get_text()
    http.post(f"{fake.url}/posting.php?mode=reply&t=5", allow_redirects=False,
              data=dict(html.form_fields(html.parse(http.get(f"{fake.url}/posting.php?mode=reply&t=5").text)
                                         .select_one("form#postform"))) | {"message": sent("strike_post")["message"]})
    assert bodies(html.parse(http.get(f"{fake.url}/viewtopic.php?t=5").text)) == bodies(real("strike_topic_page"))
    fake.board._next_pm = 33
    compose = html.parse(http.get(f"{fake.url}/ucp.php?i=pm&mode=compose&u=62").text).select_one("form#postform")
    data = dict(html.form_fields(compose)) | {"subject": "Your role", "message": sent("marker_pm_send")["message"]}
    http.post(f"{fake.url}/ucp.php?i=pm&mode=compose&u=62", data=data)
    mine = html.pm_view(html.parse(http.get(f"{fake.url}/ucp.php?i=pm&mode=view&f=-2&p=33").text))
    recorded = html.pm_view(real("marker_pm_view"))
    assert (mine.id, mine.author, mine.body, mine.recipients) == \
        (recorded.id, recorded.author, recorded.body, recorded.recipients)


def test_a_held_post_is_invisible_until_approved_then_sits_in_its_place(fake):
    bot, _ = login(fake, "forumbot", "bot-pass-1234")
    reply(fake, bot, 5, sent("marker_reply_post")["message"])
    reply(fake, bot, 5, sent("strike_post")["message"])
    fake.board.users[66].needs_approval = True
    player, _ = login(fake, "Ёжик", "yozh-pass")
    answer = reply(fake, player, 5, sent("approval_player_reply_post")["message"])
    assert answer.status_code == recorded_exchange("approval_player_reply_post")["status"] == 200
    assert html.info_message(html.parse(answer.text)) == html.info_message(real("approval_player_reply_post"))
    fake.board.add_post(5, 64, "Carol posting after Ёжик. [b]vote: Ёжик[/b]")
    assert bodies(html.parse(bot.get(f"{fake.url}/viewtopic.php?t=5").text)) == bodies(real("approval_topic_before"))
    assert bot.get(f"{fake.url}/viewtopic.php?p=86").status_code == \
        recorded_exchange("approval_permalink_unapproved")["status"] == 404
    fake.board.approve(86)
    assert bodies(html.parse(bot.get(f"{fake.url}/viewtopic.php?t=5").text)) == bodies(real("approval_topic_after"))
    fake.board.soft_delete(83)
    assert bodies(html.parse(bot.get(f"{fake.url}/viewtopic.php?t=5").text)) == \
        bodies(real("softdel_topic_while_deleted"))
    fake.board.restore(83)
    assert bodies(html.parse(bot.get(f"{fake.url}/viewtopic.php?t=5").text)) == \
        bodies(real("softdel_topic_after_restore"))


def test_the_header_counts_unread_pms_until_they_are_viewed(fake):
    bot, _ = login(fake, "forumbot", "bot-pass-1234")

    def badge_and_title(soup) -> tuple[int | None, bool]:
        return html.unread_pm_count(soup), soup.title.get_text().startswith("(")
    assert badge_and_title(html.parse(bot.get(f"{fake.url}/viewforum.php?f=3").text)) == \
        badge_and_title(real("pm_unread_viewforum_0")) == (0, False)
    fake.board._next_pm = 34
    fake.board.add_pm(62, [59], "Night action", "kill Dave")
    assert badge_and_title(html.parse(bot.get(f"{fake.url}/viewforum.php?f=3").text)) == \
        badge_and_title(real("pm_unread_viewforum_1")) == (1, True)
    bot.get(f"{fake.url}/ucp.php?i=pm&folder=inbox")                   # the inbox does not clear it
    assert html.unread_pm_count(html.parse(bot.get(f"{fake.url}/viewforum.php?f=3").text)) == \
        html.unread_pm_count(real("pm_unread_viewforum_1_again")) == 1
    fake.board.add_pm(64, [59], "Question", "?")
    inbox = html.parse(bot.get(f"{fake.url}/ucp.php?i=pm&folder=inbox").text)
    unread = [(r.id, r.subject, r.user, r.user_id) for r in html.pm_rows(inbox) if r.unread]
    assert unread == [(r.id, r.subject, r.user, r.user_id) for r in html.pm_rows(real("pm_unread_inbox_2")) if r.unread]
    assert html.unread_pm_count(inbox) == html.unread_pm_count(real("pm_unread_viewforum_2")) == 2


def test_a_locked_topic_refuses_replies_with_an_info_page(fake):
    bot, _ = login(fake, "forumbot", "bot-pass-1234")
    fake.board.new_topic(3, 58, "Mafia 3: sign-ups (closed)", "Sign-ups are closed.", topic_id=6)
    form = html.parse(bot.get(f"{fake.url}/posting.php?mode=reply&t=6").text).select_one("form#postform")
    assert form is not None and real("locked_reply_form_before_lock").select_one("form#postform") is not None
    fake.board.topics[6].locked = True
    mine = html.parse(bot.get(f"{fake.url}/posting.php?mode=reply&t=6").text)
    assert html.info_message(mine) == html.info_message(real("locked_reply_form"))
    answer = bot.post(f"{fake.url}/posting.php?mode=reply&t=6", data=dict(html.form_fields(form)) | {"message": "in"})
    assert answer.status_code == recorded_exchange("locked_reply_post")["status"] == 200
    assert html.info_message(html.parse(answer.text)) == html.info_message(real("locked_reply_post"))
    page, recorded = html.parse(bot.get(f"{fake.url}/viewtopic.php?t=6").text), real("locked_topic_page")
    assert html.topic_page(page).locked and html.topic_page(recorded).locked
    assert page.select_one("form#qr_postform") is None and recorded.select_one("form#qr_postform") is None


def test_a_disabled_board_answers_200_unavailable_everywhere_but_the_login_form(fake):
    bot, _ = login(fake, "forumbot", "bot-pass-1234")
    form = html.parse(bot.get(f"{fake.url}/posting.php?mode=reply&t=5").text).select_one("form#postform")
    fake.board.disabled = True
    for path, name in (("viewtopic.php?t=5", "disabled_topic_page"), ("viewforum.php?f=3", "disabled_viewforum"),
                       ("ucp.php?i=pm&folder=inbox", "disabled_pm_inbox"),
                       ("posting.php?mode=reply&t=5", "disabled_reply_form")):
        answer = bot.get(f"{fake.url}/{path}")
        mine, recorded = html.parse(answer.text), real(name)
        assert answer.status_code == recorded_exchange(name)["status"] == 200, name
        assert html.info_message(mine) == html.info_message(recorded), name
        assert html.logged_in(mine) and html.logged_in(recorded), name
    before = len(fake.board.posts)
    answer = bot.post(f"{fake.url}/posting.php?mode=reply&t=5", data=dict(html.form_fields(form)) | {"message": "x"})
    assert html.info_message(html.parse(answer.text)) == html.info_message(real("disabled_reply_post"))
    assert len(fake.board.posts) == before
    guest = html.parse(requests.get(f"{fake.url}/viewtopic.php?t=5", headers=UA).text)
    assert html.info_message(guest) == html.info_message(real("disabled_anon_topic_page"))
    assert not html.logged_in(guest) and not html.logged_in(real("disabled_anon_topic_page"))
    login_form = html.parse(requests.get(f"{fake.url}/ucp.php?mode=login", headers=UA).text)
    assert login_form.select_one("form#login") is not None
    assert real("disabled_anon_login_form").select_one("form#login") is not None
    fake.board.disabled = False
    assert [p.id for p in html.topic_page(html.parse(bot.get(f"{fake.url}/viewtopic.php?t=5").text)).posts] == \
        [81, 82, 83]
