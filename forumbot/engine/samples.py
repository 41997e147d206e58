"""The events the shipped samples of a game produce, a few of each kind: what a host's templates are
rendered against when `forumbot check-config` checks them."""

from __future__ import annotations

import json
from functools import lru_cache

from forumbot.config.game import load_scenario
from forumbot.config.paths import data_dir
from forumbot.engine.cycle import LOGGED_SHORT
from forumbot.engine.replay import replay
from forumbot.errors import ConfigError

SAMPLES_PER_KIND = 6


@lru_cache(maxsize=8)
def sample_events(game: str) -> tuple[tuple[str, str], ...]:
    """(kind, data as JSON) of every event the shipped samples of `game` produce, a few of each kind."""
    seen: dict[str, list[str]] = {}
    for path in sorted(data_dir("samples").glob("*.toml")):
        try:
            scenario = load_scenario(path)
        except ConfigError:
            continue
        if scenario.config.game != game:
            continue
        result = replay(scenario)
        assert result.store is not None
        for row in result.store.events(scenario.config.name):
            found = [] if row["kind"] in LOGGED_SHORT else [(row["kind"], row["data"])]
            view = json.loads(row["data"]).get("view")
            if row["kind"] == "day_end" and isinstance(view, dict):
                found.append(("vote_count", json.dumps(view)))    # the day's last vote count, in full
            for kind, data in found:
                kept = seen.setdefault(kind, [])
                if len(kept) < SAMPLES_PER_KIND and data not in kept:
                    kept.append(data)
    return tuple((kind, data) for kind, rows in seen.items() for data in rows)
