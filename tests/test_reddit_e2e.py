"""A Mafia day on the local Reddit server: players vote in nested replies, one edits a vote after the bot
read it, one deletes a vote after the bot read it, one deletes before; the bot polls every minute, posts its
vote counts and the end-of-day result, and ends in the state a replay of the same (first-seen) posts
reaches on the local forum."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import praw
from fakereddit import FakeReddit, RedditState, no_retry_sleep

from forumbot.config.game import load_scenario
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock, replay
from forumbot.platforms.reddit import RedditPlatform
from forumbot.storage import Store

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]

# (minutes after the start, author, text, where: "votes", "game", or the index of the post replied to)
SCRIPT: list[tuple[int, str, str, str | int]] = [
    (5, "alice", "##vote bob", "votes"),
    (9, "bob", "Rude. vote alice", 0),                 # a reply
    (12, "carol", "##vote bob\n\n> vote alice", 1),    # a reply to the reply; the quote never counts
    (20, "grace", "Good morning, town.", "game"),
    (31, "dave", "vote bob", "votes"),                 # edited later to "vote alice": first seen counts
    (44, "erin", "vote carol", 2),                     # deleted later: first seen counts
    (52, "grace", "vote erin", "votes"),
    (61, "alice", "unvote", 3),
    (75, "alice", "vote erin", "votes"),
]
EDIT_AT, DELETE_AT = 100, 110
GHOST = (120, "frank", "vote grace")                  # posted and deleted between two polls: never read


def write_scenario(path: Path, posts: list[tuple[datetime, str, str, str]], until: datetime) -> Path:
    text = (f'[game]\nname = "mafia"\nlang = "en"\nstart = "{START:%Y-%m-%dT%H:%M:%SZ}"\n'
            '[game.options]\nday_hours = 4\n' + "".join(f'[[players]]\nname = "{n}"\n' for n in PLAYERS))
    for at, author, body, thread in posts:
        text += (f'[[posts]]\nat = "{at:%Y-%m-%dT%H:%M:%SZ}"\nauthor = "{author}"\nthread = "{thread}"\n'
                 f'text = """{body}"""\n')
    text += f'[run]\nuntil = "{until:%Y-%m-%dT%H:%M:%SZ}"\n'
    path.write_text(text, encoding="utf-8")
    return path


def test_a_mafia_day_on_reddit_equals_its_replay(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    state = RedditState(clock=lambda: clock.now.timestamp())
    until = START + timedelta(hours=4, minutes=2)
    with FakeReddit(state) as fake:
        for name in ["forumbot", *PLAYERS]:
            state.add_user(name, "pw")
        votes = state.add_submission("mafia", "Day 1: votes", at=START.timestamp())
        game = state.add_submission("mafia", "Day 1: discussion", at=START.timestamp())
        scenario = load_scenario(write_scenario(tmp_path / "day.toml", [], until))
        run = GameRun.build(scenario.config, dialect="markdown", thread_ids={"votes": votes, "game": game})
        reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        bot = RedditPlatform(reddit, clock=clock, subreddit="mafia")
        store = Store(tmp_path / "bot.db")
        runner = Runner(store, bot, [run])
        runner.start(START)

        made: list[str] = []
        seen: list[tuple[datetime, str, str, str]] = []
        script = list(SCRIPT)
        now = START
        while now <= until:
            clock.now = now
            while script and START + timedelta(minutes=script[0][0]) <= now:
                minute, author, body, where = script.pop(0)
                at = (START + timedelta(minutes=minute)).timestamp()
                if isinstance(where, int):
                    parent, thread = f"t1_{made[where]}", "votes"
                else:
                    parent, thread = (votes if where == "votes" else game), where
                made.append(state.add_comment(parent, author, body, at=at))
                seen.append((START + timedelta(minutes=minute), author, body, thread))
            if now == START + timedelta(minutes=EDIT_AT):
                state.edit_comment(made[4], "vote alice")
            if now == START + timedelta(minutes=DELETE_AT):
                state.delete_comment(made[5])
            if now == START + timedelta(minutes=GHOST[0]):
                ghost = state.add_comment(votes, GHOST[1], GHOST[2])
                state.delete_comment(ghost)
            if now == START + timedelta(hours=3, minutes=55):
                # Before the deadline the bot re-reads the comments that carried votes (one /api/info call).
                voting = [p for p in store.posts([votes]) if p.author in PLAYERS]
                calls = state.count("/api/info")
                found = bot.recheck(voting, "flag")
                assert state.count("/api/info") - calls == 1
                assert [p.platform_id for p in found.edited] == [f"t1_{made[4]}"]
                assert found.deleted == [f"t1_{made[5]}"]
                assert len(found.flags) == 2
            if now == START + timedelta(minutes=31):
                state.inject("status", "/r/mafia/comments", status=503, times=3)   # this poll fails ...
            result = runner.step(now)
            if now == START + timedelta(minutes=31):
                assert result.errors and all(e.retryable for e in result.errors)   # ... the next one reads it
            else:
                assert not result.errors, result.errors
            now += timedelta(minutes=1)

        have = run.game.summary(runner.state(run))
        bot_comments = state.comments_by("forumbot", votes)
        assert len(bot_comments) >= 5                         # vote counts after changes, then the result
        assert all("[](#fbx" in c.body for c in bot_comments)
        assert state.comments_by("forumbot", game)             # the phase posts in the discussion thread
        # An idle poll cost one request: the subreddit's listing, plus the inbox.
        polls = int((until - START).total_seconds() // 60) + 1
        listing = state.count("/r/mafia/comments")
        assert listing <= polls + 3                           # + the failed poll's retries
        assert state.count("/comments/") == 2                  # each thread walked once, at the first sync

    expected = replay(load_scenario(write_scenario(tmp_path / "replay.toml", seen, until)))
    # dave's vote counts as first seen (bob), erin's deleted vote still counts, frank's ghost never did
    assert have["days"][0]["tally"] == {"alice": 1, "bob": 2, "carol": 1, "erin": 2}
    assert have["phase"] == "night1" and have["days"][0]["ended"] == "deadline"
    assert have == expected.state


def test_the_vote_count_lives_in_one_comment_edited_in_place(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    state = RedditState(clock=lambda: clock.now.timestamp())
    with FakeReddit(state) as fake:
        for name in ["forumbot", *PLAYERS]:
            state.add_user(name, "pw")
        votes = state.add_submission("mafia", "Day 1: votes", at=START.timestamp())
        game = state.add_submission("mafia", "Day 1: discussion", at=START.timestamp())
        path = write_scenario(tmp_path / "day.toml", [], START + timedelta(hours=1))
        text = path.read_text(encoding="utf-8").replace("day_hours = 4", "day_hours = 4\nvote_count_edit = true")
        path.write_text(text, encoding="utf-8")
        run = GameRun.build(load_scenario(path).config, dialect="markdown", thread_ids={"votes": votes, "game": game})
        bot = RedditPlatform(no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw"))), clock=clock,
                             subreddit="mafia")
        runner = Runner(Store(tmp_path / "bot.db"), bot, [run])
        runner.start(START)
        for minute, author, target in [(1, "alice", "bob"), (3, "bob", "alice"), (5, "carol", "bob")]:
            clock.now = START + timedelta(minutes=minute)
            state.add_comment(votes, author, f"##vote {target}", at=clock.now.timestamp())
            runner.step(clock.now + timedelta(seconds=30))
        counts = [c for c in state.comments_by("forumbot", votes) if "Vote count" in c.body]
        assert len(counts) == 1 and "Vote count #3" in counts[0].body and "[](#fbx" in counts[0].body
        assert state.count("/api/editusertext") == 2
