"""`forumbot host`, `host-link` and `passwd`: a game's host speaking to the bot, and the host console's keys."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

import click

from forumbot.cli.common import guard
from forumbot.errors import ConfigError


@click.command(name="host")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--game", "game_name", required=True, help="The game (its name in the bot config).")
@click.argument("words", nargs=-1, required=True)
def host_command(config_path: str, game_name: str, words: tuple[str, ...]) -> None:
    """Say a host's command to the bot from the console, as if the game's host had sent it by PM
    (`forumbot host --config bot.toml --game mafia-1 warn Tom Hanks rule 8.2.4 hinted at a check`). It is
    stored at once; the running bot reads it, and answers the host, at its next poll."""
    import uuid

    from forumbot.config.bot import load_bot_config
    from forumbot.engine.checking import check_game_text
    from forumbot.model import Post
    from forumbot.storage import Store

    def go() -> int:
        bot = load_bot_config(config_path)
        store = Store(str(bot.store))
        games = {g.config.name: g.config for g in bot.games}
        for row in store.hosted_games():   # (and the games made in the host console)
            if row["kind"] == "game" and not row["ended"]:
                games.setdefault(row["name"], check_game_text(row["toml"], row["name"], "markdown"))
        game = games.get(game_name)
        if game is None:
            raise ConfigError(f"no game '{game_name}' in the bot config or the host console", path=config_path,
                              fix="games: " + (", ".join(games) or "none"))
        if not game.host:
            raise ConfigError(f"game '{game_name}' has no host", path=game.source, fix='add host = "..." to [game]')
        post = Post(f"console:{uuid.uuid4().hex}", "", game.host, datetime.now(UTC), " ".join(words), pm=True)
        store.save_posts("console", [post])
        click.echo(f"stored as {game.host}'s PM to the bot: {post.body}")
        return 0

    sys.exit(guard(go))


@click.command(name="host-link")
@click.argument("game")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--hours", default=24, show_default=True, type=click.IntRange(1, 24 * 14), help="How long it is valid.")
def host_link(game: str, config_path: str, hours: int) -> None:
    """Print a one-time sign-in link to the host console for GAME's host."""
    from forumbot.config.bot import load_bot_config
    from forumbot.engine.corrections import new_link
    from forumbot.storage import Store

    def go() -> int:
        config = load_bot_config(config_path)
        found = next((g.config for g in config.games if g.config.name == game), None)
        if found is None or not found.host:
            names = ", ".join(g.config.name for g in config.games if g.config.host) or "none"
            raise ConfigError(f"no game {game} with a host in the bot config", path=config_path,
                              fix=f"name one of: {names}")
        if config.web is None:
            raise ConfigError("the bot config has no [web] table: the console is served by it", path=config_path,
                              fix='add [web] with listen = "127.0.0.1:8080"')
        token = new_link(Store(config.store), found.host, game, datetime.now(UTC) + timedelta(hours=hours))
        click.echo(f"{config.web.url}/console/link/{token}")
        click.echo(f"(for {found.host}, once, within {hours} h)", err=True)
        return 0

    sys.exit(guard(go))


@click.command()
def passwd() -> None:
    """Print the hash of a host's console password (asked twice), for [web.hosts] in the bot config."""
    from forumbot.web.accounts import hash_password

    def go() -> int:
        password = click.prompt("Host console password", hide_input=True, confirmation_prompt=True)
        if len(password) < 10:
            raise ConfigError("a host's password needs at least 10 characters", fix="run forumbot passwd again")
        click.echo(hash_password(password))
        return 0

    sys.exit(guard(go))
