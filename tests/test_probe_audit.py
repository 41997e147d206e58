"""Probing `forumbot audit`'s reader of a human host's count with hostile and huge posts (long runs of
whitespace, thousands of post numbers, a megabyte of lines): it must never raise and must read them right;
and its cache of a thread's posts in any shape."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.audit.hostcount import read_count
from forumbot.audit.source import read_cached
from forumbot.platforms.local import LocalForum


def test_a_voter_list_with_100_kb_of_spaces_is_read():
    found = read_count("Vote count\nBob (1): Alice" + " " * 100_000 + "x\nCy (1): Dee", "bbcode")
    assert [w.target for w in found.wagons] == ["Bob", "Cy"]


def test_thousands_of_post_numbers_behind_a_voter_are_read():
    for trail in (" (1)", "(12)", " <<", "!", " lynched."):
        found = read_count("Vote count\nBob (1): Alice" + trail * 20_000, "bbcode")
        assert found.wagons[0].target == "Bob"


def test_a_megabyte_count_of_ordinary_lines_is_read():
    found = read_count("Vote count\n" + "Bob (7): Alice (12), Cy (13), Dee (14), Eve, Fay, Gus\n" * 20_000, "bbcode")
    assert len(found.wagons) == 20_000 and found.wagons[0].voters == ("Alice", "Cy", "Dee", "Eve", "Fay", "Gus")


def test_the_trail_and_separators_still_read_as_before():
    found = read_count("Vote Count\nBob (3): Alice (12) , Cy(14) and Dee <<< LYNCHED.\nNot voting: Eve ; Fay")
    assert found.wagons[0].voters == ("Alice", "Cy", "Dee") and found.not_voting == ("Eve", "Fay")


PIECES = ["Vote count", "\n", " ", "\t", "(", ")", "[", "]", ":", "-", "—", ",", ";", " and ", " и ", "<<", "!", ".",
          "L-2", "12", "lynched", "Not voting", "[quote]", "[/quote]", "[s]", "[/s]", "Bob", "Алиса", "\u202e", "\x00"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join), st.sampled_from(["bbcode", "markdown", "plain"]))
def test_no_host_post_makes_the_reader_raise(text, dialect):
    found = read_count(text, dialect)
    assert found is None or all(w.target for w in found.wagons)


@pytest.mark.parametrize("cache", ["[]", '{"posts": [1]}', '{"posts": [{"id": "x"}]}', '{"cursor": 7, "posts": []}',
                                   '{"posts": [{"id": "x", "author": "a", "at": "garbage", "body": ""}]}', "{", ""])
def test_a_cache_file_not_in_the_bots_shape_is_read_again_from_the_forum(tmp_path, cache):
    forum = LocalForum(tmp_path / "forum.db")
    forum.add_post("g/votes", "Alice", "vote Bob")
    key = "forum.db#g/votes"
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")).write_text(cache)
    posts = read_cached(forum, "g/votes", tmp_path / "cache", key)
    assert [(p.author, p.body) for p in posts] == [("Alice", "vote Bob")]
