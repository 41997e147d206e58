"""One template per event (issue: "a post is written once"): merging the per-dialect copies of the shipped
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
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from forumbot.config import load_scenario
from forumbot.games import get_game
from forumbot.model import Event
from forumbot.paths import data_dir
from forumbot.render.renderer import DIALECTS, Renderer, phrases
from forumbot.replay import replay

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
    root = TEMPLATES / "markdown" if (TEMPLATES / "markdown").is_dir() else TEMPLATES
    shipped = {p.relative_to(root).as_posix() for p in root.rglob("*.j2") if not p.name.startswith("_")}
    pinned = {key.split("|")[1] for key in json.loads(DIGESTS.read_text(encoding="utf-8"))
              if key.split("|")[1] != "replay"}
    assert shipped - pinned == set()
    keys = json.loads(DIGESTS.read_text(encoding="utf-8"))
    for key in keys:
        source, template, dialect = key.split("|")
        assert all(f"{source}|{template}|{other}" in keys for other in DIALECTS), key


if __name__ == "__main__":
    digests: dict[str, str] = {}
    for source in cases().values():
        digests.update(compute(source))
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(f"{len(digests)} digests written to {DIGESTS}\n")
