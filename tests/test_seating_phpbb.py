"""The seating chart on the fake phpBB board (and Reddit's and Discourse's account look-up): the organisers made
the masks' accounts, the bot looks each up at the sign-up (Platform.mask_refusal): a mask with no account, or
one that is or looks like the host's, a co-host's, the bot's or a seated player's, is refused then, in the
game's language, and the host is flagged; host commands by PM from the host and the co-host only."""

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
         "Tom Hanks": 81, "Brad Pitt": 82, "Meryl Streep": 83, "Nicole Kidman": 84}   # no account "Keanu Reeves"
MISSING = "Keanu Reeves"


class Bed:
    def __init__(self, tmp_path, fake: FakePhpbb, board: Board, clock: VirtualClock, votes, game,
                 lang: str = "en") -> None:
        self.board, self.clock = board, clock
        config = GameConfig(name="g", game="mafia", lang=lang, start=START, host="Host", phase="signup",
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
        made.step(5)   # Keanu Reeves has no account: acct4 is told so at once, and takes another mask
        made.pm("acct4", "sign up: 4, Nicole Kidman", 6)
        made.step(10)
        for n in range(1, 5):
            made.pm(f"acct{n}", "confirm", 10 + n)
        made.step(20)
        made.step(21)
        assert made.runner.state(made.run).phase == "night0"
        yield made


def test_a_mask_without_an_account_is_refused_at_sign_up_not_found_at_the_deal(bed):
    flags = [f for f in bed.runner.store.flags("g") if MISSING in f["reason"]]
    assert [f["author"] for f in flags] == ["acct4"] and "no account" in flags[0]["reason"]   # the host's flag
    told = [text for to, text in bed.sent_to() if to == "acct4" and MISSING in text]
    assert told and "no account of that name" in told[0]
    assert not [f for f in bed.runner.store.flags("g") if "has no account of its own" in f["reason"]]
    for n in range(1, 5):
        bed.pm(f"acct{n}", "note: a quiet night", 21 + n)
    bed.step(30)
    acks = {to for to, text in bed.sent_to() if "Note" in text and to != "Host"}
    assert acks == {"Tom Hanks", "Brad Pitt", "Meryl Streep", "Nicole Kidman"}   # each seat at its mask
    profiles = [p for _, p in bed.board.requests if "mode=viewprofile" in p and "un=" in p]
    bed.step(40)
    assert [p for _, p in bed.board.requests if "mode=viewprofile" in p and "un=" in p] == profiles   # once


# a sign-up's mask → the words of its refusal, in English and Russian
REFUSED = [("Keanu Reeves", "no account of that name", "нет такого аккаунта"),
           ("Cohost", "the host's name", "имя ведущего"), ("COHOST", "the host's name", "имя ведущего"),
           ("Со host", "the host's name", "имя ведущего"),            # Cyrillic С and о, a space
           ("Host", "the host's name", "имя ведущего"), ("forumbot", "the bot's name", "имя бота"),
           ("acct1", "looks like the account acct1", "похоже на аккаунт acct1")]   # a seated player's


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize(("mask", "english", "russian"), REFUSED)
def test_a_mask_is_refused_at_sign_up_with_the_reason_in_the_games_language(tmp_path, lang, mask, english,
                                                                            russian):
    clock = VirtualClock(START)
    board, votes, game = Board.for_game(USERS, START.timestamp(), clock=lambda: clock.now.timestamp(),
                                        form_min_age=0)
    with FakePhpbb(board) as fake:
        made = Bed(tmp_path, fake, board, clock, votes, game, lang)
        signing = "Записываюсь" if lang == "ru" else "sign up"
        made.pm("acct1", f"{signing}: 1, Tom Hanks", 1)
        made.pm("acct2", f"{signing}: 2, {mask}", 2)
        made.step(5)
        assert list(made.runner.state(made.run).signup) == ["acct1"]
        told = [text for to, text in made.sent_to() if to == "acct2"]
        assert len(told) == 1 and (russian if lang == "ru" else english) in told[0], told
        assert [f["author"] for f in made.runner.store.flags("g") if mask in f["reason"]] == ["acct2"]


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


def test_account_exists_on_discourse():
    from fakediscourse.server import FakeDiscourse
    from fakediscourse.state import DiscourseState

    from forumbot.platforms.discourse import DiscoursePlatform
    state = DiscourseState()
    state.add_user("forumbot", admin=True, key="KEY")
    state.add_user("TomHanks")
    with FakeDiscourse(state) as fake:
        platform = DiscoursePlatform(fake.url, "forumbot", lambda: "KEY")
        assert platform.account_exists("TomHanks") and platform.account_exists("tomhanks")
        assert not platform.account_exists("Keanu Reeves")
        assert platform.mask_refusal("Keanu Reeves", "acct1") == ("mask_no_account", "Keanu Reeves")
        assert platform.mask_refusal("TomHanks", "acct1") is None


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
