"""A vote count's rendering: a host's own count templates are used and stay sandboxed; a name in an error
line follows a player's gender; the post is cleaned of runs of blank lines and bidi controls."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import act, new_game, votes

from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event
from forumbot.render import Renderer
from forumbot.render.renderer import _HERE


def count_event(state: Any) -> Event:
    return Event("vote_count", view(state, state.phase_started))


def host_folder(tmp_path: Any, name: str, change: str, neutral: bool = False) -> Any:
    """A host's template folder with one of the shipped count templates copied and changed: once for each
    dialect (<folder>/<dialect>/<name>), or once for both (<folder>/<name>)."""
    for dialect in ("",) if neutral else ("markdown", "bbcode"):
        target = tmp_path / dialect / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shipped = (_HERE / "templates" / name.split("/")[-1]).read_text(encoding="utf-8")
        target.write_text(change + shipped, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("neutral", [False, True])
@pytest.mark.parametrize("dialect", ["markdown", "bbcode"])
@pytest.mark.parametrize("name", ["vote_count.j2", "_wagons.j2", "mafia/vote_count.j2"])
def test_a_hosts_own_count_templates_are_used_and_sandboxed(tmp_path, dialect, name, neutral):
    state = new_game(6)
    state, _ = votes(state, [("P01", "P02"), ("P03", "P02")])
    state, _ = act(state, "Stranger", "vote", "P02")
    event = count_event(state)
    shipped = Renderer(dialect, "en").text(event, "mafia")
    host = Renderer(dialect, "en", template_dir=host_folder(tmp_path / "mine", name, "HOST {{ v.alive }}\n",
                                                            neutral))
    assert host.text(event, "mafia") != shipped and "HOST 6" in host.text(event, "mafia")
    breaking = Renderer(dialect, "en", template_dir=host_folder(
        tmp_path / "breaking", name, "{{ ''.__class__.__mro__[1].__subclasses__() }}\n", neutral))
    with pytest.raises(ConfigError, match="breaks out of the sandbox"):
        breaking.text(event, "mafia")
    # a host's other templates leave this game's count as shipped
    other = Renderer(dialect, "en", template_dir=host_folder(tmp_path / "other", "day_end.j2", "x\n", neutral))
    assert other.text(event, "mafia") == shipped


def test_an_error_line_follows_a_players_gender_as_it_changes():
    state = new_game(6)
    state, _ = act(state, "Stranger", "vote", "P02")
    event = count_event(state)
    said = {"error_not_player": "{author} {author:играл/играла}"}
    renderer = Renderer("markdown", "ru", overrides=said, genders={"Stranger": "m"})
    assert "Stranger играл" in renderer.text(event, "mafia")
    renderer.genders.update({"Stranger": "f"})          # a game that signs players up, as it does
    assert "Stranger играла" in renderer.text(event, "mafia")
    assert renderer.text(event, "mafia") == Renderer("markdown", "ru", overrides=said,
                                                     genders={"Stranger": "f"}).text(event, "mafia")


def test_a_post_loses_runs_of_blank_lines_and_bidi_controls_then_its_edges():
    assert Renderer._clean("\n Day 1\n\n\n\n* P01\u202e (1)\n\n\nend  \n\n") == "Day 1\n\n* P01 (1)\n\nend\n"
    assert Renderer._clean("x\n\u202e\n\ny") == "x\n\n\ny\n"    # blank lines are joined before bidi controls go
    assert Renderer._clean("") == "\n"
