"""Each PM belongs to one game: a game reads a PM only from an account seated in it (or its host, or anyone
while it takes sign-ups), sent after it opened; an account in several games names the game."""

from __future__ import annotations

from datetime import timedelta

from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.chart import chart_of
from forumbot.engine.cycle import GameRun, Runner
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

LATER = START + timedelta(days=60)
BS = load_ruleset("bodysnatchers", "mafia")
TABLE = {str(n): "detective" if n % 2 else "maniac" for n in range(1, 13)}


def at(hours: float):
    return START + timedelta(hours=hours)


def day_game(name: str, players=("Alice", "Bob", "Carol", "Dave", "Eve"), host: str = "Host") -> GameConfig:
    return GameConfig(name=name, game="mafia", lang="en", start=START, host=host, phase="day1",
                      players=tuple(PlayerRef(n) for n in players), options={"day_hours": 24, "night_hours": 12})


def signup_game(name: str = "g2", host: str = "Host2", start=START) -> GameConfig:
    return GameConfig(name=name, game="mafia", lang="en", start=start, host=host, phase="signup", players=(),
                      options={**BS, "role_table": TABLE})


def make(*configs: GameConfig, store: Store | None = None, forum: LocalForum | None = None):
    forum = forum or LocalForum(clock=lambda: LATER)
    runs = [GameRun.build(c) for c in configs]
    runner = Runner(store or Store(), forum, runs)
    runner.start(START)
    return forum, runs, runner


def pms(forum: LocalForum, to: str) -> list[str]:
    return [p["body"] for p in forum.pms_to(to)]


def test_a_sign_up_from_a_player_of_another_game_is_the_sign_up_games_alone():
    forum, (g1, g2), runner = make(day_game("g1"), signup_game())
    forum.add_pm("Alice", forum.account, "sign up: 3, Tom Hanks", at=at(1))
    runner.step(at(2))
    assert runner.state(g2).signup["Alice"]["mask"] == "Tom Hanks"
    answers = pms(forum, "Alice")
    assert len(answers) == 1 and "closed" not in answers[0]          # g1 does not refuse it
    assert not list(runner.store.flags("g1"))


def test_a_night_action_of_a_running_game_is_not_refused_by_the_game_in_sign_ups():
    forum, (g1, g2), runner = make(day_game("g1"), signup_game())
    forum.add_pm("Alice", forum.account, "check Bob", at=at(1))
    runner.step(at(2))
    assert not list(runner.store.flags("g2"))
    assert not any("signup" in p for p in pms(forum, "Alice"))


def test_a_game_added_to_a_running_bot_reads_nothing_from_before_it_opened():
    store = Store()
    forum, _, runner = make(day_game("g1"), store=store)
    forum.add_pm("Zed", forum.account, "sign up: 1, Tom Hanks", at=at(1))     # before g2 exists
    runner.step(at(2))
    forum, (_, g2), runner = make(day_game("g1"), signup_game(), store=store, forum=forum)
    runner.start(at(3))
    forum.add_pm("Yan", forum.account, "sign up: 2, Brad Pitt", at=at(4))
    runner.step(at(5))
    assert list(runner.state(g2).signup) == ["Yan"]
    assert pms(forum, "Zed") == []


def test_an_account_in_two_games_names_the_game_and_is_asked_when_it_does_not():
    forum, (g1, g3), runner = make(day_game("g1"), day_game("g3", ("Alice", "Fred", "Gina", "Hal", "Ivy"), "Host3"))
    forum.add_pm("Alice", forum.account, "check Bob", at=at(1))
    runner.step(at(2))
    answers = pms(forum, "Alice")
    assert len(answers) == 1 and "g1, g3" in answers[0]
    forum.add_pm("Alice", forum.account, "game g3\nI'm going to sleep", at=at(3))
    runner.step(at(4))
    answers = pms(forum, "Alice")   # g3's: no command, so g3 answers it as any PM it cannot read (once)
    assert len(answers) == 2 and "I'm going to sleep" in answers[1]
    assert [f["post"] for f in runner.store.flags("g1")] == ["local-pm:1"]     # the question, not the second
    assert [f["post"] for f in runner.store.flags("g3")] == ["local-pm:3"]     # g3's host is told of it


def test_a_host_of_one_game_playing_in_another_names_the_game():
    forum, (g1, g3), runner = make(day_game("g1"), day_game("g3", ("Host", "Fred", "Gina", "Hal", "Ivy"), "Host3"))
    forum.add_pm("Host", forum.account, "extend 24", at=at(1))
    runner.step(at(2))
    assert runner.state(g1).phase_ends == at(24) and runner.state(g3).phase_ends == at(24)
    assert len(pms(forum, "Host")) == 1 and "g1, g3" in pms(forum, "Host")[0]
    forum.add_pm("Host", forum.account, "game g1\nextend 24", at=at(3))
    runner.step(at(4))
    assert runner.state(g1).phase_ends == at(48) and runner.state(g3).phase_ends == at(24)


# ---- the runner over random replacements ----------------------------------------------------------
SEATS = ("Alice", "Bob", "Carol", "Dave", "Eve")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(swaps=st.lists(st.tuples(st.sampled_from(SEATS), st.sampled_from(["sub1", "sub2", "sub3", "Bob", "Host"])),
                      max_size=4))
def test_no_pm_reaches_an_account_outside_its_seat_through_the_runner(swaps):
    config = GameConfig(name="g", game="mafia", lang="en", start=START, host="Host", phase="day1",
                        players=tuple(PlayerRef(n) for n in SEATS),
                        options={"day_hours": 24, "night_hours": 12, "remind_hours": [2], "remind_by_pm": True})
    forum, (run,), runner = make(config)
    for n, (seat, account) in enumerate(swaps):
        forum.add_pm("Host", forum.account, f"replace {seat} with {account}", at=at(1 + n / 10))
    runner.step(at(2))
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(2.5))
    runner.step(at(23))                                  # the reminder 2 hours before the day ends
    runner.deliver(at(23))
    chart = chart_of("g", run.game, runner.state(run), runner.host_state(run), "Host")
    holders = {seat.account for seat in chart.seats}
    reminded = [recipient for recipient, body in _bot_pms(forum) if "have not voted" in body]
    assert reminded and set(reminded) <= holders     # a seat's reminder reaches the account holding it now
    retired = {h.account for seat in chart.seats for h in seat.holders[:-1]} - holders
    assert not retired & set(reminded)


def _bot_pms(forum):
    return forum.db.execute("SELECT recipient, body FROM forum_pms WHERE sender = ?", [forum.account]).fetchall()
