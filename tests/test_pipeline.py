"""What the runner relies on when it does not read back what it wrote itself: a message it put in
the outbox goes out without a search on the platform, any other is searched for first; the game's row is
written only over the version the step read, even when no read came before the write; a game, the cursor
or the corrections written by another connection (or through the runner's own store by someone else) are
read again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from helpers import START

from forumbot.config.game import GameConfig
from forumbot.engine import corrections
from forumbot.engine.cycle import GameRun, Runner
from forumbot.errors import PlatformError, StaleState
from forumbot.games.mafia import MAFIA
from forumbot.model import Event, PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve"]
LATER = START + timedelta(days=30)   # the forum's clock: every post is in its past
NOW = START + timedelta(hours=1)     # the steps' (day 1 lasts 48 hours)


class Forum(LocalForum):
    """A local forum that counts searches for sent messages and fails the next `failures` posts."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.searched: list[str] = []
        self.failures = 0

    def find_sent(self, key, *, thread=None, to=None):
        self.searched.append(key)
        return super().find_sent(key, thread=thread, to=to)

    def post(self, thread, text, key=""):
        if self.failures:
            self.failures -= 1
            raise PlatformError("timed out (it may have gone out)", retryable=True)
        return super().post(thread, text, key)


def build(tmp_path, forum=None, store=None):
    forum = forum or Forum(tmp_path / "forum.db", clock=lambda: LATER)
    store = store or Store(tmp_path / "bot.db")
    config = GameConfig(name="g", game="mafia", lang="en", start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                        options={}, phase="day1")
    run = GameRun.build(config)
    return forum, store, run, Runner(store, forum, [run])


def bot_posts(forum):
    return [p["body"] for p in forum.db["forum_posts"].rows_where("author = ?", [forum.account], order_by="id")]


def test_only_a_message_that_may_have_gone_out_is_searched_for(tmp_path):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob", at=START + timedelta(minutes=1))
    runner.step(NOW)
    assert forum.searched == [] and len(bot_posts(forum)) == 2   # the opening and a count, no search
    forum.add_post("g/votes", "Carol", "vote Bob", at=START + timedelta(minutes=2))
    forum.failures = 1
    assert runner.step(NOW).errors
    count = store.pending()[0]["key"]
    assert forum.searched == []
    runner.step(NOW)                # a send that failed may have gone out: searched for, then sent once
    assert forum.searched == [count] and len(bot_posts(forum)) == 3 and store.pending() == []
    forum.add_post("g/votes", "Dave", "vote Carol", at=START + timedelta(minutes=3))
    forum.failures = 1
    runner.step(NOW)
    left = store.pending()[0]["key"]
    _, _, _, restarted = build(tmp_path, forum=forum, store=Store(tmp_path / "bot.db"))
    restarted.step(NOW)             # after a restart, every undelivered message is searched for first
    assert forum.searched == [count, left] and len(bot_posts(forum)) == 4
    outbox = {row["key"]: row for row in store.outbox()}
    assert outbox[count]["attempts"] == 2 and outbox[count]["last_error"]   # what `status` shows


def test_a_message_sent_but_not_recorded_is_found_not_sent_again(tmp_path, monkeypatch):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)

    def lost(*args, **kwargs):
        raise KeyboardInterrupt   # the bot stopped between the sends and their record

    monkeypatch.setattr(store, "record_delivery", lost)
    monkeypatch.setattr(store, "delivered", lost)   # (the runner's way to record what went out)
    with pytest.raises(KeyboardInterrupt):
        runner.step(NOW)
    monkeypatch.undo()
    assert len(bot_posts(forum)) == 1 and len(store.pending()) == 1
    _, _, _, restarted = build(tmp_path, forum=forum, store=Store(tmp_path / "bot.db"))
    restarted.step(NOW)
    # the delivery is recorded with the restarted runner's next write (the service's poll status writes one)
    restarted.store.platform_ok("local", NOW)
    assert len(bot_posts(forum)) == 1 and store.pending() == [] and len(forum.searched) == 1


