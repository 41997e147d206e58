"""The Infiltration lobby end to end on the local forum, the fake Reddit and the fake phpBB board: the bot
opens the lobby's thread, a challenge is accepted there, the bot opens the new game's thread through
`open_thread`, reads the setups by PM and a move in that thread, and posts the board there. A bot killed
between opening a thread and recording it opens no second thread after its restart."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import praw
import pytest
from fakephpbb import Board, FakePhpbb
from fakereddit import FakeReddit, RedditState, no_retry_sleep

from forumbot.config.game import GameConfig
from forumbot.engine import threads as opening
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import attach_store
from forumbot.platforms.local import LocalForum
from forumbot.platforms.phpbb import PhpbbPlatform
from forumbot.platforms.reddit import RedditPlatform
from forumbot.storage import Store

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
SETUP_A = "setup: J MT S S D D / M M T T T DT / DT DT . . . ."
SETUP_B = "setup: . . . . DT DT / DT T T T M M / D D S S MT J"
IDS = {"alice": 70, "bob": 71}


@dataclass
class Site:
    """One platform under test, with the player's side of it: post in a thread, send the bot a PM, read
    the bot's posts in a thread, count the threads the bot opened."""

    platform: Any
    post: Callable[[str, str, str, datetime], None]
    pm: Callable[[str, str, datetime], None]
    bot_posts: Callable[[str], list[str]]
    opened: Callable[[], int]


@contextmanager
def local_site(clock: VirtualClock) -> Iterator[Site]:
    forum = LocalForum(clock=lambda: clock.now)
    yield Site(forum,
               lambda thread, who, text, at: forum.add_post(thread, who, text, at=at),
               lambda who, text, at: forum.add_pm(who, forum.account, text, at=at),
               lambda thread: [p["body"] for p in forum.thread_posts(thread) if p["author"] == forum.account],
               lambda: forum.db.execute("SELECT count(*) FROM forum_threads").fetchone()[0])


@contextmanager
def reddit_site(clock: VirtualClock) -> Iterator[Site]:
    state = RedditState(clock=lambda: clock.now.timestamp())
    with FakeReddit(state) as fake:
        for name in ("forumbot", "alice", "bob"):
            state.add_user(name, "pw")
        reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        bot = RedditPlatform(reddit, clock=clock, subreddit="infiltration")

        def bot_posts(sid: str) -> list[str]:
            opener = state.submissions[sid]
            first = [opener.selftext] if opener.author == "forumbot" else []
            return first + [c.body for c in state.comments_by("forumbot", sid)]

        yield Site(bot,
                   lambda sid, who, text, at: state.add_comment(sid, who, text, at=at.timestamp()),
                   lambda who, text, at: state.add_message(who, "forumbot", "setup", text, at=at.timestamp()),
                   bot_posts,
                   lambda: sum(s.author == "forumbot" for s in state.submissions.values()))


@contextmanager
def phpbb_site(clock: VirtualClock) -> Iterator[Site]:
    board, _, _ = Board.for_game(IDS, START.timestamp(), clock=lambda: clock.now.timestamp(), form_min_age=0)
    before = set(board.topics)      # the board's own Mafia topics
    with FakePhpbb(board) as fake:
        platform = PhpbbPlatform(fake.url, "forumbot", lambda: "pw", forum=3, min_interval=0, form_wait=0,
                                 sleep=lambda _s: None, clock=clock)
        yield Site(platform,
                   lambda tid, who, text, at: board.add_post(int(tid), IDS[who], text, at=at.timestamp()),
                   lambda who, text, at: board.add_pm(IDS[who], [62], "setup", text, at=at.timestamp()),
                   lambda tid: [p.text for p in sorted(board.posts.values(), key=lambda p: p.id)
                                if p.author == 62 and p.topic == int(tid)],
                   lambda: sum(t.author == 62 for n, t in board.topics.items() if n not in before))


SITES = {"local": local_site, "reddit": reddit_site, "phpbb": phpbb_site}


def lobby_runner(store: Store, platform: Any) -> Runner:
    config = GameConfig(name="lobby", game="infiltration-lobby", lang="en", start=START, players=(), host="Host",
                        options={"game_options": {"seed": "s", "setup_hours": 1}})
    run = GameRun.build(config, dialect=platform.dialect, open_threads=True)
    attach_store(platform, store, platform.name)
    return Runner(store, platform, [run])


def steps(runner: Runner, clock: VirtualClock, *minutes: int) -> None:
    for minute in minutes:
        clock.now = START + timedelta(minutes=minute)
        result = runner.step(clock.now)
        assert not result.errors and not result.failed_games, (result.errors, result.failed_games)


