"""A tournament that runs itself: samples/tournaments/liar-cup.toml replayed against numbers worked by hand
from the seed texts, and the parts one at a time (the plan's file, chaining, the ledger's reads, the host's
actions, corrections and their audit trail, a restart).

The sample worked by hand (docs/tournaments.md repeats it):

The ranked vote (seed 003: "the option with the most #1 picks will be played"; a voter who sends nothing
gets the default order 123 Game > Food Chain > Fruit Stand > ID Exchange). #1 picks: Ana, Ben, Dee Food
Chain; Cal and Eve (default) 123 Game. Food Chain 3 > 123 Game 2: Food Chain, no tie round.

Food Chain (seed 003), starting 12 hours after the vote's deadline (2026-09-03 12:00 + 12 h = 09-04 00:00).
Ana Hunter (Sky); Ben, Cal Prey, Main Habitat Field (Field); Dee, Eve Scavengers (Sky).
- Round 1: Ana attacks Dee and Eve ("Hunters may kill Prey and Scavengers"): both die. Prey: "1 base point
  ... plus the number of other players in your room divided by four (rounded up)": Ben and Cal are in the
  Field together, 1 + ceil(1/4) = 2 each. Hunter: "points equal to the number of Predators still alive"
  (0) "plus one every time a Predator dies" (0): 0. The Scavengers died: "If you die in a round, you do
  not gain any points from that round."
- Rounds 2-4: Ben and Cal stay in the Field ("move to Field"); wherever Ana is drawn to go, ceil(1/4) =
  ceil(2/4) = 1: 2 points a round each. Totals: Ben 8, Cal 8, Ana 0, Dee 0, Eve 0.
- The end: Ana's Death Condition ("any Predators are still alive") is not met (there are none), Ben and
  Cal were never attacked. The highest points among them: Ben and Cal, 8 each: two winners, "a Token of
  Life" each. Garnets "equal to the number of points ... divided by three, rounded down": Ben 2, Cal 2,
  Ana 0. The winners name the EC among those who met their Death Condition: Dee (2 votes).
- Ledger: Ben +1 ToL +2 garnets, Cal +1 ToL +2 garnets, Dee EC.

The host's correction: Eve +1 garnet (an entry of its own, logged as the host's with the reason).

Nisemonogatari (seed 000), one round, the ruleset's example chart, on the host's confirmation (09-11 00:00).
It reads each player's garnets from the ledger at its start: Ben 2, Cal 2, Eve 1 (Ana and Dee hold none).
"Adoration Earned = (10-A)x(B/5)", A counting every Character at the location:
- Ana's CharA, alone on the Rooftop, Lunch Alone, 5 Initiative: (10-1)x(5/5) = 9, +3.00 alone = 12.00.
- Ben's and Cal's CharA in the Schoolyard (A = 2), 5 Initiative: (10-2)x1 = 8.00 each. Ben teaches Rob a
  lesson and hides his CharA (2 garnets); Cal practises (+1 Initiative next round) and boosts (2 garnets).
- Dee's CharA alone in the Cafeteria, Share Lunch (x1.5 with at most 3 there): 9 x 1.5 = 13.50.
- Eve sends nothing: her Characters are idle.
- Four Characters confess: the example chart's tier "from 4: x1.25". Hearts: Ana 12 x 1.25 = 15.00; Ben
  8 x 1.25 = 10.00; Cal, boosted one tier to x1.5: 8 x 1.5 = 12.00; Dee 13.5 x 1.25 = 16.875, rounded to
  the hundredth half up: 16.88; Eve 0.
- Dee alone has the most: "two Tokens of Life". Eve alone has the least: the Elimination Candidate.
- Ledger: Ben -2 garnets, Cal -2 garnets, Dee +2 ToL, Eve EC.

The table: Dee 2 ToL, 0 garnets, EC once; Ben 1 ToL, 2 - 2 = 0 garnets; Cal the same; Eve 0 ToL, 1 garnet,
EC once; Ana nothing. Most Tokens first, then most garnets, then by name: Dee, Ben, Cal, Eve, Ana.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.config.paths import data_dir
from forumbot.config.tomlfile import parse_toml
from forumbot.config.tournament import load_plan, plan_from
from forumbot.engine import tournament as tour
from forumbot.engine.cycle import Runner
from forumbot.engine.tournament_replay import load_tournament_scenario, replay_tournament
from forumbot.errors import ConfigError, IllegalIntent
from forumbot.games.tournament import Entry, standings, start_options
from forumbot.model import format_time, parse_time
from forumbot.platforms.local import LocalForum
from forumbot.storage import Store

SAMPLE = data_dir("samples") / "tournaments" / "liar-cup.toml"
AT = datetime(2026, 9, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def result():
    done = replay_tournament(SAMPLE)
    yield done
    assert done.store is not None
    done.store.close()


def test_the_sample_reaches_the_numbers_worked_by_hand(result):
    assert result.differences() == []
    table = [(s["player"], s["tol"], s["garnets"], s["ec"]) for s in result.state["standings"]["standings"]]
    assert table == [("Dee", 2, 0, 1), ("Ben", 1, 0, 0), ("Cal", 1, 0, 0), ("Eve", 0, 1, 1), ("Ana", 0, 0, 0)]


def test_at_the_end_the_last_games_thread_gets_the_standings_and_the_masks(result):
    standings, masks = result.messages[-2:]
    assert (standings["game"], standings["thread"], standings["kind"]) == ("main-2", "game", "tournament_standings")
    assert "1. Dee: 2 Tokens of Life, 0 garnets, Elimination Candidate" in standings["text"]
    assert masks["kind"] == "masks_reveal" and "- Ana: anna\\_k (MF)" in masks["text"]
    assert [m["kind"] for m in result.messages].count("masks_reveal") == 1


def test_the_vote_picks_the_game_that_starts_at_the_time_the_host_set(result):
    started = {r["game"]: r for r in result.state["log"] if r["kind"] == "started"}
    ended = {r["game"]: r for r in result.state["log"] if r["kind"] == "ended"}
    assert ended["cyoa"]["data"]["winner"] == "Food Chain" and ended["cyoa"]["at"] == "2026-09-03T12:00:00Z"
    assert started["main-1"]["data"]["game"] == "foodchain" and started["main-1"]["data"]["picked"] == "Food Chain"
    assert started["main-1"]["data"]["start"] == "2026-09-04T00:00:00Z"          # 12 hours after the vote
    assert started["main-1"]["data"]["players"] == ["Ana", "Ben", "Cal", "Dee", "Eve"]   # the roster's masks


def test_a_game_on_confirmation_waits_for_the_host_and_reads_the_garnets_the_ledger_holds(result):
    log = result.state["log"]
    confirmed = next(r for r in log if r["kind"] == "confirmed")
    started = next(r for r in log if r["kind"] == "started" and r["game"] == "main-2")
    assert confirmed["by"] == "Host" and started["at"] == confirmed["at"] == "2026-09-11T00:00:00Z"
    # Food Chain's 2 and 2, and the host's correction's 1: read at the start, not copied by hand
    assert started["data"]["options"]["garnets"] == {"Ben": 2, "Cal": 2, "Eve": 1}
    assert result.state["refused"][0]["why"].startswith("only the tournament's host")


def test_each_game_writes_its_results_back_and_the_host_corrections_say_who(result):
    rows = result.store.ledger("liar-cup")
    by_game: dict[str, list[tuple[str, int, int, int]]] = {}
    for row in rows:
        by_game.setdefault(row["game"], []).append((row["player"], row["tol"], row["garnets"], row["ec"]))
    assert by_game == {"main-1": [("Ben", 1, 2, 0), ("Cal", 1, 2, 0), ("Dee", 0, 0, 1)],
                       "host corrections": [("Eve", 0, 1, 0)],
                       "main-2": [("Ben", 0, -2, 0), ("Cal", 0, -2, 0), ("Dee", 2, 0, 0), ("Eve", 0, 0, 1)]}
    corrected = next(r for r in result.state["log"] if r["kind"] == "corrected")
    assert corrected["by"] == "Host" and corrected["game"] == "main-1"
    assert corrected["data"] == {"player": "Eve", "garnets": 1,
                                 "why": "Eve's attack-free round 1 was scored without her garnet"}


def test_masks_are_revealed_only_at_the_end_and_with_the_hosts_approval(tmp_path):
    scenario = load_tournament_scenario(SAMPLE)
    without = replace_host(scenario, keep=lambda a: a["do"] != "reveal")
    done = replay_tournament(without)
    assert not done.state["revealed"] and done.state["roster"][0] == {"mask": "Ana"}
    assert "masks_reveal" not in [m["kind"] for m in done.messages]
    assert "player" not in str(done.state["roster"])
    done.store.close()
    # approved, but the tournament is not over yet (stopped before Nisemonogatari's deadline)
    early = replay_tournament(scenario.__class__(scenario.plan, scenario.posts, scenario.host,
                                                 datetime(2026, 9, 12, 12, tzinfo=UTC), {}))
    assert early.state["finished"] is False and early.state["revealed"] is False
    early.store.close()


def replace_host(scenario, keep):
    return scenario.__class__(scenario.plan, scenario.posts, tuple(a for a in scenario.host if keep(a)),
                              scenario.until, {})


def replayed_until(folder, until):
    """The sample replayed up to `until` into a store and a forum in `folder`; the store's path."""
    scenario = load_tournament_scenario(SAMPLE)
    done = replay_tournament(scenario.__class__(scenario.plan, scenario.posts, scenario.host, until, {}),
                             store_path=folder / "s.db", forum_path=folder / "f.db")
    done.store.close()
    return folder / "s.db"


