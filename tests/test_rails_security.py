"""Safety rails: the demo deletes only its own files, a simulation runs on
copies, host templates run sandboxed, and text players wrote is republished without links, pings or
bidi controls. Each test is named after its item and failed on the code before the fix."""

from __future__ import annotations

import dataclasses
import re
import shutil
import sqlite3
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import act, new_game
from hypothesis import given
from hypothesis import strategies as st

from forumbot.cli import cli
from forumbot.config.game import load_scenario
from forumbot.config.paths import data_dir
from forumbot.engine.replay import VirtualClock, replay
from forumbot.engine.service import Service
from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event
from forumbot.platforms.local import LocalForum
from forumbot.render import Renderer
from forumbot.render.defuse import defuse
from forumbot.render.renderer import _HERE as RENDER_DIR

SAMPLES = data_dir("samples")
BREAKOUT = "{{ cycler.__init__.__globals__.os.popen('id').read() }}"
# What Reddit or a forum would turn into a link or a ping, and a character that reverses the line.
HOSTILE = "see https://evil.example/x and www.evil.example, ask u/spez or /u/spez on r/all or /r/all \u202eevil"
BIDI = r"[\u202a-\u202e\u2066-\u2069\u200e\u200f]"
LINKS = {"bbcode": re.compile(rf"(?i)[a-z]://|www\.|{BIDI}"),                    # a forum's magic URLs
         "markdown": re.compile(rf"(?i)[a-z]://|www\.|(?<![a-z0-9_])/?(?:u|r|user)/[a-z0-9_]|{BIDI}")}  # + Reddit's


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def dump(path: Path) -> list[str]:
    """Everything in an SQLite file, as SQL."""
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


# ---- item 10: demo --dir ------------------------------------------------------------------------

