"""`forumbot run`: the bot itself, on the wall clock or a simulated one."""

from __future__ import annotations

import sys
import tempfile
from typing import TYPE_CHECKING

import click

from forumbot.cli.common import guard
from forumbot.errors import ConfigError
from forumbot.text.decline import counted

if TYPE_CHECKING:
    from forumbot.config.bot import BotConfig


def _logging(level: str) -> None:
    import logging
    logging.basicConfig(level=getattr(logging, level.upper(), logging.INFO),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler says "Running job ..." on every poll; our own lines say what each poll did.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    logging.getLogger("pymorphy3").setLevel(logging.WARNING)


@click.command()
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
    from forumbot.config.bot import load_bot_config
    from forumbot.engine.replay import VirtualClock
    from forumbot.engine.service import Service, check_simulation
    from forumbot.model import parse_time

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
                click.echo(f"error: {name}: {counted(len(errors), 'failure/failures')}, last: {errors[-1]}", err=True)
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

    sys.exit(guard(go))


def _simulated(config: BotConfig, sim_dir: str | None, in_place: bool) -> BotConfig:
    """The config a simulation runs (copies in their own folder, unless `in_place`), said on stdout."""
    from forumbot.engine.simulation import simulation_config

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