def test_without_the_hosts_confirmation_the_second_game_never_starts():
    scenario = load_tournament_scenario(SAMPLE)
    unconfirmed = replace_host(scenario, keep=lambda a: a["do"] != "confirm")
    done = replay_tournament(unconfirmed.__class__(scenario.plan, tuple(p for p in scenario.posts
                                                                        if p["game"] != "main-2"),
                                                   unconfirmed.host, None, {}))
    view = tour.view(done.store, scenario.plan)
    assert [(g["name"], g["status"]) for g in view["games"]] == [
        ("cyoa", "over"), ("main-1", "over"), ("main-2", "waiting for the host")]
    assert not view["finished"]
    done.store.close()


# ---- the plan's file ----------------------------------------------------------------------------------
HEAD = '[tournament]\nname = "cup"\nhost = "Host"\n[[players]]\nname = "Ana"\n[[players]]\nname = "Ben"\n'


@pytest.mark.parametrize(("text", "words", "line"), [
    ('[[players]]\nname = "ANA"\n[[games]]\nname = "v"\ngame = "ranked-vote"\nstart = "2026-09-01T12:00:00Z"\n',
     "the mask 'ANA' is taken", 9),
    ('[[games]]\nname = "v"\ngame = "chess"\nstart = "2026-09-01T12:00:00Z"\n', "not a game the bot runs", 10),
    ('[[games]]\nname = "v"\ngame = "ranked-vote"\n', "the first game needs start", 9),
    ('[[games]]\nname = "v"\ngame = "ranked-vote"\nstart = "2026-09-01T12:00:00Z"\n[[games]]\nname = "m"\n'
     'picked_by = "nope"\n', "is not a ranked vote listed before it", 14),
    ('[[games]]\nname = "v"\ngame = "ranked-vote"\nruleset = "cyoa"\nstart = "2026-09-01T12:00:00Z"\n'
     '[[games]]\nname = "m"\npicked_by = "v"\n[games.choices."Chess"]\ngame = "foodchain"\n',
     "'Chess' is not an option of v", 16),
    ('[[games]]\nname = "v"\ngame = "ranked-vote"\nstart = "2026-09-01T12:00:00Z"\n[[games]]\nname = "m"\n'
     'game = "foodchain"\nconfirm = true\nstart_hours = 2\n', "give one of start, start_hours and confirm", 15),
])
def test_a_bad_tournament_file_names_the_line_and_the_fix(text, words, line):
    with pytest.raises(ConfigError) as err:
        plan_from(parse_toml(HEAD + text, "cup.toml"))
    assert words in str(err.value) and err.value.line == line, (str(err.value), err.value.line)