def test_demo_dir_is_never_deleted_unless_the_demo_made_it(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.txt").write_text("years of work", encoding="utf-8")
    out = invoke("demo", "--dir", str(mine))
    assert out.exit_code == 2 and "not empty" in out.output and "nothing was deleted" in out.output, out.output
    assert (mine / "thesis.txt").read_text(encoding="utf-8") == "years of work"
    assert sorted(p.name for p in mine.iterdir()) == ["thesis.txt"]      # not even a marker left behind

    monkeypatch.chdir(mine)                                              # `demo --dir .` in a user's folder
    out = invoke("demo", "--dir", ".")
    assert out.exit_code == 2 and (mine / "thesis.txt").exists(), out.output

    demo = tmp_path / "demo"                                             # a folder the demo makes is its own
    assert invoke("demo", "--dir", str(demo)).exit_code == 0
    (demo / "my-notes.txt").write_text("keep me", encoding="utf-8")
    out = invoke("demo", "--dir", str(demo))                             # run again: only its databases go
    assert out.exit_code == 0, out.output
    assert (demo / "my-notes.txt").read_text(encoding="utf-8") == "keep me"
    assert invoke("tally", "--db", str(demo / "forumbot.db")).exit_code == 0


# ---- item 11: run --simulate-from ---------------------------------------------------------------

START = "2026-03-02T20:00:00Z"


def live_bot(folder: Path) -> Path:
    """A bot config over a local forum with a scripted day on it, and a live store that has started the
    game and posted its opening."""
    folder.mkdir(parents=True, exist_ok=True)
    scenario = load_scenario(SAMPLES / "mafia-day-ru.toml")
    config = folder / "bot.toml"
    config.write_text(f'[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                      f'poll_seconds = 900\n[[games]]\nconfig = "{SAMPLES / "mafia-day-ru.toml"}"\nname = "g"\n',
                      encoding="utf-8")
    forum = LocalForum(folder / "forum.db", clock=lambda: scenario.config.start + timedelta(days=30))
    for post in scenario.posts:
        forum.add_post(f"g/{post.thread}", post.author, post.text, at=post.at)
    forum.db.close()
    from forumbot.config.bot import load_bot_config
    service = Service(load_bot_config(config), clock=VirtualClock(scenario.config.start))
    service.start_games()
    service.poll_all(scenario.config.start)
    return config


def bot_posts(forum: Path) -> list[str]:
    with sqlite3.connect(forum) as db:
        return [r[0] for r in db.execute("SELECT body FROM forum_posts WHERE author = 'forumbot' ORDER BY id")]


def test_simulation_runs_on_a_copy_and_never_touches_live_data(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))            # where the default copy goes
    config = live_bot(tmp_path / "live")
    live_store, live_forum = tmp_path / "live" / "bot.db", tmp_path / "live" / "forum.db"
    before = dump(live_store), dump(live_forum)
    assert len(bot_posts(live_forum)) == 1                               # the live game's opening post

    out = invoke("run", "--config", str(config), "--simulate-from", START, "--until", "2026-03-03T22:00:00Z",
                 "--step", "900")
    assert out.exit_code == 0, out.output
    found = re.search(r"simulation on a copy in (\S+) \(copied from the live store\)", out.output)
    assert found and "not touched" in out.output and Path(found.group(1)).parent == tmp_path, out.output
    assert (dump(live_store), dump(live_forum)) == before                # a later real run sees nothing of it
    simulated = bot_posts(Path(found.group(1)) / "forum-local.db")
    assert simulated[0] == bot_posts(live_forum)[0]                      # it started from the live data ...
    assert any("День 1 окончен" in body for body in simulated)           # ... and played the day on its copy

    folder = tmp_path / "sim"                                            # an explicit folder resumes
    for until in ("2026-03-02T23:00:00Z", "2026-03-03T22:00:00Z"):
        out = invoke("run", "--config", str(config), "--simulate-from", START, "--until", until,
                     "--sim-dir", str(folder))
        assert out.exit_code == 0, out.output
    assert "(resumed)" in out.output and (dump(live_store), dump(live_forum)) == before
    assert bot_posts(folder / "forum-local.db") == simulated

    foreign = tmp_path / "foreign"                                       # a folder it did not make: refused
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x", encoding="utf-8")
    out = invoke("run", "--config", str(config), "--simulate-from", START, "--until", "2026-03-03T22:00:00Z",
                 "--sim-dir", str(foreign))
    assert out.exit_code == 2 and "not empty" in out.output and sorted(foreign.iterdir()) == [foreign / "keep.txt"]

    reddit = tmp_path / "reddit.toml"                                    # a real site: refused, nothing made
    reddit.write_text('[bot]\nstore = "live/bot.db"\n[platforms.reddit]\nkind = "reddit"\nsite = "x"\n'
                      f'subreddit = "mafia"\n[[games]]\nconfig = "{SAMPLES / "mafia-day-ru.toml"}"\n'
                      'platform = "reddit"\n', encoding="utf-8")
    out = invoke("run", "--config", str(reddit), "--simulate-from", START, "--until", "2026-03-03T22:00:00Z",
                 "--sim-dir", str(tmp_path / "r"))
    assert out.exit_code == 2 and "would post for real on reddit" in out.output and "--in-place" in out.output
    assert not (tmp_path / "r").exists() and (dump(live_store), dump(live_forum)) == before


# ---- item 17: sandboxed templates ---------------------------------------------------------------

def count_event():
    state = new_game(6)
    state, _ = act(state, "P01", "vote", "P02")
    return Event("vote_count", view(state, state.phase_started))


@pytest.mark.parametrize("template", [
    BREAKOUT,
    "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "{{ lipsum.__globals__['os'].popen('touch PWNED') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ v | attr('__class__') }}",
    "{{ v['__class__'] }}",
    "{% set _ = t.update({'day': 'owned'}) %}{{ t.day }}",              # nor change the bot's data
    "{{ '{0.__class__.__init__.__globals__}'.format(v) }}",
])
@pytest.mark.parametrize("folder", ["markdown", ""])     # the host's template for the dialect, or for both
def test_host_templates_are_sandboxed(tmp_path, monkeypatch, template, folder):
    monkeypatch.chdir(tmp_path)
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / folder / "vote_count.j2").write_text(f"Votes\n\n{template}\n", encoding="utf-8")
    renderer = Renderer("markdown", "en", template_dir=tmp_path)
    with pytest.raises(ConfigError) as err:
        renderer.text(count_event())
    assert "breaks out of the sandbox" in str(err.value)
    assert err.value.path == str(tmp_path / folder / "vote_count.j2") and err.value.line == 3
    assert not (tmp_path / "PWNED").exists() and renderer.phrases["day"] != "owned"


