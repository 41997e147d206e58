"""The phpBB platform against the fake board (tests/fakephpbb): signing in and keeping the session, reading
topics incrementally and what an idle poll costs, PMs acknowledged only after the step, posting through the
forms (one-second rule, new posts while replying, flood, too long, locked), markers and find_sent, edits
and deletions, faults."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

import pytest
from fakephpbb import FakePhpbb
from fakephpbb.recorded import SHARED, recorded_board

from forumbot.config.bot import PlatformConfig
from forumbot.engine.service import make_platform
from forumbot.errors import ConfigError, PlatformError
from forumbot.platforms.markers import token
from forumbot.platforms.phpbb import PhpbbPlatform, split_text, topic_id

pytestmark = pytest.mark.skipif(not SHARED.exists(), reason="the phpBB recordings are not here")


@pytest.fixture()
def fake():
    with FakePhpbb(recorded_board(form_min_age=0)) as server:
        yield server


def bot(fake: FakePhpbb, **kw: object) -> PhpbbPlatform:
    options = {"min_interval": 0, "form_wait": 0, "sleep": lambda _s: None, "forum": 3, **kw}
    return PhpbbPlatform(fake.url, "forumbot", lambda: "bot-pass-1234", **options)  # type: ignore[arg-type]


def requests_during(fake: FakePhpbb, action) -> tuple[object, list[tuple[str, str]]]:
    before = len(fake.board.requests)
    result = action()
    return result, fake.board.requests[before:]


class Kept:
    """The store's cursors for one platform, as service.attach_store gives them."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def attach(self, platform: PhpbbPlatform) -> PhpbbPlatform:
        platform.use_store(self.values.get, self.values.__setitem__)
        return platform


# ---- reading ---------------------------------------------------------------------------------------
def test_first_read_signs_in_and_reads_every_page_then_an_idle_poll_is_one_request(fake):
    platform = bot(fake)
    (posts, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], None))
    assert [p.platform_id for p in posts] == [f"p{n}" for n in range(14, 43)]
    assert [c[1].split("?")[0] for c in calls] == ["/viewtopic.php", "/ucp.php", "/ucp.php", "/viewtopic.php",
                                                   "/viewtopic.php", "/viewtopic.php"]
    first = posts[0]
    assert (first.author, first.thread, first.dialect) == ("Host", "3", "bbcode")
    assert first.created.isoformat() == "2026-11-28T09:31:14+00:00"
    assert first.url.endswith("/viewtopic.php?p=14#p14")
    assert platform.members["том хэнкс"] == 63
    assert json.loads(cursor)["topics"]["3"] == {"last": 42, "start": 20, "count": 29, "seen": list(range(14, 43))}
    (posts, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], cursor))
    assert posts == [] and calls == [("GET", "/viewforum.php?f=3")]
    fake.board.add_post(3, 65, "[vote]Dave[/vote]")
    (posts, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], cursor))
    assert [(p.author, p.body) for p in posts] == [("Alice", "[vote]Dave[/vote]")]
    assert calls == [("GET", "/viewforum.php?f=3"), ("GET", "/viewtopic.php?t=3&start=20")]


@pytest.mark.parametrize("late", ["approved", "restored"])
def test_a_post_that_appears_behind_the_cursor_is_read(fake, late):
    """A post held for approval (or soft-deleted before the bot saw it) and shown after later posts were read
    sits in its place by its time: the topic's post count in the forum list tells, and it is read."""
    platform = bot(fake)
    _, cursor = platform.fetch_posts(["3"], None)
    held = fake.board.add_post(3, 65, "[vote]Dave[/vote]", approved=late != "approved")
    if late == "restored":
        fake.board.soft_delete(held.id)
    fake.board.add_post(3, 66, "[vote]Alice[/vote]")
    posts, cursor = platform.fetch_posts(["3"], cursor)
    assert [p.body for p in posts] == ["[vote]Alice[/vote]"]
    fake.board.approve(held.id)
    fake.board.restore(held.id)
    (posts, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], cursor))
    assert [(p.platform_id, p.body, p.created.timestamp()) for p in posts] == \
        [(f"p{held.id}", "[vote]Dave[/vote]", held.time)]
    assert calls[0] == ("GET", "/viewforum.php?f=3")
    (posts, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], cursor))
    assert posts == [] and calls == [("GET", "/viewforum.php?f=3")]        # and it is read once