def plan_file(tmp_path) -> Path:
    """The sample's plan alone (its [[posts]], [[host]] and [expect] are the sample's)."""
    text = SAMPLE.read_text(encoding="utf-8").split("# ---- the vote ----")[0]
    path = tmp_path / "cup.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_live_tournament_file_refuses_a_samples_posts_rather_than_leave_them_unread():
    with pytest.raises(ConfigError, match=r"\[posts\] is not part of a tournament file"):
        load_plan(SAMPLE)


def test_the_plan_survives_the_store_and_a_second_plan_of_the_same_name_is_refused(tmp_path):
    plan = load_plan(plan_file(tmp_path))
    store = Store()
    runner = Runner(store, LocalForum(":memory:"), [])
    tour.TournamentDriver(plan, runner).begin(AT)
    assert store.plan("liar-cup") == plan.to_json() and plan.__class__.from_json(plan.to_json()) == plan
    other = plan.__class__(plan.name, "Someone", plan.lang, plan.dialect, plan.members, plan.stages)
    with pytest.raises(ConfigError, match="another tournament called 'liar-cup'"):
        tour.TournamentDriver(other, Runner(store, LocalForum(":memory:"), [])).begin(AT)


def test_a_stopped_bot_builds_the_started_games_again_and_goes_on(tmp_path):
    """Half the tournament on one runner, the rest on a new one over the same store: the same result."""
    scenario = load_tournament_scenario(SAMPLE)
    half = datetime(2026, 9, 7, 12, tzinfo=UTC)
    first = replay_tournament(scenario.__class__(scenario.plan, scenario.posts, scenario.host, half, {}),
                              store_path=tmp_path / "s.db", forum_path=tmp_path / "f.db")
    first.store.close()
    store = Store(tmp_path / "s.db")
    runner = Runner(store, LocalForum(tmp_path / "f.db"), [])
    tour.TournamentDriver(scenario.plan, runner).begin(half)
    assert sorted(r.name for r in runner.runs) == ["cyoa", "main-1"]
    assert runner.state(runner.runs[1]).round == 2
    store.close()


