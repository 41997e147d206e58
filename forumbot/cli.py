"""The command line: `forumbot demo | replay | parse | audit | tally | check-config | run | status | flags`. Each
returns an exit code: 0 fine, 1 a check failed, 2 bad input (the message names the file, line and fix)."""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from forumbot import workdir
from forumbot.config import Scenario, load_scenario, locate
from forumbot.errors import ConfigError, ForumbotError
from forumbot.grammar import READINGS, load_grammar
from forumbot.model import Event, PlayerRef
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
    """Run a command; a ForumbotError, or the store failing under it (a damaged page, a full disk, a
    read-only file), becomes a clear message and exit code 2, never a traceback."""
    try:
        return action()
    except ForumbotError as err:
        click.echo(f"error: {err}", err=True)
        return 2
    except sqlite3.Error as err:
        click.echo(f"error: the store failed: {err}\n  fix: {_store_fix(str(err))}", err=True)
        return 2


def _store_fix(message: str) -> str:
    text = message.lower()
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return "the bot must be able to write the store file and its folder: check their owner and permissions"
    if "full" in text or "disk i/o" in text:
        return "free some disk space, then start the bot again: nothing committed is lost"
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return "the store file is damaged: restore it from a backup (or sqlite3 STORE '.recover' > dump.sql)"
    return "check the store file (forumbot status --db STORE) and the disk it is on"


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


def _replay(path: str, scenario: Scenario | None = None, **kwargs: Any) -> ReplayResult:
    """Replay a scenario file (already loaded: `scenario`); a ConfigError found while setting the game up
    points at the file's line."""
    scenario = scenario or _load(path)
    try:
        return replay(scenario, **kwargs)
    except ConfigError as err:
        raise locate(err, path) from None


@cli.command()
@click.option("--scenario", "scenario_path", type=click.Path(dir_okay=False),
              help=f"A scenario to play instead of samples/{DEMO_SCENARIO}.")
@click.option("--pace", type=float, default=None,
              help="Seconds to wait between posts, to watch the game unfold (default 0; 3 with --web).")
@click.option("--dir", "folder", type=click.Path(file_okay=False), default=".forumbot-demo",
              show_default=True, help="Where the demo keeps its store and local forum: a new or empty folder, or "
              "one an earlier demo made (its databases are replaced; nothing else is touched).")
@click.option("--web", is_flag=True, help="Serve the local forum in the browser while the game plays.")
@click.option("--listen", default="127.0.0.1:8080", show_default=True, help="With --web: host:port to serve on.")
def demo(scenario_path: str | None, pace: float | None, folder: str, web: bool, listen: str) -> None:
    """Play a sample Mafia day on the local forum and print every post as it happens."""

    def run() -> int:
        path = scenario_path or str(data_dir("samples") / DEMO_SCENARIO)
        scenario = _load(path)
        if workdir.claim(folder, "demo"):
            workdir.remove_databases(folder, DEMO_DATABASES)
        if web:
            return _web_demo(scenario, folder, 3.0 if pace is None else pace, listen)
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


def _web_demo(scenario: Scenario, folder: str, pace: float, listen: str) -> int:
    """`demo --web`: serve the local forum while the day plays, then let a person post the last vote."""
    from forumbot.web.config import parse_listen
    from forumbot.web.demo import DemoInfo, web_demo

    try:
        address = parse_listen(listen)
    except ValueError:
        raise ConfigError(f"--listen '{listen}' is not host:port", fix="--listen 127.0.0.1:8080") from None

    def ready(info: DemoInfo) -> None:
        click.echo(click.style(f"The forum is at {info.url}/  (open it now: the posts arrive every {pace:g} s)",
                               bold=True))
        if info.host:
            click.echo(f"The host's account: {info.host} / {info.host_password}")
        click.echo()

    def live(info: DemoInfo) -> None:
        click.echo(click.style("Your turn. Sign in at " + info.url + "/signin as", bold=True))
        click.echo(f"    name:     {info.player}\n    password: {info.password}")
        click.echo(f"and post in {info.thread_url} the scenario's last post (or any vote):\n    {info.text}")
        click.echo("The bot polls every second. Ctrl-C stops the demo.\n")

    try:
        web_demo(scenario, folder, listen=address, pace=pace, on_ready=ready, on_live=live,
                 on_post=_print_post, on_message=_print_message)
    except KeyboardInterrupt:
        click.echo("demo stopped")
    return 0