def test_a_new_page_and_posts_moved_up_by_deletions_are_read(fake):
    platform = bot(fake)
    _, cursor = platform.fetch_posts(["3"], None)
    for n in range(9):                                 # page 4 starts
        fake.board.add_post(3, 66, f"post {n}")
    posts, cursor = platform.fetch_posts(["3"], cursor)
    assert [p.body for p in posts] == [f"post {n}" for n in range(9)]
    assert json.loads(cursor)["topics"]["3"]["start"] == 30
    for n in (14, 15, 16, 17):                         # four posts gone: page 4's posts move to page 3
        fake.board.soft_delete(n)
    fake.board.add_post(3, 67, "[b]vote Alice[/b]")
    posts, cursor = platform.fetch_posts(["3"], cursor)
    assert [p.body for p in posts] == ["[b]vote Alice[/b]"]


def test_the_boards_posts_per_page_is_learned_from_its_links():
    with FakePhpbb(recorded_board(form_min_age=0, posts_per_page=15)) as fake:
        platform = bot(fake)
        for n in range(20):
            fake.board.add_post(3, 66, f"post {n}")            # 49 posts: pages start at 0, 15, 30, 45
        posts, cursor = platform.fetch_posts(["3"], None)
        assert len(posts) == 49
        assert json.loads(cursor)["topics"]["3"]["start"] == 45 and json.loads(cursor)["per_page"] == 15
        fake.board.add_post(3, 65, "[vote]Dave[/vote]")
        (posts, _), calls = requests_during(fake, lambda: platform.fetch_posts(["3"], cursor))
        assert [p.body for p in posts] == ["[vote]Dave[/vote]"]
        assert calls[-1] == ("GET", "/viewtopic.php?t=3&start=45")


def test_two_topics_in_one_forum_cost_one_request_when_idle_and_a_missing_topic_is_skipped(fake):
    platform = bot(fake)
    _, cursor = platform.fetch_posts(["2", "t=3", "9999"], None)
    assert json.loads(cursor)["missing"] == ["9999"]
    (_, cursor), calls = requests_during(fake, lambda: platform.fetch_posts(["2", "t=3", "9999"], cursor))
    assert calls == [("GET", "/viewforum.php?f=3")]


def test_a_topic_the_bot_may_not_read_is_reported_and_the_others_read_on(fake, caplog):
    fake.board.add_forum(9, "Hidden")
    hidden = fake.board.new_topic(9, 61, "Mafia: dead chat", "Secret.")
    fake.board.hidden_forums.add(9)
    posts, cursor = bot(fake).fetch_posts([str(hidden.id), "2"], None)
    assert [p.platform_id for p in posts] == ["p10", "p11", "p12", "p13"]
    assert "not authorised to read this forum" in caplog.text and str(hidden.id) not in json.loads(cursor)["topics"]


def test_topic_ids_from_what_hosts_write():
    assert [topic_id(t) for t in ("3", "t=3", "https://board.example/viewtopic.php?f=3&t=12&start=20")] == [3, 3, 12]
    with pytest.raises(ConfigError):
        topic_id("votes")


# ---- sessions ----------------------------------------------------------------------------------------
def test_the_session_is_kept_in_the_store_and_renewed_on_a_login_box(fake):
    kept = Kept()
    _, cursor = kept.attach(bot(fake)).fetch_posts(["3"], None)
    assert "phpbb3_fk7q2_sid" in [name for name, *_ in json.loads(kept.values["session"])]
    restarted = kept.attach(bot(fake))                 # a restart: the session comes from the store
    _, calls = requests_during(fake, lambda: restarted.fetch_posts(["3"], cursor))
    assert calls == [("GET", "/viewforum.php?f=3")]
    fake.board.expire_sessions()                       # the session ended: "remember me" signs the bot in again
    fake.board.add_post(3, 65, "still here first")
    (posts, _), calls = requests_during(fake, lambda: restarted.fetch_posts(["3"], cursor))
    assert [p.body for p in posts] == ["still here first"] and all(c[0] == "GET" for c in calls)
    fake.board.expire_sessions()
    fake.board.autologin.clear()                       # and without it: a login box, then the sign-in form
    fake.board.add_post(3, 65, "still here")
    (posts, _), calls = requests_during(fake, lambda: restarted.fetch_posts(["3"], cursor))
    assert [p.body for p in posts] == ["still here first", "still here"]
    assert [c[0] for c in calls].count("POST") == 1 and calls[1] == ("GET", "/ucp.php?mode=login")


