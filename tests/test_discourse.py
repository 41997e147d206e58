"""The Discourse platform against the fake site: incremental reads driven by one notifications request, private
messages acknowledged in the store, posts with markers found again, edits and deletions, rate limits, failures,
short posts, redirects, and the config that builds it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest
from fakediscourse import DiscourseState, FakeDiscourse

from forumbot.config.bot import load_bot_config
from forumbot.engine.service import make_platform
from forumbot.errors import ConfigError, PlatformError
from forumbot.platforms import markers
from forumbot.platforms.discourse import DiscoursePlatform, reading_text, topic_id

KEY = "test-api-key"


def site(**options: Any) -> tuple[DiscourseState, int, int]:
    """A site with the bot (an admin, its own key), three players, a Games category and a votes topic."""
    state = DiscourseState(**options)
    state.add_user("forumbot", admin=True, key=KEY)
    for name in ("alice", "bob", "carol"):
        state.add_user(name)
    games = state.add_category("Games")
    topic = state.add_topic("alice", "Mafia one: day one votes", "Welcome! Vote in this topic, please.",
                            category=games.id)
    return state, games.id, topic.id


def bot(fake: FakeDiscourse, **options: Any) -> DiscoursePlatform:
    slept: list[float] = []
    platform = DiscoursePlatform(fake.url, "forumbot", lambda: KEY, requests_per_minute=0, sleep=slept.append,
                                 **options)
    platform.slept = slept          # type: ignore[attr-defined]
    return platform


class Kept:
    """The store's platform state, as attach_store gives it."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def attach(self, platform: DiscoursePlatform) -> DiscoursePlatform:
        platform.use_store(self.values.get, self.values.__setitem__)
        return platform


@pytest.mark.parametrize(("text", "number"), [
    ("123", 123), ("/t/mafia-game/123", 123), ("https://forum.example/t/mafia-game/123", 123),
    ("https://forum.example/t/mafia-game/123/45", 123), ("https://forum.example/t/123", 123),
    ("https://forum.example/t/mafia-game/123?page=2", 123)])
def test_topic_ids_as_hosts_write_them(text: str, number: int) -> None:
    assert topic_id(text) == number


def test_a_topic_id_that_is_none_names_the_fix() -> None:
    with pytest.raises(ConfigError, match="games.threads"):
        topic_id("https://forum.example/c/games/5")


@pytest.mark.parametrize(("raw", "read"), [
    ("vote alice", "vote alice"),
    ('[quote="bob, post:3, topic:12"]\nvote carol\n[/quote]\nvote alice', "> vote carol\n\nvote alice"),
    ('[quote="a"]\n[quote="b"]\nvote carol\n[/quote]\nvote bob\n[/quote]\nvote alice',
     "> vote carol\n>\n> vote bob\n\nvote alice"),
    ("[details=\"Spoiler\"]\nvote bob\n[/details]\nvote alice", "> vote bob\n\nvote alice"),
    ("[quote]\nvote bob", "> vote bob"),                          # an unclosed quote runs to the end
    ("vote alice\n[/quote]", "vote alice"),                        # a stray closer is dropped
])
def test_discourses_quotes_become_markdown_quotes_so_a_quoted_vote_never_counts(raw: str, read: str) -> None:
    assert reading_text(raw) == read


def test_an_idle_poll_costs_one_request_for_topics_and_pms_together() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        platform = Kept().attach(bot(fake))
        platform.fetch_pms()
        _, cursor = platform.fetch_posts([str(topic)], None)        # the first read: the topic, watched
        assert state.topics[topic].watchers[state.user("forumbot").id] == 3
        before = len(state.requests)
        for _ in range(3):
            assert platform.fetch_pms() == []
            posts, cursor = platform.fetch_posts([str(topic)], cursor)
            assert posts == []
        assert len(state.requests) - before == 3
        assert all(path.startswith("/notifications.json") for _, path in state.requests[before:])
        state.add_post(topic, "bob", "**vote alice**")
        assert platform.fetch_pms() == []
        posts, cursor = platform.fetch_posts([str(topic)], cursor)
        assert [(p.author, p.body) for p in posts] == [("bob", "**vote alice**")]
        assert posts[0].url.endswith(f"/t/mafia-one-day-one-votes/{topic}/2")


