"""The command line: `forumbot demo | replay | parse | audit | tally | check-config | run | status | flags`. Each
returns an exit code: 0 fine, 1 a check failed, 2 bad input (the message names the file, line and fix).

Each command lives in a module of this package, imported only when the command runs or its help is shown:
`forumbot --help` lists the commands from COMMANDS below and loads none of them."""

from __future__ import annotations

import importlib

import click

# name: (module and attribute of the command, the line `forumbot --help` shows for it)
COMMANDS: dict[str, tuple[str, str]] = {
    "archive": ("forumbot.cli.archive:archive", "Finished games and each player's record across them."),
    "audit": ("forumbot.cli.reading:audit", "Check a human host's vote counts in a thread."),
    "check-config": ("forumbot.cli.check:check_config", "Check scenario, game or bot config files."),
    "demo": ("forumbot.cli.play:demo", "Play a sample Mafia day on the local forum."),
    "flags": ("forumbot.cli.status:flags", "The flags for the host, and resolving them."),
    "forum": ("forumbot.cli.forum:forum", "The local forum's web accounts."),
    "host": ("forumbot.cli.host:host_command", "Say a host's command to the bot from the console."),
    "host-link": ("forumbot.cli.host:host_link", "Print a one-time sign-in link to the host console."),
    "open-thread": ("forumbot.cli.forum:open_thread", "Open a thread as the bot and print its id."),
    "parse": ("forumbot.cli.reading:parse", "Show how the bot reads one post."),
    "passwd": ("forumbot.cli.host:passwd", "Print the hash of a host's console password."),
    "replay": ("forumbot.cli.play:replay_command", "Run a scenario file through the bot on a virtual clock."),
    "run": ("forumbot.cli.run:run", "Run the bot: poll the games, end phases, deliver posts."),
    "status": ("forumbot.cli.status:status", "Games, phases, deadlines, the outbox, platforms, flags."),
    "tally": ("forumbot.cli.status:tally", "Print the current vote count of a running game."),
    "tournament": ("forumbot.cli.tournament:tournament",
                   "A tournament's standings, games and masks; its host's actions."),
}


class LazyGroup(click.Group):
    """A group whose commands are named in COMMANDS and imported when one is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name][0].split(":")
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in sorted(COMMANDS.items())])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="forumbot")
def cli() -> None:
    """forumbot: a game-master bot for play-by-post games (Mafia first)."""


def main() -> None:
    cli()
