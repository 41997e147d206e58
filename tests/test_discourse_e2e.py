"""A Mafia day and night on the fake Discourse site: bold votes in the votes topic (one in a Discourse quote,
one edited after the bot read it, one deleted after it was read), night actions by private message, the bot
polling every five minutes on one notifications request, posting vote counts, the day's end and the newspaper,
answering PMs. The game ends in the state a replay of the same first-seen posts reaches on the local forum.
Then each edit policy, a lobby's duel on a topic the bot opens, and `forumbot audit` on a topic URL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import test_lobby_platforms as lobby
from click.testing import CliRunner
from fakediscourse import DiscourseState, FakeDiscourse
from test_audit import EN

from forumbot.audit.audit import audit_posts
from forumbot.audit.source import from_url
from forumbot.cli import cli
from forumbot.config.game import load_scenario
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock, replay
from forumbot.engine.service import attach_store
from forumbot.platforms import markers
from forumbot.platforms.discourse import DiscoursePlatform
from forumbot.storage import Store

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
KEY = "test-api-key"
ROLES = {"Alice": "mafia", "Bob": "doctor", "Carol": "detective", "Dave": "townsfolk", "Erin": "townsfolk",
         "Frank": "townsfolk", "Grace": "townsfolk"}

# (minutes after the start, author, text, where: "votes", "game" or "pm")
SCRIPT: list[tuple[int, str, str, str]] = [
    (5, "Alice", "Good morning. **vote Dave**", "votes"),
    (9, "Bob", "vote: Dave", "votes"),
    (12, "Carol", '[quote="Alice, post:2, topic:11"]\n**vote Carol**\n[/quote]\nNot that. **vote Frank**\n\n'
                  "**vote Dave**", "votes"),
    (20, "Grace", "Hello town.", "game"),
    (31, "Dave", "**vote Alice**", "votes"),          # edited later to Bob: the first-seen text counts
    (44, "Erin", "**vote Grace**", "votes"),          # deleted later: its first-seen vote still counts
    (61, "Frank", "**vote Dave**", "votes"),          # the fourth vote on Dave: a majority of 7
    (125, "Alice", "kill Carol", "pm"),
    (130, "Bob", "heal Carol", "pm"),
    (140, "Carol", "check Alice", "pm"),
]
EDIT_AT, DELETE_AT = 40, 50


def write_scenario(path: Path, posts: list[tuple[datetime, str, str, str]], until: datetime) -> Path:
    text = (f'[game]\nname = "mafia"\nruleset = "classic"\nlang = "en"\nhost = "Host"\n'
            f'start = "{START:%Y-%m-%dT%H:%M:%SZ}"\nphase = "day1"\ndialect = "markdown"\n'
            '[game.options]\nday_hours = 2\nnight_hours = 2\n'
            + "".join(f'[[players]]\nname = "{n}"\nrole = "{r}"\n' for n, r in ROLES.items()))
    for at, author, body, where in posts:
        place = "pm = true\n" if where == "pm" else f'thread = "{where}"\n'
        text += f"[[posts]]\nat = \"{at:%Y-%m-%dT%H:%M:%SZ}\"\nauthor = \"{author}\"\n{place}text = '''{body}'''\n"
    text += f'[run]\nuntil = "{until:%Y-%m-%dT%H:%M:%SZ}"\n'
    path.write_text(text, encoding="utf-8")
    return path


def game_site(clock: VirtualClock) -> tuple[DiscourseState, int, int]:
    """The players' site on the virtual clock, with the host's votes and game topics: (state, votes, game)."""
    state = DiscourseState(clock=lambda: clock.now.timestamp())
    state.add_user("forumbot", admin=True, key=KEY)
    for name in ["Host", *ROLES]:
        state.add_user(name)
    games = state.add_category("Mafia games")
    at = START.timestamp()
    votes = state.add_topic("Host", "Mafia 1: Day 1 votes", "Vote here, in bold, one vote a post.",
                            category=games.id, at=at)
    game = state.add_topic("Host", "Mafia 1: the game topic", "Talk here; the bot posts the news here.",
                           category=games.id, at=at)
    return state, votes.id, game.id


def bot_on(fake: FakeDiscourse, clock: VirtualClock, **options: Any) -> DiscoursePlatform:
    return DiscoursePlatform(fake.url, "forumbot", lambda: KEY, requests_per_minute=0, sleep=lambda _s: None,
                             clock=clock, **options)


def game_run(tmp_path: Path, votes: int, game: int) -> GameRun:
    return GameRun.build(load_scenario(write_scenario(tmp_path / "g.toml", [], START)).config, dialect="markdown",
                         thread_ids={"votes": str(votes), "game": str(game)})


def test_a_mafia_day_and_night_on_discourse_equals_its_replay(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    state, votes, game = game_site(clock)
    until = START + timedelta(hours=4, minutes=5)
    with FakeDiscourse(state) as fake:
        run = game_run(tmp_path, votes, game)
        platform = bot_on(fake, clock)
        store = Store(tmp_path / "bot.db")
        attach_store(platform, store, platform.name)
        runner = Runner(store, platform, [run])
        runner.start(START)
        seen: list[tuple[datetime, str, str, str]] = []
        made: list[int] = []
        script = list(SCRIPT)
        now = START
        while now <= until:
            clock.now = now
            while script and START + timedelta(minutes=script[0][0]) <= now:
                minute, author, body, where = script.pop(0)
                at = (START + timedelta(minutes=minute)).timestamp()
                if where == "pm":
                    state.add_topic(author, "Night action", body, to=["forumbot"], at=at)
                    made.append(0)
                else:
                    made.append(state.add_post(votes if where == "votes" else game, author, body, at=at).id)
                seen.append((START + timedelta(minutes=minute), author, body, where))
            if now == START + timedelta(minutes=EDIT_AT):
                state.edit_post(made[4], "**vote Bob**")
            if now == START + timedelta(minutes=DELETE_AT):
                state.delete_post(made[5])
            if now == START + timedelta(minutes=90):
                state.fail("/notifications.json", 502, times=3)          # this poll fails; the next one reads on
            result = runner.step(now)
            if now == START + timedelta(minutes=90):
                assert result.errors and all(e.retryable for e in result.errors)
            else:
                assert not result.errors, result.errors
            now += timedelta(minutes=5)

        have = run.game.summary(runner.state(run))
        bot_posts = state.topic_posts(votes, "forumbot") + state.topic_posts(game, "forumbot")
        assert bot_posts and all(markers.keys_in(p.raw)[-1].startswith("g:") for p in bot_posts)
        kinds = {row["kind"] for row in store.outbox("g")}
        assert {"vote_count", "day_end", "night_end", "night_result", "action_ack"} <= kinds, kinds
        assert all(row["delivered"] for row in store.outbox("g"))
        paper = [r for r in store.outbox("g") if r["kind"] == "night_end"]          # the newspaper
        assert paper and state.posts[int(paper[0]["platform_id"][1:])].topic_id == game
        answered = {to for to, _ in state.pms_from("forumbot")}
        assert {"Alice", "Bob", "Carol"} <= answered              # acknowledgements and the detective's result
        counts = [p.raw for p in state.topic_posts(votes, "forumbot")]
        assert any("Dave" in text and "~~" not in text for text in counts)             # Markdown, as written

    expected = replay(load_scenario(write_scenario(tmp_path / "replay.toml", seen, until)))
    assert have["days"][0]["ended"] != "deadline"                 # four of seven on Dave: the day ended early
    assert have == expected.state


@pytest.mark.parametrize(("policy", "tally"), [("first_seen", {"Alice": 1}), ("edited", {"Bob": 1}),
                                               ("flag", {"Alice": 1})])
def test_an_edited_vote_under_each_policy_before_the_deadline(tmp_path: Path, policy: str,
                                                              tally: dict[str, int]) -> None:
    clock = VirtualClock(START)
    state, votes, _ = game_site(clock)
    with FakeDiscourse(state) as fake:
        run = game_run(tmp_path, votes, votes)
        platform = bot_on(fake, clock, edit_policy=policy)
        store = Store(tmp_path / "bot.db")
        attach_store(platform, store, platform.name)
        runner = Runner(store, platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        post = state.add_post(votes, "Dave", "**vote Alice**", at=clock.now.timestamp())
        runner.step(clock.now)
        clock.now = START + timedelta(minutes=30)
        state.edit_post(post.id, "**vote Bob**")
        assert state.posts[post.id].version == 2
        runner.step(clock.now)
        runner.step(START + timedelta(hours=2))                 # the deadline: re-read, then the day ends
        flags = [f["reason"] for f in runner.store.flags("g")]
        assert any("edited" in reason for reason in flags) == (policy != "first_seen"), flags
        day = run.game.summary(runner.state(run))["days"][0]
        assert day["tally"] == tally, day


def test_a_deleted_vote_still_counts_and_the_host_is_told_once(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    state, votes, _ = game_site(clock)
    with FakeDiscourse(state) as fake:
        run = game_run(tmp_path, votes, votes)
        platform = bot_on(fake, clock)
        store = Store(tmp_path / "bot.db")
        attach_store(platform, store, platform.name)
        runner = Runner(store, platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        withdrawn = state.add_post(votes, "Dave", "**vote Alice**", at=clock.now.timestamp())
        removed = state.add_post(votes, "Erin", "**vote Alice**", at=clock.now.timestamp())
        ghost = state.add_post(votes, "Frank", "**vote Grace**", at=clock.now.timestamp())
        state.delete_post(ghost.id)                             # gone before the bot read it: never counted
        runner.step(clock.now)
        state.delete_post(withdrawn.id)
        state.delete_post(removed.id, by_author=False)
        for minutes in (60, 110, 120):
            runner.step(START + timedelta(minutes=minutes))
        day = run.game.summary(runner.state(run))["days"][0]
        assert day["tally"] == {"Alice": 2}, day
        deleted = [f for f in runner.store.flags("g") if "deleted" in f["reason"]]
        assert sorted(f["post"] for f in deleted) == sorted([f"p{withdrawn.id}", f"p{removed.id}"])


def test_a_post_too_short_for_the_site_is_refused_with_a_flag_and_kept(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    state, votes, _ = game_site(clock)
    state.min_post_length = 5000                    # a site that wants long posts; the bot is told so
    with FakeDiscourse(state) as fake:
        run = game_run(tmp_path, votes, votes)
        platform = bot_on(fake, clock, short_posts="refuse", min_post_length=5000)
        runner = Runner(Store(tmp_path / "bot.db"), platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        state.add_post(votes, "Dave", "**vote Alice**", at=clock.now.timestamp())
        for minutes in (10, 15):
            runner.step(START + timedelta(minutes=minutes))
        assert state.topic_posts(votes, "forumbot") == []
        refused = [f for f in runner.store.flags("g") if "refused a message (\"**Day 1 — Vote count" in f["reason"]]
        assert len(refused) == 1 and "5000" in refused[0]["reason"] and refused[0]["author"] == "Host"
        waiting = [r for r in runner.store.outbox("g") if r["kind"] == "vote_count"]
        assert waiting and not waiting[0]["delivered"] and "short_posts" in waiting[0]["last_error"]


@contextmanager
def discourse_site(clock: VirtualClock) -> Iterator[lobby.Site]:
    state = DiscourseState(clock=lambda: clock.now.timestamp())
    state.add_user("forumbot", admin=True, key=KEY)
    for name in ("alice", "bob"):
        state.add_user(name)
    duels = state.add_category("Duels")
    with FakeDiscourse(state) as fake:
        platform = bot_on(fake, clock, category=duels.id)
        yield lobby.Site(platform,
                         lambda tid, who, text, at: state.add_post(int(tid), who, text, at=at.timestamp()),
                         lambda who, text, at: state.add_topic(who, "setup", text, to=["forumbot"],
                                                               at=at.timestamp()),
                         lambda tid: [p.raw for p in state.topic_posts(int(tid), "forumbot")],
                         lambda: sum(1 for t in state.topics.values() if t.archetype == "regular"
                                     and state.user_by_id(t.user_id).username == "forumbot"))


def test_a_lobby_duel_plays_in_a_topic_the_bot_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lobby.SITES, "discourse", discourse_site)
    lobby.test_a_challenge_accepted_in_a_lobby_plays_in_a_thread_the_bot_opened("discourse", tmp_path)


def test_a_bot_killed_after_opening_a_lobby_topic_finds_it_again(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lobby.SITES, "discourse", discourse_site)
    lobby.test_a_bot_killed_after_opening_a_thread_finds_it_again("discourse", tmp_path, monkeypatch)


def markdown(text: str) -> str:
    """The audit's phpBB thread as Discourse users write it (its quotes stay Discourse's [quote])."""
    text = text.replace("[s]Frank[/s] ", "")
    text = re.sub(r"\[b\](.*?)\[/b\]", r"**\1**", text, flags=re.S)
    text = re.sub(r"\[vote\](.*?)\[/vote\]", r"**vote \1**", text)
    text = re.sub(r"\[color=\w+\](.*?)\[/color\]", r"\1", text)
    return text.replace('[quote="Dave"]', '[quote="Dave, post:8, topic:11"]\n').replace("[/quote]", "\n[/quote]\n")


def test_audit_reads_a_discourse_topic_url_as_a_guest_and_from_its_cache(tmp_path: Path) -> None:
    state = DiscourseState()
    for name in ("Hostess", "Alice", "Bob", "Carol", "Dave", "Erin", "Frank"):
        state.add_user(name)
    (first, text), *rest = [(author, markdown(body)) for author, body in EN]
    topic = state.add_topic(first, "Mafia: Day 1", text, at=START.timestamp())
    for n, (author, body) in enumerate(rest, 2):
        state.add_post(topic.id, author, body, at=(START + timedelta(minutes=n)).timestamp())
    with FakeDiscourse(state) as fake:
        url = f"{fake.url}/t/{topic.slug}/{topic.id}/7"
        thread = from_url(url, cache_dir=tmp_path, min_interval=0)
        assert not any(path.startswith("/notifications") for _, path in state.requests)     # a guest: no key
        assert len(thread.posts) == len(EN)
        result = audit_posts(thread.posts, reading="bold")
        found = {c.post.author + str(i): [(d.voter, d.host, d.forumbot, d.sure) for d in c.differences]
                 for i, c in enumerate(result.checks)}
        assert found == {"Hostess0": [], "Hostess1": [("Carol", ("Bob",), None, True)],
                         "Hostess2": [("Bob", ("Alice", "Dave"), "Dave", True), ("Alice", (), "Bob", True)],
                         "Hostess3": [], "Hostess4": [("Erin", (), "Carol", False)]}
        assert result.checks[1].post.url == f"{fake.url}/t/{topic.slug}/{topic.id}/11"
        state.add_post(topic.id, "Carol", "**vote Bob**", at=(START + timedelta(minutes=30)).timestamp())
        state.requests.clear()
        again = from_url(url, cache_dir=tmp_path, min_interval=0)
        assert len(again.posts) == len(EN) + 1
        asked = [p for _, p in state.requests if "/posts.json" in p]
        assert len(asked) == 1 and asked[0].count("post_ids") == 1          # only the new post read
        command = CliRunner().invoke(cli, ["audit", url, "--mode", "bold", "--cache", str(tmp_path / "cli")])
        assert command.exit_code == 1, command.output                       # the host's counts differ
        assert "differences: 4 (3 sure, 1 unsure)" in command.output and "/t/mafia-day-1/" in command.output
