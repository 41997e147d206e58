"""`forumbot check-config`: scenario, game and bot config files checked before a game runs."""

from __future__ import annotations

import sys
from typing import Any

import click

from forumbot.cli.common import guard
from forumbot.config.game import load_scenario, locate
from forumbot.errors import ConfigError, ForumbotError


@click.command(name="check-config")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
def check_config(paths: tuple[str, ...]) -> None:
    """Check scenario, game or bot config files: syntax, keys, ruleset, options, grammar, templates, roster,
    dialect, and that each game can be played to its end."""
    from forumbot.config.bot import load_bot_config
    from forumbot.config.tomlfile import load_toml
    from forumbot.engine.cycle import GameRun
    from forumbot.engine.loading import check_setup
    from forumbot.engine.service import platform_dialect

    def check_game(config: Any, path: str, dialect: str) -> None:
        from forumbot.engine.samples import sample_events
        from forumbot.render.check import check_templates

        try:
            run = GameRun.build(config, dialect=dialect)
            check_setup(config)
        except ConfigError as err:
            raise locate(err, path) from None
        problems = check_templates(run.renderer, config.game, sample_events(config.game))   # each names its line
        if problems:
            raise ConfigError(f"{path}: {len(problems)} problem(s) in the host's templates:\n"
                              + "\n".join(str(problem) for problem in problems))

    def check_tournament(path: str) -> None:
        """Each game of a tournament file (each choice of a game a vote picks) as the tournament would start
        it: the roster's masks and the game's options."""
        from forumbot.config.game import GameConfig
        from forumbot.config.tournament import load_plan
        from forumbot.model import PlayerRef

        plan = load_plan(path)
        for stage in plan.stages:
            for label, choice in ([("", stage.chosen(None))] if not stage.picked_by else
                                  [(f" ({option})", c) for option, c in (stage.choices or {}).items()]):
                config = GameConfig(name=stage.name, game=choice.game, lang=plan.lang,
                                    start=stage.start or plan.stages[0].start,   # (any time: it is not run)
                                    players=tuple(PlayerRef(m.mask, forum=m.forum or None) for m in plan.members),
                                    options=choice.options, host=plan.host, dialect=plan.dialect, source=path)
                try:
                    check_setup(config)
                except ConfigError as err:
                    raise ConfigError(f"{stage.name}{label}: {str(err).split(chr(10))[0]}", path=path,
                                      line=load_toml(path).line_of(f'"{stage.name}"'), fix=err.fix) from None

    def check(path: str) -> None:
        data = load_toml(path).data
        if "tournament" in data:   # a tournament file (docs/tournaments.md)
            check_tournament(path)
            return
        if set(data) & {"bot", "platforms", "games", "lobbies"}:   # a bot config
            bot = load_bot_config(path)
            for entry in bot.games:
                # a game posts in its platform's dialect
                check_game(entry.config, entry.config.source or path, platform_dialect(bot.platforms[entry.platform]))
            return
        try:
            scenario = load_scenario(path)
        except ConfigError as err:
            raise locate(err, path) from None
        check_game(scenario.config, path, scenario.config.dialect)

    def run() -> int:
        failed = 0
        for path in paths:
            try:
                check(path)
                click.echo(f"ok: {path}")
            except ForumbotError as err:
                failed += 1
                click.echo(f"error: {err}", err=True)
        return 2 if failed else 0

    sys.exit(guard(run))