# ---- the ledger's reads, and its changes ----------------------------------------------------------------
def test_a_game_reads_from_the_ledger_what_it_needs_at_its_start():
    entries = [Entry("Ana", tol=1, garnets=3), Entry("Ben", garnets=2), Entry("Ana", garnets=-1),
               Entry("Cal", tol=2)]
    players = ["Ana", "Ben", "Cal", "Dee"]
    assert start_options("nisemonogatari", {"garnets": {"Dee": 9}}, entries, players)["garnets"] == \
        {"Ana": 2, "Ben": 2}                     # the ledger is the authority, not a number copied by hand
    assert start_options("foodchain", {}, entries, players)["tokens"] == {"Ana": 1, "Cal": 2}
    assert "garnets" not in start_options("ranked-vote", {}, entries, players)


def test_entries_that_change_after_a_correction_replace_the_old_ones_and_the_log_says_who():
    store = Store()
    store.record_ledger("cup", "g", [Entry("Ana", tol=1)])
    assert store.record_ledger("cup", "g", [Entry("Ana", tol=1), Entry("Ben", ec=1)]) == 1   # grew: no change
    assert store.tournament_log("cup", "ledger_changed") == []
    assert store.record_ledger("cup", "g", [Entry("Ben", tol=1), Entry("Ana", ec=1)], by="Host") == 2
    assert [(r["player"], r["tol"], r["ec"]) for r in store.ledger("cup")] == [("Ben", 1, 0), ("Ana", 0, 1)]
    change = store.tournament_log("cup", "ledger_changed")[0]
    assert change["by"] == "Host" and change["game"] == "g"
    assert [(e["player"], e["tol"]) for e in change["data"]["before"]] == [("Ana", 1), ("Ben", 0)]
    assert [(e["player"], e["tol"]) for e in change["data"]["after"]] == [("Ben", 1), ("Ana", 0)]


def test_the_hosts_actions_are_the_hosts_alone_and_say_what_is_wrong():
    plan = load_tournament_scenario(SAMPLE).plan
    store = Store()
    with pytest.raises(IllegalIntent, match="only the tournament's host"):
        tour.correct(store, plan, "main-1", "Eve", {"garnets": 1}, "why", "Eve", AT)
    with pytest.raises(IllegalIntent, match="say why"):
        tour.correct(store, plan, "main-1", "Eve", {"garnets": 1}, " ", "Host", AT)
    with pytest.raises(IllegalIntent, match="not in liar-cup's roster"):
        tour.correct(store, plan, "main-1", "Zed", {"garnets": 1}, "x", "Host", AT)
    with pytest.raises(IllegalIntent, match="has no game 'main-9'"):
        tour.confirm(store, plan, "main-9", "Host", AT)
    with pytest.raises(IllegalIntent, match="starts by itself"):
        tour.confirm(store, plan, "main-1", "Host", AT)
    tour.correct(store, plan, "main-1", "Eve", {"garnets": 1}, "first", "Host", AT)
    tour.correct(store, plan, "main-2", "Eve", {"garnets": -1, "tol": 1}, "second", "Host", AT + timedelta(hours=1))
    kept = [(r["player"], r["tol"], r["garnets"]) for r in store.ledger("liar-cup")]
    assert kept == [("Eve", 0, 1), ("Eve", 1, -1)]
    assert [r["data"]["why"] for r in store.tournament_log("liar-cup", "corrected")] == ["first", "second"]
    assert format_time(AT) in [r["at"] for r in store.tournament_log("liar-cup")]


