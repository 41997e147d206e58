"""A vote moves one entry and the state still says what a recount says; the state's text is its JSON; a
backlog is fetched in bounded batches and all of it read; the bot's own posts are not stored yet still found
after a restart; templates are chosen once."""

from __future__ import annotations

from datetime import timedelta

from helpers import START, act, names, new_game
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.state import NO_LYNCH
from forumbot.model import Event, PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.render.renderer import Renderer
from forumbot.storage import Store

PLAYERS = names(9)
LATER = START + timedelta(days=30)
moves = st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(["vote", "unvote", "no_lynch"]),
                           st.sampled_from(PLAYERS), st.booleans()), max_size=60)


def recount(history: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[bool, int]]:
    """The day's entries from scratch, by the rule they were kept by before they were indexed: leaving a
    wagon strikes the voter's entry there; a vote puts a new entry on its wagon in place of the voter's old
    one. `history`: (voter, new target or "" for an unvote) of every vote that changed something."""
    entries: dict[tuple[str, str], tuple[bool, int]] = {}
    current: dict[str, str] = {}
    seq = 0
    for voter, target in history:
        if voter in current:
            old = current.pop(voter)
            entries[(voter, old)] = (True, entries[(voter, old)][1])
        if target:
            seq += 1
            entries[(voter, target)] = (False, seq)
            current[voter] = target
    return entries


def entries_of(state) -> dict[tuple[str, str], tuple[bool, int]]:
    return {(e.voter, e.target): (e.withdrawn, e.seq) for e in state.entries}


@settings(max_examples=60, deadline=None)
@given(moves)
def test_a_vote_moves_one_entry_and_the_state_matches_a_recount(plan):
    store = Store()
    state = new_game(9)
    store.commit_step("g", "mafia", {}, MAFIA.to_json(state), expected_version=0)
    version = 1
    history: list[tuple[str, str]] = []
    for voter, kind, target, reload in plan:
        before = state.current.get(voter)
        after, _ = act(state, voter, kind, target if kind == "vote" else None)
        if after.phase != "day1":   # a majority ended the day
            break
        store.commit_step("g", "mafia", None, MAFIA.to_json(after), expected_version=version)
        state, version = after, version + 1
        if state.current.get(voter) != before:
            history.append((voter, state.current.get(voter, "")))
        stored = store.game("g")
        assert stored.state == MAFIA.to_json(state) and MAFIA.from_json(stored.state) == state
        if reload:
            state = MAFIA.from_json(stored.state)
        assert len({(e.voter, e.target) for e in state.entries}) == len(state.entries)   # one entry a pair
        assert entries_of(state) == recount(history)


def test_recount_model_matches_the_game_on_a_fixed_day():
    state = new_game(9)
    plan = [("P01", "P02"), ("P03", "P02"), ("P01", "P04"), ("P01", "P02"), ("P03", NO_LYNCH), ("P01", "")]
    for voter, target in plan:
        if target == NO_LYNCH:
            state, _ = act(state, voter, "no_lynch")
        else:
            state, _ = act(state, voter, "vote", target) if target else act(state, voter, "unvote")
    assert entries_of(state) == {("P01", "P02"): (True, 4), ("P03", "P02"): (True, 2), ("P01", "P04"): (True, 3),
                                 ("P03", NO_LYNCH): (False, 5)}
    assert entries_of(state) == recount(plan)


def _runner(forum: LocalForum, store: Store) -> tuple[GameRun, Runner]:
    config = GameConfig(name="g", game="mafia", lang="en", start=START, players=tuple(PlayerRef(n) for n in PLAYERS),
                        options={"day_hours": 24 * 40, "votes_only": True}, phase="day1")
    run = GameRun.build(config)
    runner = Runner(store, forum, [run])
    runner.start(START)
    return run, runner


def test_a_backlog_is_fetched_in_bounded_batches_and_all_of_it_read():
    forum = LocalForum(clock=lambda: LATER, batch=100)
    store = Store()
    run, runner = _runner(forum, store)
    for number in range(250):
        forum.add_post("g/votes", PLAYERS[number % 9], f"vote {PLAYERS[(number + 1) % 9]}",
                       at=START + timedelta(minutes=number + 1))
    posts, cursor = forum.fetch_posts(["g/votes"], None)
    assert len(posts) == 100 and cursor == posts[-1].platform_id.split(":")[1]
    sizes: list[int] = []
    fetch = forum.fetch_posts
    forum.fetch_posts = lambda threads, after: _count(sizes, fetch, threads, after)   # type: ignore[method-assign]
    result = runner.step(LATER)
    assert max(sizes) <= 100 and sum(sizes) >= 250
    assert result.posts_fetched == 250 and result.intents == 250
    assert store.unprocessed_posts("g", ["g/votes"]) == []
    assert runner.state(run).current == {p: PLAYERS[(i + 1) % 9] for i, p in enumerate(PLAYERS)}


def _count(sizes, fetch, threads, after):
    got = fetch(threads, after)
    sizes.append(len(got[0]))
    return got


def test_the_bots_own_posts_are_not_stored_but_found_after_a_restart(tmp_path):
    forum = LocalForum(tmp_path / "forum.db", clock=lambda: LATER)
    store = Store(tmp_path / "bot.db")
    run, runner = _runner(forum, store)
    runner.step(LATER)                     # the opening post goes out
    opening = [p for p in forum.thread_posts("g/game") if p["author"] == forum.account]
    assert opening
    forum.add_post("g/votes", "P01", "vote P02", at=START + timedelta(minutes=1))
    runner.step(LATER)
    stored = store.db.execute("SELECT author FROM posts").fetchall()
    assert stored == [("P01",)]           # the bot's posts were fetched but not stored
    key = store.outbox("g")[0]["key"]
    assert forum.find_sent(key, thread="g/game") == f"local:{opening[0]['id']}"


def test_a_template_is_chosen_once(tmp_path):
    folder = tmp_path / "markdown"
    folder.mkdir()
    (folder / "modkill.j2").write_text("host's words for {{ e.name | esc }}", encoding="utf-8")
    renderer = Renderer("markdown", "en", template_dir=tmp_path)
    event = Event("modkill", {"thread": "game", "name": "P01", "role": None, "alive": []})
    assert renderer.text(event) == "host's words for P01\n"
    (folder / "modkill.j2").unlink()      # neither looked up nor read again while the game runs
    assert renderer.text(event) == "host's words for P01\n"


