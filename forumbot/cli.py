"""The command line: `forumbot demo | replay | parse | tally | check-config`. Each returns an exit code:
0 fine, 1 a check failed, 2 bad input (the message names the file, line and fix)."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from forumbot import workdir
from forumbot.config import Scenario, load_scenario, locate
from forumbot.errors import ConfigError, ForumbotError
from forumbot.grammar import load_grammar
from forumbot.model import PlayerRef
from forumbot.parse import PostParser
from forumbot.paths import data_dir
from forumbot.render import Renderer
from forumbot.replay import ReplayResult, replay
from forumbot.text.clean import DIALECTS
from forumbot.text.names import Roster

if TYPE_CHECKING:
    from forumbot.botconfig import BotConfig

DEMO_SCENARIO = "mafia-day-ru.toml"
DEMO_DATABASES = ("forumbot.db", "forum.db")   # the store and the local forum, in the demo's folder


def _guard(action: Callable[[], int]) -> int:
    """Run a command; a ForumbotError becomes a clear message and exit code 2, never a traceback."""
    try:
        return action()
    except ForumbotError as err:
        click.echo(f"error: {err}", err=True)
        return 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="forumbot")
def cli() -> None:
    """forumbot: a game-master bot for play-by-post games (Mafia first)."""


def _print_post(post: dict[str, Any]) -> None:
    where = "PM to the bot" if post.get("pm") else f"#{post['thread']}"
    click.echo(click.style(f"[{post['at']}] {post['author']} in {where}:", fg="cyan"))
    click.echo("    " + post["text"].replace("\n", "\n    "))


def _print_message(message: dict[str, Any]) -> None:
    where = f"PM to {message['pm']}" if "pm" in message else f"#{message['thread']}"
    click.echo(click.style(f"[{message['at']}] forumbot in {where} ({message['kind']}):", fg="green",
                           bold=True))
    click.echo("    " + message["text"].rstrip().replace("\n", "\n    "))
    click.echo()


def _load(path: str) -> Scenario:
    try:
        return load_scenario(path)
    except ConfigError as err:
        raise locate(err, path) from None


def _replay(path: str, **kwargs: Any) -> ReplayResult:
    """Replay a scenario file; a ConfigError found while setting the game up points at the file's line."""
    scenario = _load(path)
    try:
        return replay(scenario, **kwargs)
    except ConfigError as err:
        raise locate(err, path) from None


@cli.command()
@click.option("--scenario", "scenario_path", type=click.Path(dir_okay=False),
              help=f"A scenario to play instead of samples/{DEMO_SCENARIO}.")
@click.option("--pace", type=float, default=0.0, show_default=True,
              help="Seconds to wait between posts, to watch the game unfold.")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=".forumbot-demo",
              show_default=True, help="Where the demo keeps its store and local forum: a new or empty folder, or "
              "one an earlier demo made (its databases are replaced; nothing else is touched).")
def demo(scenario_path: str | None, pace: float, folder: str) -> None:
    """Play a sample Mafia day on the local forum and print every post as it happens."""

    def run() -> int:
        path = scenario_path or str(data_dir("samples") / DEMO_SCENARIO)
        scenario = _load(path)
        if workdir.claim(folder, "demo"):
            workdir.remove_databases(folder, DEMO_DATABASES)
        click.echo(f"forumbot demo: {path} on the local forum in {folder}/ "
                   f"({len(scenario.config.players)} players, {len(scenario.posts)} posts)\n")

        def show(item: dict[str, Any], printer: Callable[[dict[str, Any]], None]) -> None:
            printer(item)
            if pace:
                time.sleep(pace)

        result = _replay(path, on_message=lambda m: show(m, _print_message),
                        on_post=lambda p: show(p, _print_post),
                        store_path=Path(folder) / DEMO_DATABASES[0], forum_path=Path(folder) / DEMO_DATABASES[1])
        state = result.state
        click.echo(f"Phase now: {state['phase']}; alive: {len(state['alive'])}; "
                   f"flags for the host: {len(result.flags)}")
        for flag in result.flags:
            click.echo(f"  flag: {flag['author']}: {flag['reason']}")
        click.echo(f"\nThe store is {folder}/forumbot.db: try  forumbot tally --db {folder}/forumbot.db")
        return 0

    sys.exit(_guard(run))