class JsonWriter:
    """`json.dumps({"game", "messages", "flags", "state"}, ensure_ascii=False, indent=2)`, byte for byte, with
    each message printed as it comes instead of held."""

    def __init__(self, game: str) -> None:
        self.head = f'{{\n  "game": {json.dumps(game, ensure_ascii=False)},\n  "messages": '
        self.count = 0

    @staticmethod
    def _indented(value: Any, depth: int, first: bool = True) -> str:
        lines = json.dumps(value, ensure_ascii=False, indent=2).split("\n")
        pad = " " * depth
        return "\n".join((pad + line) if first or index else line for index, line in enumerate(lines))

    def message(self, message: dict[str, Any]) -> None:
        opening = f"{self.head}[\n" if self.count == 0 else ",\n"
        click.echo(opening + self._indented(message, 4), nl=False)
        self.count += 1

    def end(self, flags: list[dict[str, Any]], state: dict[str, Any]) -> str:
        """The rest of the object, after the messages."""
        closing = f"{self.head}[]" if self.count == 0 else "\n  ]"
        return (f'{closing},\n  "flags": {self._indented(flags, 2, first=False)},\n'
                f'  "state": {self._indented(state, 2, first=False)}\n}}')


@cli.command(name="replay")
@click.argument("scenario_path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: messages, flags, state.")
@click.option("--poll", type=int, default=None, help="Poll interval in seconds (default: the scenario's).")
@click.option("--check", is_flag=True, help="Compare the result with the scenario's [expect]; exit 1 if off.")
def replay_command(scenario_path: str, as_json: bool, poll: int | None, check: bool) -> None:
    """Run a scenario file through the bot on a virtual clock and print what the bot posted."""

    def run() -> int:
        # Messages are printed as they go out and not kept, and the store and forum live in files while the
        # replay runs: memory stays flat however long the scenario (issue 16).
        scenario = _load(scenario_path)
        writer = JsonWriter(scenario.config.name) if as_json else None
        with tempfile.TemporaryDirectory(prefix="forumbot-replay-") as folder:
            result = _replay(scenario_path, scenario, poll_seconds=poll, keep_messages=False,
                             on_message=writer.message if writer else _print_message,
                             store_path=Path(folder) / "store.db", forum_path=Path(folder) / "forum.db")
            result.close()
        if writer:
            click.echo(writer.end(result.flags, result.state))
        else:
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


@cli.command()
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
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return 0

    sys.exit(_guard(run))


@cli.command()
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
              help="A bot config whose Reddit platform has the credentials (Reddit threads).")
@click.option("--cache", type=click.Path(file_okay=False), default=None,
              help="Where read threads are kept (default: ~/.cache/forumbot/audit).")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def audit(target: str, roster_path: str | None, mode: str | None, host: str | None, lang: str | None,
          day_starts: tuple[str, ...], config_path: str | None, cache: str | None, as_json: bool) -> None:
    """Check a human host's vote counts in a thread: a phpBB topic URL (read as a guest), a Reddit
    submission URL, or a local export (a scenario .toml). Exit 1 when forumbot differs from a count."""
    from forumbot.audit.command import audit_command

    sys.exit(_guard(lambda: audit_command(
        target, players=read_roster(roster_path) if roster_path else None, mode=mode, host=host, as_json=as_json,
        lang=lang, day_starts=day_starts, cache=cache, config_path=config_path, echo=click.echo)))


@cli.command()
@click.option("--db", "db_path", default="forumbot.db", show_default=True, type=click.Path(dir_okay=False),
              help="The bot's store.")
@click.option("--game", "game_name", default=None, help="Which game (default: the only one in the store).")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the game's state as JSON instead.")
def tally(db_path: str, game_name: str | None, dialect: str, as_json: bool) -> None:
    """Print the current vote count of a running game, from the store."""
    from forumbot.games import get_game
    from forumbot.storage import Store

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

    sys.exit(_guard(run))


