"""`forumbot tournament`: a tournament's schedule, roster (masks until revealed), standings and log from the
store; the host's confirmations, approval to reveal the masks and corrections; a tournament sample replayed."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from forumbot.cli.common import guard
from forumbot.errors import ConfigError, IllegalIntent
from forumbot.render import Renderer

FIELDS = ("tol", "garnets", "ec")


def _changes(words: tuple[str, ...]) -> dict[str, int]:
    """`garnets=+1 tol=-1` → {"garnets": 1, "tol": -1}."""
    out: dict[str, int] = {}
    for word in words:
        key, _, value = word.partition("=")
        if key not in FIELDS or not value.lstrip("+-").isdigit():
            raise ConfigError(f"'{word}' is not a change of the ledger", fix="write tol=+1, garnets=-2 or ec=+1")
        out[key] = int(value)
    return out


def schedule_text(view: dict[str, Any]) -> str:
    """The schedule, the roster and the log as plain lines (the standings post comes first)."""
    lines = ["", f"Games of {view['tournament']}:"]
    for game in view["games"]:
        when = f"started {game['started']}" if game["started"] else f"starts {game['start']}"
        lines.append(f"- {game['name']} ({game['game']}): {game['status']}, {when}"
                     + (f", ended {game['ended']}" if game["ended"] else ""))
    lines += ["", "Masks revealed:" if view["revealed"] else "Masks (revealed at the end with the host's approval):"]
    for member in view["roster"]:
        lines.append(f"- {member['mask']}" + (f": {member['player']} ({member['forum'] or 'no forum'})"
                                              if view["revealed"] else ""))
    changes = [r for r in view["log"] if r["kind"] in ("corrected", "ledger_changed", "confirmed", "reveal_approved")]
    if changes:
        lines += ["", "The host's actions and changes of the ledger:"]
        for row in changes:
            what = {"corrected": "corrected", "ledger_changed": "the results changed of",
                    "confirmed": "confirmed", "reveal_approved": "approved revealing the masks"}[row["kind"]]
            detail = row["data"].get("why", "") if row["kind"] == "corrected" else ""
            lines.append(f"- {row['at']} {row['by']}: {what} {row['game']}".rstrip()
                         + (f" ({row['data'].get('player')}: "
                            + ", ".join(f"{k} {row['data'][k]:+d}" for k in FIELDS if k in row['data'])
                            + f"; {detail})" if detail else ""))
    return "\n".join(lines)


@click.command()
@click.argument("name", required=False)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config (its store).")
@click.option("--db", "db_path", default="forumbot.db", show_default=True, type=click.Path(dir_okay=False),
              help="Or the store the bot writes.")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print it all as JSON instead.")
@click.option("--confirm", "confirm_game", metavar="GAME", help="The host's go for a game that waits for it.")
@click.option("--reveal", is_flag=True, help="The host approves revealing the masks at the tournament's end.")
@click.option("--correct", "correct_args", nargs=2, metavar="GAME PLAYER",
              help="The host corrects GAME's result for PLAYER by the changes given as arguments after NAME.")
@click.option("--reread", "reread_args", nargs=2, metavar="GAME POST",
              help="The host corrects a finished round: GAME reads its post POST (a PM's or post's id in the "
                   "store) as --text; the game's results are worked out again and the ledger follows.")
@click.option("--text", default="", help="With --reread: how the post is to be read.")
@click.option("--why", default="", help="Why the host corrects it (kept in the audit trail).")
@click.option("--by", "by", default="", help="The host's account (the tournament's host only).")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False),
              help="Replay a tournament sample on a virtual clock instead (with --json: its result; exit 1 if it "
                   "misses its [expect]).")
@click.argument("changes", nargs=-1)
def tournament(name: str | None, config_path: str | None, db_path: str, dialect: str, as_json: bool,
               confirm_game: str | None, reveal: bool,
               correct_args: tuple[str, str] | None, reread_args: tuple[str, str] | None, text: str, why: str, by: str,
               replay_path: str | None, changes: tuple[str, ...]) -> None:
    """Print a tournament's standings (Tokens of Life, garnets, Elimination Candidates, best-player places,
    warnings, forums' penalty points), its games and masks from the store; or act as its host."""
    from forumbot.engine import tournament as tour
    from forumbot.games.tournament import Plan, standings_event
    from forumbot.storage import Store

    def replay() -> int:
        from forumbot.engine.tournament_replay import replay_tournament

        result = replay_tournament(str(replay_path))
        problems = result.differences()
        if as_json:
            click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        else:
            for message in result.messages:
                click.echo(f"--- [{message['at']}] {message['game']} "
                           f"{'PM to ' + message['pm'] if 'pm' in message else message['thread']}\n{message['text']}")
        for problem in problems:
            click.echo(f"expect: {problem}", err=True)
        return 1 if problems else 0

    def run() -> int:
        nonlocal db_path
        if replay_path:
            return replay()
        if config_path:
            from forumbot.config.bot import load_bot_config
            db_path = str(load_bot_config(config_path).store)
        if not Path(db_path).exists():
            raise ConfigError("no store here", path=db_path, fix="pass --db with the store the bot writes")
        store = Store(db_path)
        known = store.tournaments()
        chosen = name or (known[0] if len(known) == 1 else None)
        if chosen not in known:
            raise ConfigError(f"no tournament {name or ''} in the store".replace("  ", " "), path=db_path,
                              fix="name one of: " + (", ".join(known) or "none yet (no game has finished)"))
        kept = store.plan(str(chosen))
        acting = confirm_game or reveal or correct_args or reread_args
        if acting:
            if kept is None:
                raise ConfigError(f"{chosen} is a ledger without a plan: it has no host to act for it",
                                  fix="run the tournament from a tournament file ([[tournaments]] in the bot config)")
            plan, at = Plan.from_json(kept), datetime.now(UTC)
            try:
                if confirm_game:
                    tour.confirm(store, plan, confirm_game, by, at)
                if reveal:
                    tour.approve_reveal(store, plan, by, at)
                if correct_args:
                    tour.correct(store, plan, correct_args[0], correct_args[1], _changes(changes), why, by, at)
                if reread_args:
                    tour.reread(store, plan, reread_args[0], reread_args[1], text, why, by, at)
            except IllegalIntent as err:
                click.echo(f"refused: {err}", err=True)
                return 1
            click.echo("done: the running bot takes it at its next poll")
            return 0
        if kept is None:   # a ledger that games named as theirs (tournament = "..."), without a plan
            event = standings_event(str(chosen), store.ledger(str(chosen)))
            click.echo(json.dumps(event.data, ensure_ascii=False, indent=2) if as_json
                       else Renderer(dialect).text(event))
            return 0
        plan = Plan.from_json(kept)
        view = tour.view(store, plan)
        if as_json:
            click.echo(json.dumps(view, ensure_ascii=False, indent=2))
            return 0
        from forumbot.model import Event
        click.echo(Renderer(dialect, plan.lang).text(Event("tournament_standings", view["standings"])))
        click.echo(schedule_text(view))
        return 0

    sys.exit(guard(run))