@cli.command(name="replay")
@click.argument("scenario_path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: messages, flags, state.")
@click.option("--poll", type=int, default=None, help="Poll interval in seconds (default: the scenario's).")
@click.option("--check", is_flag=True, help="Compare the result with the scenario's [expect]; exit 1 if off.")
def replay_command(scenario_path: str, as_json: bool, poll: int | None, check: bool) -> None:
    """Run a scenario file through the bot on a virtual clock and print what the bot posted."""

    def run() -> int:
        result = _replay(scenario_path, poll_seconds=poll)
        if as_json:
            click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        else:
            for message in result.messages:
                _print_message(message)
            for flag in result.flags:
                click.echo(f"flag: [{flag['at']}] {flag['author']}: {flag['reason']}")
        if check:
            problems = result.differences()
            for problem in problems:
                click.echo(f"expect: {problem}", err=True)
            return 1 if problems else 0
        return 0

    sys.exit(_guard(run))


def read_roster(path: str) -> list[PlayerRef]:
    """A roster file: one player a line, `Name` or `Name | alias | alias`; # starts a comment."""
    players = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ConfigError(f"cannot read the roster: {err}", path=path) from None
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


@cli.command()
@click.option("--game", default="mafia", show_default=True, help="The game whose grammar to use.")
@click.option("--lang", default="en", show_default=True, help="The grammar's language (en, ru).")
@click.option("--roster", "roster_path", required=True, type=click.Path(dir_okay=False),
              help="One player a line: `Name` or `Name | alias | alias`.")
@click.option("--dialect", type=click.Choice(DIALECTS), default="plain", show_default=True,
              help="How the post is marked up.")
@click.option("--pm", is_flag=True, help="Read the text as a private message (night actions).")
@click.option("--explain", is_flag=True, help="Also say how each name was resolved.")
def parse(game: str, lang: str, roster_path: str, dialect: str, pm: bool, explain: bool) -> None:
    """Show how the bot reads one post (the post's text on standard input)."""

    def run() -> int:
        roster = Roster(read_roster(roster_path), lang=lang)
        parser = PostParser(load_grammar(game, lang), roster)
        text = sys.stdin.read()
        parsed = parser.parse_text(text, dialect, where="pm" if pm else "thread")
        out = parsed.to_json()
        if explain:
            out["names"] = [roster.explain(raw) for intent in parsed.intents
                            for raw in [*intent.data.get("unresolved", {}).values()]]
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return 0

    sys.exit(_guard(run))


@cli.command()
@click.option("--db", "db_path", default="forumbot.db", show_default=True, type=click.Path(dir_okay=False),
              help="The bot's store.")
@click.option("--game", "game_name", default=None, help="Which game (default: the only one in the store).")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the game's state as JSON instead.")
def tally(db_path: str, game_name: str | None, dialect: str, as_json: bool) -> None:
    """Print the current vote count of a running game, from the store."""
    from forumbot.games import get_game
    from forumbot.store import Store

    def run() -> int:
        if not Path(db_path).exists():
            raise ConfigError("no store here", path=db_path,
                              fix="pass --db with the store the bot writes (forumbot demo makes one)")
        store = Store(db_path)
        rows = store.games()
        if game_name:
            rows = [r for r in rows if r.name == game_name]
        if len(rows) != 1:
            names = ", ".join(r.name for r in store.games()) or "none"
            raise ConfigError(f"{'no game ' + game_name if game_name else 'several games'} in the store",
                              path=db_path, fix=f"pass --game with one of: {names}")
        row = rows[0]
        game = get_game(row.game)
        state = game.from_json(row.state)
        if as_json:
            click.echo(json.dumps(game.summary(state), ensure_ascii=False, indent=2))
            return 0
        event = game.tally(state, datetime.now(UTC))
        if event is None:
            click.echo(f"{row.name}: no vote count in phase {game.summary(state)['phase']}")
            return 0
        lang = row.setup.get("lang", "en") if isinstance(row.setup, dict) else "en"
        click.echo(Renderer(dialect, lang).text(event, row.game))
        return 0

    sys.exit(_guard(run))


@cli.command()
@click.argument("name", required=False)
@click.option("--db", "db_path", default="forumbot.db", show_default=True, type=click.Path(dir_okay=False),
              help="The store the bot writes.")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON instead.")
