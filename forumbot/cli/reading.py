"""`forumbot parse` and `forumbot audit`: how the bot reads a post, and a human host's counts checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from forumbot.cli.common import guard
from forumbot.errors import ConfigError
from forumbot.model import PlayerRef
from forumbot.text.clean import DIALECTS
from forumbot.text.grammar import READINGS, load_grammar
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser


def read_roster(path: str) -> list[PlayerRef]:
    """A roster file: one player a line, `Name` or `Name | alias | alias`; # starts a comment."""
    players = []
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    except OSError as err:
        raise ConfigError(f"cannot read the roster: {err}", path=path) from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"the roster is not UTF-8 text ({err.reason} at byte {err.start})", path=path,
                          fix="save the file as UTF-8") from None
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        names = [part.strip() for part in text.split("|")]
        if not names[0] or not all(names):
            raise ConfigError("an empty name", path=path, line=number, fix="write `Name` or `Name | alias`")
        players.append(PlayerRef(names[0], tuple(names[1:])))
    if not players:
        raise ConfigError("the roster has no players", path=path, fix="write one player a line")
    return players


@click.command()
@click.option("--game", default="mafia", show_default=True, help="The game whose grammar to use.")
@click.option("--lang", default="en", show_default=True, help="The grammar's language (en, ru).")
@click.option("--roster", "roster_path", required=True, type=click.Path(dir_okay=False),
              help="One player a line: `Name` or `Name | alias | alias`.")
@click.option("--dialect", type=click.Choice(DIALECTS), default="plain", show_default=True,
              help="How the post is marked up.")
@click.option("--pm", is_flag=True, help="Read the text as a private message (night actions).")
@click.option("--reading", type=click.Choice(READINGS), default=None,
              help="The reading mode (default: the grammar's default for the dialect).")
@click.option("--explain", is_flag=True, help="Also say the reading mode and how each name was resolved.")
def parse(game: str, lang: str, roster_path: str, dialect: str, pm: bool, reading: str | None,
          explain: bool) -> None:
    """Show how the bot reads one post (the post's text on standard input)."""

    def run() -> int:
        roster = Roster(read_roster(roster_path), lang=lang)
        parser = PostParser(load_grammar(game, lang), roster, reading)
        text = sys.stdin.read()
        where = "pm" if pm else "thread"
        parsed = parser.parse_text(text, dialect, where=where)
        out = parsed.to_json()
        if explain:
            out["reading"] = parser.mode(dialect, where)
            out["names"] = parsed.names
            if pm:
                out["mended"] = parsed.mended      # typos read as commands, corrections taken
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return 0

    sys.exit(guard(run))


@click.command()
@click.argument("target")
@click.option("--roster", "roster_path", type=click.Path(dir_okay=False),
              help="The players (one a line, `Name | alias`); default: built from the counts and the posters.")
@click.option("--mode", type=click.Choice(READINGS), default=None,
              help="How votes are read (default: the forum's convention; see Reading modes).")
@click.option("--host", default=None, help="The host's account (default: the thread's first poster).")
@click.option("--lang", default=None, help="The votes' language: en, ru (default: en, or the export's).")
@click.option("--day-start", "day_starts", multiple=True, metavar="POST",
              help="A post (its id) that opens a new day; repeatable.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="A bot config whose Reddit (or Discourse) platform has the credentials.")
@click.option("--cache", type=click.Path(file_okay=False), default=None,
              help="Where read threads are kept (default: ~/.cache/forumbot/audit).")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def audit(target: str, roster_path: str | None, mode: str | None, host: str | None, lang: str | None,
          day_starts: tuple[str, ...], config_path: str | None, cache: str | None, as_json: bool) -> None:
    """Check a human host's vote counts in a thread: a phpBB topic URL (read as a guest), a Discourse topic
    URL, a Reddit submission URL, or a local export (a scenario .toml). Exit 1 when forumbot differs from a count."""
    from forumbot.audit.command import audit_command

    sys.exit(guard(lambda: audit_command(
        target, players=read_roster(roster_path) if roster_path else None, mode=mode, host=host, as_json=as_json,
        lang=lang, day_starts=day_starts, cache=cache, config_path=config_path, echo=click.echo)))
