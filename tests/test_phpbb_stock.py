"""Posts as a stock phpBB board shows them: no [s] unless the config names it among the board's extra BBCodes
(a withdrawn vote is greyed out instead); the host's example votes in a game topic are not players' votes."""

from __future__ import annotations

import pytest
from helpers import act, new_game, votes

from forumbot.engine.loading import shared_grammar
from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event, PlayerRef
from forumbot.platforms.phpbb import from_options
from forumbot.render import Renderer
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser


def count_text(**options: object) -> str:
    state = new_game(6)
    state, _ = votes(state, [("P01", "P02"), ("P03", "P04")])
    state, _ = act(state, "P01", "vote", "P04")      # P01 leaves P02: a withdrawn vote
    return Renderer("bbcode", "en", **options).text(Event("vote_count", view(state, state.phase_started)))


def test_a_stock_board_gets_no_strike_tag():
    stock = count_text(bbcode_extra=())
    assert "[s]" not in stock and "[color=gray]P01[/color]" in stock
    assert "[s]P01[/s]" in count_text(bbcode_extra=("s", "vote"))
    assert "[s]P01[/s]" in count_text()                          # a board not described: as before


def test_the_phpbb_config_names_the_boards_extra_bbcodes(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FORUMBOT_PHPBB_PASSWORD", "pw")
    base = {"url": "http://127.0.0.1:9/", "account": "forumbot"}
    assert from_options("board", base).bbcode_extra == ()          # stock phpBB by default
    assert from_options("board", {**base, "bbcode_extra": ["s", "[vote]"]}).bbcode_extra == ("s", "vote")
    assert from_options("board", {**base, "bbcode_extra": "s, vote"}).bbcode_extra == ("s", "vote")
    with pytest.raises(ConfigError, match="bbcode_extra"):
        from_options("board", {**base, "bbcode_extra": 3})


def test_the_hosts_example_vote_is_not_read_as_a_vote():
    roster = Roster([PlayerRef("Alice"), PlayerRef("Bob")], lang="en")
    parser = PostParser(shared_grammar("mafia", "en"), roster, None, "Host")
    opening = "Day 1 begins. Vote with [b]vote: Alice[/b]."
    assert parser.parse_text(opening, "bbcode", author="Host").intents == []
    assert [i.kind for i in parser.parse_text(opening, "bbcode", author="Bob").intents] == ["vote"]
    playing_host = PostParser(shared_grammar("mafia", "en"), roster, None, "Alice")   # a host who plays votes
    assert [i.kind for i in playing_host.parse_text(opening, "bbcode", author="Alice").intents] == ["vote"]