def test_a_vote_winner_with_no_game_in_the_plan_is_flagged_for_the_host(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8").replace('[games.choices."Food Chain"]', '[games.choices."Fruit Stand"]')
    path = tmp_path / "cup.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_tournament_scenario(path)
    only_the_vote = tuple(p for p in scenario.posts if p["game"] == "cyoa")
    done = replay_tournament(scenario.__class__(scenario.plan, only_the_vote, (), None, {}),
                             store_path=tmp_path / "s.db")
    flags = [f["reason"] for f in done.state["flags"]]
    assert any("main-1 cannot start: cyoa chose 'Food Chain'" in f for f in flags), flags
    assert len(flags) == 1                     # once, however many polls
    done.store.close()


def test_the_sample_is_where_the_docs_say():
    assert Path(SAMPLE).exists() and "liar-cup.toml" in (data_dir("docs") / "tournaments.md").read_text("utf-8")


def test_the_live_bot_runs_a_tournament_from_its_config(tmp_path):
    """`forumbot run` with [[tournaments]]: nobody votes, so every ballot is the default order (123 Game
    first), and main-1 starts as the plan's "123 Game" choice (Nisemonogatari) 12 hours after the vote."""
    from forumbot.config.bot import load_bot_config
    from forumbot.engine.replay import VirtualClock
    from forumbot.engine.service import Service

    plan_file(tmp_path)
    (tmp_path / "bot.toml").write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\n'
                                       'path = "forum.db"\n[[tournaments]]\nconfig = "cup.toml"\n'
                                       'platform = "local"\n', encoding="utf-8")
    config = load_bot_config(tmp_path / "bot.toml")
    service = Service(config, clock=VirtualClock(AT))
    service.simulate(AT, AT + timedelta(days=3), 3600)
    store = service.workers["local"].runner.store
    started = {r["game"]: r for r in store.tournament_log("liar-cup", "started")}
    assert started["main-1"]["data"]["game"] == "nisemonogatari" and started["main-1"]["data"]["picked"] == "123 Game"
    ended = store.tournament_log("liar-cup", "ended")[0]   # the poll that posted the result (the deadline's)
    assert ended["game"] == "cyoa" and AT + timedelta(hours=48) <= parse_time(ended["at"]) < AT + timedelta(hours=49)
    assert parse_time(started["main-1"]["data"]["start"]) == parse_time(ended["at"]) + timedelta(hours=12)
    assert store.game("main-1") is not None


