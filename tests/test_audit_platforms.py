"""`forumbot audit` on the forums: a phpBB topic read as a guest on the fake board (paced, cached: a second
audit reads only the new page), and a Reddit submission on the fake Reddit server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import praw
import pytest
from fakephpbb import Board, FakePhpbb
from fakephpbb.recorded import recorded_page
from fakephpbb.state import Fault
from fakereddit import FakeReddit, RedditState, no_retry_sleep
from test_audit import EN

from forumbot.audit.audit import audit_posts
from forumbot.audit.report import render_report
from forumbot.audit.source import from_url, read_cached
from forumbot.errors import ConfigError
from forumbot.platforms import phpbb_html
from forumbot.platforms.phpbb import guest_reader
from forumbot.platforms.reddit import RedditPlatform

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
USERS = {"Hostess": 60, "Alice": 70, "Bob": 71, "Carol": 72, "Dave": 73, "Erin": 74, "Frank": 75}
# The board has no [s]: the same thread without the struck name in the third count.
SCRIPT = [(author, text.replace("[s]Frank[/s] ", "")) for author, text in EN]


def board_with(script: list[tuple[str, str]]) -> tuple[Board, int]:
    board = Board(posts_per_page=5)
    for name, number in USERS.items():
        board.add_user(number, name)
    board.add_forum(3, "Mafia")
    first, *rest = script
    topic = board.new_topic(3, USERS[first[0]], "Mafia: Day 1", first[1], at=START.timestamp())
    for n, (author, text) in enumerate(rest, 2):
        board.add_post(topic.id, USERS[author], text, at=(START + timedelta(minutes=n)).timestamp())
    return board, topic.id


def test_a_phpbb_topic_is_audited_as_a_guest_and_read_again_from_the_cache(tmp_path: Path) -> None:
    board, topic = board_with(SCRIPT)
    with FakePhpbb(board) as fake:
        url = f"{fake.url}/viewtopic.php?f=3&t={topic}"
        thread = from_url(url, cache_dir=tmp_path, min_interval=0)
        assert not any(path.startswith("/ucp.php") for _m, path in board.requests)     # never signed in
        assert len([p for _m, p in board.requests if p.startswith("/viewtopic.php")]) == 4   # 20 posts, 5 a page
        result = audit_posts(thread.posts, reading="bold")
        found = {c.post.author + str(i): [(d.voter, d.host, d.forumbot, d.sure) for d in c.differences]
                 for i, c in enumerate(result.checks)}
        assert found == {"Hostess0": [], "Hostess1": [("Carol", ("Bob",), None, True)],
                         "Hostess2": [("Bob", ("Alice", "Dave"), "Dave", True), ("Alice", (), "Bob", True)],
                         "Hostess3": [], "Hostess4": [("Erin", (), "Carol", False)]}
        report = render_report(result, thread.dialect)
        missed = result.checks[1]
        assert missed.post.url == f"{fake.url}/viewtopic.php?p={missed.post.platform_id[1:]}#{missed.post.platform_id}"
        assert f"[url={missed.post.url}]" in report

        board.add_post(topic, USERS["Carol"], "[vote]Bob[/vote]", at=(START + timedelta(minutes=30)).timestamp())
        board.add_post(topic, USERS["Hostess"], "Vote Count 2.2\nAlice (1): Bob\nBob (1): Carol",
                       at=(START + timedelta(minutes=31)).timestamp())
        board.requests.clear()
        again = from_url(url, cache_dir=tmp_path, min_interval=0)
        pages = [p for _m, p in board.requests if p.startswith("/viewtopic.php")]
        # the page the first read ended on (it may have grown) and the new one; never the first three again
        assert pages == [f"/viewtopic.php?t={topic}&start=15", f"/viewtopic.php?t={topic}&start=20"]
        assert len(again.posts) == len(thread.posts) + 2
        last = audit_posts(again.posts, reading="bold").checks[-1]
        assert [(d.voter, d.forumbot) for d in last.differences] == [("Erin", "Carol")]


def test_a_link_to_a_post_audits_its_whole_topic(tmp_path: Path) -> None:
    board, topic = board_with(SCRIPT)
    other = board.new_topic(3, USERS["Alice"], "Chat", "hello", at=START.timestamp())      # another topic
    middle = board.topics[topic].posts[12]                             # on the third page of five posts
    board.faults.append(Fault("viewtopic.php?p=", "redirect"))         # a moved board: followed
    with FakePhpbb(board) as fake:
        thread = from_url(f"{fake.url}/viewtopic.php?p={middle}#p{middle}", cache_dir=tmp_path, min_interval=0)
        with pytest.raises(ConfigError, match="no topic for post 9999.*does not exist"):
            guest_reader(f"{fake.url}/viewtopic.php?p=9999#p9999", min_interval=0)
    pages = [p for _m, p in board.requests if p.startswith("/viewtopic.php")]
    assert pages[:2] == [f"/viewtopic.php?p={middle}"] * 2                   # the redirect, then the page
    assert pages[2:6] == [f"/viewtopic.php?t={topic}" + (f"&start={n}" if n else "") for n in (0, 5, 10, 15)]
    assert [p.platform_id for p in thread.posts] == [f"p{n}" for n in board.topics[topic].posts]
    assert other.id != topic and len(thread.posts) == len(SCRIPT)
    result = audit_posts(thread.posts, reading="bold")
    assert [len(c.differences) for c in result.checks] == [0, 1, 2, 0, 1]      # the whole topic, as by its t=


def test_a_permalink_page_names_its_topic() -> None:
    # the recorded board's answer to a guest's viewtopic.php?p=35 (topic 3, the page from start=20)
    assert phpbb_html.page_topic(phpbb_html.parse(recorded_page("anon_permalink_softdeleted"))) == 3
    no_canonical = '<html><h2 class="topic-title"><a href="./viewtopic.php?t=7&amp;start=10">T</a></h2></html>'
    assert phpbb_html.page_topic(phpbb_html.parse(no_canonical)) == 7
    assert phpbb_html.page_topic(phpbb_html.parse("<html><div id='message'><p>No</p></div></html>")) is None


def test_a_guest_reads_one_page_a_second_by_default(tmp_path: Path) -> None:
    board, topic = board_with(SCRIPT)
    waits: list[float] = []
    with FakePhpbb(board) as fake:
        reader, thread = guest_reader(f"{fake.url}/viewtopic.php?t={topic}", sleep=waits.append)
        assert reader.http.min_interval == 1.0
        posts = read_cached(reader, thread, None, "key")
    assert len(posts) == len(SCRIPT)
    assert len(waits) == 3 and all(0.5 < w <= 1.0 for w in waits)       # before each page after the first


def test_a_reddit_submission_is_audited(tmp_path: Path) -> None:
    state = RedditState(clock=lambda: START.timestamp())
    with FakeReddit(state) as fake:
        for name in ["forumbot", "hostess", "alice", "bob", "carol", "dave"]:
            state.add_user(name, "pw")
        sid = state.add_submission("mafia", "Day 1", author="hostess", at=START.timestamp())
        script = [
            ("hostess", "Day 1 begins!"),
            ("alice", "##vote bob"),
            ("bob", "I vote alice"),
            ("carol", "vote bob\n\n> vote dave"),
            ("hostess", "**Vote count 1.1**\n\n* bob (2): alice, carol\n* alice (1): bob\n\nNot voting: dave"),
            ("bob", "unvote"),
            ("dave", "vote bob"),
            ("hostess", "**Vote count 1.2**\n\n* bob (3): alice, carol, dave\n* alice (1): ~~dave~~ bob"),
        ]
        ids = [state.add_comment(f"t3_{sid}", author, text, at=(START + timedelta(minutes=n)).timestamp())
               for n, (author, text) in enumerate(script, 1)]
        reddit = no_retry_sleep(praw.Reddit(**fake.praw_settings("forumbot", "pw")))
        bot = RedditPlatform(reddit, subreddit="mafia")
        thread = from_url(f"https://www.reddit.com/r/mafia/comments/{sid}/day_1/", cache_dir=tmp_path, reddit=bot)
    result = audit_posts(thread.posts)
    assert result.host == "hostess"
    assert [[(d.voter, d.host, d.forumbot, d.sure) for d in c.differences] for c in result.checks] == \
        [[], [("bob", ("alice",), None, True)]]                              # the host missed bob's unvote
    evidence = result.checks[1].differences[0].evidence[-1]
    assert evidence.read == "unvote" and evidence.post == f"t1_{ids[5]}" and "/comments/" in evidence.url
    report = render_report(result, thread.dialect)
    assert "**Vote count check**" in report and "[t1\\_" in report and "[url=" not in report


def test_an_unrelated_sqlite_file_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    import sqlite3

    notes = tmp_path / "notes.sqlite"
    conn = sqlite3.connect(notes)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    before = notes.read_bytes()
    with pytest.raises(ConfigError, match="not a forumbot local forum"):
        from_url(f"{notes}#x")
    assert notes.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    with pytest.raises(ConfigError, match="not a SQLite file"):
        from_url(f"{text}#x")
    assert text.read_text() == "not a database"