def test_a_session_ended_between_the_form_and_its_submission_signs_in_and_sends_again(fake):
    platform = bot(fake)
    platform.fetch_posts(["3"], None)
    fake.board.fail("POST /posting.php", "login_box")       # the POST meets a login box: nothing was posted
    pid, calls = requests_during(fake, lambda: platform.post("3", "[b]Vote count[/b]", key="k:1"))
    assert [c[0] for c in calls].count("POST") == 3           # the refused reply, the sign-in, the reply again
    assert [fake.board.posts[n].text for n in fake.board.topics[3].posts if n > 42] == [
        f"[b]Vote count[/b]\n[url=#{token('k:1')}][/url]"]
    assert pid == "p43"


def test_a_wrong_password_is_a_final_error_naming_the_fix(fake):
    platform = PhpbbPlatform(fake.url, "forumbot", lambda: "nope", min_interval=0, form_wait=0, sleep=lambda _s: None)
    with pytest.raises(PlatformError, match="incorrect password.*check the password") as err:
        platform.fetch_posts(["3"], None)
    assert not err.value.retryable


def test_forms_wait_a_second_and_one_refused_as_too_fast_is_sent_again():
    with FakePhpbb(recorded_board(form_min_age=1)) as fake:
        waiting = bot(fake, form_wait=1.1, sleep=time.sleep)
        started = time.monotonic()
        assert waiting.post("3", "hello") == "p43"
        assert time.monotonic() - started >= 2.2           # the sign-in form and the reply form each waited
        hasty = bot(fake, form_wait=0, sleep=time.sleep)    # refused as too fast, sent again a second later
        hasty.http.restore(json.dumps([[c.name, c.value, c.domain, c.path] for c in waiting.http.http.cookies]))
        time.sleep(1.02 - time.time() % 1)                  # start just after a second turns: GET and POST share it
        pid, calls = requests_during(fake, lambda: hasty.post("3", "again"))
        assert pid == "p44" and [c[0] for c in calls].count("POST") == 2
        assert [p.text for p in fake.board.posts.values()][-2:] == ["hello", "again"]


# ---- posting -----------------------------------------------------------------------------------------
def test_post_carries_the_marker_and_find_sent_finds_it(fake):
    platform = bot(fake)
    pid = platform.post("3", "[b]Vote count 1.2[/b]\n", key="mafia-1:7")
    assert fake.board.posts[int(pid[1:])].text == f"[b]Vote count 1.2[/b]\n[url=#{token('mafia-1:7')}][/url]"
    restarted = bot(fake)
    assert restarted.find_sent("mafia-1:7", thread="3") == pid
    assert restarted.find_sent("mafia-1:70", thread="3") is None
    restarted.edit(pid, "[b]Vote count 1.3[/b]")
    assert fake.board.posts[int(pid[1:])].text == f"[b]Vote count 1.3[/b]\n[url=#{token('mafia-1:7')}][/url]"


def test_new_posts_while_replying_are_resubmitted(fake):
    platform = bot(fake)
    platform.fetch_posts(["3"], None)
    original = platform.http.submit

    def racing(page, form_id, values, **kw):           # Alice posts between the form and its submission
        if "topic_cur_post_id" in str(page.soup) and not fake.board.posts.get(43):
            fake.board.add_post(3, 65, "Wait, don't lynch me! [vote]Dave[/vote]")
        return original(page, form_id, values, **kw)
    platform.http.submit = racing
    (pid, calls) = requests_during(fake, lambda: platform.post("3", "Reminder"))
    assert pid == "p44" and [c[0] for c in calls].count("POST") == 2
    assert fake.board.topics[3].posts[-2:] == [43, 44]