def test_a_step_is_not_written_over_a_version_another_connection_wrote(tmp_path):
    ours, theirs = Store(tmp_path / "bot.db"), Store(tmp_path / "bot.db")
    state = {"the game's": "state"}
    ours.commit_step("g", "mafia", {}, state, expected_seq=0, expected_version=0)
    theirs.commit_step("g", "mafia", None, state, events=[(Event("x", {}), "")], expected_seq=0, expected_version=1)
    with pytest.raises(StaleState):   # ours wrote version 1 itself, so it does not read before writing
        ours.commit_step("g", "mafia", None, state, events=[(Event("y", {}), "")], expected_seq=0,
                         expected_version=1)
    assert [e["kind"] for e in ours.events("g")] == ["x"] and ours.game_version("g") == 2
    assert ours.commit_step("g", "mafia", None, state, events=[(Event("y", {}), "")], expected_seq=1,
                            expected_version=2) == 2


def test_a_runner_reads_again_what_someone_else_wrote(tmp_path):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)
    forum.add_post("g/votes", "Alice", "vote Bob", at=START + timedelta(minutes=1))
    runner.step(NOW)
    assert runner.state(run).current == {"Alice": "Bob"}
    # another connection (a second bot process, a tool) moves the game on
    other = Store(tmp_path / "bot.db")
    _, _, _, elsewhere = build(tmp_path, forum=forum, store=other)
    forum.add_post("g/votes", "Carol", "vote Dave", at=START + timedelta(minutes=2))
    elsewhere.step(NOW)
    assert runner.state(run).current == {"Alice": "Bob", "Carol": "Dave"}
    # ... or writes the posts cursor back: the runner reads it again and the posts once more (kept once)
    other.set_cursor(forum.name, "posts", "0")
    assert runner.step(NOW).posts_fetched == 0 and store.cursor(forum.name) != "0"
    # the same through the runner's own store: a game written by someone else than the runner
    state = runner.state(run)
    store.commit_step("g", "mafia", None, MAFIA.to_json(state), events=[(Event("x", {}), "")],
                      expected_version=store.game_version("g"))
    version = store.game_version("g")
    forum.add_post("g/votes", "Eve", "vote Dave", at=START + timedelta(minutes=3))
    runner.step(NOW)
    assert store.game_version("g") == version + 1 and runner.state(run).current["Eve"] == "Dave"


def test_a_correction_made_between_steps_is_read_by_the_next(tmp_path):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)
    vote = forum.add_post("g/votes", "Alice", "I think Bob", at=START + timedelta(minutes=1))
    runner.step(NOW)
    assert runner.state(run).current == {}
    console = Store(tmp_path / "bot.db")   # the host console has its own connection
    corrections.add(console, "g", vote, "vote_for", {"target": "Bob"}, "meant as a vote", "host", LATER)
    runner.step(NOW)
    assert runner.state(run).current == {"Alice": "Bob"}



def test_the_outbox_is_read_only_when_something_may_be_owed(tmp_path):
    forum, store, run, runner = build(tmp_path)
    runner.start(START)
    runner.step(NOW)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    forum.add_post("g/game", "Alice", "just talk", at=START + timedelta(minutes=1))
    runner.step(NOW)                  # nothing queued since the last delivery: the outbox is not read
    assert not [s for s in statements if "FROM outbox" in s]
    # another connection queues a message of the game and fails to send it: the next step sends it
    _, other, _, elsewhere = build(tmp_path, forum=forum, store=Store(tmp_path / "bot.db"))
    forum.add_post("g/votes", "Bob", "vote Carol", at=START + timedelta(minutes=2))
    forum.failures = 1
    elsewhere.step(NOW)
    assert len(other.pending()) == 1
    runner.step(NOW)
    assert store.pending() == [] and len(bot_posts(forum)) == 2   # the opening and the count, once
