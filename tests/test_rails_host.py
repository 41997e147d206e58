"""The host's side of the safety rails: host commands that name their phase and their game,
replacements that cannot lock the host out, games that can end, isolated games, the store failing without
a traceback, host lookalikes, and flags the host can see and resolve. Each test is named after its item."""

from __future__ import annotations

import os
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import START

from forumbot.cli import cli
from forumbot.config.bot import load_bot_config
from forumbot.config.game import GameConfig
from forumbot.engine.cycle import GameRun, Runner
from forumbot.errors import ConfigError
from forumbot.games.infiltration.setup import row_index
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

LATER = START + timedelta(days=60)
PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Eve")


def at(hours: float):
    return START + timedelta(hours=hours)


def config(name: str = "g", lang: str = "en", players=PLAYERS, host: str = "Host", **options) -> GameConfig:
    return GameConfig(name=name, game="mafia", lang=lang, start=START, host=host, phase="day1",
                      players=tuple(PlayerRef(n) for n in players),
                      options={"day_hours": 24, "night_hours": 12, **options})


def make(*configs: GameConfig, store: Store | None = None):
    forum = LocalForum(clock=lambda: LATER)
    runs = [GameRun.build(c) for c in (configs or (config(),))]
    runner = Runner(store or Store(), forum, runs)
    runner.start(START)
    return forum, runs, runner


def pms(forum: LocalForum, to: str) -> list[str]:
    return [p["body"] for p in forum.pms_to(to)]


def flags(runner: Runner, game: str = "g") -> list[str]:
    return [f["reason"] for f in runner.store.flags(game)]


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


# ---- 7 ----------------------------------------------------------------------------------------------
def test_item7_end_day_sent_twice_does_not_end_the_night():
    forum, (run,), runner = make()
    forum.add_pm("Host", forum.account, "end day", at=at(1))
    forum.add_pm("Host", forum.account, "end day", at=at(1.1))        # sent twice: the night must go on
    runner.step(at(2))
    state = runner.state(run)
    assert state.phase == "night1" and state.phase_ends == at(13)
    assert any("it is Night 1 now, not day" in p for p in pms(forum, "Host"))
    assert any("nothing was ended" in f for f in flags(runner))


def test_item7_end_day_after_the_vote_that_ended_the_day_is_refused():
    forum, (run,), runner = make()
    for voter in ("Alice", "Bob", "Carol"):                           # 3 of 5: a majority ends the day
        forum.add_post("g/votes", voter, "vote Dave", at=at(1))
    forum.add_pm("Host", forum.account, "end day", at=at(1.5))         # the host had not seen it
    runner.step(at(2))
    state = runner.state(run)
    assert state.phase == "night1" and state.phase_ends == at(13)


def test_item7_end_names_the_phase_and_a_bare_end_phase_is_answered_with_the_command():
    forum, (run,), runner = make()
    forum.add_pm("Host", forum.account, "end night", at=at(1))         # it is day: refused
    forum.add_pm("Host", forum.account, "end phase", at=at(1.2))       # names nothing: refused, told how
    runner.step(at(2))
    assert runner.state(run).phase == "day1"
    answers = pms(forum, "Host")
    assert any("it is Day 1 now, not night" in p for p in answers)
    assert any('write "end day"' in p for p in answers)
    forum.add_pm("Host", forum.account, "end phase day1", at=at(3))
    runner.step(at(4))
    assert runner.state(run).phase == "night1"


