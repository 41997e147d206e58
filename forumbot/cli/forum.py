"""`forumbot forum add-user` and `forumbot open-thread`: accounts on the local forum, threads the bot opens."""

from __future__ import annotations

import sys

import click

from forumbot.cli.common import guard
from forumbot.errors import ConfigError


@click.group()
def forum() -> None:
    """The local forum's web accounts (see "The web forum" in the README)."""


@forum.command(name="add-user")
@click.argument("names", nargs=-1, required=True)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config (its [web] forum).")
@click.option("--forum", "forum_path", type=click.Path(dir_okay=False), help="Or the local forum's file itself.")
def add_user(names: tuple[str, ...], config_path: str | None, forum_path: str | None) -> None:
    """Create accounts (or reset their passwords) and print each one's password, once."""
    from forumbot.web.accounts import Accounts

    def go() -> int:
        url, account = "", "forumbot"
        hosts: tuple[str, ...] = ()
        rosters: set[str] | None = None   # every name a game of the bot config seats (None: no config)
        signups = False
        path = forum_path
        if config_path:
            from forumbot.config.bot import load_bot_config
            bot = load_bot_config(config_path)
            if bot.web is None:
                raise ConfigError("the bot config has no [web] table", path=config_path,
                                  fix='add [web] with listen = "127.0.0.1:8080"')
            options = bot.platforms[bot.web.platform].options
            path, url, account = options.get("path", "forum.db"), bot.web.url, options.get("account", "forumbot")
            hosts = tuple(dict.fromkeys(name for game in bot.games
                                        for name in (game.config.host, *game.config.cohosts) if name))
            rosters = {p.name for game in bot.games for p in game.config.players} | set(hosts)
            signups = any(game.config.phase == "signup" for game in bot.games) or bot.hosting is not None
        if not path:
            raise ConfigError("say which forum", fix="pass --config bot.toml or --forum forum.db")
        accounts = Accounts(path)
        for name in names:
            password = accounts.add_user(name, reserved=(account, *(h for h in hosts if h != name)))
            click.echo(f"{name}\t{password}")
            if rosters is not None and name.strip() not in rosters:
                click.echo(f"warning: {name} is in no game's roster nor a host of one"
                           + (" (fine for a player who will sign up by PM, or a game made in the console)"
                              if signups else "; check the spelling against the game files"), err=True)
        if url:
            click.echo(f"Sign in at {url}/signin")
        return 0

    sys.exit(guard(go))


@click.command(name="open-thread")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--platform", "platform_name", default=None, help="Which [platforms.NAME] (default: the first).")
@click.option("--title", required=True, help="The new thread's title.")
def open_thread(config_path: str, platform_name: str | None, title: str) -> None:
    """Open a thread as the bot (its first post on standard input) and print its id for [games.threads]."""
    from forumbot.config.bot import load_bot_config
    from forumbot.engine.service import attach_store, make_platform, utcnow
    from forumbot.storage import Store

    def go() -> int:
        config = load_bot_config(config_path)
        name = platform_name or next(iter(config.platforms))
        if name not in config.platforms:
            raise ConfigError(f"no platform '{name}'", path=config_path,
                              fix="platforms: " + ", ".join(config.platforms))
        platform = make_platform(config.platforms[name], utcnow)
        attach_store(platform, Store(config.store), name)        # phpBB: the signed-in session is kept there
        click.echo(platform.open_thread(title, sys.stdin.read()))
        return 0

    sys.exit(guard(go))
