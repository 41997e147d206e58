"""`forumbot demo` and `forumbot replay`: a scenario played through the bot on a virtual clock."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from forumbot.cli.common import command, guard
from forumbot.config.game import Scenario, load_scenario, locate
from forumbot.config.paths import data_dir
from forumbot.engine.replay import ReplayResult, replay
from forumbot.errors import ConfigError
from forumbot.storage import workdir

DEMO_SCENARIO = "mafia-day-ru.toml"
DEMO_DATABASES = ("forumbot.db", "forum.db")   # the store and the local forum, in the demo's folder


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


@click.command()
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
        click.echo(f"\nThe store is {folder}/forumbot.db: try  {command()} tally --db {folder}/forumbot.db")
        return 0

    sys.exit(guard(run))


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
            click.echo(f"The host console: {info.url}/console/signin (the same name and password)")
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


@click.command(name="replay")
@click.argument("scenario_path", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: messages, flags, state.")
@click.option("--poll", type=int, default=None, help="Poll interval in seconds (default: the scenario's).")
@click.option("--check", is_flag=True, help="Compare the result with the scenario's [expect]; exit 1 if off.")
def replay_command(scenario_path: str, as_json: bool, poll: int | None, check: bool) -> None:
    """Run a scenario file through the bot on a virtual clock and print what the bot posted."""

    def run() -> int:
        # Messages are printed as they go out and not kept, and the store and forum live in files while the
        # replay runs: memory stays flat however long the scenario.
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
            if not problems:
                click.echo(f"ok: {scenario_path} reached its [expect]" if scenario.expect else
                           f"ok: {scenario_path} played to its end (it has no [expect] to compare)", err=bool(writer))
            return 1 if problems else 0
        return 0

    sys.exit(guard(run))
