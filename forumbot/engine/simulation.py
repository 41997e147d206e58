"""Simulations never touch live data: `forumbot run --simulate-from` runs on copies.

The bot's store and every local forum are copied (SQLite's backup API: a consistent copy even while the
live bot writes) into a folder of the simulation's own, marked as such, and the simulation reads and
writes only there. A platform on a real site (Reddit) is refused: a simulation would post there. A
simulation run again in the same folder resumes from its copies.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from forumbot.config.bot import BotConfig, PlatformConfig
from forumbot.errors import ConfigError
from forumbot.storage import workdir

STORE = "forumbot.db"


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of the SQLite file `source` (nothing when there is none yet), written whole or
    not at all."""
    if not source.exists():
        return
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    origin = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(str(partial))
        try:
            origin.backup(copy)
        finally:
            copy.close()
    except sqlite3.Error as err:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot copy {source} for the simulation: {err}") from None
    finally:
        origin.close()
    partial.replace(target)


def simulation_config(config: BotConfig, folder: str | Path) -> tuple[BotConfig, bool]:
    """The config a simulation runs: the store and the local forums replaced by copies in `folder`.
    Returns it and whether the folder already held a simulation (which then resumes). Raises ConfigError
    for a game on a platform other than a local forum, or for a folder that is not the simulation's."""
    live = sorted({g.platform for g in config.games if config.platforms[g.platform].kind != "local"})
    if live:
        raise ConfigError(f"a simulation would post for real on {', '.join(live)}",
                          path=config.path, fix="simulate a config whose games are on local forums, or pass "
                          "--in-place to run on the configured store and platforms themselves")
    target = Path(folder).resolve()
    used = [p for name, p in config.platforms.items() if any(g.platform == name for g in config.games)]
    sources = {STORE: Path(config.store)}
    sources.update({f"forum-{p.name}.db": Path(p.options.get("path", "forum.db")) for p in used})
    for source in sources.values():
        if source.resolve().is_relative_to(target):
            raise ConfigError(f"the simulation folder {target} holds live data ({source})",
                              fix="pick another folder for --sim-dir")
    resumed = workdir.claim(target, "simulation")
    for name, source in sources.items():
        if not (target / name).exists():
            copy_database(source, target / name)
    platforms = {p.name: PlatformConfig(p.name, p.kind, {**p.options, "path": str(target / f"forum-{p.name}.db")},
                                        p.poll_seconds) for p in used}
    return replace(config, store=target / STORE, platforms=platforms), resumed
