"""Masks' accounts at the deal: on the local forum the bot makes each mask's account and sends its one-time
password to the player's real account; on phpBB and Reddit it looks the account up (Platform.account_exists),
and a mask with no account of its own is flagged and its seat's PMs go to the real account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.chart import run_chart
from forumbot.engine.cycle import GameRun, Runner
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store
from forumbot.web.accounts import Accounts

BS = load_ruleset("bodysnatchers", "mafia")
ROLES = ["detective", "psychologist", "bouncer", "maniac", "inspector", "assistant", "writer", "masseur",
         "policeman", "thief", "taxi", "politician"]
TABLE = {str(n): role for n, role in enumerate(ROLES, start=1)}
MASKS = ["Tom Hanks", "Brad Pitt", "Keanu Reeves", "Meryl Streep", "Angelina Jolie", "Johnny Depp",
         "Nicole Kidman", "Morgan Freeman", "Scarlett Johansson", "Leonardo DiCaprio", "Cate Blanchett",
         "Hugh Jackman"]
LATER = START + timedelta(days=60)


def at(hours: float):
    return START + timedelta(hours=hours)


def signup_config(**game) -> GameConfig:
    game.setdefault("lang", "en")
    return GameConfig(name="g", game="mafia", start=START, host="Host", phase="signup", players=(),
                      options={**BS, "role_table": TABLE}, **game)


def bot_pms(forum: LocalForum) -> list[tuple[str, str]]:
    return forum.db.execute("SELECT recipient, body FROM forum_pms WHERE sender = ? ORDER BY id",
                            [forum.account]).fetchall()


class Lookup:
    """A platform that looks mask accounts up (as phpBB and Reddit do), over the local forum: `known` are the
    accounts it has."""

    def __init__(self, forum: LocalForum, known: set[str]) -> None:
        self.forum, self.known, self.asked = forum, known, []

    def __getattr__(self, name):
        return getattr(self.forum, name)

    def account_exists(self, name: str) -> bool:
        self.asked.append(name)
        return name in self.known


def sign_up_all(forum, runner, masks=MASKS, first=1):
    """Every number taken (the deal), every role confirmed (night 0), and a note from each seat's real account
    (its answer goes where the seat reads)."""
    for n, mask in enumerate(masks, start=first):
        forum.add_pm(f"acct{n}", forum.account, f"sign up: {n}, {mask}", at=at(n / 10))
    runner.step(at(2))
    for n, _ in enumerate(masks, start=first):
        forum.add_pm(f"acct{n}", forum.account, "confirm", at=at(2 + n / 10))
    runner.step(at(4))
    for n, _ in enumerate(masks, start=first):
        forum.add_pm(f"acct{n}", forum.account, "note: the night is dark", at=at(4 + n / 10))
    runner.step(at(6))
    runner.deliver(at(6))


def note_acks(forum) -> set[str]:
    return {to for to, body in bot_pms(forum) if "note" in body.lower() and "Host" != to}


def test_the_deal_makes_each_masks_account_and_sends_its_one_time_password_to_the_real_account(tmp_path):
    path = tmp_path / "forum.db"
    forum = LocalForum(path, clock=lambda: LATER, accounts=True)
    run = GameRun.build(signup_config())
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    sign_up_all(forum, runner)
    accounts = Accounts(path)
    assert set(MASKS) <= set(accounts.names())
    sent = bot_pms(forum)
    for n, mask in enumerate(MASKS, start=1):
        passwords = [body for to, body in sent if to == f"acct{n}" and "one-time password" in body]
        assert len(passwords) == 1 and mask in passwords[0]
        password = passwords[0].split("one-time password: ")[1].split(" ")[0]
        assert accounts.verify(mask, password) and accounts.one_time(mask)
        # before the night the role goes to the real account; from night 0 on, to the mask's
        assert any(to == f"acct{n}" and "Your role" in body for to, body in sent)
    # nobody else got a password, and the chart says where each seat reads
    assert {to for to, body in sent if "one-time password" in body} == {f"acct{n}" for n in range(1, 13)}
    assert note_acks(forum) == set(MASKS)
    chart = run_chart(run, runner.state(run), runner.host_state(run))
    assert all(chart.reader_of(mask) == mask for mask in MASKS)
    # a step after the deal makes nothing again
    runner.step(at(7))
    runner.deliver(at(7))
    assert len([1 for _, body in bot_pms(forum) if "one-time password" in body]) == 12


def test_the_one_time_password_signs_in_once(tmp_path):
    accounts = Accounts(tmp_path / "forum.db")
    password = accounts.add_mask("Tom Hanks", "acct1")
    assert password and accounts.one_time("Tom Hanks")
    accounts.use_once("Tom Hanks")
    assert not accounts.verify("Tom Hanks", password) and not accounts.one_time("Tom Hanks")
    accounts.set_password("Tom Hanks", "a-new-long-password")
    assert accounts.add_mask("Tom Hanks", "acct1") == ""          # its player's already: left alone
    assert accounts.verify("Tom Hanks", "a-new-long-password")
    assert accounts.add_mask("Tom Hanks", "acct2") is None         # not acct2's mask
    accounts.add_user("Brad Pitt")                                 # an account of someone's own
    assert accounts.add_mask("Brad Pitt", "acct2") is None


@pytest.mark.parametrize(("lang", "signing", "words"), [("en", "sign up", "looks like the account brad\\_pitt"),
                                                        ("ru", "Записываюсь", "похоже на аккаунт brad\\_pitt")])
def test_a_mask_named_like_an_existing_account_is_refused_at_sign_up(tmp_path, lang, signing, words):
    path = tmp_path / "forum.db"
    accounts = Accounts(path)
    accounts.add_user("brad_pitt")            # a stranger's account, before the sign-up
    accounts.add_user("Tom Hanks")            # acct1's own mask's account, from a game before
    accounts.add_mask("Meryl Streep", "acct4")
    forum = LocalForum(path, clock=lambda: LATER, accounts=True)
    run = GameRun.build(signup_config(lang=lang))
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    for n, mask in ((2, "Brad Pitt"), (4, "Meryl Streep")):
        forum.add_pm(f"acct{n}", forum.account, f"{signing}: {n}, {mask}", at=at(n / 10))
    runner.step(at(1))
    runner.deliver(at(1))
    assert list(runner.state(run).signup) == ["acct4"]     # the mask made for acct4 is acct4's to take
    told = [body for to, body in bot_pms(forum) if to == "acct2"]
    assert len(told) == 1 and words in told[0], told
    assert [f["author"] for f in runner.store.flags("g")] == ["acct2"]   # the host is told


def test_a_mask_whose_account_is_made_after_the_sign_up_is_not_taken_over(tmp_path):
    path = tmp_path / "forum.db"
    forum = LocalForum(path, clock=lambda: LATER, accounts=True)
    run = GameRun.build(signup_config())
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    forum.add_pm("acct2", forum.account, "sign up: 2, Brad Pitt", at=at(0.05))
    runner.step(at(0.1))
    Accounts(path).add_user("Brad Pitt")     # a real account of that name, after the sign-up, before the deal
    sign_up_all(forum, runner)
    flags = [f["reason"] for f in runner.store.flags("g")]
    assert any("Brad Pitt" in f and "acct2" in f for f in flags)
    sent = bot_pms(forum)
    assert not any(to == "Brad Pitt" for to, _ in sent)            # the stranger reads nothing of the game
    assert note_acks(forum) == (set(MASKS) - {"Brad Pitt"}) | {"acct2"}


@pytest.mark.parametrize("known", [set(MASKS), set(MASKS) - {"Keanu Reeves"}])
def test_where_organisers_make_the_masks_the_deal_looks_them_up(known):
    forum = LocalForum(clock=lambda: LATER)
    platform = Lookup(forum, known)
    run = GameRun.build(signup_config())
    runner = Runner(Store(), platform, [run])
    runner.start(START)
    sign_up_all(forum, runner)
    assert sorted(platform.asked) == sorted(MASKS)
    sent = bot_pms(forum)
    assert not any("one-time password" in body for _, body in sent)
    if "Keanu Reeves" in known:
        assert note_acks(forum) == set(MASKS) and not list(runner.store.flags("g"))
    else:
        assert note_acks(forum) == (set(MASKS) - {"Keanu Reeves"}) | {"acct3"}
        assert [f["author"] for f in runner.store.flags("g") if "no account" in f["reason"]] == ["acct3"]
    runner.step(at(7))
    assert sorted(platform.asked) == sorted(MASKS)                 # looked up once


def test_a_mask_named_like_the_host_or_a_seated_account_is_refused_at_sign_up():
    forum = LocalForum(clock=lambda: LATER)
    run = GameRun.build(signup_config(cohosts=("Cohost",)))
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    forum.add_pm("acct1", forum.account, "sign up: 1, Tom Hanks", at=at(0.1))
    forum.add_pm("acct2", forum.account, "sign up: 2, Cohоst", at=at(0.2))        # a Cyrillic о
    forum.add_pm("acct3", forum.account, "sign up: 3, HOST", at=at(0.3))
    runner.step(at(1))
    assert list(runner.state(run).signup) == ["acct1"]


# ---- random seatings, masks and replacements through the runner ---------------------------------------
SMALL = {"1": "detective", "2": "maniac", "3": "inspector", "4": "writer"}
CANDIDATES = ["Tom Hanks", "Brad Pitt", "Zed", "HOST", "Meryl Streep", "Keanu Reeves", "acct2", "forumbot"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(masks=st.lists(st.sampled_from(CANDIDATES), min_size=4, max_size=4),
       swaps=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["sub1", "sub2", "acct1", "Zed"])), max_size=3),
       spectate=st.booleans())
def test_no_pm_or_result_reaches_an_account_outside_its_seat(tmp_path_factory, masks, swaps, spectate):
    path = tmp_path_factory.mktemp("random") / "forum.db"
    forum = LocalForum(path, clock=lambda: LATER, accounts=True)
    config = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host", phase="signup", players=(),
                        options={**BS, "role_table": SMALL, "signup_slots": 4})
    run = GameRun.build(config)
    runner = Runner(Store(), forum, [run])
    runner.start(START)
    Accounts(path).add_user("Zed")                                    # an account of someone's own
    forum.add_pm("Zed", "somebody", "hello", at=at(0.01))
    for n, mask in enumerate(masks, start=1):
        forum.add_pm(f"acct{n}", forum.account, f"sign up: {n}, {mask}", at=at(n / 10))
    runner.step(at(1))
    if runner.state(run).phase == "signup":
        forum.add_pm("Host", forum.account, "deal roles", at=at(1.1))
        runner.step(at(1.2))
    for n in range(1, 5):
        forum.add_pm(f"acct{n}", forum.account, "confirm", at=at(1.5 + n / 10))
    if spectate:
        forum.add_pm("Host", forum.account, "spectate Spec", at=at(2))
    state = runner.state(run)
    for n, (which, account) in enumerate(swaps):
        if state.players:
            seat = state.players[which % len(state.players)]
            forum.add_pm("Host", forum.account, f"replace {seat} with {account}", at=at(2.1 + n / 10))
    runner.step(at(3))
    for n in range(1, 5):   # everyone writes a night action and a note from their real account
        forum.add_pm(f"acct{n}", forum.account, "note: hello\ncheck acct1", at=at(3 + n / 10))
    for who in ("sub1", "sub2"):
        forum.add_pm(who, forum.account, "note: I am here", at=at(3.5))
    runner.step(at(40))
    runner.deliver(at(40))
    chart = run_chart(run, runner.state(run), runner.host_state(run))
    holders = {h.account for seat in chart.seats for h in seat.holders}
    masks_made = {seat.mask for seat in chart.seats if seat.mask and seat.mask_reads}
    for to, body in bot_pms(forum):
        if to in ("sub1", "sub2") and to not in holders:   # the answer to their own note, and nothing more
            assert body.startswith(("Not accepted", "Not understood")), (to, body[:80])
            continue
        assert to in holders | masks_made | {"Host"} | {f"acct{n}" for n in range(1, 5)}, (to, body[:80])
        assert to not in ("Spec", "Zed") or to in holders, (to, body[:80])
    # a mask account the bot made is held by its seat's current holder alone
    accounts = Accounts(path)
    for seat in chart.seats:
        if seat.mask and seat.mask_reads and accounts.exists(seat.mask):
            assert accounts.setting(f"mask:{seat.mask}") == seat.account


class AskedAtSignUp(Lookup):
    """A platform where the organisers make the masks' accounts, asked at the sign-up (phpBB, Reddit,
    Discourse); `down` makes it fail."""

    down = False

    def mask_refusal(self, mask, claimant):
        from forumbot.errors import PlatformError
        from forumbot.platforms.base import organisers_mask
        if self.down:
            raise PlatformError("the board is down")
        return organisers_mask(self, mask)


def test_the_platforms_answer_at_sign_up_is_kept_when_the_game_is_read_again(tmp_path):
    forum = LocalForum(clock=lambda: LATER)
    platform = AskedAtSignUp(forum, set(MASKS) - {"Keanu Reeves"})
    run = GameRun.build(signup_config())
    runner = Runner(Store(), platform, [run])
    runner.start(START)
    forum.add_pm("acct3", forum.account, "sign up: 3, Keanu Reeves", at=at(0.1))
    forum.add_pm("acct1", forum.account, "sign up: 1, Tom Hanks", at=at(0.2))
    runner.step(at(1))
    assert list(runner.state(run).signup) == ["acct1"]
    platform.known.add("Keanu Reeves")      # the organisers made it later: the sign-up stays refused
    assert list(runner.recount(run, at(2)).signup) == ["acct1"]
    assert platform.asked.count("Keanu Reeves") == 1


def test_a_platform_that_cannot_answer_at_sign_up_leaves_the_mask_to_the_deal(tmp_path):
    forum = LocalForum(clock=lambda: LATER)
    platform = AskedAtSignUp(forum, set(MASKS) - {"Keanu Reeves"})
    platform.down = True
    run = GameRun.build(signup_config())
    runner = Runner(Store(), platform, [run])
    runner.start(START)
    sign_up_all(forum, runner)                # every sign-up taken; the deal looks the masks up
    assert "Keanu Reeves" in platform.asked
    assert note_acks(forum) == (set(MASKS) - {"Keanu Reeves"}) | {"acct3"}