def test_a_long_topic_is_read_twenty_posts_a_request_and_a_batch_at_a_time() -> None:
    state, _, topic = site()
    for n in range(44):
        state.add_post(topic, "bob", f"post number {n}")
    with FakeDiscourse(state) as fake:
        platform = bot(fake, batch=30)
        first, cursor = platform.fetch_posts([str(topic)], None)
        assert len(first) == 30
        rest, cursor = platform.fetch_posts([str(topic)], cursor)
        assert len(rest) == 15 and rest[-1].body == "post number 43"
        assert len({p.platform_id for p in first + rest}) == 45
        assert state.count(f"/t/{topic}/posts.json") == 3                # 20 + 10, then 15
        again, _ = platform.fetch_posts([str(topic)], cursor)
        assert again == []


def test_a_missed_notification_is_caught_up_before_a_deadline() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake)
        _, cursor = platform.fetch_posts([str(topic)], None)
        state.topics[topic].watchers.clear()                         # an admin unwatched the topic for the bot
        state.add_post(topic, "carol", "vote bob")
        posts, cursor = platform.fetch_posts([str(topic)], cursor)
        assert posts == []
        platform.before_deadline()
        posts, cursor = platform.fetch_posts([str(topic)], cursor)
        assert [p.body for p in posts] == ["vote bob"]


def test_more_notifications_than_a_page_reads_every_topic() -> None:
    state, category, topic = site()
    other = state.add_topic("carol", "Chatter about everything", "Talk here, anything goes.", category=category)
    with FakeDiscourse(state) as fake:
        platform = bot(fake)
        _, cursor = platform.fetch_posts([str(topic)], None)
        state.topics[other.id].watchers[state.user("forumbot").id] = 3
        state.topics[topic].watchers.clear()
        state.add_post(topic, "bob", "vote carol")                      # no notification for this one
        for n in range(70):
            state.add_post(other.id, "alice", f"chatter {n}")
        posts, _ = platform.fetch_posts([str(topic)], cursor)
        assert [p.body for p in posts] == ["vote carol"]


def test_pms_come_back_until_marked_read_even_across_a_restart() -> None:
    state, _, _ = site()
    kept = Kept()
    with FakeDiscourse(state) as fake:
        platform = kept.attach(bot(fake))
        state.add_topic("alice", "Night action", "kill bob tonight", to=["forumbot"])
        first = platform.fetch_pms()
        assert [(p.author, p.body, p.pm, p.thread) for p in first] == [("alice", "kill bob tonight", True, "")]
        restarted = kept.attach(bot(fake))                       # killed before its step committed
        again = restarted.fetch_pms()
        assert [p.platform_id for p in again] == [p.platform_id for p in first]
        restarted.mark_read([p.platform_id for p in again])
        assert restarted.fetch_pms() == []
        assert kept.attach(bot(fake)).fetch_pms() == []
        pm_topic = next(t for t in state.topics.values() if t.archetype == "private_message")
        state.add_post(pm_topic.id, "alice", "actually, kill carol")      # a reply in the same conversation
        reply = restarted.fetch_pms()
        assert [p.body for p in reply] == ["actually, kill carol"]


def test_a_pm_the_bot_sends_and_the_players_answer_in_it() -> None:
    state, _, _ = site()
    with FakeDiscourse(state) as fake:
        platform = Kept().attach(bot(fake))
        sent = platform.send_pm("bob", "Your role", "You are the doctor. Heal someone at night.", key="g:pm:1")
        assert sent.startswith("pm") and platform.find_sent("g:pm:1", to="bob") == sent
        assert platform.find_sent("g:pm:2", to="bob") is None
        (to, post), = state.pms_from("forumbot")
        assert to == "bob" and markers.carries(post.raw, "g:pm:1")
        assert platform.fetch_pms() == []                              # its own message is not read
        state.add_post(post.topic_id, "bob", "heal alice")
        assert [p.body for p in platform.fetch_pms()] == ["heal alice"]


