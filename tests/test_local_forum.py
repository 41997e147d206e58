"""The embedded local forum as a platform: threads, posts, edits, private messages, cursors."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START

from forumbot.errors import PlatformError
from forumbot.platforms.local import LocalForum


def test_posts_come_once_through_the_cursor():
    forum = LocalForum(clock=lambda: START + timedelta(hours=1))
    first = forum.add_post("g/votes", "Alice", "vote Bob", at=START)
    forum.add_post("other/votes", "Zed", "not ours")
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    assert [p.platform_id for p in posts] == [first] and posts[0].author == "Alice"
    assert posts[0].url == "local://g/votes#p1" and posts[0].dialect == "markdown"
    assert forum.fetch_posts(["g/votes"], cursor)[0] == []
    second = forum.add_post("g/votes", "Carol", "vote Bob", at=START + timedelta(minutes=1))
    assert [p.platform_id for p in forum.fetch_posts(["g/votes"], cursor)[0]] == [second]


def test_edits_keep_the_id_and_record_the_time():
    forum = LocalForum(clock=lambda: START)
    pid = forum.add_post("g/votes", "Alice", "vote Bob")
    forum.edit_post(pid, "vote Carol", at=START + timedelta(minutes=5))
    post = forum.fetch_posts(["g/votes"], None)[0][0]
    assert post.body == "vote Carol" and post.edited == START + timedelta(minutes=5)
    with pytest.raises(PlatformError):
        forum.edit_post("local:999", "x")
    with pytest.raises(PlatformError):
        forum.edit_post("reddit:abc", "x")


def test_private_messages_stay_unread_until_marked():
    forum = LocalForum(clock=lambda: START, account="bot")
    pm = forum.add_pm("Alice", "bot", "Блокирую Боба", subject="night 1")
    forum.add_pm("Alice", "someone-else", "hi")
    assert [p.platform_id for p in forum.fetch_pms()] == [pm]
    assert forum.fetch_pms()[0].pm and forum.fetch_pms()[0].author == "Alice"
    forum.mark_read([pm])
    assert forum.fetch_pms() == []


def test_the_bot_posts_and_sends_pms_as_its_account():
    forum = LocalForum(clock=lambda: START, account="bot")
    forum.post("g/game", "Day 1 begins")
    forum.send_pm("Alice", "result", "You blocked Bob")
    assert forum.thread_posts("g/game")[0]["author"] == "bot"
    assert forum.pms_to("Alice")[0]["body"] == "You blocked Bob"


def test_a_forum_file_survives_reopening(tmp_path):
    LocalForum(tmp_path / "f.db", clock=lambda: START).add_post("g/votes", "Alice", "vote Bob")
    again = LocalForum(tmp_path / "f.db", clock=lambda: START)
    assert len(again.thread_posts("g/votes")) == 1


def test_posts_dated_after_the_clock_wait_for_it():
    now = [START]
    forum = LocalForum(clock=lambda: now[0])
    forum.add_post("g/votes", "Alice", "early", at=START)
    forum.add_post("g/votes", "Bob", "later", at=START + timedelta(hours=1))
    forum.add_post("g/votes", "Carol", "early too", at=START)       # after a future post: read, not held
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    assert [p.author for p in posts] == ["Alice", "Carol"] and cursor == "1"   # the cursor waits for Bob
    now[0] = START + timedelta(hours=2)
    posts, cursor = forum.fetch_posts(["g/votes"], cursor)
    assert [p.author for p in posts] == ["Bob", "Carol"] and cursor == "3"
