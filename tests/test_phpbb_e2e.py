"""A Mafia day and night on the fake phpBB board: votes in bold and [vote] tags in the votes topic (a quoted
vote, a vote edited after the bot read it, a vote post deleted after it was read), night actions by PM, the
bot polling every few minutes, posting vote counts, the day's end and the newspaper, and PMs answered. The
game ends in the state a replay of the same first-seen posts reaches on the local forum."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fakephpbb import Board, FakePhpbb

from forumbot.config.game import load_scenario
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.replay import VirtualClock, replay
from forumbot.engine.service import attach_store
from forumbot.platforms import markers
from forumbot.platforms.phpbb import PhpbbPlatform
from forumbot.storage import Store

START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
ROLES = {"Alice": "mafia", "Bob": "doctor", "Carol": "detective", "Dave": "townsfolk", "Erin": "townsfolk",
         "Frank": "townsfolk", "Grace": "townsfolk"}
IDS = {name: 70 + n for n, name in enumerate(ROLES)}

# (minutes after the start, author, text, where: "votes", "game" or "pm")
SCRIPT: list[tuple[int, str, str, str]] = [
    (5, "Alice", "Good morning. [b]vote Dave[/b]\n[b]vote Dave[/b]", "votes"),
    (9, "Bob", "[vote]Dave[/vote]", "votes"),
    (12, "Carol", '[quote="Alice"][b]vote Carol[/b][/quote]\nNot that. [b]vote Frank[/b]\n[b]vote Dave[/b]', "votes"),
    (20, "Grace", "Hello town.", "game"),
    (31, "Dave", "[b]vote Alice[/b]", "votes"),             # edited later to Bob: the first-seen text counts
    (44, "Erin", "[vote]Grace[/vote]", "votes"),             # deleted later: its first-seen vote still counts
    (61, "Frank", "[vote]Dave[/vote]", "votes"),             # the fourth vote on Dave: a majority of 7
    (125, "Alice", "kill Carol", "pm"),
    (130, "Bob", "heal Carol", "pm"),
    (140, "Carol", "check Alice", "pm"),
]
EDIT_AT, DELETE_AT = 40, 50


def write_scenario(path: Path, posts: list[tuple[datetime, str, str, str]], until: datetime) -> Path:
    text = (f'[game]\nname = "mafia"\nruleset = "classic"\nlang = "en"\nhost = "Host"\n'
            f'start = "{START:%Y-%m-%dT%H:%M:%SZ}"\nphase = "day1"\ndialect = "bbcode"\n'
            '[game.options]\nday_hours = 2\nnight_hours = 2\n'
            + "".join(f'[[players]]\nname = "{n}"\nrole = "{r}"\n' for n, r in ROLES.items()))
    for at, author, body, where in posts:
        place = "pm = true\n" if where == "pm" else f'thread = "{where}"\n'
        text += f'[[posts]]\nat = "{at:%Y-%m-%dT%H:%M:%SZ}"\nauthor = "{author}"\n{place}text = """{body}"""\n'
    text += f'[run]\nuntil = "{until:%Y-%m-%dT%H:%M:%SZ}"\n'
    path.write_text(text, encoding="utf-8")
    return path


def board_on(clock: VirtualClock) -> tuple[Board, Any, Any]:
    """The recorded players' board on the virtual clock: (board, votes topic, game topic)."""
    return Board.for_game(IDS, START.timestamp(), clock=lambda: clock.now.timestamp(), form_min_age=0)


def game_run(tmp_path: Path, votes: Any, game: Any) -> GameRun:
    """The scenario's game with its threads on the board's two topics (or one)."""
    return GameRun.build(load_scenario(write_scenario(tmp_path / "g.toml", [], START)).config, dialect="bbcode",
                         thread_ids={"votes": str(votes.id), "game": str(game.id)})


def bot_on(fake: FakePhpbb, clock: VirtualClock, **options: Any) -> PhpbbPlatform:
    """The bot signed in to the fake board as "forumbot", on the virtual clock, with no waits."""
    return PhpbbPlatform(fake.url, "forumbot", lambda: "pw", min_interval=0, form_wait=0, sleep=lambda _s: None,
                         clock=clock, **options)


