"""How a game file is checked before a game runs: the one check `forumbot check-config` makes of a file and
the host console of a game made in the browser (forumbot/engine/hosting.py)."""

from __future__ import annotations

from forumbot.config.game import GameConfig, locate, scenario_from
from forumbot.config.tomlfile import TomlFile, parse_toml
from forumbot.engine.loading import GameRun, check_setup
from forumbot.errors import ConfigError
from forumbot.text.decline import counted


def check_game(config: GameConfig, path: str, dialect: str, doc: TomlFile | None = None) -> None:
    """Raises ConfigError naming the file (`path`), the line and the fix when the game cannot run: a bad
    grammar, template or setup, a game that could not be played to its end, a host's template that fails."""
    from forumbot.engine.samples import sample_events
    from forumbot.render.check import check_templates

    try:
        run = GameRun.build(config, dialect=dialect)
        check_setup(config)
    except ConfigError as err:
        raise locate(err, path, doc) from None
    # (the samples' events are made only for a host's templates: the shipped ones are checked by the tests)
    samples = sample_events(config.game) if run.renderer.host_folders else ()
    problems = check_templates(run.renderer, config.game, samples)   # each names its line
    if problems:
        raise ConfigError(f"{path}: {counted(len(problems), 'problem/problems')} in the host's templates:\n"
                          + "\n".join(str(problem) for problem in problems))


def check_game_text(text: str, name: str, dialect: str, label: str = "") -> GameConfig:
    """A game file's text (made in the host console), checked exactly as `check-config` checks a file; its
    game named `name`. Raises ConfigError naming `label` (default "game NAME"), the line and the fix."""
    label = label or f"game {name}"
    doc = parse_toml(text, label)
    if doc.data.get("posts"):
        raise doc.error("a game made by the host has no [[posts]]", "[[posts]]", fix="leave the posts out")
    try:
        config = scenario_from(doc, name).config
    except ConfigError as err:
        raise locate(err, label, doc) from None
    check_game(config, label, dialect, doc)
    return config
