"""The runner over the store and the local forum: posts stored once, steps atomic, delivery once,
restarts that neither refetch nor lose, and a tally that always equals a recount from stored posts."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest
from helpers import START
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.errors import PlatformError, StoreError
from forumbot.games.mafia.state import NO_LYNCH
from forumbot.model import PlayerRef, Post
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
LATER = START + timedelta(days=30)   # the forum's clock: every test post is in its past


def config(**options) -> GameConfig:
    return GameConfig(name="g", game="mafia", lang="en", start=START,
                      players=tuple(PlayerRef(n) for n in PLAYERS), options=options, phase="day1")


def make(tmp_path=None, **options):
    store = Store(tmp_path / "bot.db" if tmp_path else ":memory:")
    forum = LocalForum(tmp_path / "forum.db" if tmp_path else ":memory:", clock=lambda: LATER)
    run = GameRun.build(config(**options))
    runner = Runner(store, forum, [run])
    runner.start(START)
    return store, forum, run, runner


def at(minutes: int):
    return START + timedelta(minutes=minutes)


def test_posts_in_the_forum_become_votes_and_counts(tmp_path):
    store, forum, run, runner = make(tmp_path)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    forum.add_post("g/game", "Carol", "vote Bob (talk thread: not a vote)", at=at(2))
    result = runner.step(at(3))
    assert result.posts_fetched == 2 and result.intents == 1
    state = runner.state(run)
    assert state.current == {"Alice": "Bob"}
    bot_posts = [p for p in forum.thread_posts("g/votes") if p["author"] == forum.account]
    assert len(bot_posts) == 1 and "Bob" in bot_posts[0]["body"]
    assert len([p for p in forum.thread_posts("g/game") if p["author"] == forum.account]) == 1  # day start


def test_a_second_step_and_a_restart_post_nothing_twice(tmp_path):
    store, forum, run, runner = make(tmp_path)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    runner.step(at(2))
    runner.step(at(3))
    bot_posts = len([p for p in forum.thread_posts("g/votes") if p["author"] == forum.account])
    # restart: new objects over the same files
    store2, forum2 = Store(tmp_path / "bot.db"), LocalForum(tmp_path / "forum.db", clock=lambda: LATER)
    runner2 = Runner(store2, forum2, [GameRun.build(config())])
    runner2.start(START)
    assert runner2.step(at(4)).posts_fetched == 0
    assert len([p for p in forum2.thread_posts("g/votes") if p["author"] == forum2.account]) == bot_posts
    forum2.add_post("g/votes", "Carol", "vote Bob", at=at(5))
    runner2.step(at(6))
    assert runner2.state(runner2.runs[0]).current == {"Alice": "Bob", "Carol": "Bob"}


def test_a_failed_step_commits_nothing_and_is_redone(monkeypatch):
    store, forum, run, runner = make()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    original = store.commit_step

    def crash(*args, **kwargs):
        raise StoreError("disk full")

    monkeypatch.setattr(store, "commit_step", crash)
    with pytest.raises(StoreError):
        runner.step(at(2))
    assert runner.state(run).current == {}
    assert len(store.unprocessed_posts("g", ["g/votes"])) == 1       # the post is stored, not lost
    monkeypatch.setattr(store, "commit_step", original)
    runner.step(at(3))
    assert runner.state(run).current == {"Alice": "Bob"}
    assert store.unprocessed_posts("g", ["g/votes"]) == []


def test_the_step_is_one_transaction():
    """If writing the outbox fails, the state, intents and processed marks roll back with it."""
    store, forum, run, runner = make()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    store.db.execute("CREATE TRIGGER fail BEFORE INSERT ON outbox "
                     "BEGIN SELECT RAISE(ABORT, 'outbox write failed'); END")
    with pytest.raises(sqlite3.IntegrityError, match="outbox write failed"):
        runner.step(at(2))
    assert store.db["intents"].count == 0 and store.db["processed"].count == 0
    # the fetched post was in the same transaction: gone with it, and with it the cursor that passed it, so
    # the next step fetches it again (it was stored before, in a transaction of its own)
    assert store.db["posts"].count == 0 and store.cursor("local") is None
    assert Runner(store, forum, [GameRun.build(config())]).state(run).current == {}
    store.db.execute("DROP TRIGGER fail")
    runner.step(at(3))
    assert runner.state(run).current == {"Alice": "Bob"} and store.db["intents"].count == 1


class FlakyForum(LocalForum):
    def __init__(self, *args, failures: int = 1, **kwargs):
        super().__init__(*args, **kwargs)
        self.failures = failures

    def post(self, thread: str, text: str, key: str = "") -> str:
        if self.failures:
            self.failures -= 1
            raise PlatformError("503 from the forum", retryable=True)
        return super().post(thread, text, key)


def test_delivery_failure_keeps_the_message_and_sends_it_once_later():
    store = Store()
    forum = FlakyForum(clock=lambda: LATER, failures=2)
    runner = Runner(store, forum, [GameRun.build(config())])
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    assert runner.step(at(2)).delivered == []
    assert len(store.pending()) == 2
    assert runner.step(at(3)).delivered == []
    delivered = runner.step(at(4)).delivered
    assert [d["kind"] for d in delivered] == ["phase_start", "vote_count"]
    assert store.pending() == []
    assert runner.step(at(5)).delivered == []
    failed = [row for row in store.outbox() if row["attempts"] > 1]
    assert failed and all("503" in row["last_error"] for row in failed)


def test_deadline_fires_between_posts_in_one_step():
    store, forum, run, runner = make(day_hours=1)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(30))
    forum.add_post("g/votes", "Carol", "vote Bob", at=at(60))        # at the deadline: counts
    forum.add_post("g/votes", "Dave", "vote Bob", at=at(61))         # after it: refused
    runner.step(at(90))
    state = runner.state(run)
    assert state.phase == "night1" and state.days[0].tally == {"Bob": 2}
    reasons = [f["reason"] for f in store.flags("g")]
    assert any("only during the day" in r for r in reasons)


def test_store_keeps_a_post_once_and_records_edits():
    store = Store()
    post = Post("local:1", "g/votes", "Alice", START, "vote Bob")
    assert store.save_posts("local", [post, post]) == 1
    edited = Post("local:1", "g/votes", "Alice", START, "vote Carol", edited=at(5))
    assert store.save_posts("local", [edited]) == 0
    row = store.db["posts"].get("local:1")
    assert row["body"] == "vote Bob" and row["edited_body"] == "vote Carol"


def test_migrations_apply_once(tmp_path):
    Store(tmp_path / "x.db").close()
    store = Store(tmp_path / "x.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    from forumbot.storage import migrations
    assert migrations.pending(store.db) == [] and store.db["_sqlite_migrations"].count == len(migrations._migrations)


VOTE_TEXTS = st.sampled_from(["vote Alice", "vote Bob", "vote Carol", "vote Dave", "vote Eve", "unvote",
                              "no lynch", "vote Zed", "vote Jo", "final vote Bob", "hello"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(posts=st.lists(st.tuples(st.sampled_from(PLAYERS + ["Stranger"]), VOTE_TEXTS,
                                st.integers(min_value=1, max_value=6)), max_size=40),
       limit_used=st.sampled_from([0, 2]))
def test_any_votes_count_each_living_voter_once_and_equal_a_recount(posts, limit_used):
    store = Store()
    forum = LocalForum(clock=lambda: LATER)
    cfg = GameConfig(name="g", game="mafia", lang="en", start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                     options={"day_hours": 2, "night_hours": 1}, phase="day1", state={"no_lynch_used": limit_used})
    run = GameRun.build(cfg)
    runner = Runner(store, forum, [run])
    runner.start(START)
    minute = 0
    for author, text, gap in posts:
        minute += gap
        forum.add_post("g/votes", author, text, at=at(minute))
        if minute % 3 == 0:
            runner.step(at(minute))
    runner.step(at(minute + 1))
    state = runner.state(run)
    voters = [v for wagon_voters in run.game.summary(state)["votes"].values() for v in wagon_voters]
    assert len(voters) == len(set(voters))                          # nobody counted twice
    assert set(voters) <= set(state.alive)                          # only the living vote
    assert all(t in state.alive or t == NO_LYNCH for t in state.current.values())
    assert sum(len(v) for v in run.game.summary(state)["votes"].values()) == len(state.current)
    recount = runner.recount(run, at(minute + 1))
    assert run.game.summary(recount) == run.game.summary(state)


def test_private_messages_are_stored_and_marked_read_only_after_the_step():
    store, forum, run, runner = make()
    forum.add_pm("Alice", forum.account, "Проверяю Боба", at=at(1))
    store.db.execute("CREATE TRIGGER fail BEFORE INSERT ON processed "
                     "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    with pytest.raises(sqlite3.IntegrityError):
        runner.step(at(2))
    assert len(forum.fetch_pms()) == 1                      # not committed: still unread on the platform
    # (stored in the step's one transaction, so rolled back with it: fetched again, as it is still unread)
    assert store.db["posts"].count == 0
    store.db.execute("DROP TRIGGER fail")
    runner.step(at(3))
    assert forum.fetch_pms() == []
    assert [row["post"] for row in store.db["processed"].rows] == ["local-pm:1"]


def test_votes_by_pm_do_not_count():
    store, forum, run, runner = make()
    forum.add_pm("Alice", forum.account, "vote Bob", at=at(1))
    runner.step(at(2))
    assert runner.state(run).current == {}


def test_a_deadline_the_game_ignores_does_not_stop_the_posts_after_it():
    """A game may leave a deadline standing (waiting for the host, say): the posts after it are still read."""
    from forumbot.games.mafia.game import MafiaGame

    class Stubborn(MafiaGame):
        def on_deadline(self, state, at, now=None):
            return state, []

    store, forum, run, runner = make(day_hours=1)
    run.game = Stubborn()
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(90))
    runner.step(at(120))
    assert runner.state(run).phase == "day1" and len(store.processed_posts("g")) == 1
    assert any("after the day's deadline" in f["reason"] for f in store.flags("g"))


def edited_day(policy: str):
    store = Store()
    forum = LocalForum(clock=lambda: LATER, edit_policy=policy)
    run = GameRun.build(config(day_hours=10))
    runner = Runner(store, forum, [run])
    runner.start(START)
    first = forum.add_post("g/votes", "Alice", "vote Bob", at=at(10))
    doomed = forum.add_post("g/votes", "Carol", "vote Bob", at=at(20))
    runner.step(at(30))
    forum.edit_post(first, "vote Dave", at=at(60))
    forum.delete_post(doomed)
    runner.step(at(11 * 60))                      # past the deadline: rechecked, then the day ends
    return store, runner.state(run), [f["reason"] for f in store.flags("g")]


def test_edit_policy_first_seen_keeps_the_first_text():
    store, state, reasons = edited_day("first_seen")
    assert state.days[0].tally == {"Bob": 2}
    assert any("deleted" in r for r in reasons) and not any("edited" in r for r in reasons)
    assert store.db["posts"].get("local:1")["edited_body"] == "vote Dave"    # kept beside the first text


def test_edit_policy_flag_tells_the_host():
    _, state, reasons = edited_day("flag")
    assert state.days[0].tally == {"Bob": 2}
    assert any("edited; the first-seen text counts" in r for r in reasons)


def test_edit_policy_edited_reads_the_new_text_as_of_the_edit():
    _, state, reasons = edited_day("edited")
    assert state.days[0].tally == {"Dave": 1, "Bob": 1}
    assert any("new text is read as of the edit" in r for r in reasons)


def test_vote_count_kept_in_one_post_edited_in_place():
    store, forum, run, runner = make(vote_count_edit=True)
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(1))
    runner.step(at(2))
    forum.add_post("g/votes", "Carol", "vote Bob", at=at(3))
    runner.step(at(4))
    forum.add_post("g/votes", "Dave", "vote Carol", at=at(5))
    forum.add_post("g/votes", "Eve", "vote Carol", at=at(6))
    runner.step(at(7))
    counts = [p for p in forum.thread_posts("g/votes") if p["author"] == forum.account]
    assert len(counts) == 1 and "Vote count #3" in counts[0]["body"] and "Carol** (2/3" in counts[0]["body"]
    assert store.pending() == []


def test_vote_counts_waiting_for_a_platform_collapse_into_the_newest():
    store = Store()
    forum = FlakyForum(clock=lambda: LATER, failures=3)
    runner = Runner(store, forum, [GameRun.build(config(vote_count_edit=True))])
    runner.start(START)
    for minute, voter in [(1, "Alice"), (3, "Carol")]:
        forum.add_post("g/votes", voter, "vote Bob", at=at(minute))
        runner.step(at(minute + 1))
    runner.step(at(10))
    runner.step(at(11))
    counts = [p for p in forum.thread_posts("g/votes") if p["author"] == forum.account]
    assert len(counts) == 1 and "Vote count #2" in counts[0]["body"]
    superseded = [r for r in store.outbox() if (r["platform_id"] or "").startswith("superseded:")]
    assert len(superseded) == 1


def test_a_game_starts_at_its_start_time_not_before():
    store = Store()
    forum = LocalForum(clock=lambda: LATER)
    run = GameRun.build(config())
    runner = Runner(store, forum, [run])
    runner.start(START - timedelta(hours=5))
    assert store.game("g") is None and runner.next_deadline() == START
    runner.step(START - timedelta(hours=1))
    assert store.game("g") is None and forum.thread_posts("g/game") == []
    runner.step(START + timedelta(minutes=1))
    assert store.game("g") is not None and len(forum.thread_posts("g/game")) == 1
    assert runner.next_deadline() == START + timedelta(hours=48)