# ---- forumbot tournament ---------------------------------------------------------------------------------
def test_the_command_shows_the_games_the_masks_and_the_hosts_actions(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli

    db = tmp_path / "s.db"
    replay_tournament(SAMPLE, store_path=db).store.close()
    out = CliRunner().invoke(cli, ["tournament", "--db", str(db)])
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.startswith("**Standings: liar-cup**") and "1. Dee: 2 Tokens of Life, 0 garnets, Elimination" in text
    assert "- main-1 (foodchain): over, started 2026-09-04T00:00:00Z, ended 2026-09-10T01:10:00Z" in text
    assert "- Ana: anna_k (MF)" in text and "Masks revealed:" in text
    assert "Host: corrected main-1 (Eve: garnets +1; Eve's attack-free round 1" in text
    refused = CliRunner().invoke(cli, ["tournament", "liar-cup", "--db", str(db), "--reveal", "--by", "Ana"])
    assert refused.exit_code == 1 and "only the tournament's host (Host)" in refused.output
    done = CliRunner().invoke(cli, ["tournament", "liar-cup", "--db", str(db), "--correct", "main-2", "Ana",
                                    "tol=+1", "--why", "a lesson miscounted", "--by", "Host"])
    assert done.exit_code == 0, done.output
    data = json.loads(CliRunner().invoke(cli, ["tournament", "--db", str(db), "--json"]).output)
    assert data["standings"]["standings"][1] == {"player": "Ana", "tol": 1, "garnets": 0, "ec": 0}   # by name
    assert data["log"][-1]["by"] == "Host" and data["log"][-1]["data"]["why"] == "a lesson miscounted"
    bad = CliRunner().invoke(cli, ["tournament", "liar-cup", "--db", str(db), "--correct", "main-2", "Ana",
                                   "lives=+1", "--why", "x", "--by", "Host"])
    assert bad.exit_code == 2 and "tol=+1, garnets=-2 or ec=+1" in bad.output


def test_the_command_replays_a_tournament_sample_and_checks_it():
    from click.testing import CliRunner

    from forumbot.cli import cli

    out = CliRunner().invoke(cli, ["tournament", "--replay", str(SAMPLE), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["state"]["standings"]["standings"][0]["player"] == "Dee"


# ---- the web forum's page ----------------------------------------------------------------------------------
def test_the_web_forum_shows_the_tournament_without_its_secrets(tmp_path):
    from forumbot.web.app import create_app
    from forumbot.web.config import WebSettings

    db = replayed_until(tmp_path, datetime(2026, 9, 12, 12, tzinfo=UTC))
    client = create_app(WebSettings(str(tmp_path / "f.db"), store=str(db))).test_client()
    assert 'href="/tournaments/liar-cup"' in client.get("/").get_data(as_text=True)
    page = client.get("/tournaments/liar-cup").get_data(as_text=True)
    assert "<td>main-2</td><td>nisemonogatari</td><td>running</td>" in page
    assert "<td>Ben</td><td>1</td><td>2</td>" in page                       # before Nisemonogatari's end
    assert "corrected main-1 for Eve" in page and "Eve&#39;s attack-free round 1" in page
    assert "anna_k" not in page and "cup-fc" not in page and "cup-nm" not in page   # masks and seeds kept
    assert client.get("/tournaments/nope").status_code == 404


def test_the_host_corrects_a_finished_round_and_the_ledger_follows_with_his_name(tmp_path):
    """Ben's Nisemonogatari orders read without the hide after the game is over: nothing is charged, so the
    ledger's -2 garnets of his go, and the log says the host changed main-2's results."""
    db, forum_db = tmp_path / "s.db", tmp_path / "f.db"
    replay_tournament(SAMPLE, store_path=db, forum_path=forum_db).store.close()
    store = Store(db)
    plan = load_tournament_scenario(SAMPLE).plan
    ben = next(p for p in store.processed_posts("main-2") if p.author == "Ben" and "hide" in p.body)
    later = datetime(2026, 9, 14, tzinfo=UTC)
    with pytest.raises(IllegalIntent, match="has read no post"):
        tour.reread(store, plan, "main-2", "nope", "x", "y", "Host", later)
    tour.reread(store, plan, "main-2", ben.platform_id, "CharA: Schoolyard, Teach Rob a Lesson, 5 initiative, confess",
                "Ben's hide was read from a quoted line", "Host", later)
    runner = Runner(store, LocalForum(forum_db), [])
    tour.TournamentDriver(plan, runner).begin(later)
    runner.step(later)
    rows = [(r["player"], r["garnets"]) for r in store.ledger("liar-cup") if r["game"] == "main-2"]
    assert ("Ben", -2) not in rows and ("Cal", -2) in rows
    change = store.tournament_log("liar-cup", "ledger_changed")[-1]
    assert change["by"] == "Host" and change["game"] == "main-2"
    ben_row = next(s for s in tour.view(store, plan)["standings"]["standings"] if s["player"] == "Ben")
    assert ben_row["garnets"] == 2
    store.close()


def test_check_config_checks_every_game_of_a_tournament_file(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli

    good = plan_file(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text(encoding="utf-8").replace('chart = "example", rounds = 1', "rounds = 1"),
                   encoding="utf-8")
    assert CliRunner().invoke(cli, ["check-config", str(good)]).exit_code == 0
    out = CliRunner().invoke(cli, ["check-config", str(bad)])
    assert out.exit_code == 2 and "bad.toml:69: main-2: " in out.output and "chart" in out.output


def test_a_live_game_without_a_seed_gets_a_secret_one_when_it_starts(tmp_path):
    plan = load_plan(plan_file(tmp_path))
    plan = plan.__class__(plan.name, plan.host, plan.lang, plan.dialect, plan.members,
                          (plan.stages[0].__class__(plan.stages[0].name, "foodchain", {},
                                                    start=plan.stages[0].start),))
    store = Store()
    runner = Runner(store, LocalForum(":memory:"), [])
    driver = tour.TournamentDriver(plan, runner, fresh_seeds=True)
    driver.begin(AT)
    driver.step(AT)
    seed = store.tournament_log("liar-cup", "started")[0]["data"]["options"]["seed"]
    assert isinstance(seed, int) and runner.runs[0].config.options["seed"] == seed


def test_a_tournaments_game_may_not_share_its_name_with_a_game_of_the_bot_config(tmp_path):
    from forumbot.config.bot import load_bot_config

    plan_file(tmp_path)
    (tmp_path / "main-1.toml").write_text(
        '[game]\nname = "ranked-vote"\nruleset = "cyoa"\nstart = "2026-09-01T12:00:00Z"\n'
        '[[players]]\nname = "A"\n[[players]]\nname = "B"\n', encoding="utf-8")
    (tmp_path / "bot.toml").write_text('[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                                       '[[games]]\nconfig = "main-1.toml"\n'
                                       '[[tournaments]]\nconfig = "cup.toml"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="game 'main-1' has the name of another game"):
        load_bot_config(tmp_path / "bot.toml")


# ---- invariants --------------------------------------------------------------------------------------------

ENTRIES = st.lists(st.builds(Entry, st.sampled_from(["Ana", "Ben", "Cal"]), tol=st.integers(-2, 3),
                             garnets=st.integers(-3, 5), ec=st.integers(0, 1), place=st.integers(0, 3)),
                   max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(ENTRIES, min_size=1, max_size=4))
def test_the_ledger_holds_a_games_last_entries_whatever_was_recorded_before(versions):
    """However a game's entries change between polls (growing, or corrected), the ledger holds exactly the
    last ones, a record of the same ones changes nothing, and every change that is not growth is logged."""
    store = Store()
    changes = 0
    for before, after in zip([[], *versions], versions, strict=False):
        store.record_ledger("cup", "g", after, by="Host")
        if before and after[:len(before)] != before:
            changes += 1
    last = versions[-1]
    assert [Entry.from_json(r) for r in store.ledger("cup")] == [Entry.from_json(e.to_json()) for e in last]
    assert store.record_ledger("cup", "g", last) == 0
    assert len(store.tournament_log("cup", "ledger_changed")) == changes


@settings(max_examples=60, deadline=None)
@given(ENTRIES)
def test_what_a_game_reads_at_its_start_is_what_the_table_shows(entries):
    players = ["Ana", "Ben", "Cal"]
    table = {s.player: s for s in standings([*entries, *(Entry(p) for p in players)])}
    garnets = start_options("nisemonogatari", {}, entries, players)["garnets"]
    tokens = start_options("foodchain", {}, entries, players)["tokens"]
    assert garnets == {p: table[p].garnets for p in players if table[p].garnets > 0}
    assert tokens == {p: table[p].tol for p in players if table[p].tol > 0}


@pytest.mark.parametrize(("lang", "said"), [
    ("en", ["picked by cyoa", "12 h after cyoa", "on the host's confirmation", "2026-09-01 12:00 UTC"]),
    ("ru", ["выбирается голосованием cyoa", "через 12 ч после cyoa", "по подтверждению ведущего"]),
])
def test_the_tournament_page_says_how_each_game_starts_in_its_language(tmp_path, lang, said):
    from forumbot.web.app import create_app
    from forumbot.web.config import WebConfig, WebSettings

    db = replayed_until(tmp_path, datetime(2026, 8, 30, tzinfo=UTC))
    client = create_app(WebSettings(str(tmp_path / "f.db"), WebConfig(lang=lang), store=str(db))).test_client()
    page = client.get("/tournaments/liar-cup").get_data(as_text=True).replace("&#39;", "'")
    for words in said:
        assert words in page, words
    assert "picked by" not in page or lang == "en"


def test_forumbot_status_lists_the_tournament_and_its_games(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli

    db = replayed_until(tmp_path, datetime(2026, 9, 12, 12, tzinfo=UTC))
    out = CliRunner().invoke(cli, ["status", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "Tournaments:\n  liar-cup: running (cyoa over; main-1 over; main-2 running)\n" in out.output
