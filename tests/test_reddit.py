"""The Reddit platform (praw) against the local Reddit API server in tests/fakereddit: polling and its
request counts, PMs, posting and markers, edits and deletions, faults, and the registration."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import praw
import pytest
from fakereddit import FakeReddit, RedditState, no_retry_sleep

from forumbot.config.bot import load_bot_config
from forumbot.engine.service import make_platform
from forumbot.errors import ConfigError, PlatformError
from forumbot.platforms.markers import token
from forumbot.platforms.reddit import RedditPlatform, submission_id


@pytest.fixture
def fake() -> Iterator[FakeReddit]:
    with FakeReddit() as server:
        server.state.add_user("forumbot", "pw")
        for name in ("alice", "bob", "carol"):
            server.state.add_user(name)
        yield server


def platform(fake: FakeReddit, **kw: object) -> RedditPlatform:
    reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw", timeout=1)))
    return RedditPlatform(reddit, **kw)  # type: ignore[arg-type]


def ids(posts: list) -> list[str]:
    return [p.platform_id for p in posts]


# ---- reading threads ------------------------------------------------------------------------------
def test_first_sync_walks_the_whole_tree_then_an_idle_poll_is_one_request(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "Day 1 votes")
    roots = [s.add_comment(votes, f"p{i}", f"vote p{i + 1}") for i in range(620)]   # > 500: `more` objects
    chain = roots[3]
    for depth in range(13):                                                          # > 10 deep: continue
        chain = s.add_comment(f"t1_{chain}", "alice", f"reply {depth}")
    s.delete_comment(roots[5])                                                       # gone before we looked
    bot = platform(fake)
    posts, cursor = bot.fetch_posts([votes], None)
    assert len(posts) == 620 - 1 + 13
    assert f"t1_{roots[5]}" not in ids(posts)
    assert s.count("/api/morechildren") >= 1 and s.count(f"/comments/{votes}/") == 1   # continue this thread
    nested = next(p for p in posts if p.body == "reply 12")
    assert nested.thread == votes and nested.author == "alice" and nested.dialect == "markdown"
    before = s.count()
    again, cursor = bot.fetch_posts([votes], cursor)
    assert again == [] and s.count() - before == 1
    assert s.requests[-1].path == "/r/mafia/comments"


def test_new_comments_come_from_the_listing_filtered_by_submission(fake: FakeReddit) -> None:
    s = fake.state
    votes, game, other = (s.add_submission("mafia", t) for t in ("votes", "game", "someone else's"))
    first = s.add_comment(votes, "alice", "vote bob")
    bot = platform(fake)
    _, cursor = bot.fetch_posts([votes, f"https://www.reddit.com/r/mafia/comments/{game}/day_1/"], None)
    reply = s.add_comment(f"t1_{first}", "bob", "vote alice")           # a nested reply
    s.add_comment(other, "carol", "noise")
    talk = s.add_comment(game, "carol", "hello")
    before = s.count()
    posts, cursor = bot.fetch_posts([votes, f"https://www.reddit.com/r/mafia/comments/{game}/day_1/"], cursor)
    assert ids(posts) == [f"t1_{reply}", f"t1_{talk}"]
    assert posts[1].thread == f"https://www.reddit.com/r/mafia/comments/{game}/day_1/"
    assert s.count() - before == 1
    # a restart with the stored cursor neither refetches nor misses
    late = s.add_comment(votes, "carol", "vote bob")
    posts, _ = platform(fake).fetch_posts([votes, game], cursor)
    assert ids(posts) == [f"t1_{late}"]


def test_an_idle_poll_for_50_games_in_one_subreddit_is_one_request(fake: FakeReddit) -> None:
    s = fake.state
    threads = [s.add_submission("mafia", f"game {i}") for i in range(50)]
    for i, sid in enumerate(threads):
        s.add_comment(sid, "alice", f"vote {i}")
    bot = platform(fake)
    _, cursor = bot.fetch_posts(threads, None)
    before = s.count()
    posts, cursor = bot.fetch_posts(threads, cursor)
    assert posts == [] and s.count() - before == 1
    s.add_comment(threads[17], "bob", "vote alice")
    posts, cursor = bot.fetch_posts(threads, cursor)
    assert [p.thread for p in posts] == [threads[17]] and s.count() - before == 2


def test_a_gap_longer_than_the_listing_walks_the_tree_again(fake: FakeReddit) -> None:
    s = fake.state
    votes, busy = s.add_submission("mafia", "votes"), s.add_submission("mafia", "busy")
    s.add_comment(votes, "alice", "vote bob")
    bot = platform(fake)
    _, cursor = bot.fetch_posts([votes], None)
    hidden = s.add_comment(votes, "bob", "vote carol")
    for i in range(1050):                                  # pushes it beyond the listing's 1,000
        s.add_comment(busy, "spam", f"{i}")
    posts, cursor = bot.fetch_posts([votes], cursor)
    assert f"t1_{hidden}" in ids(posts)
    before = s.count()
    assert bot.fetch_posts([votes], cursor)[0] == [] and s.count() - before == 1


def test_a_deleted_cursor_comment_loses_nothing(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    newest = s.add_comment(votes, "alice", "vote bob")
    bot = platform(fake)
    _, cursor = bot.fetch_posts([votes], None)
    s.delete_comment(newest)
    later = s.add_comment(votes, "bob", "vote alice")
    posts, _ = bot.fetch_posts([votes], cursor)
    assert ids(posts) == [f"t1_{later}"]


def test_a_missing_submission_is_reported_once_and_the_others_still_read(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    s.add_comment(votes, "alice", "vote bob")
    bot = platform(fake)
    posts, cursor = bot.fetch_posts([votes, "zzzzzz"], None)
    assert len(posts) == 1 and "zzzzzz" in (cursor or "")
    before = s.count()
    bot.fetch_posts([votes, "zzzzzz"], cursor)
    assert s.count() - before == 1


def test_submission_ids_from_what_hosts_write() -> None:
    assert submission_id("1abcde") == submission_id("t3_1abcde") == "1abcde"
    assert submission_id("https://www.reddit.com/r/mafia/comments/1abcde/day_one/") == "1abcde"
    with pytest.raises(ConfigError):
        submission_id("mafia-1/votes")


# ---- private messages -----------------------------------------------------------------------------
def test_pms_stay_unread_until_mark_read(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    bot = platform(fake)
    mine = bot.post(votes, "vote count")
    s.add_comment(mine, "alice", "a reply to the bot: a notification, not a PM")
    s.add_message("alice", "forumbot", "night 1", "kill bob")
    s.add_message("bob", "forumbot", "night 1", "heal bob")
    pms = bot.fetch_pms()
    assert [(p.author, p.body, p.pm) for p in pms] == [("alice", "kill bob", True), ("bob", "heal bob", True)]
    assert ids(bot.fetch_pms()) == ids(pms)                 # not read yet: they come back
    bot.mark_read(ids(pms))
    assert bot.fetch_pms() == []
    assert all(not m.new for m in s.messages_to("forumbot"))


def test_inbox_every_reads_the_inbox_every_nth_poll(fake: FakeReddit) -> None:
    bot = platform(fake, inbox_every=3)
    fake.state.add_message("alice", "forumbot", "n", "kill bob")
    assert [len(bot.fetch_pms()) for _ in range(4)] == [1, 0, 0, 1]
    assert fake.state.count("/message/unread") == 2


# ---- writing --------------------------------------------------------------------------------------
def test_post_edit_and_find_sent_keep_the_invisible_marker(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    bot = platform(fake)
    cid = bot.post(votes, "**Vote count 1**\n", key="mafia-1:3")
    assert s.comments[cid[3:]].body == f"**Vote count 1**\n\n[](#{token('mafia-1:3')})"
    assert bot.find_sent("mafia-1:3", thread=votes) == cid
    assert bot.find_sent("mafia-1:4", thread=votes) is None
    platform(fake).edit(cid, "**Vote count 2**")           # a restarted bot: the marker is read back
    assert s.comments[cid[3:]].body == f"**Vote count 2**\n\n[](#{token('mafia-1:3')})"
    assert s.comments[cid[3:]].edited


def test_send_pm_and_find_it(fake: FakeReddit) -> None:
    bot = platform(fake)
    bot.send_pm("alice", "", "You are the doctor.", key="mafia-1:1")
    (message,) = fake.state.messages_to("alice")
    assert message.subject == "forumbot" and message.body.endswith(f"[](#{token('mafia-1:1')})")
    assert bot.find_sent("mafia-1:1", to="alice") is not None
    assert bot.find_sent("mafia-1:1", to="bob") is None


def test_refusals_are_not_retryable(fake: FakeReddit) -> None:
    votes = fake.state.add_submission("mafia", "votes")
    bot = platform(fake)
    with pytest.raises(PlatformError) as err:
        bot.post(votes, "x" * 10_001)
    assert not err.value.retryable and "TOO_LONG" in str(err.value)
    with pytest.raises(PlatformError) as err:
        bot.send_pm("nobody", "s", "hi")
    assert not err.value.retryable and "USER_DOESNT_EXIST" in str(err.value)
    with pytest.raises(PlatformError) as err:
        platform_for_wrong_password = RedditPlatform(praw.Reddit(**fake.praw_settings("forumbot", "wrong")))
        platform_for_wrong_password.fetch_pms()
    assert not err.value.retryable and "credentials" in str(err.value)


# ---- edits and deletions --------------------------------------------------------------------------
def test_recheck_batches_info_and_applies_the_edit_policy(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    made = [s.add_comment(votes, f"p{i}", f"vote p{i + 1}") for i in range(250)]
    bot = platform(fake)
    posts, _ = bot.fetch_posts([votes], None)
    s.edit_comment(made[0], "vote p9")
    s.delete_comment(made[1])
    s.remove_comment(made[2])
    before = s.count("/api/info")
    found = bot.recheck(posts, "flag")
    assert s.count("/api/info") - before == 3                   # 250 ids: 100 + 100 + 50
    assert [p.body for p in found.edited] == ["vote p9"] and found.edited[0].edited is not None
    assert found.deleted == [f"t1_{made[1]}", f"t1_{made[2]}"]
    reasons = [f.reason for f in found.flags]
    assert any("edited" in r for r in reasons) and any("deleted" in r for r in reasons)
    assert any("removed" in r for r in reasons)
    quiet = bot.recheck(posts, "first_seen")
    assert len(quiet.edited) == 1 and not any("edited" in f.reason for f in quiet.flags)
    with pytest.raises(ConfigError):
        bot.recheck(posts, "newest")


# ---- faults ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["status", "truncate", "timeout"])
def test_a_passing_fault_is_retried_by_prawcore(fake: FakeReddit, kind: str) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    s.add_comment(votes, "alice", "vote bob")
    bot = platform(fake)
    _, cursor = bot.fetch_posts([votes], None)
    late = s.add_comment(votes, "bob", "vote alice")
    s.inject(kind, "/r/mafia/comments", status=500, delay=1.3)
    posts, _ = bot.fetch_posts([votes], cursor)
    assert ids(posts) == [f"t1_{late}"]


@pytest.mark.parametrize(("kind", "status"), [("status", 429), ("status", 500), ("status", 503),
                                              ("badjson", 200), ("truncate", 200)])
def test_lasting_faults_are_retryable_errors(fake: FakeReddit, kind: str, status: int) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    bot = platform(fake)
    _, cursor = bot.fetch_posts([votes], None)
    s.inject(kind, "/r/mafia/comments", status=status, times=3, headers={"retry-after": "7"})
    with pytest.raises(PlatformError) as err:
        bot.fetch_posts([votes], cursor)
    assert err.value.retryable
    s.faults.clear()
    s.add_comment(votes, "alice", "vote bob")
    assert len(bot.fetch_posts([votes], cursor)[0]) == 1


def test_an_exhausted_rate_limit_postpones_the_poll_without_a_request(fake: FakeReddit) -> None:
    s = fake.state
    votes = s.add_submission("mafia", "votes")
    bot = platform(fake)
    bot.fetch_posts([votes], None)
    s.forced_ratelimit = (0, 1000, 300)
    bot.fetch_pms()                                           # this answer says: nothing left for 300 s
    before = s.count()
    with pytest.raises(PlatformError) as err:
        bot.fetch_pms()
    assert err.value.retryable and "rate limit" in str(err.value) and s.count() == before


# ---- registration ---------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:The praw.ini in the current working directory")
def test_bot_config_and_make_platform_read_praw_ini(fake: FakeReddit, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    settings = fake.praw_settings("forumbot", "pw")
    (tmp_path / "praw.ini").write_text("[mafiabot]\n" + "".join(f"{k}={v}\n" for k, v in settings.items()),
                                       encoding="utf-8")
    votes = fake.state.add_submission("mafia", "votes")
    (tmp_path / "game.toml").write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-03-01T20:00:00Z"\n'
                                        '[game.options]\nvotes_only = true\n'
                                        + "".join(f'[[players]]\nname = "{n}"\n' for n in ("alice", "bob", "carol")),
                                        encoding="utf-8")
    (tmp_path / "bot.toml").write_text('[platforms.reddit]\nkind = "reddit"\nsite = "mafiabot"\n'
                                       'subreddit = "mafia"\nedit_policy = "flag"\n'
                                       f'[[games]]\nconfig = "game.toml"\n[games.threads]\nvotes = "{votes}"\n',
                                       encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(praw.config.Config, "CONFIG", None)      # praw reads praw.ini once per process
    config = load_bot_config(tmp_path / "bot.toml")
    bot = make_platform(config.platforms["reddit"], lambda: None)  # type: ignore[arg-type,return-value]
    assert isinstance(bot, RedditPlatform)
    assert (bot.name, bot.account, bot.dialect, bot.edit_policy) == ("reddit", "forumbot", "markdown", "flag")
    assert bot.fetch_posts([config.games[0].threads["votes"]], None)[0] == []


def test_missing_credentials_are_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(praw.config.Config, "CONFIG", None)
    for key in ("praw_client_id", "praw_client_secret", "praw_username", "praw_password"):
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(ConfigError) as err:
        RedditPlatform(site=None, user_agent="x")
    assert "praw.ini" in str(err.value)


def test_the_state_speaks_reddits_formats() -> None:
    s = RedditState()
    sid = s.add_submission("mafia", "votes")
    cid = s.add_comment(sid, "alice", "vote bob")
    s.delete_comment(cid)
    thing = s.info([f"t1_{cid}"])["data"]["children"][0]
    assert thing["kind"] == "t1" and thing["data"]["author"] == "[deleted]" and thing["data"]["body"] == "[deleted]"
    page = s.submission_page(sid, None, "old")
    assert [listing["kind"] for listing in page] == ["Listing", "Listing"]
    assert page[0]["data"]["children"][0]["kind"] == "t3"