def test_refusals_map_to_retryable_or_final_errors(fake):
    platform = bot(fake)
    fake.board.flood_interval = 15
    platform.post("3", "first")
    with pytest.raises(PlatformError, match="flood limit") as flood:
        platform.post("3", "second")
    assert flood.value.retryable
    fake.board.flood_interval = 0
    fake.board.topics[2].locked = True
    with pytest.raises(PlatformError, match="locked") as locked:
        platform.post("2", "hello")
    assert not locked.value.retryable
    with pytest.raises(PlatformError, match="does not exist") as missing:
        platform.post("9999", "hello")
    assert not missing.value.retryable
    with pytest.raises(PlatformError, match="too few characters"):
        platform.post("3", "   ")


def test_a_message_too_long_for_the_board_is_split_in_order(fake):
    fake.board.max_post_chars = 200
    platform = bot(fake)
    text = "\n".join(f"line {n:03d} " + "x" * 40 for n in range(12))
    pid = platform.post("3", text, key="g:9")
    parts = [fake.board.posts[n].text for n in fake.board.topics[3].posts if n > 42]
    assert len(parts) > 3 and all(len(p) <= 200 for p in parts)
    joined = "\n".join(parts)
    assert joined.replace(f"\n[url=#{token('g:9')}][/url]", "") == text
    assert fake.board.posts[int(pid[1:])].text.endswith(f"[url=#{token('g:9')}][/url]")   # on the last part
    assert platform.max_chars == 200
    assert split_text("a\nb\nc", 2) == ["a", "b", "c"] and split_text("abcdef", 4) == ["abcd", "ef"]


def test_open_thread_makes_a_topic_in_the_configured_forum(fake):
    platform = bot(fake)
    topic = platform.open_thread("Night 1", "[b]Night 1 has begun.[/b]", key="m:1")
    assert fake.board.topics[int(topic)].title == "Night 1" and fake.board.topics[int(topic)].forum == 3
    assert platform.find_sent("m:1", thread=topic) is not None
    with pytest.raises(ConfigError, match="forum"):
        bot(fake, forum=None).open_thread("x", "y")


# ---- private messages --------------------------------------------------------------------------------
def test_pms_come_back_until_acknowledged_and_an_idle_inbox_costs_nothing(fake):
    kept = Kept()
    board = fake.board
    board.add_pm(65, [62], "Old", "read long ago").unread.clear()
    platform = kept.attach(bot(fake))
    board.add_pm(65, [62], "Action", "Protect: Dave")
    board.add_pm(63, [62, 61], "Ночь", "Проверяю [b]Мэрил Стрип[/b]")
    platform.fetch_posts(["3"], None)
    pms = platform.fetch_pms()
    assert [(p.platform_id, p.author, p.body, p.pm) for p in pms] == [
        ("pm2", "Alice", "Protect: Dave", True), ("pm3", "Том Хэнкс", "Проверяю [b]Мэрил Стрип[/b]", True)]
    assert not board.pms[2].unread                     # viewing read it on the board...
    assert [p.platform_id for p in platform.fetch_pms()] == ["pm2", "pm3"]   # ...but the bot still owes it
    restarted = kept.attach(bot(fake))                 # a crash before the step committed: read again
    assert [p.platform_id for p in restarted.fetch_pms()] == ["pm2", "pm3"]
    restarted.mark_read(["pm2", "pm3"])
    assert restarted.fetch_pms() == []
    again = kept.attach(bot(fake))
    assert again.fetch_pms() == []
    _, calls = requests_during(fake, again.fetch_pms)          # no page read since: the header is unknown
    assert calls == [("GET", "/ucp.php?i=pm&folder=inbox")]
    _, cursor = again.fetch_posts(["3"], None)
    _, calls = requests_during(fake, lambda: (again.fetch_posts(["3"], cursor), again.fetch_pms()))
    assert calls == [("GET", "/viewforum.php?f=3")]        # the header's badge says the inbox is empty


def test_pm_dates_are_read_in_the_accounts_timezone(fake):
    fake.board.add_pm(65, [62], "Action", "Protect: Dave", at=datetime(2026, 3, 1, 21, 5, 40).timestamp())
    utc = bot(fake).fetch_pms()
    fake.board.pms[1].unread.add(62)
    moscow = bot(fake, timezone="Europe/Moscow")            # the page shows the same text, read as Moscow time
    shown = moscow.fetch_pms()
    assert shown[0].created == utc[0].created - timedelta(hours=3)
    with pytest.raises(ConfigError, match="timezone"):
        bot(fake, timezone="Mars/Olympus")