@cli.command()
@click.argument("name", required=False)
@click.option("--db", "db_path", default="forumbot.db", show_default=True, type=click.Path(dir_okay=False),
              help="The store the bot writes.")
@click.option("--dialect", type=click.Choice(["markdown", "bbcode"]), default="markdown", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON instead.")
def tournament(name: str | None, db_path: str, dialect: str, as_json: bool) -> None:
    """Print a tournament's standings (Tokens of Life, garnets, Elimination Candidates) from the store."""
    from forumbot.storage import Store
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
    """Check scenario, game or bot config files: syntax, keys, ruleset, options, grammar, templates, roster,
    dialect, and that each game can be played to its end."""
    from forumbot.botconfig import load_bot_config
    from forumbot.gamerun import check_setup
    from forumbot.runner import GameRun
    from forumbot.service import platform_dialect
    from forumbot.tomlfile import load_toml

    def check_game(config: Any, path: str, dialect: str) -> None:
        from forumbot.render.check import check_templates

        try:
            run = GameRun.build(config, dialect=dialect)
            check_setup(config)
        except ConfigError as err:
            raise locate(err, path) from None
        problems = check_templates(run.renderer, config.game)   # each names its template's line
        if problems:
            raise ConfigError(f"{path}: {len(problems)} problem(s) in the host's templates:\n"
                              + "\n".join(str(problem) for problem in problems))

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
@click.option("--once", is_flag=True,
              help="Poll every platform once (firing due deadlines) and exit; exit code 1 if a poll failed.")
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
    from forumbot.service import Service, check_simulation

    def go() -> int:
        if not simulate_from and (until or step is not None):
            raise ConfigError("--until and --step only go with --simulate-from",
                              fix="add --simulate-from 2026-03-01T20:00:00Z, or drop them to run on the wall clock")
        if simulate_from and once:
            raise ConfigError("--once runs on the wall clock; it does not go with --simulate-from",
                              fix="drop --once, or --simulate-from")
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
            every = min(p.poll_seconds for p in config.platforms.values()) if step is None else step
            check_simulation(start, end, every)
            config = _simulated(config, sim_dir, in_place)
            service = Service(config, clock=VirtualClock(start))
            service.simulate(start, end, every)
            return 0
        service = Service(config)
        if once:
            service.start_games()
            results = service.poll_all(service.clock())
            failed = {name: r.errors for name, r in results.items() if r is not None and r.errors}
            for name, errors in failed.items():
                click.echo(f"error: {name}: {len(errors)} failure(s), last: {errors[-1]}", err=True)
            return 1 if failed else 0
        server = None
        settings = service.web_settings()
        if settings is not None:   # the web forum, in a thread beside the scheduler
            from forumbot.web.server import WebServer
            server = WebServer(settings).start()
            click.echo(f"web forum: {settings.web.url}/ (listening on {server.host}:{server.port})")
        try:
            service.run_forever()
        finally:
            if server is not None:
                server.stop()
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


def _open_store(config_path: str | None, db_path: str | None) -> tuple[Any, list[Any]]:
    """The store a bot config names (or --db), and the config's games. Raises ConfigError when neither is
    given or there is no store yet."""
    from forumbot.storage import Store

    games: list[Any] = []
    if config_path:
        from forumbot.botconfig import load_bot_config
        bot = load_bot_config(config_path)
        path, games = str(bot.store), list(bot.games)
    elif db_path:
        path = db_path
    else:
        raise ConfigError("say which bot", fix="pass --config bot.toml or --db forumbot.db")
    if not Path(path).exists():
        raise ConfigError("no store yet", path=path, fix="start the bot once with forumbot run")
    return Store(path), games


def _opened_threads(opened: list[tuple[str, str, str]], config_path: str | None) -> list[str]:
    """`status` lines for the threads the bot opened for a game: name, id and, from the bot config, URL."""
    if not opened:
        return []
    from forumbot.threads import thread_url

    platforms: dict[str, Any] = {}
    if config_path:
        from forumbot.botconfig import load_bot_config
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


@cli.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="Or the store itself.")
def status(config_path: str | None, db_path: str | None) -> None:
    """Games, phases, next deadlines, the outbox backlog, each platform's last poll and last errors, and the
    open flags for the host (newest first)."""
    from forumbot.games import get_game
    from forumbot.threads import recorded

    def go() -> int:
        store, configured = _open_store(config_path, db_path)
        click.echo("Games:")
        opened = recorded(store)
        known = {row.name for row in store.games()}
        for entry in configured:
            if entry.config.name not in known:
                click.echo(f"  {entry.config.name} ({entry.config.game}): "
                           f"starts {entry.config.start:%Y-%m-%dT%H:%M:%SZ}")
        for row in store.games():
            summary = get_game(row.game).summary(get_game(row.game).from_json(row.state))
            pending = len(store.pending(row.name))
            click.echo(f"  {row.name} ({row.game}): {summary.get('phase')}, ends {summary.get('phase_ends', '-')}; "
                       f"outbox backlog {pending}")
            for line in _opened_threads(opened.get(row.name, []), config_path):
                click.echo(line)
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
        open_flags = store.flag_list()
        hint = " (newest first; forumbot flags --resolve ID)" if open_flags else ""
        click.echo(f"Open flags: {len(open_flags)}{hint}")
        for flag in open_flags[:FLAGS_IN_STATUS]:
            click.echo(_flag_line(flag))
        if len(open_flags) > FLAGS_IN_STATUS:
            click.echo(f"  ... and {len(open_flags) - FLAGS_IN_STATUS} more: forumbot flags")
        return 0

    sys.exit(_guard(go))


