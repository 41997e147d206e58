"""A vote count's rendering with what the renderer keeps from one count to the next (issue 16): a day of
counts prints what a fresh renderer prints; a host's own count templates are used and stay sandboxed; a
kept text follows a player's gender; the post's clean-up is the patterns it replaced."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from helpers import act, new_game, votes
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event, format_time
from forumbot.render import Renderer
from forumbot.render.defuse import strip_bidi
from forumbot.render.renderer import _HERE


def count_event(state: Any) -> Event:
    return Event("vote_count", view(state, state.phase_started))


def outcome(do: Any, *args: Any) -> Any:
    try:
        return do(*args)
    except ConfigError as err:
        return ("error", str(err), err.path, err.line)


text = st.lists(st.sampled_from(["a", "Я", " ", "\n", "*", "_", "[", "]", "(", ")", "`", "\\", "#", "|", "<",
                                 "@", ":", "/", "www.", "https://x.y", "u/", "\u202e", "\u200b", "{", "}"]),
                max_size=8).map("".join)
number = st.none() | st.booleans() | st.integers(-2, 30)
phrase = text | st.sampled_from(["{alive}", "{needed}/{alive}", "{used} of {limit}", "{shown}/{total}", "{x}",
                                 "{alive.__class__}", "{0}", "{alive:>4}", "{name:gent} {count:a/b}",
                                 "a\n\n\n\nb", "{author} \u202e{name}"])
PHRASES = ["day", "vote_count", "corrected_by_host", "no_lynch", "not_voting", "absolute", "simple", "deadline",
           "vote_errors", "errors_more", "error_bad", "error_bad_candidates", "final"]
URLS = ["", "https://f/p?1", "https://f/a b)c]", "https://f/\u202e\n\n"]
voter = st.builds(lambda name, url, final, withdrawn: dict(
    name=name, url=url, post="p1", final=final, withdrawn=withdrawn, at="2026-03-03T10:00:00Z"),
    text, st.sampled_from(URLS), st.booleans(), st.booleans())
wagon = st.fixed_dictionaries({
    "target": text, "no_lynch": st.booleans(), "count": number, "needed": number, "l_minus": number,
    "voters": st.lists(voter, max_size=3)})
error = st.fixed_dictionaries({
    "author": text, "reason": text, "url": st.sampled_from(["", "https://f/p?2", "https://f/\u2066"]),
    "code": st.sampled_from(["bad", "other", ""]),
    "params": st.fixed_dictionaries({}, optional={"name": text, "count": number, "candidates": st.lists(text)})})
views = st.fixed_dictionaries({
    "day": number, "count": number, "wagons": st.lists(wagon, max_size=4),
    "not_voting": st.lists(text, max_size=3) | st.lists(text, max_size=2).map(tuple),
    "rule": st.sampled_from(["absolute", "simple"]), "alive": number, "needed": number,
    "no_lynch_used": number, "no_lynch_limit": number, "errors": st.lists(error, max_size=3),
    "error_total": st.integers(0, 5),
    "deadline": st.sampled_from([format_time(datetime(2026, 3, 4, 20, tzinfo=UTC)), "soon"]),
}, optional={"corrected": st.booleans(), "at": text})


# Voters shared by the views of one day: the same list in several counts.
POOL = [[dict(name=n, url=u, post="p", final=f, withdrawn=w, at="t") for n, u, f, w in voters]
        for voters in ([("P01", "", False, False)], [("P02", URLS[3], True, False), ("Я*", URLS[1], False, True)],
                       [("www.x", URLS[2], False, False), ("P01", "", True, True)])]


@settings(max_examples=150, deadline=None)
@given(st.lists(views.map(lambda v: {**v, "wagons": [{**w, "voters": POOL[hash(str(w)) % 3]} for w in v["wagons"]]}),
                min_size=1, max_size=5), st.sampled_from(["markdown", "bbcode"]))
def test_a_count_after_others_prints_what_a_fresh_renderer_prints(day, dialect):
    live = Renderer(dialect, "ru")        # one renderer for the day: what it keeps from count to count
    for data in day:
        fresh = Renderer(dialect, "ru")
        event = Event("vote_count", data)
        assert outcome(live.text, event, "mafia") == outcome(fresh.body, fresh.env, ["vote_count.j2"], event)


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


@given(st.text(st.sampled_from(["\n", "a", " ", "\u202e"])))
@example("x\n\u202e\n\ny")    # blank lines are joined before bidi controls go: this keeps three
def test_the_clean_up_is_the_patterns_it_replaces(body):
    assert Renderer._clean(body) == strip_bidi(re.sub(r"\n{3,}", "\n\n", body)).strip() + "\n"   # as it was


@given(st.lists(st.sampled_from(["\n", "\n\n\n", "\n\n\n\n", "a", " ", "\u202e"]), max_size=12))
def test_runs_of_blank_lines_split_and_joined_are_the_patterns_runs(pieces):
    body = "".join(pieces)
    assert Renderer._clean(body) == strip_bidi(re.sub(r"\n{3,}", "\n\n", body)).strip() + "\n"


class _Searched(str):
    """A text that records what is searched for in it."""

    searched: list[str]

    def __contains__(self, part: object) -> bool:
        self.searched.append(str(part))
        return super().__contains__(part)   # type: ignore[operator]


def test_a_count_s_one_run_of_three_is_joined_in_one_pass():
    """A vote count holds one run of three line breaks: split and joined once, the text not searched again
    for a run of four (the code before searched the whole text for it after its replace)."""
    body = _Searched("**Day 1 — count #3**\n\n\n* **Bob** (1): Alice\n\nDeadline: soon\n")
    body.searched = []
    assert Renderer._clean(body) == "**Day 1 — count #3**\n\n* **Bob** (1): Alice\n\nDeadline: soon\n"
    assert "\n\n\n\n" not in body.searched