def test_find_sent_steps_back_by_the_boards_page_size(fake):
    """29 posts and the bot's on page 3; 5 more make 34: the last page holds 4, the one before starts at 20."""
    post = fake.board.add_post(3, 62, f"Vote count\n[url=#{token('g:5')}][/url]")
    for n in range(4):
        fake.board.add_post(3, 65, f"later {n}")
    assert bot(fake).find_sent("g:5", thread="3") == f"p{post.id}"
    assert ("GET", "/viewtopic.php?t=3&start=20") in fake.board.requests


def test_messages_with_the_older_marker_are_found_as_phpbb_stores_them(fake):
    """A post, a PM and a topic sent with `[url=#fb:KEY][/url]` (phpBB stores `#fb:mafia-1%3A20`) are found."""
    post = fake.board.add_post(3, 62, "Vote count 1.1\n[url=#fb:mafia-1:20][/url]\n[url=#fb:mafia-1:thread:game][/url]")
    pm = fake.board.add_pm(62, [65], "Role", "You are a Townie.\n[url=#fb:mafia-1:role:Alice][/url]")
    topic = fake.board.new_topic(3, 62, "Night 1", "Night falls.\n[url=#fb:mafia-1:thread:night][/url]")
    platform = bot(fake)
    assert platform.find_sent("mafia-1:20", thread="3") == f"p{post.id}"
    assert platform.find_sent("mafia-1:thread:game", thread="3") == f"p{post.id}"
    assert platform.find_sent("mafia-1:role:Alice", to="Alice") == f"pm{pm.id}"
    assert platform.find_thread("mafia-1:thread:night", "Night 1") == str(topic.id)
    assert platform.find_sent("mafia-1:2", thread="3") is None


def test_send_pm_by_name_and_find_it(fake):
    platform = bot(fake)
    pid = platform.send_pm("Мэрил Стрип", "Role", "You are the [b]Doctor[/b].", key="m:2")
    pm = fake.board.pms[int(pid[2:])]
    assert pm.to == [64] and pm.subject == "Role" and pm.text.endswith(f"[url=#{token('m:2')}][/url]")
    assert platform.find_sent("m:2", to="Мэрил Стрип") == pid
    assert platform.find_sent("m:3", to="Мэрил Стрип") is None
    _, calls = requests_during(fake, lambda: platform.send_pm("Мэрил Стрип", "", "again"))
    assert not any("viewprofile" in c[1] for c in calls)        # the member's id is cached
    with pytest.raises(PlatformError, match="no member named 'Nobody'"):
        platform.send_pm("Nobody", "", "hello")
    fake.board.add_user(90, "Q&A #1")                          # a name that must be quoted in a URL
    assert fake.board.pms[int(platform.send_pm("Q&A #1", "", "hi")[2:])].to == [90]


# ---- edits, deletions, faults ------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["first_seen", "edited", "flag"])
def test_recheck_reports_edits_and_deletions(fake, policy):
    platform = bot(fake)
    posts, _ = platform.fetch_posts(["3"], None)
    fake.board.edit_post(18, "[vote]Dave[/vote]")
    fake.board.soft_delete(27)
    fake.board.hard_delete(38)
    stored = [p for p in posts if p.platform_id in ("p18", "p19", "p27", "p38")]
    found = platform.recheck(stored, policy)
    assert [(p.platform_id, p.body) for p in found.edited] == [("p18", "[vote]Dave[/vote]")]
    assert found.edited[0].edited is not None
    assert sorted(found.deleted) == ["p27", "p38"]
    assert len(found.flags) == 2 + (policy == "flag")


def test_a_deleted_post_is_flagged_once_across_deadlines_and_restarts(fake):
    kept = Kept()
    platform = kept.attach(bot(fake))
    posts, _ = platform.fetch_posts(["3"], None)
    stored = [p for p in posts if p.platform_id in ("p18", "p27")]
    fake.board.soft_delete(27)
    first = platform.recheck(stored)
    assert first.deleted == ["p27"] and [f.post_id for f in first.flags] == ["p27"]
    again = kept.attach(bot(fake)).recheck(stored)            # the next deadline, after a restart
    assert again.deleted == ["p27"] and again.flags == []


