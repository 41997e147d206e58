"""`forumbot check-config`: scenario, game and bot config files checked before a game runs."""

from __future__ import annotations

import sys

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
    from forumbot.engine.checking import check_game
    from forumbot.engine.service import platform_dialect

    def check(path: str) -> None:
        if set(load_toml(path).data) & {"bot", "platforms", "games", "lobbies"}:   # a bot config
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
