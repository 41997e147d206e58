"""Games of one kind and language share one compiled grammar (a bot with 100 games held 100 copies, about
a third of its memory), while a host's extra commands and an edit of a grammar file still apply."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import forumbot.text.grammar
import forumbot.text.names
from forumbot.config.game import GameConfig
from forumbot.config.paths import data_dir
from forumbot.engine.loading import GameRun
from forumbot.model import PlayerRef, Post
from forumbot.text.grammar import Command

START = datetime(2026, 3, 1, 20, tzinfo=UTC)
PLAYERS = tuple(PlayerRef(p) for p in ("Alice", "Bob", "Carol"))


def config(name: str, **extra: object) -> GameConfig:
    return GameConfig(name=name, game="mafia", lang="en", start=START, players=PLAYERS, **extra)


def kinds(run: GameRun, text: str) -> list[str]:
    post = Post("local:1", run.thread_id("votes"), "Alice", START, text)
    return [intent.kind for intent in run.parser.parse(post).intents]


def test_games_of_one_kind_share_their_grammar() -> None:
    first, second = GameRun.build(config("g1")), GameRun.build(config("g2"))
    assert first.parser.grammar is second.parser.grammar
    assert kinds(second, "vote Bob") == ["vote"]
    assert GameRun.build(GameConfig(name="g3", game="mafia", lang="ru", start=START, players=PLAYERS)
                         ).parser.grammar is not first.parser.grammar


def test_a_hosts_own_commands_stay_its_own() -> None:
    plain = GameRun.build(config("plain"))
    own = GameRun.build(config("own", grammar=(Command("vote", ("zap {player}",)),)))
    assert own.parser.grammar is not plain.parser.grammar
    assert kinds(own, "zap Bob") == ["vote"]
    assert kinds(plain, "zap Bob") == []
    assert kinds(GameRun.build(config("again")), "zap Bob") == []   # the shared one did not take it


def test_an_edited_grammar_file_applies_to_games_built_after(tmp_path: Path, monkeypatch) -> None:
    parsers = tmp_path / "parsers"
    shutil.copytree(data_dir("parsers"), parsers)
    monkeypatch.setattr(forumbot.text.grammar, "data_dir", lambda name: tmp_path / name)
    before = GameRun.build(config("before"))
    assert kinds(before, "squash Bob") == []
    with (parsers / "mafia.en.toml").open("a", encoding="utf-8") as handle:
        handle.write('\n[[commands]]\nkind = "vote"\ntemplates = ["squash {player}"]\n')
    after = GameRun.build(config("after"))
    assert kinds(after, "squash Bob") == ["vote"]
    assert kinds(before, "squash Bob") == []


def test_each_game_reads_its_own_roster_in_its_language() -> None:
    second = GameRun.build(config("r2"))
    other = GameRun.build(GameConfig(name="r3", game="mafia", lang="en", start=START, players=PLAYERS[:2]))
    russian = GameRun.build(GameConfig(name="r4", game="mafia", lang="ru", start=START, players=PLAYERS))
    assert other.parser.roster.names == ("Alice", "Bob") and russian.parser.roster.lang == "ru"
    assert kinds(second, "vote Bob") == ["vote"] and kinds(russian, "vote Bob'а") == ["vote"]
