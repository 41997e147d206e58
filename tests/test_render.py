"""Vote counts and end-of-day posts: content, order, escaping, dialects, languages, host overrides."""

from __future__ import annotations

import pytest
from helpers import START as START_AT
from helpers import act, new_game, votes

from forumbot.errors import ConfigError
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.game import view
from forumbot.model import Event
from forumbot.render import Renderer
from forumbot.render.renderer import escape_bbcode, escape_markdown


def count_event(state):
    return Event("vote_count", view(state, state.phase_started))


def sample_state():
    state = new_game(6)
    state, _ = votes(state, [("P01", "P02"), ("P03", "P04"), ("P05", "P04"), ("P06", "no_lynch")])
    state, _ = act(state, "P01", "vote", "P04")      # P01 leaves P02: struck through on P02's wagon
    state, _ = act(state, "Stranger", "vote", "P02")  # a vote error
    return state


def test_markdown_vote_count_has_every_part():
    text = Renderer("markdown", "en").text(count_event(sample_state()))
    lines = text.splitlines()
    assert lines[0] == "**Day 1 — Vote count #0**"
    wagons = [line for line in lines if line.startswith("* **")]
    assert wagons[0] == "* **P04** (3/4, L-1): P03, P05, P01"   # biggest first, voters in order
    assert "**No lynch** (1)" in text
    assert "* **P02** (0/4, L-4): ~~P01~~" in text                   # withdrawn, struck through
    assert "Not voting (2): P02, P04" in text
    assert "6 alive, 4 needed to lynch (absolute majority)." in text
    assert "Deadline: 2026-03-03 20:00 UTC" in text
    assert "**Vote errors**" in text and "Stranger: Stranger is not a player in this game" in text


def test_each_voter_links_to_the_vote_post():
    from forumbot.model import Intent
    state = new_game(4)
    state, _ = MAFIA.apply(state, Intent("vote", {"target": "P02"}, post_id="t1_a", author="P01",
                                         at=state.phase_started, url="https://www.reddit.com/r/x/comments/1/_/a"))
    md = Renderer("markdown", "en").text(count_event(state))
    assert "[P01](https://www.reddit.com/r/x/comments/1/_/a)" in md
    bb = Renderer("bbcode", "en").text(count_event(state))
    assert "[url=https://www.reddit.com/r/x/comments/1/_/a]P01[/url]" in bb


def test_simple_rule_is_stated():
    state = new_game(6, no_lynch_used=2)
    state, _ = act(state, "P01", "vote", "P02", final=True)
    text = Renderer("markdown", "en").text(count_event(state))
    assert "No-lynch results used: 2 of 2" in text and "(final)" in text and "L-" not in text


def test_bbcode_vote_count():
    text = Renderer("bbcode", "en").text(count_event(sample_state()))
    assert text.startswith("[b]Day 1 — Vote count #0[/b]")
    assert "[list]" in text and "[*][b]P04[/b] (3/4, L-1)" in text and "[s]P01[/s]" in text
    assert "**" not in text and "~~" not in text


def test_russian_phrases():
    text = Renderer("markdown", "ru").text(count_event(sample_state()))
    assert "**День 1 — Подсчёт голосов #0**" in text and "Живых: 6, для повешения нужно 4" in text
    assert "Никого не вешать (ННВ)" in text and "Не голосуют (2)" in text


@pytest.mark.parametrize("name", ["*Bob*", "_x_", "[evil](http://x)", "~~gone~~", "# head", "> quote", "a|b"])
def test_markdown_names_cannot_break_markup(name):
    escaped = escape_markdown(name)
    for char in "*_[]~#>|":
        assert char not in escaped.replace("\\" + char, "")


@pytest.mark.parametrize("name", ["[b]Bob[/b]", "[url=http://x]y[/url]", "[quote]", "]["])
def test_bbcode_names_cannot_form_tags(name):
    escaped = escape_bbcode(name)
    assert "[b]" not in escaped and "[url" not in escaped and "[quote]" not in escaped
    assert escaped.replace("\u200b", "") == name


