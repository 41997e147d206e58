"""`forumbot status`, `flags` and `tally`: what the store says about the running games."""

from __future__ import annotations

import difflib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from forumbot.cli.common import command, guard
from forumbot.errors import ConfigError
from forumbot.model import Event
from forumbot.render import Renderer
from forumbot.text.decline import counted


def _open_store(config_path: str | None, db_path: str | None, default: str = "") -> tuple[Any, list[Any]]:
    """The store a bot config names (or --db, or `default` when neither is given), and the config's games.
    Raises ConfigError when neither is given or there is no store yet."""
    from forumbot.storage import Store

    games: list[Any] = []
    if config_path and db_path:
        raise ConfigError("--config and --db both name a store", fix="pass one of them")
    if config_path:
        from forumbot.config.bot import load_bot_config
        bot = load_bot_config(config_path)
        path, games = str(bot.store), list(bot.games)
    elif db_path or default:
        path = db_path or default
    else:
        raise ConfigError("say which bot", fix="pass --config bot.toml or --db forumbot.db")
    if not Path(path).exists():
        raise ConfigError("no store here", path=path,
                          fix=f"start the bot once ({command()} run --config BOT.toml), or pass the --config or --db "
                              "of the store it writes (the demo's: --db .forumbot-demo/forumbot.db)")
    return Store(path), games


def _deadline_text(rules: Any, state: Any, summary: dict[str, Any], now: datetime) -> str:
    """A game's phase and deadline as `status` says it: "day1, ends 2026-03-02T20:00:00Z (in 23h 58m)",
    "over (won by town)", "signup, no deadline"."""
    phase = summary.get("phase", "")
    if phase == "over":
        winner = summary.get("winner")
        return f"over (won by {winner})" if winner else "over"
    deadline = rules.next_deadline(state)
    if deadline is None:
        return f"{phase}, no deadline"
    left = int((deadline - now).total_seconds())
    when = "due now" if left <= 0 else f"in {left // 86400}d {left % 86400 // 3600}h {left % 3600 // 60}m".replace(
        "in 0d ", "in ")
    return f"{phase}, ends {deadline.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ} ({when})"


def _opened_threads(opened: list[tuple[str, str, str]], config_path: str | None) -> list[str]:
    """`status` lines for the threads the bot opened for a game: name, id and, from the bot config, URL."""
    if not opened:
        return []
    from forumbot.engine.threads import thread_url

    platforms: dict[str, Any] = {}
    if config_path:
        from forumbot.config.bot import load_bot_config
        platforms = load_bot_config(config_path).platforms
    lines = []
    for platform, thread, thread_id in opened:
        config = platforms.get(platform) or next((p for p in platforms.values() if p.kind == platform), None)
        url = thread_url(config.kind, config.options, thread_id) if config else ""
        lines.append(f"    thread {thread} on {platform}: {thread_id}" + (f" {url}" if url else ""))
    return lines


def _flag_line(flag: dict[str, Any]) -> str:
    where = flag.get("url") or flag.get("post") or ""
    who = f"{flag['author']}: " if flag.get("author") else ""
    done = f" [resolved {flag['resolved']}]" if flag.get("resolved") else ""
    line = f"  #{flag['id']} {flag['at']} {flag['game']}: {who}{flag['reason']}{done}"
    return line + (f"\n      {where}" if where else "")


FLAGS_IN_STATUS = 10


def activity_lines(rows: list[dict[str, Any]], phase: str) -> list[str]:
    """`status` lines of a game's activity: each living player's posts and words this phase and in all, and
    the time since their last post."""
    if not rows:
        return []
    out = [f"    activity ({phase}: posts/words; whole game: posts/words; last post):"]
    for row in rows:
        if not row["alive"]:
            continue
        today = row["phases"].get(phase, {"posts": 0, "words": 0})
        last = "never posted" if row["hours_since"] is None else f"{row['hours_since']:g} h ago"
        out.append(f"      {row['name']}: {today['posts']}/{today['words']}; {row['posts']}/{row['words']}; {last}")
    return out


def _tournament_lines(store: Any) -> list[str]:
    """Each tournament the store keeps: its games' states (from its kept plan) and whether it is over."""
    from forumbot.config.tournament import Plan
    from forumbot.engine.tournament import view

    lines = []
    for name in store.tournaments():
        kept = store.plan(name)
        if kept is None:   # a ledger that games named as theirs, without a plan
            lines.append(f"  {name}: a ledger of {counted(len(store.ledger(name)), 'entry/entries')}")
            continue
        seen = view(store, Plan.from_json(kept))
        games = "; ".join(f"{g['name']} {g['status']}" for g in seen["games"])
        lines.append(f"  {name}: {'finished' if seen['finished'] else 'running'} ({games})")
    return ["Tournaments:", *lines] if lines else []