@pytest.mark.parametrize("kind", ["500", "truncated", "timeout", "redirect"])
def test_a_passing_fault_is_retried_with_backoff(fake, kind):
    platform = bot(fake, timeout=1)
    _, cursor = platform.fetch_posts(["3"], None)
    fake.board.add_post(3, 65, "after the fault")
    fake.board.fail("viewforum", kind)
    posts, _ = platform.fetch_posts(["3"], cursor)
    assert [p.body for p in posts] == ["after the fault"]


@pytest.mark.parametrize("status,retryable", [("429", True), ("403", False)])
def test_a_proxy_refusal_says_what_it_means(fake, status, retryable):
    platform = bot(fake)
    fake.board.fail("viewtopic", status, times=5)
    with pytest.raises(PlatformError, match=status) as err:
        platform.fetch_posts(["3"], None)
    assert err.value.retryable is retryable


def test_a_lasting_fault_is_a_retryable_error(fake):
    platform = bot(fake)
    fake.board.fail("viewtopic", "500", times=5)
    with pytest.raises(PlatformError, match="500") as err:
        platform.fetch_posts(["3"], None)
    assert err.value.retryable


def test_make_platform_builds_phpbb_without_the_password_in_the_config(fake, tmp_path, monkeypatch):
    options = {"url": fake.url, "account": "forumbot", "min_interval": 0, "form_wait": 0,
               "password_env": "TEST_PHPBB_PW"}
    monkeypatch.delenv("TEST_PHPBB_PW", raising=False)
    platform = make_platform(PlatformConfig("board", "phpbb", options), clock=datetime.now)
    assert (platform.dialect, platform.name) == ("bbcode", "board")
    with pytest.raises(ConfigError, match="TEST_PHPBB_PW"):
        platform.fetch_posts(["3"], None)
    monkeypatch.setenv("TEST_PHPBB_PW", "bot-pass-1234")
    assert len(platform.fetch_posts(["3"], None)[0]) == 29
    secret = tmp_path / "pw"
    secret.write_text("bot-pass-1234\n")
    from_file = make_platform(PlatformConfig("board", "phpbb", {**options, "password_file": str(secret)}),
                              clock=datetime.now)
    assert len(from_file.fetch_posts(["3"], None)[0]) == 29
    with pytest.raises(ConfigError, match="needs url and account"):
        make_platform(PlatformConfig("board", "phpbb", {"url": fake.url}), clock=datetime.now)


def test_the_open_thread_command_prints_the_new_topics_id(fake, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from forumbot.cli import cli

    (tmp_path / "game.toml").write_text('[game]\nname = "mafia"\nstart = "2026-03-01T20:00:00Z"\n'
                                        '[game.options]\nvotes_only = true\n'
                                        '[[players]]\nname = "Alice"\n[[players]]\nname = "Bob"\n'
                                        '[[players]]\nname = "Carol"\n', encoding="utf-8")
    (tmp_path / "bot.toml").write_text(
        f'[bot]\nstore = "bot.db"\n[platforms.board]\nkind = "phpbb"\nurl = "{fake.url}"\naccount = "forumbot"\n'
        'forum = 3\nmin_interval = 0\nform_wait = 0\npassword_env = "TEST_PHPBB_PW"\n'
        '[[games]]\nconfig = "game.toml"\nplatform = "board"\n', encoding="utf-8")
    monkeypatch.setenv("TEST_PHPBB_PW", "bot-pass-1234")
    done = CliRunner().invoke(cli, ["open-thread", "--config", str(tmp_path / "bot.toml"), "--title", "Day 2"],
                              input="[b]Day 2[/b] begins.\n")
    assert done.exit_code == 0, done.output
    topic = fake.board.topics[int(done.output.strip())]
    assert topic.title == "Day 2" and fake.board.posts[topic.posts[0]].text == "[b]Day 2[/b] begins."
    monkeypatch.setenv("TEST_PHPBB_PW", "wrong")
    (tmp_path / "bot.db").unlink()                            # no kept session: it must sign in, and fails
    failed = CliRunner().invoke(cli, ["open-thread", "--config", str(tmp_path / "bot.toml"), "--title", "x"],
                                input="y")
    assert failed.exit_code == 2 and "incorrect password" in failed.output