def tournament(name: str | None, db_path: str, dialect: str, as_json: bool) -> None:
    """Print a tournament's standings (Tokens of Life, garnets, Elimination Candidates) from the store."""
    from forumbot.store import Store
    from forumbot.tournament import standings_event

    def run() -> int:
        if not Path(db_path).exists():
            raise ConfigError("no store here", path=db_path, fix="pass --db with the store the bot writes")
        store = Store(db_path)
        known = store.tournaments()
        chosen = name or (known[0] if len(known) == 1 else None)
        if chosen not in known:
            raise ConfigError(f"no tournament {name or ''} in the store".replace("  ", " "), path=db_path,
                              fix="name one of: " + (", ".join(known) or "none yet (no game has finished)"))
        event = standings_event(str(chosen), store.ledger(str(chosen)))
        if as_json:
            click.echo(json.dumps(event.data, ensure_ascii=False, indent=2))
        else:
            click.echo(Renderer(dialect).text(event))
        return 0

    sys.exit(_guard(run))


@cli.command(name="check-config")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
def check_config(paths: tuple[str, ...]) -> None:
    """Check scenario or game config files: syntax, keys, ruleset, grammar, templates, roster."""
    from forumbot.runner import GameRun, setup_of

    def check(path: str) -> None:
        from forumbot.render.check import check_templates
        try:
            scenario = load_scenario(path)
            run = GameRun.build(scenario.config, dialect=scenario.config.dialect)
            run.game.new(setup_of(scenario.config))
        except ConfigError as err:
            raise locate(err, path) from None
        problems = check_templates(run.renderer, scenario.config.game)   # each names its template's line
        if problems:
            raise ConfigError(f"{path}: {len(problems)} problem(s) in the host's templates:\n"
                              + "\n".join(str(problem) for problem in problems))

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

    sys.exit(_guard(run))


def _logging(level: str) -> None:
    import logging
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler says "Running job ..." on every poll; our own lines say what each poll did.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    logging.getLogger("pymorphy3").setLevel(logging.WARNING)


@cli.command()
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="The bot config (see config/bot.example.toml).")
@click.option("--once", is_flag=True, help="Poll every platform once (firing due deadlines) and exit.")
@click.option("--simulate-from", "simulate_from", default=None,
              help="Run on a virtual clock from this time (ISO-8601) instead of the wall clock.")
@click.option("--until", "until", default=None, help="With --simulate-from: stop at this time.")
@click.option("--step", "step", type=float, default=None,
              help="With --simulate-from: seconds between polls (default: the platforms' poll_seconds).")
@click.option("--sim-dir", "sim_dir", type=click.Path(file_okay=False), default=None,
              help="With --simulate-from: the folder for the simulation's copies of the store and local forums "
              "(default: a new temporary folder); run again with the same folder to resume.")
@click.option("--in-place", "in_place", is_flag=True,
              help="With --simulate-from: run on the configured store and platforms themselves (a test bot "
              "against a test forum); everything it posts is real.")
def run(config_path: str, once: bool, simulate_from: str | None, until: str | None, step: float | None,
        sim_dir: str | None, in_place: bool) -> None:
    """Run the bot: poll every configured game, end phases at their deadlines, deliver every post once."""
    from forumbot.botconfig import load_bot_config
    from forumbot.model import parse_time
    from forumbot.replay import VirtualClock
    from forumbot.service import Service

    def go() -> int:
        config = load_bot_config(config_path)
        _logging(config.log_level)
        if (sim_dir or in_place) and not simulate_from or (sim_dir and in_place):
            raise ConfigError("--sim-dir and --in-place are for a simulation, and exclude each other",
                              fix="add --simulate-from, and pass one of them")
        if simulate_from:
            if not until:
                raise ConfigError("--simulate-from needs --until", fix="add --until 2026-03-05T00:00:00Z")
            try:
                start, end = parse_time(simulate_from), parse_time(until)
            except ValueError:
                raise ConfigError("--simulate-from and --until take times like 2026-03-01T20:00:00Z") from None
            config = _simulated(config, sim_dir, in_place)
            service = Service(config, clock=VirtualClock(start))
            every = step or min(p.poll_seconds for p in config.platforms.values())
            service.simulate(start, end, every)
            return 0
        service = Service(config)
        if once:
            service.start_games()
            service.poll_all(service.clock())
            return 0
        service.run_forever()
        return 0

    sys.exit(_guard(go))


