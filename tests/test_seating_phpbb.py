"""The seating chart on the fake phpBB board (and Reddit's account look-up): the organisers made the masks'
accounts, the bot looks each up at the deal (Platform.account_exists) and a missing one is flagged, its seat's
PMs going to the real account; host commands by PM from the host and the co-host only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fakephpbb import Board, FakePhpbb

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock
from forumbot.engine.service import attach_store
from forumbot.platforms.phpbb import PhpbbPlatform
from forumbot.storage import Store

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
BS = load_ruleset("bodysnatchers", "mafia")
TABLE = {"1": "detective", "2": "maniac", "3": "inspector", "4": "writer"}
MASKS = ["Tom Hanks", "Brad Pitt", "Meryl Streep", "Keanu Reeves"]
USERS = {"acct1": 71, "acct2": 72, "acct3": 73, "acct4": 74, "Host": 61, "Cohost": 63, "Spec": 64, "Zed": 65,
         "Tom Hanks": 81, "Brad Pitt": 82, "Meryl Streep": 83}   # no account "Keanu Reeves"


class Bed:
    def __init__(self, tmp_path, fake: FakePhpbb, board: Board, clock: VirtualClock, votes, game) -> None:
        self.board, self.clock = board, clock
        config = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host", phase="signup",
                            players=(), options={**BS, "role_table": TABLE, "signup_slots": 4},
                            cohosts=("Cohost",), dialect="bbcode")
        self.run = GameRun.build(config, dialect="bbcode", thread_ids={"votes": str(votes.id), "game": str(game.id)})
        self.platform = PhpbbPlatform(fake.url, "forumbot", lambda: "pw", min_interval=0, form_wait=0,
                                      sleep=lambda _s: None, clock=clock)
        store = Store(tmp_path / "bot.db")
        attach_store(self.platform, store, self.platform.name)
        self.runner = Runner(store, self.platform, [self.run])
        self.runner.start(START)

    def pm(self, who: str, text: str, minutes: float) -> None:
        self.board.add_pm(USERS[who], [62], "g", text, at=(START + timedelta(minutes=minutes)).timestamp())

    def step(self, minutes: float) -> None:
        """Two polls a minute apart (the board's unread count, read with the first, brings the inbox)."""
        for extra in (0, 1):
            self.clock.now = START + timedelta(minutes=minutes + extra)
            result = self.runner.step(self.clock.now)
            assert not result.errors, result.errors

    def sent_to(self) -> list[tuple[str, str]]:
        return [(self.board.users[u].name, pm.text) for pm in self.board.pms.values() if pm.sender == 62 for u in pm.to]


@pytest.fixture()
def bed(tmp_path):
    clock = VirtualClock(START)
    board, votes, game = Board.for_game(USERS, START.timestamp(), clock=lambda: clock.now.timestamp(),
                                        form_min_age=0)
    with FakePhpbb(board) as fake:
        made = Bed(tmp_path, fake, board, clock, votes, game)
        for n, mask in enumerate(MASKS, start=1):
            made.pm(f"acct{n}", f"sign up: {n}, {mask}", n)
        made.step(10)
        for n in range(1, 5):
            made.pm(f"acct{n}", "confirm", 10 + n)
        made.step(20)
        made.step(21)
        assert made.runner.state(made.run).phase == "night0"
        yield made


def test_the_deal_looks_the_masks_up_and_flags_a_missing_one(bed):
    flags = [f for f in bed.runner.store.flags("g") if "no account" in f["reason"]]
    assert [f["author"] for f in flags] == ["acct4"] and "Keanu Reeves" in flags[0]["reason"]
    for n in range(1, 5):
        bed.pm(f"acct{n}", "note: a quiet night", 21 + n)
    bed.step(30)
    acks = {to for to, text in bed.sent_to() if "Note" in text and to != "Host"}
    assert acks == {"Tom Hanks", "Brad Pitt", "Meryl Streep", "acct4"}   # where each seat reads, one place each
    profiles = [p for _, p in bed.board.requests if "mode=viewprofile" in p and "un=" in p]
    bed.step(40)
    assert [p for _, p in bed.board.requests if "mode=viewprofile" in p and "un=" in p] == profiles   # once


@pytest.mark.parametrize(("who", "moves"), [("Host", True), ("Cohost", True), ("Spec", False), ("Zed", False),
                                            ("acct1", False), ("Tom Hanks", False)])
def test_only_the_host_and_the_cohost_command_the_game(bed, who, moves):
    before = bed.runner.state(bed.run).phase_ends
    bed.pm(who, "extend 10", 25)
    bed.step(30)
    after = bed.runner.state(bed.run).phase_ends
    assert after == (before + timedelta(hours=10) if moves else before), who


def test_account_exists_on_phpbb(tmp_path):
    clock = VirtualClock(START)
    board, _, _ = Board.for_game(USERS, START.timestamp(), clock=lambda: clock.now.timestamp(), form_min_age=0)
    with FakePhpbb(board) as fake:
        platform = PhpbbPlatform(fake.url, "forumbot", lambda: "pw", min_interval=0, form_wait=0,
                                 sleep=lambda _s: None, clock=clock)
        assert platform.account_exists("Tom Hanks") and platform.account_exists("tom hanks")
        assert not platform.account_exists("Keanu Reeves")


def test_account_exists_on_reddit():
    from fakereddit import FakeReddit, no_retry_sleep

    from forumbot.platforms.reddit import RedditPlatform
    with FakeReddit() as fake:
        fake.state.add_user("forumbot", "pw")
        fake.state.add_user("TomHanks")
        import praw
        reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        platform = RedditPlatform(reddit, subreddit="test")
        assert platform.account_exists("TomHanks") and platform.account_exists("u/tomhanks")
        assert not platform.account_exists("KeanuReeves")
