"""The bot's post on the local forum: its text less its trailing line breaks, then the invisible marker of its
key. A rendered post ends in one line break, and every marker starts with one: SQLite then joins the text and
the rest of the marker as they are, without the copy of the whole text that rtrim makes; any other
text is still trimmed. Either way the post is what `text.rstrip("\\n") + marker` gives."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.platforms.local import LocalForum
from forumbot.platforms.markers import token

TEXTS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(TEXTS, st.integers(0, 3), st.text("abc:0123456789", min_size=1, max_size=12),
       st.sampled_from(["markdown", "bbcode"]))
def test_a_marked_post_is_its_text_less_its_trailing_line_breaks_then_its_marker(text, breaks, key, dialect):
    forum = LocalForum(dialect=dialect, clock=lambda: datetime(2026, 3, 2, 20, tzinfo=UTC))
    forum.ensure_thread("g/votes")
    forum.fetch_posts(["g/votes"], None)   # (the posts written next are kept for the next fetch)
    body = text + "\n" * breaks
    want = body.rstrip("\n") + forum.marker(key)
    number = forum._number(forum.post("g/votes", body, key=key))
    player = forum._number(forum.add_post("g/votes", "alice", body, marker=forum.marker(key)))
    stored = dict(forum.db.conn.execute("SELECT id, body FROM forum_posts").fetchall())
    assert stored == {number: want, player: want}
    kept, _ = forum.fetch_posts(["g/votes"], str(number))
    assert [post.body for post in kept] == [want]   # (the Post kept as the statement put it together)


def test_a_rendered_post_is_joined_to_its_marker_without_a_trim():
    """(Fails on the code that trimmed every marked text in SQL.)"""
    forum = LocalForum()
    forum.ensure_thread("g/votes")
    statements: list[str] = []
    forum.db.conn.set_trace_callback(statements.append)
    forum.post("g/votes", "**Vote count**\n\n* Alice (1/2)\n", key="g:1")
    forum.post("g/votes", "no break at the end", key="g:2")
    forum.post("g/votes", "two breaks\n\n", key="g:3")
    inserts = [s for s in statements if s.startswith("INSERT INTO forum_posts")]
    assert ["rtrim(" in s for s in inserts] == [False, True, True]   # (the one rendered, then two that are not)
    assert [body for body, in forum.db.conn.execute("SELECT body FROM forum_posts ORDER BY id")] == [
        f"**Vote count**\n\n* Alice (1/2)\n[](#{token('g:1')})", f"no break at the end\n[](#{token('g:2')})",
        f"two breaks\n[](#{token('g:3')})"]
