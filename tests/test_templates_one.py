"""One template per event ("a post is written once"): merging the per-dialect copies of the shipped
templates must not change a byte of any post, in either dialect. The digests in tests/template_digests.json
were taken from the per-dialect copies before the merge; `python tests/test_templates_one.py` rewrites them,
for a change that means to alter the output.

What is rendered, in markdown and in bbcode:
- every sample replayed with its dialect set to each (the replay's JSON, as `forumbot replay --json` prints it);
- every event those replays posted, and each game's tally (the host's view) at the end, rendered in both;
- tests/template_events.json: events of the templates the samples do not reach (audit reports, the lobby,
  host notices, masks, reminders...), as the other tests' games posted them, plus a few written for branches
  no test reaches (a corrected vote count, a lobby's standings, a newspaper's notes).
The digests are kept per template, so a failure names the template.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from forumbot.config.game import load_scenario
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.model import Event
from forumbot.render.renderer import DIALECTS, Renderer, phrases

HERE = Path(__file__).resolve().parent
DIGESTS = HERE / "template_digests.json"
EVENTS = HERE / "template_events.json"
TEMPLATES = Path(__file__).resolve().parent.parent / "forumbot" / "render" / "templates"

# (lang, phrases, genders, game, event) of a post
Posted = tuple[str, dict[str, str], dict[str, str], str, Event]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextmanager
def _posted() -> Iterator[list[Posted]]:
    """Every event a renderer is asked for while the block runs."""
    seen: list[Posted] = []
    text = Renderer.text

    def recording(self: Renderer, event: Event, game: str = "") -> str:
        seen.append((self.lang, self.phrases, self.genders, game, event))
        return text(self, event, game)

    Renderer.text = recording  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        Renderer.text = text  # type: ignore[method-assign]


def _render_all(source: str, posted: list[Posted], digests: dict[str, str]) -> None:
    """Each event in both dialects, the texts of each template joined and hashed under source|template|dialect."""
    texts: dict[str, list[str]] = {}
    renderers: dict[tuple[str, str, int], Renderer] = {}
    for lang, table, genders, game, event in posted:
        for dialect in DIALECTS:
            key = (dialect, lang, id(table))
            renderer = renderers.get(key)
            if renderer is None:
                renderer = renderers[key] = Renderer(dialect, lang, overrides=table, genders=genders)
            names = [f"{game}/{event.kind}.j2", f"{event.kind}.j2"] if game else [f"{event.kind}.j2"]
            template = renderer.env.select_template(names).name
            try:
                text = renderer.text(event, game)
            except Exception as err:  # noqa: BLE001 - a failure is part of what is pinned
                text = f"ERROR {type(err).__name__}"
            texts.setdefault(f"{source}|{template}|{dialect}", []).append(text)
    digests.update({key: _sha("\x00".join(found)) for key, found in texts.items()})


def sample_digests(path: Path) -> dict[str, str]:
    scenario = load_scenario(path)
    digests: dict[str, str] = {}
    with _posted() as posted:
        for dialect in DIALECTS:
            result = replay(dataclasses.replace(scenario, config=dataclasses.replace(scenario.config,
                                                                                        dialect=dialect)))
            digests[f"{path.name}|replay|{dialect}"] = _sha(json.dumps(result.to_json(), ensure_ascii=False,
                                                                      indent=2))
            assert result.store is not None
            renderer = Renderer(dialect, scenario.config.lang, overrides=scenario.config.phrases)
            for row in result.store.games():
                rules = get_game(row.game)
                tally = rules.tally(rules.from_json(row.state), scenario.config.start)
                if tally is not None:
                    posted.append((renderer.lang, renderer.phrases, {}, row.game, tally))
            result.close()
    _render_all(path.name, posted, digests)
    return digests


def event_digests() -> dict[str, str]:
    posted: list[Posted] = []
    shared: dict[str, dict[str, str]] = {}
    for entry in json.loads(EVENTS.read_text(encoding="utf-8")):
        table = shared.setdefault(entry["lang"], phrases(entry["lang"]))
        posted.append((entry["lang"], table, {}, entry["game"], Event(entry["kind"], entry["data"])))
    digests: dict[str, str] = {}
    _render_all("events", posted, digests)
    return digests


def cases() -> dict[str, Any]:
    found: dict[str, Any] = {path.name: path for path in sorted(data_dir("samples").glob("*.toml"))}
    found["events"] = None
    return found


def compute(source: Path | None) -> dict[str, str]:
    return sample_digests(source) if source is not None else event_digests()


@pytest.mark.parametrize("name", sorted(cases()))
def test_posts_are_byte_identical_in_both_dialects(name: str) -> None:
    want = {key: value for key, value in json.loads(DIGESTS.read_text(encoding="utf-8")).items()
            if key.startswith(f"{name}|")}
    assert want, f"no recorded digests for {name}"
    have = compute(cases()[name])
    assert sorted(have) == sorted(want)
    assert [key for key in sorted(want) if have[key] != want[key]] == []


def test_every_shipped_template_is_pinned() -> None:
    """Each template a game can post (not the partials it includes) is rendered above, in both dialects."""
    shipped = {p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*.j2") if not p.name.startswith("_")}
    pinned = {key.split("|")[1] for key in json.loads(DIGESTS.read_text(encoding="utf-8"))
              if key.split("|")[1] != "replay"}
    assert shipped - pinned == set()
    keys = json.loads(DIGESTS.read_text(encoding="utf-8"))
    for key in keys:
        source, template, dialect = key.split("|")
        assert all(f"{source}|{template}|{other}" in keys for other in DIALECTS), key


def test_one_template_per_event_and_no_markup_of_its_own() -> None:
    """No folder per dialect, and no template writes a dialect's markup itself (it has filters for it)."""
    assert not any((TEMPLATES / dialect).exists() for dialect in DIALECTS)
    for path in TEMPLATES.rglob("*.j2"):
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"\[/?(?:b|i|s|u|list|code|url|font)\b|\[\*\]|\*\*|~~|^ {4}[^\s{]|^\* ", text, re.M)
        assert found == [], (path, found)


