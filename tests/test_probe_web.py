"""Probing the web forum as a stranger would: posts full of unclosed tags and spoiler openers, numbers in URLs
that must answer 404/400, a CSRF token with a non-ASCII character, a code fence's info string that must not
become a class, session cookies replayed after a sign-out."""

from __future__ import annotations

import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_web import GAME, assert_inert, signed_in, token

from forumbot.web.accounts import Accounts
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebSettings
from forumbot.web.forum import MAX_POST_CHARS
from forumbot.web.markup import _mark_spoilers, bbcode_html, markdown_html, to_html


def test_bbcode_with_thousands_of_distinct_unclosed_tags_renders_them_as_written():
    names = ["".join(string.ascii_lowercase[(n // 26**k) % 26] for k in range(3)) for n in range(8000)]
    text = "".join(f"[{name}]" for name in names)
    html = bbcode_html(text)
    assert html == text     # unknown tags stay as the player wrote them


def test_a_long_line_of_spoiler_openers_is_no_spoiler():
    html = markdown_html(">!" * 50_000)
    assert "spoiler" not in html


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([">", "!", "<", "a", "\n", " ", ">!", "!<"]), max_size=20).map("".join))
def test_spoilers_pair_exactly_as_the_regex_did(text):
    assert _mark_spoilers(text) == re.sub(r">!(.+?)!<", "\ue000\\1\ue001", text)


def test_a_code_fence_info_string_does_not_become_a_class():
    html = str(to_html("~~~<\nx\n~~~\n```spoiler\ny\n```", "markdown"))
    assert "class" not in html and "<pre><code>x\n</code></pre>" in html
    assert_inert(html)


def test_the_largest_posts_render_inert_in_both_dialects():
    for text in ("[b]" * (MAX_POST_CHARS // 3), "[quote=" * (MAX_POST_CHARS // 7), "*a" * (MAX_POST_CHARS // 2),
                 "[" * MAX_POST_CHARS, ">" * MAX_POST_CHARS + " x"):
        for dialect in ("markdown", "bbcode"):
            assert_inert(str(to_html(text, dialect)))


BAD_NUMBERS = ["%C2%B2", "99999999999999999999", "9" * 5000, "-1", "1e309", "%00", "%EF%BC%91"]   # ², fullwidth 1


def test_numbers_in_urls_that_are_no_post_answer_404_or_400_never_500(site):  # noqa: F811
    app, forum, _ = site
    forum.add_post("g/votes", "Alice", "hi")
    client = app.test_client()
    for raw in BAD_NUMBERS:
        assert client.get(f"/t/g/votes?quote={raw}").status_code == 200, raw      # no quote, the page itself
        assert client.get(f"/new.json?t=g/votes&after={raw}").status_code == 400, raw
        assert client.get(f"/t/g/votes?page={raw}").status_code in (200, 404), raw
    for raw in ("%C2%B2", "99999999999999999999", "9" * 5000):
        assert client.get(f"/t/g/votes?page={raw}").status_code == 404, raw
    for path in ("/p/99999999999999999999", "/p/99999999999999999999/edit", "/p/" + "9" * 5000):
        assert client.get(path).status_code == 404, path


def test_a_csrf_token_with_a_non_ascii_character_is_refused_not_a_500(site):  # noqa: F811
    app, forum, passwords = site
    client = signed_in(app, passwords, "Alice")
    response = client.post("/reply", data={"thread": "g/votes", "body": "vote Bob", "csrf": "é" + token(client)})
    assert response.status_code == 400 and "security token" in response.get_data(as_text=True)
    assert forum.thread_posts("g/votes") == []


def test_bidi_and_nul_in_a_post_are_kept_as_text_and_render_inert(site):  # noqa: F811
    app, forum, passwords = site
    client = signed_in(app, passwords, "Alice")
    body = "\u202evote Bob\x00 <b>"
    assert client.post("/reply", data={"thread": "g/votes", "body": body, "csrf": token(client)}).status_code == 302
    assert [p["body"] for p in forum.thread_posts("g/votes")] == [body]
    page = client.get("/t/g/votes").get_data(as_text=True)
    assert "\u202evote Bob" in page and "<b>" not in page


QUERY = st.lists(st.sampled_from([*"0123456789-+.e/%", "²", "١", "\x00", "\u202e", "last", "9" * 30]),
                 max_size=8).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=QUERY, quote=QUERY, after=QUERY, key=st.sampled_from(["g/votes", "../x", "g/votes/..", "%00", "a" * 300]))
def test_no_thread_url_raises(site, page, quote, after, key):  # noqa: F811
    app, _, _ = site
    client = app.test_client()
    for url in (f"/t/{key}?page={page}&quote={quote}", f"/new.json?t={key}&after={after}"):
        assert client.get(url).status_code in (200, 400, 404), url


def _copy(client, name="forumbot_session"):
    return client.get_cookie(name).value


def _with_cookie(app, value, name="forumbot_session"):
    client = app.test_client()
    client.set_cookie(name, value)
    return client


def test_a_session_cookie_copied_before_sign_out_no_longer_signs_in(site):  # noqa: F811
    app, _, passwords = site
    client = signed_in(app, passwords, "Alice")
    kept = _copy(client)
    assert _with_cookie(app, kept).get("/pm/").status_code == 200
    assert client.post("/signout", data={"csrf": token(client, "/t/g/votes")}).status_code == 302
    assert _with_cookie(app, kept).get("/pm/").status_code == 401
    assert signed_in(app, passwords, "Alice").get("/pm/").status_code == 200      # signing in again works


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(site):  # noqa: F811
    app, _, passwords = site
    other, this = signed_in(app, passwords, "Alice"), signed_in(app, passwords, "Alice")
    form = {"current": passwords["Alice"], "new": "a-new-password-1", "again": "a-new-password-1"}
    response = this.post("/account/password", data={**form, "csrf": token(this, "/account/password")})
    assert response.status_code == 200
    assert this.get("/pm/").status_code == 200 and other.get("/pm/").status_code == 401


def test_tampered_and_foreign_session_cookies_sign_nobody_in(site, tmp_path):  # noqa: F811
    app, _, passwords = site
    kept = _copy(signed_in(app, passwords, "Alice"))
    payload = kept.rpartition(".")[0]
    # a changed character within the payload (the last of the signature may carry only padding bits)
    changed = kept[:2] + ("A" if kept[2] != "A" else "B") + kept[3:]
    for value in (changed, payload + ".", "eyJ1c2VyIjoiQWxpY2UifQ.x.y", "\x00"):
        assert _with_cookie(app, value).get("/pm/").status_code == 401, value
    other_path = tmp_path / "other.db"
    other_passwords = {"Alice": Accounts(other_path).add_user("Alice")}
    other_app = create_app(WebSettings(str(other_path), WebConfig(per_page=10), games=(GAME,)))
    foreign = _copy(signed_in(other_app, other_passwords, "Alice"))
    assert _with_cookie(app, foreign).get("/pm/").status_code == 401


def test_a_host_console_cookie_copied_before_sign_out_no_longer_signs_in(tmp_path):
    from test_console import Bed, host_client
    from test_console import csrf as console_csrf

    bed = Bed(tmp_path)
    client = host_client(bed)
    kept = _copy(client)
    assert _with_cookie(bed.app, kept).get("/console/g/g").status_code == 200
    client.post("/console/signout", data={"csrf": console_csrf(client, "/console/g/g")})
    assert _with_cookie(bed.app, kept).get("/console/g/g").status_code == 401


def test_a_page_of_the_largest_posts_is_served(site):  # noqa: F811
    app, forum, _ = site
    for n in range(10):
        forum.add_post("g/votes", "Alice", "[" * (MAX_POST_CHARS - 1) + str(n))
    client = app.test_client()
    for _ in range(2):
        page = client.get("/t/g/votes")
        assert page.status_code == 200 and "[[[[9" in page.get_data(as_text=True)