@cli.command()
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
                                  fix="forumbot flags --all lists every flag with its id")
            return 0
        listed = store.flag_list(game_name, include_resolved=show_all)
        if as_json:
            click.echo(json.dumps(listed, ensure_ascii=False, indent=2))
            return 0
        click.echo(f"{len(listed)} {'' if show_all else 'open '}flag(s)" + (f" of {game_name}" if game_name else ""))
        for flag in listed:
            click.echo(_flag_line(flag))
        return 0

    sys.exit(_guard(go))


@cli.group()
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
        path = forum_path
        if config_path:
            from forumbot.botconfig import load_bot_config
            bot = load_bot_config(config_path)
            if bot.web is None:
                raise ConfigError("the bot config has no [web] table", path=config_path,
                                  fix='add [web] with listen = "127.0.0.1:8080"')
            options = bot.platforms[bot.web.platform].options
            path, url, account = options.get("path", "forum.db"), bot.web.url, options.get("account", "forumbot")
        if not path:
            raise ConfigError("say which forum", fix="pass --config bot.toml or --forum forum.db")
        accounts = Accounts(path)
        for name in names:
            password = accounts.add_user(name, reserved=(account,))
            click.echo(f"{name}\t{password}")
        if url:
            click.echo(f"Sign in at {url}/signin")
        return 0

    sys.exit(_guard(go))


@cli.command(name="open-thread")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--platform", "platform_name", default=None, help="Which [platforms.NAME] (default: the first).")
@click.option("--title", required=True, help="The new thread's title.")
def open_thread(config_path: str, platform_name: str | None, title: str) -> None:
    """Open a thread as the bot (its first post on standard input) and print its id for [games.threads]."""
    from forumbot.botconfig import load_bot_config
    from forumbot.service import attach_store, make_platform, utcnow
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
    from forumbot.storage import Store

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


@cli.command()
def passwd() -> None:
    """Print the hash of a host's console password (asked twice), for [web.hosts] in the bot config."""
    from forumbot.web.accounts import hash_password

    def go() -> int:
        password = click.prompt("Host console password", hide_input=True, confirmation_prompt=True)
        if len(password) < 10:
            raise ConfigError("a host's password needs at least 10 characters", fix="run forumbot passwd again")
        click.echo(hash_password(password))
        return 0

    sys.exit(_guard(go))


@cli.command(name="host-link")
@click.argument("game")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False), help="The bot config.")
@click.option("--hours", default=24, show_default=True, type=click.IntRange(1, 24 * 14), help="How long it is valid.")
def host_link(game: str, config_path: str, hours: int) -> None:
    """Print a one-time sign-in link to the host console for GAME's host."""
    from forumbot.botconfig import load_bot_config
    from forumbot.corrections import new_link
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

    sys.exit(_guard(go))


def main() -> None:
    cli()