def test_a_hostile_player_name_renders_escaped():
    from helpers import START

    from forumbot.games.base import GameSetup
    from forumbot.model import PlayerRef
    setup = GameSetup("mafia", (PlayerRef("**Boss**"), PlayerRef("[b]Ann[/b]"), PlayerRef("Cy")), START)
    state = MAFIA.new(setup)
    state, _ = act(state, "Cy", "vote", "**Boss**")
    md = Renderer("markdown", "en").text(count_event(state))
    assert "\\*\\*Boss\\*\\*" in md
    bb = Renderer("bbcode", "en").text(count_event(state))
    assert "[b]Ann[/b]" not in bb and "[\u200bb\u200b]Ann" in bb


def test_day_end_post_names_the_hanged():
    state = new_game(4)
    state, events = votes(state, [("P01", "P02"), ("P03", "P02"), ("P04", "P02")])
    end = next(e for e in events if e.kind == "day_end")
    text = Renderer("markdown", "en").text(end)
    assert "**Day 1 is over** (ended early" in text and "**P02 hanged** (3 / 3)" in text
    assert "Final votes:" in text and "* **P02** (3/3, L-0)" in text


def test_no_lynch_day_end_post():
    state = new_game(4)
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    text = Renderer("markdown", "en").text(events[0])
    assert "**Nobody is hanged (no lynch).** No-lynch results used: 1 of 2." in text
    assert "Final votes" not in text                                # no votes, no empty section


def test_host_overrides_a_template_and_a_phrase(tmp_path):
    (tmp_path / "markdown").mkdir()
    (tmp_path / "markdown" / "vote_count.j2").write_text(
        "VC{{ v.count }} {% for w in v.wagons %}{{ w.target }}={{ w.count }} {% endfor %}{{ t.day }}")
    renderer = Renderer("markdown", "en", template_dir=tmp_path, overrides={"day": "Tag"})
    assert renderer.text(count_event(sample_state())).strip() == "VC0 P04=3 no_lynch=1 P02=0 Tag"
    # templates not overridden still come from the package
    assert "Nobody" in renderer.text(MAFIA.on_deadline(new_game(4), new_game(4).phase_ends)[1][0])


def test_broken_override_is_a_config_error(tmp_path):
    (tmp_path / "markdown").mkdir()
    (tmp_path / "markdown" / "vote_count.j2").write_text("{{ v.nothing_here }}")
    with pytest.raises(ConfigError) as err:
        Renderer("markdown", "en", template_dir=tmp_path).text(count_event(sample_state()))
    assert "vote_count.j2" in str(err.value)


def test_missing_override_folder_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        Renderer("markdown", "en", template_dir=tmp_path / "nope")


def test_events_can_address_a_pm_or_a_thread_and_games_have_own_templates(tmp_path):
    (tmp_path / "markdown" / "chess").mkdir(parents=True)
    (tmp_path / "markdown" / "chess" / "board.j2").write_text("board for {{ e.player }}")
    renderer = Renderer("markdown", "en", template_dir=tmp_path)
    pm = renderer.render(Event("board", {"pm_to": "Alice", "subject": "your board", "player": "Alice"}),
                         key="k1", threads={}, at=START_AT, game="chess")
    assert (pm[0].pm_to, pm[0].subject, pm[0].text) == ("Alice", "your board", "board for Alice\n")
    post = renderer.render(Event("board", {"thread": "game", "player": "all"}), key="k2",
                           threads={"game": "g/game"}, at=START_AT, game="chess")
    assert (post[0].thread, post[0].text) == ("g/game", "board for all\n")
    with pytest.raises(ConfigError, match="no template"):
        renderer.render(Event("board", {"thread": "game"}), key="k3", threads={"game": "g"}, at=START_AT)
