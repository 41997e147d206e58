"""`forumbot audit`: the command's work, kept out of cli.py (which only declares its options)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forumbot.audit.audit import Auditor
from forumbot.audit.mistakes import mistakes_data
from forumbot.audit.report import render_report
from forumbot.audit.source import Thread, from_url
from forumbot.errors import ConfigError
from forumbot.model import PlayerRef


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "forumbot" / "audit"


def reddit_from(config_path: str | None, kind: str = "reddit", url: str = "") -> Any:
    """The Reddit (or Discourse) platform of a bot config (the bot's credentials), or None without a config. A
    Discourse platform is taken only when its url is the topic's site; a config without one reads as a guest."""
    if not config_path:
        return None
    from forumbot.config.bot import load_bot_config
    from forumbot.engine.service import make_platform

    config = load_bot_config(config_path)
    for platform in config.platforms.values():
        if platform.kind == kind and (kind != "discourse"
                                      or url.startswith(str(platform.options.get("url", "")).rstrip("/") + "/")):
            return make_platform(platform, lambda: datetime.now(UTC))
    if kind == "discourse":
        return None
    raise ConfigError("the bot config has no Reddit platform", path=config_path,
                      fix='add [platforms.reddit] with kind = "reddit" and its credentials')


def audit_command(target: str, *, players: Sequence[PlayerRef] | None, mode: str | None, host: str | None,
                  as_json: bool, lang: str | None, day_starts: Sequence[str], cache: str | None,
                  config_path: str | None, echo: Callable[[str], None], interval: float = 1.0) -> int:
    """Audit one thread and print the report (or JSON). Exit code: 0 when forumbot agrees with every count
    of the host's, 1 when it differs somewhere or finds no count of the host's."""
    thread: Thread = from_url(target, cache_dir=Path(cache) if cache else default_cache(),
                              reddit=reddit_from(config_path) if "reddit" in target or "redd.it" in target
                              else None, min_interval=interval,
                              discourse=reddit_from(config_path, "discourse", target) if "/t/" in target else None)
    if not thread.posts:
        raise ConfigError(f"the thread {target} has no posts")
    language = lang or thread.lang
    auditor = Auditor(thread.posts, host=host or thread.host, players=players or thread.players, lang=language,
                      dialect=thread.dialect, reading=mode or thread.reading, phase=thread.phase,
                      dead=thread.dead, day_starts=day_starts)
    result = auditor.audit()
    if as_json:
        echo(json.dumps({**result.to_json(), **mistakes_data(result)}, ensure_ascii=False, indent=1))
    else:
        echo(render_report(result, thread.dialect, language).rstrip("\n"))
    if not result.checks:
        if not as_json:
            echo(f"no vote count by {auditor.host} found in the thread: name the host with --host NAME")
        return 1
    return 1 if result.differences else 0