def test_posts_carry_a_marker_found_after_a_crash_and_kept_across_an_edit() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake)
        made = platform.post(str(topic), "Vote count 1: alice 1 (bob)", key="g:votes:3")
        assert platform.find_sent("g:votes:3", thread=str(topic)) == made
        assert platform.find_sent("g:votes:4", thread=str(topic)) is None
        platform.edit(made, "Vote count 2: alice 2 (bob, carol)")
        post = state.posts[int(made[1:])]
        assert post.raw.startswith("Vote count 2") and markers.carries(post.raw, "g:votes:3")


def test_a_short_post_is_padded_invisibly_or_refused_never_lost() -> None:
    state, _, topic = site(min_post_length=30)
    with FakeDiscourse(state) as fake:
        platform = bot(fake)                                       # believes the default minimum, 20
        made = platform.post(str(topic), "Noted.")
        raw = state.posts[int(made[1:])].raw
        assert raw.startswith("Noted.\n\n&nbsp;") and len(raw.strip()) >= 30
        assert "&nbsp;" in raw and raw.replace("&nbsp;", "").split() == ["Noted."]
        strict = bot(fake, short_posts="refuse")
        with pytest.raises(PlatformError, match="short_posts") as refused:
            strict.post(str(topic), "Noted.")
        assert not refused.value.retryable
        assert state.count("/posts.json", "POST") == 2                 # one refused by the site, one padded


def test_a_post_longer_than_the_site_allows_goes_out_in_parts_the_marker_on_the_last() -> None:
    state, _, topic = site(max_post_length=200)
    with FakeDiscourse(state) as fake:
        platform = bot(fake, max_chars=200)
        text = "\n".join(f"line {n}: a vote count line that is long enough" for n in range(12))
        last = platform.post(str(topic), text, key="g:long")
        mine = state.topic_posts(topic, "forumbot")
        assert len(mine) > 1 and f"p{mine[-1].id}" == last
        assert [markers.carries(p.raw, "g:long") for p in mine] == [False] * (len(mine) - 1) + [True]


def test_open_thread_and_find_thread_in_the_category() -> None:
    state, category, _ = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake, category=category)
        number = platform.open_thread("Duel 1", "A duel between alice and bob starts now.", key="lobby:duel-1")
        assert state.topics[int(number)].category_id == category
        assert state.topics[int(number)].title == "Duel 1 · forumbot game"          # the site's minimum: 15
        assert platform.find_thread("lobby:duel-1", "Duel 1") == number
        assert platform.find_thread("lobby:duel-2", "Duel 1") is None
        with pytest.raises(ConfigError, match="category"):
            bot(fake).open_thread("A game", "text")


def test_recheck_finds_edits_and_both_kinds_of_deletion_and_flags_each_once() -> None:
    clock = [1_772_000_000.0]
    state, _, topic = site(clock=lambda: clock[0])
    with FakeDiscourse(state) as fake:
        platform = Kept().attach(bot(fake))
        edited = state.add_post(topic, "alice", "vote bob")
        withdrawn = state.add_post(topic, "bob", "vote carol")
        removed = state.add_post(topic, "carol", "vote alice")
        same = state.add_post(topic, "alice", "vote carol and nothing else")
        posts, _ = platform.fetch_posts([str(topic)], None)
        voting = [p for p in posts if p.author != "alice" or p.body != "Welcome! Vote in this topic, please."]
        clock[0] += 3600
        state.edit_post(edited.id, "vote carol")
        state.delete_post(withdrawn.id)
        state.delete_post(removed.id, by_author=False)
        found = platform.recheck(voting, "flag")
        assert [(p.platform_id, p.body) for p in found.edited] == [(f"p{edited.id}", "vote carol")]
        assert found.edited[0].edited is not None and found.edited[0].edited.timestamp() == clock[0]
        assert sorted(found.deleted) == sorted([f"p{withdrawn.id}", f"p{removed.id}"])
        assert len(found.flags) == 3
        assert f"p{same.id}" not in found.deleted
        again = platform.recheck(voting, "first_seen")
        assert len(again.edited) == 1 and again.flags == []               # deletions told once