def _simulated(config: BotConfig, sim_dir: str | None, in_place: bool) -> BotConfig:
    """The config a simulation runs (copies in their own folder, unless `in_place`), said on stdout."""
    from forumbot.simulation import simulation_config

    if in_place:
        click.echo(f"simulation IN PLACE: it writes to the store {config.store} and posts on the platforms "
                   f"{', '.join(config.platforms)}")
        return config
    folder = sim_dir or tempfile.mkdtemp(prefix="forumbot-simulation-")
    copy, resumed = simulation_config(config, folder)
    start = "resumed" if resumed else "copied from the live store" if config.store.exists() else "no live store yet"
    click.echo(f"simulation on a copy in {folder} ({start}): the live store {config.store} and the platforms "
               "are not touched")
    return copy


@cli.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself.")
def status(config_path: str | None, db_path: str | None) -> None:
    """Games, phases, next deadlines, the outbox backlog, each platform's last poll and last errors."""
    from forumbot.games import get_game
    from forumbot.store import Store

    def go() -> int:
        waiting: list[str] = []
        if config_path:
            from forumbot.botconfig import load_bot_config
            bot = load_bot_config(config_path)
            path = str(bot.store)
            waiting = [f"  {g.config.name} ({g.config.game}): starts {g.config.start:%Y-%m-%dT%H:%M:%SZ}"
                       for g in bot.games]
        elif db_path:
            path = db_path
        else:
            raise ConfigError("say which bot", fix="pass --config bot.toml or --db forumbot.db")
        if not Path(path).exists():
            raise ConfigError("no store yet", path=path, fix="start the bot once with forumbot run")
        store = Store(path)
        click.echo("Games:")
        known = {row.name for row in store.games()}
        for line in waiting:
            if line.split(" (")[0].strip() not in known:
                click.echo(line)
        for row in store.games():
            summary = get_game(row.game).summary(get_game(row.game).from_json(row.state))
            pending = len(store.pending(row.name))
            click.echo(f"  {row.name} ({row.game}): {summary.get('phase')}, ends {summary.get('phase_ends', '-')}; "
                       f"outbox backlog {pending}")
        click.echo("Platforms:")
        for health in store.platform_status():
            line = f"  {health['platform']}: last good poll {health['last_ok'] or 'never'}"
            if health["failures"]:
                line += f"; {health['failures']} failure(s) in a row, next try {health['next_try']}"
            if health["last_error"]:
                line += f"; last error at {health['last_error_at']}: {health['last_error']}"
            click.echo(line)
        failed = [r for r in store.pending() if r["last_error"]]
        if failed:
            click.echo("Undelivered with errors:")
            for message in failed[:10]:
                click.echo(f"  {message['key']} ({message['attempts']} attempt(s)): {message['last_error']}")
        return 0

    sys.exit(_guard(go))


@cli.command(name="host")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--game", "game_name", required=True, help="The game (its name in the bot config).")
@click.argument("words", nargs=-1, required=True)
def host_command(config_path: str, game_name: str, words: tuple[str, ...]) -> None:
    """Say a host's command to the bot from the console, as if the game's host had sent it by PM
    (`forumbot host --config bot.toml --game mafia-1 warn Tom Hanks rule 8.2.4 hinted at a check`). It is
    stored at once; the running bot reads it, and answers the host, at its next poll."""
    import uuid

    from forumbot.botconfig import load_bot_config
    from forumbot.model import Post
    from forumbot.store import Store

    def go() -> int:
        bot = load_bot_config(config_path)
        game = next((g.config for g in bot.games if g.config.name == game_name), None)
        if game is None:
            raise ConfigError(f"no game '{game_name}' in the bot config", path=config_path,
                              fix="games: " + ", ".join(g.config.name for g in bot.games))
        if not game.host:
            raise ConfigError(f"game '{game_name}' has no host", path=game.source, fix='add host = "..." to [game]')
        post = Post(f"console:{uuid.uuid4().hex}", "", game.host, datetime.now(UTC), " ".join(words), pm=True)
        Store(str(bot.store)).save_posts("console", [post])
        click.echo(f"stored as {game.host}'s PM to the bot: {post.body}")
        return 0

    sys.exit(_guard(go))


def main() -> None:
    cli()