def challenged(site: Site, store: Store) -> tuple[Runner, str]:
    """A lobby started on the site (the bot opens its thread), with alice's challenge and bob's accept
    posted there; returns the runner and the lobby's thread id."""
    runner = lobby_runner(store, site.platform)
    runner.start(START)
    lobby_thread = runner.runs[0].thread_ids["lobby"]
    site.post(lobby_thread, "alice", "challenge bob", START + timedelta(minutes=2))
    site.post(lobby_thread, "bob", "accept alice", START + timedelta(minutes=3))
    return runner, lobby_thread


@pytest.mark.parametrize("kind", sorted(SITES))
def test_a_challenge_accepted_in_a_lobby_plays_in_a_thread_the_bot_opened(kind, tmp_path):
    clock = VirtualClock(START)
    with SITES[kind](clock) as site:
        store = Store(tmp_path / "bot.db")
        runner, lobby_thread = challenged(site, store)            # the bot opened the lobby's thread too
        assert site.opened() == 1
        steps(runner, clock, 4)
        assert any("lobby is open" in p for p in site.bot_posts(lobby_thread))
        steps(runner, clock, 5)
        assert site.opened() == 2
        duel = next(r for r in runner.runs if r.name == "duel-1")
        game_thread = duel.thread_ids["game"]
        assert opening.recorded(store)["duel-1"] == [(site.platform.name, "game", game_thread)]
        assert any('titled "duel-1"' in p for p in site.bot_posts(lobby_thread))
        first = site.bot_posts(game_thread)
        assert "duel-1's game thread" in first[0] and "alice, bob" in first[0]
        assert any("Send me your setup" in p for p in first)
        site.pm("alice", SETUP_A, START + timedelta(minutes=6))
        site.pm("bob", SETUP_B, START + timedelta(minutes=6))
        steps(runner, clock, 7, 8)
        state = runner.state(duel)
        assert state.phase == "play"
        mover, move = ("alice", "C2 to C3") if state.turn == "alice" else ("bob", "B5 to B4")
        before = len(site.bot_posts(game_thread))
        site.post(game_thread, mover, move, START + timedelta(minutes=9))
        steps(runner, clock, 10, 11)
        after = runner.state(duel)
        assert after.turn != state.turn and after.board != state.board      # the move was read in that thread
        posted = site.bot_posts(game_thread)[before:]
        assert posted and any(move.split()[-1] in p for p in posted), posted   # and the board posted there
        assert site.opened() == 2                                          # no thread opened twice


class Killed(BaseException):
    """The bot dying at a crash point (as SIGKILL would: nothing after it runs)."""


@pytest.mark.parametrize("kind", sorted(SITES))
def test_a_bot_killed_after_opening_a_thread_finds_it_again(kind, tmp_path, monkeypatch):
    clock = VirtualClock(START)
    with SITES[kind](clock) as site:
        store = Store(tmp_path / "bot.db")
        runner, _ = challenged(site, store)
        steps(runner, clock, 4)

        def die(name: str) -> None:
            if name == "thread_opened":
                raise Killed(name)

        monkeypatch.setattr(opening, "crashpoint", die)
        clock.now = START + timedelta(minutes=5)
        with pytest.raises(Killed):
            runner.step(clock.now)                     # duel-1's thread is open; its id is not recorded
        assert site.opened() == 2 and "duel-1" not in opening.recorded(store)
        monkeypatch.undo()
        again = lobby_runner(store, site.platform)     # the restarted bot
        steps(again, clock, 6, 7)
        assert site.opened() == 2                      # found by its marker, not opened again
        duel = next(r for r in again.runs if r.name == "duel-1")
        assert any("Send me your setup" in p for p in site.bot_posts(duel.thread_ids["game"]))
        assert opening.recorded(store)["duel-1"] == [(site.platform.name, "game", duel.thread_ids["game"])]


def test_a_failed_opening_holds_the_game_back_until_a_thread_is_open(tmp_path, monkeypatch):
    from forumbot.errors import PlatformError

    clock = VirtualClock(START)
    with local_site(clock) as site:
        store = Store(tmp_path / "bot.db")
        runner, _ = challenged(site, store)
        real = site.platform.open_thread

        def down(title: str, text: str, key: str = "") -> str:
            raise PlatformError("the forum is down", retryable=True)

        monkeypatch.setattr(site.platform, "open_thread", down)
        steps(runner, clock, 4, 5)
        assert store.game("duel-1") is None and site.opened() == 1      # no game without its thread
        monkeypatch.setattr(site.platform, "open_thread", real)
        steps(runner, clock, 6)
        duel = next(r for r in runner.runs if r.name == "duel-1")
        assert store.game("duel-1") is not None and site.opened() == 2
        assert any("Send me your setup" in p for p in site.bot_posts(duel.thread_ids["game"]))