def test_an_edit_is_timed_by_its_latest_revision_else_by_updated_at() -> None:
    clock = [1_772_000_000.0]
    state, _, topic = site(clock=lambda: clock[0])
    with FakeDiscourse(state) as fake:
        platform = Kept().attach(bot(fake))
        revised = state.add_post(topic, "alice", "vote bob")
        quick = state.add_post(topic, "bob", "vote carol")
        posts, _ = platform.fetch_posts([str(topic)], None)
        voting = [p for p in posts if p.platform_id in (f"p{revised.id}", f"p{quick.id}")]
        state.edit_post(quick.id, "vote alice", at=clock[0] + 60)          # within the grace period: no revision
        edited_at = clock[0] + 3600
        state.edit_post(revised.id, "vote carol", at=edited_at)
        state.posts[revised.id].updated_at = edited_at + 900                # (a rebake moves updated_at on)
        state.posts[quick.id].updated_at = clock[0] + 120
        with urlopen(f"{fake.url}/posts/{revised.id}/revisions/latest.json") as answer:
            revision = json.load(answer)
        assert revision["current_revision"] == 2 and revision["created_at"].endswith(".000Z")
        found = {p.platform_id: p for p in platform.recheck(voting, "first_seen").edited}
        assert found[f"p{revised.id}"].edited.timestamp() == edited_at
        assert found[f"p{quick.id}"].edited.timestamp() == clock[0] + 120


def test_a_429_is_waited_out_when_short_and_a_retryable_failure_when_long() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake, max_wait=15)
        state.fail("/notifications.json", 429, headers={"Retry-After": "5"})
        assert platform.fetch_pms() == []
        assert platform.slept == [5.0]                            # type: ignore[attr-defined]
        state.fail("/posts.json", 429, headers={"Retry-After": "120"}, method="POST")
        with pytest.raises(PlatformError, match="120s") as limited:
            platform.post(str(topic), "Vote count: nobody has voted yet.")
        assert limited.value.retryable
        assert state.topic_posts(topic, "forumbot") == []


def test_the_per_minute_limit_is_kept_by_pacing() -> None:
    clock = [0.0]
    state, _, _ = site(rate_limit=5)
    with FakeDiscourse(state) as fake:
        slept: list[float] = []

        def sleep(seconds: float) -> None:
            slept.append(seconds)
            clock[0] += seconds

        platform = DiscoursePlatform(fake.url, "forumbot", lambda: KEY, requests_per_minute=5, sleep=sleep)
        state.clock = lambda: clock[0]                   # the site's minute passes with the bot's sleeps
        for _ in range(3):
            platform.fetch_pms()
        assert len(slept) == 2 and all(s > 10 for s in slept)        # 60 / 5: twelve seconds apart


def test_5xx_is_retried_on_reads_and_never_resent_on_writes() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake)
        state.fail("/notifications.json", 503, times=2)
        assert platform.fetch_pms() == []
        assert state.count("/notifications.json") == 3
        state.fail("/posts.json", 502, method="POST")
        with pytest.raises(PlatformError, match="502") as failed:
            platform.post(str(topic), "Vote count: nobody has voted yet.")
        assert failed.value.retryable and state.count("/posts.json", "POST") == 1
        state.fail("/notifications.json", 500, times=5)
        with pytest.raises(PlatformError) as down:
            platform.fetch_pms()
        assert down.value.retryable


