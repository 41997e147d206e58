"""`forumbot archive`: the finished games in the store (roles, the days' results and final counts, the
log) and each player's record across them."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

import click

from forumbot.cli.common import guard
from forumbot.cli.status import _open_store
from forumbot.errors import ConfigError
from forumbot.text.decline import counted


@click.command()
@click.argument("game_name", required=False)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself.")
@click.option("--player", "player_name", default=None, help="One player's record across the finished games.")
@click.option("--log", "with_log", is_flag=True, help="With GAME: the game's log (its events, without single votes).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def archive(game_name: str | None, config_path: str | None, db_path: str | None, player_name: str | None,
            with_log: bool, as_json: bool) -> None:
    """The finished games, one game (GAME), or one player's record (--player)."""
    from forumbot.engine import archive as arch

    def go() -> int:
        store, configured = _open_store(config_path, db_path)
        hosts = {entry.config.name: entry.config.host for entry in configured}
        records = arch.finished(store, hosts)
        if player_name:
            found = arch.player(records, player_name)
            if found is None:
                raise ConfigError(f"{player_name} played in no finished game",
                                  fix="forumbot archive lists the finished games and their players")
            return _show_player(found.to_json(), as_json)
        if game_name:
            record = next((r for r in records if r.name == game_name), None)
            if record is None:
                names = ", ".join(r.name for r in records) or "none yet"
                raise ConfigError(f"no finished game {game_name}", fix=f"finished games: {names}")
            return _show_game(asdict(record), arch.game_log(store, game_name) if with_log else None, as_json)
        if as_json:
            click.echo(json.dumps([asdict(r) for r in records], ensure_ascii=False, indent=2))
            return 0
        click.echo(f"Finished games: {len(records)}")
        for record in records:
            click.echo(f"  {record.name} ({record.game}): won by {record.winner or 'the host says'}; "
                       f"{counted(len(record.players), 'player/players')}, {counted(len(record.days), 'day/days')}")
        return 0

    sys.exit(guard(go))


def _show_game(record: dict, log: list | None, as_json: bool) -> int:
    if as_json:
        click.echo(json.dumps({**record, **({"log": log} if log is not None else {})}, ensure_ascii=False, indent=2))
        return 0
    click.echo(f"{record['name']} ({record['game']}): won by {record['winner'] or 'the host says'}")
    click.echo("Players:")
    for p in record["players"]:
        accounts = " → ".join(h["account"] for h in p["accounts"])
        fate = "alive" if p["alive"] else f"{p['died']['cause']} ({p['died']['phase']})" if p["died"] else "dead"
        click.echo(f"  {p['name']}: {p['role'] or '-'} ({p['team'] or '-'}), {fate}"
                   f"{', won' if p['won'] else ''}{'; played by ' + accounts if len(p['accounts']) > 1 else ''}"
                   f"{'; warnings ' + str(p['warnings']) if p['warnings'] else ''}")
    click.echo("Days:")
    for day in record["days"]:
        hanged = ", ".join(day["lynched"]) or "nobody"
        tally = ", ".join(f"{t}: {c}" for t, c in day["tally"].items())
        click.echo(f"  day {day['day']}: {day['result']} ({hanged}); {tally or 'no votes'}")
    if log is not None:
        click.echo("Log:")
        for event in log:
            click.echo(f"  #{event['seq']} {event['at']} {event['kind']}")
    return 0


def _show_player(record: dict, as_json: bool) -> int:
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
        return 0
    wins = ", ".join(f"{side} {n}" for side, n in sorted(record["wins"].items())) or "none"
    played = ", ".join(f"{side} {n}" for side, n in sorted(record["played"].items()))
    click.echo(f"{record['name']}: {counted(len(record['games']), 'game/games')} ({played}); wins: {wins}; "
               f"came in as a replacement {record['replacements']}, replaced {record['replaced']}; "
               f"warnings {record['warnings']}")
    for g in record["games"]:
        click.echo(f"  {g['game']}: {g['seat']}, {g['role'] or '-'} ({g['team'] or '-'})"
                   f"{', won' if g['won'] else ''}{', came in as a replacement' if g['came_in'] else ''}"
                   f"{', replaced' if g['replaced'] else ''}")
    return 0