def test_host_phrases_cannot_look_inside_python():
    renderer = Renderer("markdown", "en", overrides={"error_not_player": "{author.__class__.__mro__}",
                                                       "result_saved": "{name.__class__}"})
    state = new_game(6)
    state, _ = act(state, "Stranger", "vote", "P02")
    text = renderer.text(Event("vote_count", view(state, state.phase_started)))
    assert "class" not in text and "Stranger" in text                   # the English reason instead
    assert renderer._result({"code": "saved", "params": {"name": "P01"}}) == "saved"


def test_check_config_reports_a_template_that_breaks_out(tmp_path):
    host = tmp_path / "tpl"
    (host / "markdown").mkdir(parents=True)
    # a breakout in a branch the samples never take: found in the syntax tree
    (host / "markdown" / "vote_count.j2").write_text(
        "{{ v.count }}\n{% if v.count > 1000 %}\n" + BREAKOUT + "\n{% endif %}\n", encoding="utf-8")
    # a name built at run time: found by rendering in the sandbox
    (host / "markdown" / "day_end.j2").write_text("Day over\n{{ e | attr('__cla' ~ 'ss__') }}\n",
                                                  encoding="utf-8")
    game = tmp_path / "game.toml"
    sample = (SAMPLES / "mafia-day-ru.toml").read_text(encoding="utf-8")
    game.write_text(sample.replace("[game]\n", f'[game]\ntemplates = "{host}"\n', 1), encoding="utf-8")
    out = invoke("check-config", str(game))
    assert out.exit_code == 2, out.output
    assert f"{host / 'markdown' / 'vote_count.j2'}:3: template vote_count.j2 reaches for '__globals__'" in out.output
    assert f"{host / 'markdown' / 'day_end.j2'}:2: template day_end.j2 breaks out of the sandbox" in out.output

    shutil.rmtree(host)                                                  # the shipped templates, as a host's
    shutil.copytree(RENDER_DIR / "templates", host)
    out = invoke("check-config", str(game))
    assert out.exit_code == 0 and "ok:" in out.output, out.output


# ---- item 18: defused player text ---------------------------------------------------------------

@pytest.mark.parametrize("dialect", ["markdown", "bbcode"])
def test_night_notes_plant_no_links_pings_or_bidi(dialect):
    scenario = load_scenario(SAMPLES / "mafia-night-ru.toml")
    note = "Первая ночь, а уже страшно."                                 # a note that reaches the paper
    posts = [dataclasses.replace(p, text=p.text.replace(note, HOSTILE)) for p in scenario.posts]
    config = dataclasses.replace(scenario.config, dialect=dialect)
    result = replay(dataclasses.replace(scenario, posts=tuple(posts), config=config))
    papers = [m["text"] for m in result.messages if m["kind"] == "night_end"]
    host_copy = [m["text"] for m in result.messages if m["kind"] == "note_ack" and "evil" in m["text"]]
    assert papers and host_copy
    for text in [papers[0], *host_copy]:
        assert "evil.example" in text and "spez" in text                 # the note is shown ...
        assert not LINKS[dialect].search(text), text                              # ... but links and pings nothing
        shown = text.replace("\u200b", "").replace("\\", "")
        assert HOSTILE.replace("\u202e", "") in shown                     # and reads as written


@pytest.mark.parametrize("dialect", ["markdown", "bbcode"])
def test_vote_error_list_plants_no_links_pings_or_bidi(dialect):
    state = new_game(6)
    state, _ = act(state, "u/spez", "vote", "P02")                      # not a player: a vote error ...
    state, _ = act(state, "P01", "vote", "www.evil.example \u202e r/all")  # ... and a name matching no one
    text = Renderer(dialect, "en").text(Event("vote_count", view(state, state.phase_started)))
    assert "spez" in text and "evil" in text and not LINKS[dialect].search(text), text


@given(st.text(alphabet=st.sampled_from(list("ur/w.:@ htps\u202e\u2066\u200ea_")), max_size=40),
       st.sampled_from(["markdown", "bbcode"]))
def test_defused_text_links_nothing_and_defusing_again_changes_nothing(text, dialect):
    once = defuse(text, dialect)
    assert defuse(once, dialect) == once
    assert not LINKS[dialect].search(once)
    assert once.replace("\u200b", "") == re.sub(BIDI, "", text)