@pytest.mark.parametrize("part", ["body", "headers"])
def test_an_answer_must_come_whole_within_the_timeout(part: str) -> None:
    state, _, _ = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake, timeout=0.5, retries=1)
        # a byte every 0.1 s, from the body on or from the status line on: seconds for the whole answer
        state.fail("/notifications.json", 200, drip=0.1, headers={"drip": part})
        with pytest.raises(PlatformError, match="did not answer in 0.5s") as slow:
            platform.fetch_pms()
        assert slow.value.retryable
        assert platform.fetch_pms() == []


def test_redirects_are_followed_on_the_site_only() -> None:
    state, _, _ = site()
    with FakeDiscourse(state) as fake:
        platform = bot(fake)
        state.fail("/notifications.json", 301, headers={"Location": "/notifications.json?moved=1"})
        assert platform.fetch_pms() == []
        state.fail("/notifications.json", 302, headers={"Location": "https://elsewhere.example/notifications.json"})
        with pytest.raises(PlatformError, match="another address"):
            platform.fetch_pms()


def test_a_refused_key_is_a_final_failure_naming_the_fix() -> None:
    state, _, _ = site()
    with FakeDiscourse(state) as fake:
        platform = DiscoursePlatform(fake.url, "forumbot", lambda: "wrong", requests_per_minute=0)
        with pytest.raises(PlatformError, match="API key") as refused:
            platform.fetch_pms()
        assert not refused.value.retryable


def test_a_closed_game_topic_stops_the_reading_with_a_reason() -> None:
    state, _, topic = site()
    with FakeDiscourse(state) as fake:
        state.topics[topic].closed = True
        with pytest.raises(PlatformError, match="closed"):
            bot(fake).fetch_posts([str(topic)], None)


def test_the_bot_config_builds_it_with_the_key_from_the_environment_or_a_file(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    state, category, _ = site()
    game = tmp_path / "game.toml"
    game.write_text('[game]\nname = "mafia"\nlang = "en"\nstart = "2026-03-01T20:00:00Z"\n'
                    '[game.options]\nvotes_only = true\n'
                    '[[players]]\nname = "alice"\n[[players]]\nname = "bob"\n[[players]]\nname = "carol"\n',
                    encoding="utf-8")
    with FakeDiscourse(state) as fake:
        config = tmp_path / "bot.toml"
        config.write_text(f'[platforms.forum]\nkind = "discourse"\nurl = "{fake.url}"\naccount = "forumbot"\n'
                          f'category = {category}\napi_key_env = "TEST_DISCOURSE_KEY"\nrequests_per_minute = 0\n'
                          '[[games]]\nconfig = "game.toml"\nname = "g"\nplatform = "forum"\n'
                          '[games.threads]\nvotes = "11"\n', encoding="utf-8")
        platform_config = load_bot_config(config).platforms["forum"]
        platform = make_platform(platform_config, lambda: None)        # type: ignore[arg-type,return-value]
        assert isinstance(platform, DiscoursePlatform) and platform.dialect == "markdown"
        monkeypatch.delenv("TEST_DISCOURSE_KEY", raising=False)
        with pytest.raises(ConfigError, match="TEST_DISCOURSE_KEY"):
            platform.fetch_pms()
        monkeypatch.setenv("TEST_DISCOURSE_KEY", KEY)
        assert platform.fetch_pms() == []
        (tmp_path / "key").write_text(KEY + "\n", encoding="utf-8")
        from_file = make_platform(type(platform_config)(platform_config.name, platform_config.kind,
                                                        {**platform_config.options,
                                                         "api_key_file": str(tmp_path / "key")}),
                                  lambda: None)                       # type: ignore[arg-type,return-value]
        monkeypatch.delenv("TEST_DISCOURSE_KEY")
        assert from_file.fetch_pms() == []
        config.write_text(config.read_text(encoding="utf-8").replace(f"category = {category}\n", "") +
                          '[[lobbies]]\nplatform = "forum"\nruleset = "x"\n', encoding="utf-8")
        with pytest.raises(ConfigError, match="category"):
            load_bot_config(config)