def _outside_lists(text: str) -> str:
    """A BBCode text without its [list]...[/list] blocks."""
    while "[list]" in text and "[/list]" in text.split("[list]", 1)[1]:
        head, rest = text.split("[list]", 1)
        text = head + rest.split("[/list]", 1)[1]
    return text


def test_bbcode_posts_use_only_tags_phpbb_knows_and_items_inside_lists() -> None:
    """phpBB shows a tag it does not know as typed ([font], backtick code spans), and a [*] outside [list]."""
    for entry in json.loads(EVENTS.read_text(encoding="utf-8")):
        renderer = Renderer("bbcode", entry["lang"])
        text = renderer.text(Event(entry["kind"], entry["data"]), entry["game"])
        assert "[font" not in text and "`" not in text, (entry["kind"], text)
        assert "[*]" not in _outside_lists(text), (entry["kind"], text)


def _host(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_hosts_dialect_template_wins_then_its_neutral_one_then_the_shipped_one(tmp_path: Path) -> None:
    host = _host(tmp_path, {"markdown/night_end.j2": "MD {{ e.night }}", "night_end.j2": "BOTH {{ e.night | bold }}",
                            "mafia/modkill.j2": "OUT {{ e.name | esc }}"})
    event = Event("night_end", {"night": 2})
    assert Renderer("markdown", "en", template_dir=host).text(event) == "MD 2\n"
    assert Renderer("bbcode", "en", template_dir=host).text(event) == "BOTH [b]2[/b]\n"
    modkill = Event("modkill", {"name": "a_b", "role": ""})
    assert Renderer("markdown", "en", template_dir=host).text(modkill, "mafia") == "OUT a\\_b\n"
    over = Event("game_over", {"winner": "town", "roles": []})
    assert Renderer("bbcode", "en", template_dir=host).text(over, "mafia") == Renderer("bbcode", "en").text(over)


def test_a_host_folder_for_the_other_dialect_only_is_an_error(tmp_path: Path) -> None:
    host = _host(tmp_path, {"markdown/night_end.j2": "MD"})
    Renderer("markdown", "en", template_dir=host)
    with pytest.raises(ConfigError, match="bbcode does not exist"):
        Renderer("bbcode", "en", template_dir=host)


def test_check_config_checks_a_hosts_neutral_templates_too(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from forumbot.cli import cli

    breakout = "{{ cycler.__init__.__globals__.os.popen('id').read() }}"
    host = _host(tmp_path / "tpl", {
        "markdown/night_end.j2": "fine {{ e.night }}\n",
        "vote_count.j2": "{{ v.count }}\n{% if v.count > 1000 %}\n" + breakout + "\n{% endif %}\n",
        "mafia/day_end.j2": "Day over\n{{ e | attr('__cla' ~ 'ss__') }}\n",
        "night_end.j2": "hidden by markdown/night_end.j2, still checked\n{{ e | attr('__cla' ~ 'ss__') }}\n",
        "phase_start.j2": "{% if %}\n",
    })
    game = tmp_path / "game.toml"
    sample = (data_dir("samples") / "mafia-day-ru.toml").read_text(encoding="utf-8")
    game.write_text(sample.replace("[game]\n", f'[game]\ntemplates = "{host}"\n', 1), encoding="utf-8")
    out = CliRunner().invoke(cli, ["check-config", str(game)])
    assert out.exit_code == 2, out.output
    assert f"{host / 'vote_count.j2'}:3: template vote_count.j2 reaches for '__globals__'" in out.output
    assert f"{host / 'mafia' / 'day_end.j2'}:2: template day_end.j2 breaks out of the sandbox" in out.output
    assert f"{host / 'night_end.j2'}:2: template night_end.j2 breaks out of the sandbox" in out.output
    assert f"{host / 'phase_start.j2'}:1: template phase_start.j2 does not parse" in out.output
    assert "markdown/night_end.j2" not in out.output


if __name__ == "__main__":
    digests: dict[str, str] = {}
    for source in cases().values():
        digests.update(compute(source))
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(digests)} digests written to {DIGESTS}\n")