@click.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself.")
def status(config_path: str | None, db_path: str | None) -> None:
    """Games, phases, next deadlines, the outbox backlog, each platform's last poll and last errors, and the
    open flags for the host (newest first)."""
    from forumbot.engine.threads import recorded
    from forumbot.games import get_game

    def go() -> int:
        store, configured = _open_store(config_path, db_path)
        click.echo("Games:")
        opened = recorded(store)
        known = {row.name for row in store.games()}
        for entry in configured:
            if entry.config.name not in known:
                click.echo(f"  {entry.config.name} ({entry.config.game}): "
                           f"starts {entry.config.start:%Y-%m-%dT%H:%M:%SZ}")
        ended = {h["name"]: h for h in store.hosted_games() if h["ended"]}
        now = datetime.now(UTC)
        for row in store.games():
            game = rules = get_game(row.game)
            state = game.from_json(row.state)
            summary = game.summary(state)
            pending = len(store.pending(row.name))
            said = _deadline_text(rules, state, summary, now)
            if row.name in ended:
                said = f"ended by {ended[row.name]['ended_by']} at {ended[row.name]['ended']} (in {said})"
            click.echo(f"  {row.name} ({row.game}): {said}; outbox backlog {pending}")
            for line in _opened_threads(opened.get(row.name, []), config_path):
                click.echo(line)
            activity = getattr(game, "activity", None)
            if activity is not None and summary.get("phase") != "over":
                for line in activity_lines(activity(state, now), str(summary.get("phase"))):
                    click.echo(line)
        for line in _tournament_lines(store):
            click.echo(line)
        click.echo("Platforms:")
        for health in store.platform_status():
            line = f"  {health['platform']}: last good poll {health['last_ok'] or 'never'}"
            if health["failures"]:
                line += f"; {counted(health['failures'], 'failure/failures')} in a row, next try {health['next_try']}"
            if health["last_error"]:
                line += f"; last error at {health['last_error_at']}: {health['last_error']}"
            click.echo(line)
        failed = [r for r in store.pending() if r["last_error"]]
        if failed:
            click.echo("Undelivered with errors:")
            for message in failed[:10]:
                tries = counted(message["attempts"], "attempt/attempts")
                click.echo(f"  {message['key']} ({tries}): {message['last_error']}")
        open_flags = store.flag_list()
        hint = f" (newest first; {command()} flags --resolve ID)" if open_flags else ""
        click.echo(f"Open flags: {len(open_flags)}{hint}")
        for flag in open_flags[:FLAGS_IN_STATUS]:
            click.echo(_flag_line(flag))
        if len(open_flags) > FLAGS_IN_STATUS:
            click.echo(f"  ... and {len(open_flags) - FLAGS_IN_STATUS} more: {command()} flags")
        return 0

    sys.exit(guard(go))


@click.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself.")
@click.option("--game", "game_name", default=None, help="Only this game's flags.")
@click.option("--all", "show_all", is_flag=True, help="Resolved flags too.")
@click.option("--resolve", "resolve", type=int, multiple=True, metavar="ID",
              help="Mark a flag resolved (repeat for several).")
@click.option("--json", "as_json", is_flag=True, help="Print the flags as JSON.")
def flags(config_path: str | None, db_path: str | None, game_name: str | None, show_all: bool,
          resolve: tuple[int, ...], as_json: bool) -> None:
    """The flags for the host (refused commands, unread names, posts that could not be read...), newest
    first, and resolving them. Exit 2 when an ID to resolve is not an open flag."""

    def go() -> int:
        store, _ = _open_store(config_path, db_path)
        if resolve:
            done = store.resolve_flags(resolve, datetime.now(UTC))
            missing = [i for i in resolve if i not in done]
            if done:
                click.echo("resolved: " + ", ".join(f"#{i}" for i in done))
            if missing:
                raise ConfigError("not open flags: " + ", ".join(f"#{i}" for i in missing),
                                  fix=f"{command()} flags --all lists every flag with its id")
            return 0
        listed = store.flag_list(game_name, include_resolved=show_all)
        if as_json:
            click.echo(json.dumps(listed, ensure_ascii=False, indent=2))
            return 0
        click.echo(counted(len(listed), "flag/flags" if show_all else "open flag/open flags")
                   + (f" of {game_name}" if game_name else ""))
        for flag in listed:
            click.echo(_flag_line(flag))
        return 0

    sys.exit(guard(go))


@click.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself (default: forumbot.db).")
@click.option("--game", "game_name", default=None, help="Which game (default: the only one in the store).")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the game's state as JSON instead.")
def tally(config_path: str | None, db_path: str | None, game_name: str | None, dialect: str, as_json: bool) -> None:
    """Print the current vote count of a running game, from the store."""
    from forumbot.games import get_game

    def run() -> int:
        store, _ = _open_store(config_path, db_path, "forumbot.db")
        where = config_path or db_path or "forumbot.db"
        rows = store.games()
        if game_name:
            rows = [r for r in rows if r.name == game_name]
        if len(rows) != 1:
            names = [r.name for r in store.games()]
            close = difflib.get_close_matches(game_name or "", names, n=1)
            fix = (f"did you mean --game {close[0]}?" if close else
                   f"pass --game with one of: {', '.join(names) or 'none'}")
            raise ConfigError(f"{'no game ' + game_name if game_name else 'several games'} in the store",
                              path=where, fix=fix)
        row = rows[0]
        game = get_game(row.game)
        state = game.from_json(row.state)
        if as_json:
            click.echo(json.dumps(game.summary(state), ensure_ascii=False, indent=2))
            return 0
        event = game.tally(state, datetime.now(UTC))
        phase = game.summary(state)["phase"]
        if event is None:   # no day running: the last day's final count, as its end-of-day post gave it
            ended = [e for e in store.events(row.name) if e["kind"] == "day_end"]
            if not ended:
                click.echo(f"{row.name}: no vote count in phase {phase}")
                return 0
            click.echo(f"{row.name}: no day is running ({phase}); the last day ended with:\n")
            event = Event("day_end", json.loads(ended[-1]["data"]))
        lang = row.setup.get("lang", "en") if isinstance(row.setup, dict) else "en"
        click.echo(Renderer(dialect, lang).text(event, row.game))
        return 0

    sys.exit(guard(run))
