"""`Platform.open_thread` on the local forum and on Reddit (the fake's /api/submit); phpBB's is in
test_phpbb.py. A thread opened by the bot can be read and found again by its marker."""

from __future__ import annotations

import praw
import pytest
from fakereddit import FakeReddit, no_retry_sleep

from forumbot.errors import ConfigError, PlatformError
from forumbot.platforms.local import LocalForum
from forumbot.platforms.markers import token
from forumbot.platforms.reddit import RedditPlatform


def test_local_forum_opens_a_thread_with_a_unique_key():
    forum = LocalForum(dialect="bbcode")
    first = forum.open_thread("Duel 3 board", "[b]Day 1[/b]", key="lobby:7")
    second = forum.open_thread("Duel 3 board", "again")
    assert (first, second) == ("duel-3-board", "duel-3-board-2")
    (post,) = forum.thread_posts(first)
    assert post["author"] == "forumbot" and post["body"] == f"[b]Day 1[/b]\n[url=#{token('lobby:7')}][/url]"
    assert forum.find_sent("lobby:7", thread=first) == f"local:{post['id']}"
    forum.add_post(second, "Alice", "hi")
    forum.add_post(first, "Bob", "hello")
    posts, _ = forum.fetch_posts([first, second], None)   # the bot's own opening posts are not returned
    assert [(p.thread, p.author) for p in posts] == [(second, "Alice"), (first, "Bob")]


def test_local_forum_finds_messages_with_the_older_marker():
    forum = LocalForum(dialect="bbcode")
    forum.open_thread("Day 1", "x")
    old = forum.add_post("day-1", "forumbot", "Vote count\n[url=#fb:g:1][/url]")
    pm = forum.add_pm("forumbot", "Alice", "Role\n[url=#fb:g:role:Alice][/url]", "role")
    assert forum.find_sent("g:1", thread="day-1") == old
    assert forum.find_sent("g:role:Alice", to="Alice") == pm
    assert forum.find_thread("g:1") == "day-1" and forum.find_sent("g:2", thread="day-1") is None


def test_reddit_finds_messages_with_the_older_marker(fake):
    sid = fake.state.add_submission("mafia", "votes")
    cid = fake.state.add_comment(sid, "forumbot", "**Vote count**\n\n[](#fb:mafia-1:3)")
    opened = fake.state.add_submission("mafia", "Day 2", author="forumbot", selftext="Day 2\n\n[](#fb:m7:2)")
    bot = _reddit(fake, subreddit="mafia")
    assert bot.find_sent("mafia-1:3", thread=sid) == f"t1_{cid}"
    assert bot.find_thread("m7:2", "Day 2") == opened


@pytest.fixture
def fake():
    with FakeReddit() as server:
        server.state.add_user("forumbot", "pw")
        yield server


def _reddit(fake: FakeReddit, **kw: object) -> RedditPlatform:
    reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw", timeout=1)))
    return RedditPlatform(reddit, **kw)  # type: ignore[arg-type]


def test_reddit_opens_a_self_post_in_the_configured_subreddit(fake):
    bot = _reddit(fake, subreddit="mafia+werewolf")
    sid = bot.open_thread("Mafia 7: Day 1", "**Day 1** begins.", key="m7:1")
    submission = fake.state.submissions[sid]
    assert (submission.subreddit, submission.title, submission.author) == ("mafia", "Mafia 7: Day 1", "forumbot")
    assert submission.selftext == f"**Day 1** begins.\n\n[](#{token('m7:1')})"
    fake.state.add_comment(sid, "forumbot", "hello")
    posts, _ = bot.fetch_posts([sid], None)
    assert [p.body for p in posts] == ["hello"]


def test_reddit_open_thread_needs_a_subreddit_and_reports_refusals(fake):
    with pytest.raises(ConfigError, match="subreddit"):
        _reddit(fake).open_thread("x", "y")
    with pytest.raises(PlatformError, match="too long") as refused:
        _reddit(fake, subreddit="mafia").open_thread("x", "y" * 40001)
    assert not refused.value.retryable