def test_a_mafia_day_and_night_on_phpbb_equals_its_replay(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    board, votes, game = board_on(clock)
    board.add_user(61, "Host", colour="#00AA00")
    until = START + timedelta(hours=4, minutes=5)
    with FakePhpbb(board) as fake:
        scenario = load_scenario(write_scenario(tmp_path / "game.toml", [], until))
        run = GameRun.build(scenario.config, dialect="bbcode",
                            thread_ids={"votes": str(votes.id), "game": str(game.id)})
        platform = bot_on(fake, clock)
        store = Store(tmp_path / "bot.db")
        attach_store(platform, store, platform.name)
        runner = Runner(store, platform, [run])
        runner.start(START)
        seen: list[tuple[datetime, str, str, str]] = []
        made: list[int] = []
        script = list(SCRIPT)
        now = START
        polls = 0
        while now <= until:
            clock.now = now
            while script and START + timedelta(minutes=script[0][0]) <= now:
                minute, author, body, where = script.pop(0)
                at = START + timedelta(minutes=minute)
                if where == "pm":
                    board.add_pm(IDS[author], [62], "Night action", body, at=at.timestamp())
                    made.append(0)
                else:
                    topic = votes if where == "votes" else game
                    made.append(board.add_post(topic.id, IDS[author], body, at=at.timestamp()).id)
                seen.append((at, author, body, where))
            if now == START + timedelta(minutes=EDIT_AT):
                board.edit_post(made[4], "[b]vote Bob[/b]")
            if now == START + timedelta(minutes=DELETE_AT):
                board.soft_delete(made[5])
            if now == START + timedelta(minutes=90):
                board.fail("viewforum", "500", times=3)         # this poll fails; the next one reads on
            result = runner.step(now)
            polls += 1
            if now == START + timedelta(minutes=90):
                assert result.errors and all(e.retryable for e in result.errors)
            else:
                assert not result.errors, result.errors
            now += timedelta(minutes=5)

        have = run.game.summary(runner.state(run))
        openers = {votes.posts[0], game.posts[0]}                  # the topics the test opened as the bot
        bot_posts = [p for p in board.posts.values() if p.author == 62 and p.id not in openers]
        assert bot_posts and all(markers.keys_in(p.text)[-1].startswith("game:") for p in bot_posts)
        kinds = {row["kind"] for row in store.outbox("game")}
        assert {"vote_count", "day_end", "night_end", "night_result", "action_ack"} <= kinds, kinds
        assert all(row["delivered"] for row in store.outbox("game"))
        paper = [r for r in store.outbox("game") if r["kind"] == "night_end"]          # the newspaper
        assert paper and board.posts[int(paper[0]["platform_id"][1:])].topic == game.id
        answered = {board.users[u].name for pm in board.pms.values() if pm.sender == 62 for u in pm.to}
        assert {"Alice", "Bob", "Carol"} <= answered                 # acknowledgements and the detective's result
        # An idle poll costs one request (the forum's topic list); the inbox is read only when it has mail, and in
        # the poll that may fire a deadline (the night's end).
        topic_lists = sum(1 for m, p in board.requests if p.startswith("/viewforum.php"))
        assert topic_lists <= polls + 2
        inbox_reads = sum(1 for m, p in board.requests if p.startswith("/ucp.php?i=pm&folder=inbox"))
        assert inbox_reads <= 1 + 3 + 1

    expected = replay(load_scenario(write_scenario(tmp_path / "replay.toml", seen, until)))
    assert have["days"][0]["ended"] != "deadline"                  # four of seven on Dave: the day ended early
    assert have == expected.state


@pytest.mark.parametrize("policy", ["edited", "flag"])
def test_an_edited_vote_under_each_policy_before_the_deadline(tmp_path: Path, policy: str) -> None:
    clock = VirtualClock(START)
    board, votes, _ = board_on(clock)
    with FakePhpbb(board) as fake:
        run = game_run(tmp_path, votes, votes)
        platform = bot_on(fake, clock, edit_policy=policy)
        runner = Runner(Store(tmp_path / "bot.db"), platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        post = board.add_post(votes.id, IDS["Dave"], "[b]vote Alice[/b]", at=clock.now.timestamp())
        runner.step(clock.now)
        clock.now = START + timedelta(minutes=30)
        board.edit_post(post.id, "[b]vote Bob[/b]")
        runner.step(clock.now)
        runner.step(START + timedelta(hours=2))                 # the deadline: re-read, then the day ends
        flags = [f["reason"] for f in runner.store.flags("g")]
        assert any("edited" in reason for reason in flags), flags
        day = run.game.summary(runner.state(run))["days"][0]
        assert day["tally"] == ({"Bob": 1} if policy == "edited" else {"Alice": 1}), day
        [end] = [row[0] for row in runner.store.db.conn.execute("SELECT text FROM outbox WHERE kind = 'day_end'")]
        mark = "was: [url" if policy == "edited" else "now: [url"
        assert "(edited 2026-03-01 20:30 UTC, " + mark in end, end      # the "Last edited" notice's time


def test_a_night_action_sent_just_before_the_deadline_counts(tmp_path: Path) -> None:
    """The poll before the night's deadline saw no unread PM; a kill PM comes 55 s before the deadline; the
    poll that fires the deadline reads the inbox anyway, and the kill counts by its own time."""
    clock = VirtualClock(START)
    board, votes, game = board_on(clock)
    with FakePhpbb(board) as fake:
        run = game_run(tmp_path, votes, game)
        platform = bot_on(fake, clock)
        store = Store(tmp_path / "bot.db")
        attach_store(platform, store, platform.name)
        runner = Runner(store, platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        for name in ("Alice", "Bob", "Carol", "Erin"):
            board.add_post(votes.id, IDS[name], "[b]vote Dave[/b]", at=clock.now.timestamp())
        runner.step(clock.now)                                  # a majority: the day ends, the night begins
        night_end = runner.next_deadline()
        assert night_end is not None and night_end > clock.now
        clock.now = night_end - timedelta(minutes=2)
        runner.step(clock.now)                                  # the header shows no unread PM
        assert platform.http.unread_pms == 0
        board.add_pm(IDS["Alice"], [62], "Night action", "kill Carol",
                     at=(night_end - timedelta(seconds=55)).timestamp())
        clock.now = night_end + timedelta(seconds=65)
        runner.step(clock.now)
        summary = run.game.summary(runner.state(run))
        assert summary["phase"] == "day2"
        assert [(d["name"], d["cause"]) for d in summary["dead"]] == [("Dave", "lynch"), ("Carol", "night")]


@pytest.mark.parametrize("approved_after_the_day", [False, True])
def test_a_vote_approved_late_counts_by_its_time_or_is_flagged(tmp_path: Path, approved_after_the_day: bool) -> None:
    clock = VirtualClock(START)
    board, votes, game = board_on(clock)
    with FakePhpbb(board) as fake:
        run = game_run(tmp_path, votes, game)
        platform = bot_on(fake, clock)
        runner = Runner(Store(tmp_path / "bot.db"), platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=5)
        runner.step(clock.now)
        held = board.add_post(votes.id, IDS["Dave"], "[b]vote Grace[/b]", approved=False,
                              at=(START + timedelta(minutes=10)).timestamp())
        board.add_post(votes.id, IDS["Erin"], "[b]vote Grace[/b]", at=(START + timedelta(minutes=12)).timestamp())
        clock.now = START + timedelta(minutes=15)
        runner.step(clock.now)
        clock.now = START + timedelta(hours=2, minutes=5) if approved_after_the_day else START + timedelta(minutes=30)
        if approved_after_the_day:
            runner.step(clock.now)                          # the day ends without it
        board.approve(held.id)
        clock.now += timedelta(minutes=5)
        runner.step(clock.now)
        summary = run.game.summary(runner.state(run))
        if approved_after_the_day:
            assert summary["days"][0]["tally"].get("Grace") == 1
            flags = runner.store.flags("g")                   # the host hears of the vote that came too late
            assert [f["reason"] for f in flags if f["post"] == f"p{held.id}"], flags
        else:
            assert sorted(summary["votes"]["Grace"]) == ["Dave", "Erin"]        # it counts: the day is open