def test_item7_russian_end_night_by_day_is_refused():
    forum, (run,), runner = make(config(lang="ru", players=("Алиса", "Боб", "Вера", "Глеб")))
    forum.add_pm("Host", forum.account, "Завершить ночь", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase == "day1"
    assert any("сейчас День 1, а не ночь" in p for p in pms(forum, "Host"))
    forum.add_pm("Host", forum.account, "Завершить день", at=at(3))
    runner.step(at(4))
    assert runner.state(run).phase == "night1"


# ---- 8 ----------------------------------------------------------------------------------------------
def test_item8_a_host_of_two_games_must_name_the_game():
    forum, (one, two), runner = make(config("g1"), config("g2"))
    forum.add_pm("Host", forum.account, "extend 24", at=at(1))
    runner.step(at(2))
    assert runner.state(one).phase_ends == at(24) and runner.state(two).phase_ends == at(24)
    answers = pms(forum, "Host")
    assert len(answers) == 1 and "g1, g2" in answers[0]                # one answer, naming the choices
    forum.add_pm("Host", forum.account, "game g2\nextend 24", at=at(3))
    runner.step(at(4))
    assert runner.state(one).phase_ends == at(24) and runner.state(two).phase_ends == at(48)
    forum.add_pm("Host", forum.account, "game g3\nextend 24", at=at(5))
    runner.step(at(6))
    assert runner.state(two).phase_ends == at(48)
    assert any("no game named g3" in p and "g1, g2" in p for p in pms(forum, "Host"))


def test_item8_a_game_not_started_yet_does_not_count():
    later = GameConfig(**{**config("g0").__dict__, "start": at(100)})     # first by name, not started
    forum, (waiting, run), runner = make(later, config("g1"))
    forum.add_pm("Host", forum.account, "extend 24", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase_ends == at(48) and runner.store.game("g0") is None


def test_item8_a_host_of_one_game_need_not_name_it():
    forum, (run, other), runner = make(config("g1"), config("g2", host="Other"))
    forum.add_pm("Host", forum.account, "extend 24", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase_ends == at(48) and runner.state(other).phase_ends == at(24)
    answers = pms(forum, "Host")      # one answer: done, with what it did
    assert len(answers) == 1 and "`extend 24`" in answers[0] and "extended by 24 h" in answers[0]


# ---- 9 ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("account,why", [("Host", "that is the host"), ("hоst", "that is the host"),
                                         ("Alice", "already plays"), ("alice", "already plays")])
def test_item9_replace_with_the_host_or_an_active_player_is_refused(account, why):
    forum, (run,), runner = make()
    forum.add_pm("Host", forum.account, f"replace Dave with {account}", at=at(1))
    forum.add_pm("Host", forum.account, "extend 12", at=at(2))          # the host is still the host
    forum.add_post("g/votes", "Dave", "vote Eve", at=at(3))             # and Dave still plays Dave
    runner.step(at(4))
    state = runner.state(run)
    assert runner.host_state(run).accounts == {}
    assert state.phase_ends == at(36) and state.current == {"Dave": "Eve"}
    assert any(why in p for p in pms(forum, "Host"))


# ---- 12 ---------------------------------------------------------------------------------------------
GAME = """\
[game]
name = "mafia"
lang = "en"
start = "2026-05-01T18:00:00Z"
{extra}
{players}
"""


def game_file(tmp_path: Path, name: str, players=("Alice", "Bob", "Carol"), extra: str = "", roles=None) -> Path:
    roles = roles or {}
    text = "".join(f'[[players]]\nname = "{p}"\n' + (f'role = "{roles[p]}"\n' if p in roles else "") for p in players)
    path = tmp_path / f"{name}.toml"
    path.write_text(GAME.format(extra=extra, players=text), encoding="utf-8")
    return path


@pytest.mark.parametrize("players,extra,roles,needle", [
    (("Alice",), "", None, "at least 3 players; the roster has 1"),
    (("Alice", "Bob", "Carol"), 'ruleset = "bodysnatchers"', None, "no player has a role"),
    (("Alice", "Bob", "Carol"), 'ruleset = "bodysnatchers"', {"Alice": "maniac", "Bob": "writer"},
     "Carol have no role"),
    (("Alice", "Bob", "Carol"), "", None, "the ruleset has no roles"),
    (("Alice", "Bob", "Carol"), 'dialect = "wiki"', None, "dialect = 'wiki' is not one the bot can post in"),
])
def test_item12_check_config_refuses_games_that_cannot_be_played(tmp_path, players, extra, roles, needle):
    path = game_file(tmp_path, "nonsense", players, extra, roles)
    out = invoke("check-config", str(path))
    assert out.exit_code == 2 and needle in out.output and "Traceback" not in out.output, out.output


def test_item12_a_vote_count_game_and_a_full_game_pass(tmp_path):
    votes = game_file(tmp_path, "votes", extra="[game.options]\nvotes_only = true")
    full = playable(tmp_path, "full")
    out = invoke("check-config", str(votes), str(full))
    assert out.exit_code == 0 and out.output.count("ok:") == 2, out.output


ROLES = {"Alice": "maniac", "Bob": "writer", "Carol": "bouncer"}


def playable(tmp_path: Path, name: str = "g") -> Path:
    """A game every version of the bot accepts: every player has a role of the ruleset."""
    return game_file(tmp_path, name, extra='ruleset = "bodysnatchers"', roles=ROLES)


def bot_file(tmp_path: Path, game: Path, dialect: str = "markdown") -> Path:
    path = tmp_path / "bot.toml"
    path.write_text(f'[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                    f'dialect = "{dialect}"\n[[games]]\nconfig = "{game.name}"\n', encoding="utf-8")
    return path


def test_item12_check_config_checks_bot_configs_and_the_bot_refuses_a_nonsense_game(tmp_path):
    good = bot_file(tmp_path, playable(tmp_path, "good"))
    out = invoke("check-config", str(good))
    assert out.exit_code == 0 and "ok:" in out.output, out.output
    bad = bot_file(tmp_path, game_file(tmp_path, "bad", players=("Alice",)))
    out = invoke("check-config", str(bad))
    assert out.exit_code == 2 and "at least 3 players" in out.output, out.output
    with pytest.raises(ConfigError, match="at least 3 players"):   # `forumbot run` loads it the same way
        load_bot_config(bad)
    wiki = bot_file(tmp_path, playable(tmp_path, "good"), "wiki")
    out = invoke("check-config", str(wiki))
    assert out.exit_code == 2 and "'wiki' is not one the bot can post in" in out.output, out.output


def test_item12_a_game_that_cannot_start_is_flagged_and_the_others_start():
    forum = LocalForum(clock=lambda: LATER)
    broken = GameRun.build(config("broken"))
    broken.config = GameConfig(**{**broken.config.__dict__, "options": {"day_hour": 24}})   # a typo
    good = GameRun.build(config("good"))
    runner = Runner(Store(), forum, [broken, good])
    runner.step(at(1))
    runner.step(at(2))
    assert runner.store.game("good") is not None and runner.store.game("broken") is None
    reasons = flags(runner, "broken")
    assert len(reasons) == 1 and "cannot start" in reasons[0] and "day_hour" in reasons[0]


# ---- 13 ---------------------------------------------------------------------------------------------
def test_item13_a_huge_extend_is_refused_not_a_crash():
    forum, (run,), runner = make()
    forum.add_pm("Host", forum.account, "extend 100000000", at=at(1))
    forum.add_pm("Host", forum.account, f"extend {24 * 366 + 1}", at=at(1.5))
    forum.add_post("g/votes", "Alice", "vote Bob", at=at(2))
    runner.step(at(3))
    state = runner.state(run)
    assert state.phase_ends == at(24) and state.current == {"Alice": "Bob"}
    assert sum("at most" in p for p in pms(forum, "Host")) == 2


def test_item13_numbers_players_send_are_bounded():
    assert row_index(0, "²")[0] is None                       # a digit to str.isdigit, not to int()
    assert row_index(0, "9" * 5000)[0] is None                # past int()'s digit limit


def test_item13_one_poison_post_is_skipped_and_flagged_and_every_game_goes_on(monkeypatch):
    forum, (one, two), runner = make(config("g1"), config("g2", host="Other"))
    original = one.game.apply

    def apply(state, intent):
        if intent.data.get("target") == "Eve" and intent.author == "Carol":
            raise OverflowError("date value out of range")
        return original(state, intent)

    monkeypatch.setattr(one.game, "apply", apply)    # the same game object plays both: g2 is hit too
    forum.add_post("g1/votes", "Alice", "vote Bob", at=at(1))
    forum.add_post("g1/votes", "Carol", "vote Eve\nvote Dave", at=at(2))     # the poison post
    forum.add_post("g1/votes", "Dave", "vote Bob", at=at(3))
    forum.add_post("g2/votes", "Bob", "vote Alice", at=at(3))
    result = runner.step(at(4))
    assert not result.errors
    assert runner.state(one).current == {"Alice": "Bob", "Dave": "Bob"}   # nothing of the poison post counted
    assert runner.state(two).current == {"Bob": "Alice"}
    poison = [f for f in runner.store.flags("g1") if "could not be read" in f["reason"]]
    assert len(poison) == 1 and poison[0]["author"] == "Carol" and "OverflowError" in poison[0]["reason"]
    runner.step(at(5))
    assert len([f for f in runner.store.flags("g1") if "could not be read" in f["reason"]]) == 1   # read once


def test_item13_a_game_whose_step_fails_is_flagged_once_and_the_others_go_on(monkeypatch, tmp_path):
    store = Store(tmp_path / "bot.db")
    forum, (one, two), runner = make(config("g1"), config("g2", host="Other"), store=store)
    forum.add_post("g1/votes", "Alice", "vote Bob", at=at(1))
    forum.add_post("g2/votes", "Bob", "vote Alice", at=at(1))
    calls = []

    def failing_advance(run, now, result, reach, original=runner._advance):
        if run.name == "g1":
            calls.append(now)
            raise RuntimeError("boom")
        return original(run, now, result, reach)

    monkeypatch.setattr(runner, "_advance", failing_advance)
    first = runner.step(at(2))
    runner.step(at(3))
    assert first.failed_games == ["g1"] and len(calls) == 2
    assert runner.state(two).current == {"Bob": "Alice"}
    reasons = [f for f in flags(runner, "g1") if "boom" in f]
    assert len(reasons) == 1                                      # flagged once, not every poll
    out = invoke("status", "--db", str(tmp_path / "bot.db"))
    assert out.exit_code == 0 and "boom" in out.output, out.output


# ---- 14 ---------------------------------------------------------------------------------------------
def damaged_store(tmp_path: Path) -> Path:
    path = tmp_path / "bot.db"
    forum, (run,), runner = make(store=Store(path))
    for number in range(300):
        forum.add_post("g/votes", "Alice", f"vote Bob {'x' * 200} {number}", at=at(1))
    runner.step(at(2))
    root = runner.store.db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()[0]
    runner.store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    runner.store.close()
    size = sqlite3.connect(path).execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * size)
        handle.write(b"\xde\xad\xbe\xef" * (size // 4))
    return path


def test_item14_a_damaged_store_gives_exit_2_and_no_traceback(tmp_path):
    path = damaged_store(tmp_path)
    out = invoke("status", "--db", str(path))
    assert out.exit_code == 2 and isinstance(out.exception, SystemExit), out.output
    assert "the store failed" in out.output and "fix:" in out.output, out.output


@pytest.mark.parametrize("failure,fix", [("database or disk is full", "free some disk space"),
                                          ("attempt to write a readonly database", "permissions")])
def test_item14_a_full_disk_or_read_only_store_during_a_poll_gives_exit_2(tmp_path, monkeypatch, failure, fix):
    bot = bot_file(tmp_path, playable(tmp_path))

    def fails(*args, **kwargs):
        raise sqlite3.OperationalError(failure)

    monkeypatch.setattr(Store, "save_posts", fails)      # the game starts; the poll's first write fails
    out = invoke("run", "--config", str(bot), "--once")
    assert out.exit_code == 2 and isinstance(out.exception, SystemExit), out.output
    assert failure in out.output and fix in out.output
    monkeypatch.undo()
    out = invoke("status", "--config", str(bot))         # not a stale "last good poll"
    assert out.exit_code == 0 and "last error at" in out.output and f"the store failed: {failure}" in out.output


def test_item14_a_read_only_store_file_gives_exit_2(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; the test above covers the message")
    bot = bot_file(tmp_path, playable(tmp_path))
    assert invoke("run", "--config", str(bot), "--once").exit_code == 0
    files = [tmp_path / n for n in ("bot.db", "bot.db-wal", "bot.db-shm") if (tmp_path / n).exists()]
    for path in [*files, tmp_path]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        out = invoke("run", "--config", str(bot), "--once")
        assert out.exit_code == 2 and isinstance(out.exception, SystemExit), out.output
    finally:
        for path in [tmp_path, *files]:
            path.chmod(0o755 if path.is_dir() else 0o644)


def test_item14_a_roster_that_is_not_utf8_gives_exit_2(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_bytes("Алиса\nБоб\n".encode("cp1251"))
    out = CliRunner().invoke(cli, ["parse", "--roster", str(roster)], input="vote Bob")
    assert out.exit_code == 2 and "not UTF-8" in out.output and isinstance(out.exception, SystemExit), out.output


def test_item14_a_toml_file_with_a_bom_is_read(tmp_path):
    path = playable(tmp_path, "bom")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    out = invoke("check-config", str(path))
    assert out.exit_code == 0 and "ok:" in out.output, out.output


# ---- 19 ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lookalike", ["Hоst", "host", "Host ", "HOST"])
def test_item19_host_lookalikes_are_refused_and_flagged(lookalike):
    forum, (run,), runner = make()
    forum.add_pm(lookalike, forum.account, "extend 48", at=at(1))
    runner.step(at(2))
    assert runner.state(run).phase_ends == at(24)
    assert any("only the host" in p for p in pms(forum, lookalike))
    assert any(f["author"] == lookalike and "only the host" in f["reason"] for f in runner.store.flags("g"))


# ---- 20 ---------------------------------------------------------------------------------------------
def test_item20_status_lists_open_flags_and_flags_resolves_them(tmp_path):
    path = tmp_path / "bot.db"
    forum, (run,), runner = make(store=Store(path))
    forum.add_post("g/votes", "Alice", "vote Zorro", at=at(1))            # an unknown name: a flag with a link
    forum.add_pm("Bob", forum.account, "extend 12", at=at(2))              # a player's host command
    runner.step(at(3))
    runner.store.close()
    out = invoke("status", "--db", str(path))
    assert out.exit_code == 0, out.output
    listed = out.output.split("Open flags: ")[1]
    assert listed.startswith("2") and "local://g/votes#p" in listed
    assert listed.index("only the host") < listed.index("Zorro")           # newest first
    out = invoke("flags", "--db", str(path), "--game", "g")
    assert out.exit_code == 0 and "2 open flags of g" in out.output, out.output
    first = int(out.output.split("#")[1].split()[0])
    out = invoke("flags", "--db", str(path), "--resolve", str(first))
    assert out.exit_code == 0 and f"resolved: #{first}" in out.output
    assert "1 open flag" in invoke("flags", "--db", str(path)).output
    assert f"#{first}" in invoke("flags", "--db", str(path), "--all").output
    out = invoke("flags", "--db", str(path), "--resolve", str(first))          # no longer open
    assert out.exit_code == 2 and "not open flags" in out.output


def test_item20_the_hosts_unrecognised_pm_gets_an_answer():
    forum, (run,), runner = make()
    forum.add_pm("Host", forum.account, "how is everyone doing?", at=at(1))
    runner.step(at(2))
    answers = pms(forum, "Host")
    assert len(answers) == 1 and "no command found" in answers[0] and "end day" in answers[0]


def test_item20_a_refusal_goes_to_the_account_that_sent_the_post():
    forum, (run,), runner = make()
    forum.add_pm("Alice", forum.account, "extend 12", at=at(1))              # refused: Alice is not the host
    forum.add_pm("Host", forum.account, "replace Alice with alice_sub", at=at(2))
    runner.step(at(3))
    assert any("only the host" in p for p in pms(forum, "Alice"))
    assert not any("only the host" in p for p in pms(forum, "alice_sub"))
