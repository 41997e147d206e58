"""Who is active: posts and words per player per phase in the game's threads, prods after a silence, and
the day's post minimum.

The runner hands every post of a player in the game's threads (votes and game thread) to `note`, with the
number of words the player wrote in it (quotes left out). The counts are kept per phase ("day2"), so a
day's figures are that day's. Options:

- `prod_hours` (0: off): during a day, a living player who has not posted for that many hours (counted
  from their last post, or from the day's start) gets one private prod; a new post starts the clock again;
- `post_minimum` (0: off): at a day's end, every living player with fewer posts that day gets an entry in
  the warnings ledger (rule `post_minimum`, with its warning) and the host a flag asking whether to
  replace them;
- `activity_in_count`: the vote count's "Not voting" line gives each player's posts today and the time
  since their last post.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.games.mafia.state import MafiaState
from forumbot.model import Event, format_time, parse_time

RULE = "post_minimum"


def note(state: MafiaState, player: str, words: int, at: datetime) -> MafiaState:
    """One post of `player` in the game's threads, during the current phase."""
    if player not in state.players or state.phase in ("over", "signup", "roles"):
        return state
    mine = dict(state.activity.get(player, {}))
    posts, total, _ = mine.get(state.phase, (0, 0, ""))
    mine[state.phase] = [posts + 1, total + max(words, 0), format_time(at)]
    return state.with_(activity={**state.activity, player: mine})


def last_post(state: MafiaState, player: str) -> datetime | None:
    """When the player last posted in the game's threads, or None when never."""
    times = [parse_time(entry[2]) for entry in state.activity.get(player, {}).values() if entry[2]]
    return max(times) if times else None


def of_phase(state: MafiaState, player: str, phase: str | None = None) -> tuple[int, int]:
    """(posts, words) of the player in a phase (default: the current one)."""
    entry = state.activity.get(player, {}).get(phase or state.phase)
    return (int(entry[0]), int(entry[1])) if entry else (0, 0)


def rows(state: MafiaState, at: datetime) -> list[dict[str, Any]]:
    """Every player's activity as the console and `forumbot status` show it: posts and words in each phase,
    in total, and the hours since the last post (None: never posted)."""
    out = []
    for name in state.players:
        phases = {phase: {"posts": int(e[0]), "words": int(e[1])}
                  for phase, e in state.activity.get(name, {}).items()}
        last = last_post(state, name)
        out.append({"name": name, "alive": name in state.alive, "phases": phases,
                    "posts": sum(p["posts"] for p in phases.values()),
                    "words": sum(p["words"] for p in phases.values()),
                    "today": of_phase(state, name)[0],
                    "last": format_time(last) if last else None,
                    "hours_since": round((at - last).total_seconds() / 3600, 1) if last else None})
    return out


def line(state: MafiaState, name: str, at: datetime) -> dict[str, Any]:
    """What the vote count's "Not voting" line says of one player."""
    posts, words = of_phase(state, name)
    last = last_post(state, name)
    return {"name": name, "posts": posts, "words": words,
            "hours": int((at - last).total_seconds() // 3600) if last else None}


# ---- prods --------------------------------------------------------------------------------------
def _prod_due(state: MafiaState, name: str) -> datetime | None:
    """When the player's prod is due this day (None: off, or already prodded since their last post)."""
    hours = state.options.prod_hours
    if not hours or not state.is_day or name not in state.alive:
        return None
    last = last_post(state, name)
    since = max(last, state.phase_started) if last else state.phase_started
    prodded = state.prodded.get(name)
    if prodded and parse_time(prodded) >= since:
        return None
    return since + timedelta(hours=hours)


def next_prod(state: MafiaState) -> datetime | None:
    """The soonest prod due before the day ends, or None."""
    due = [d for d in (_prod_due(state, n) for n in state.alive) if d is not None and d < state.phase_ends]
    return min(due) if due else None


def prod(state: MafiaState, at: datetime) -> tuple[MafiaState, list[Event]]:
    """Every prod due at `at`: one private message each."""
    events = []
    prodded = dict(state.prodded)
    for name in state.alive:
        due = _prod_due(state, name)
        if due is None or due > at or due >= state.phase_ends:
            continue
        prodded[name] = format_time(at)
        last = last_post(state, name)
        events.append(Event("prod", {"pm_to": name, "subject": "prod", "name": name, "day": state.number,
                                     "hours": f"{state.options.prod_hours:g}", "ends": format_time(state.phase_ends),
                                     "never": last is None}))
    return (state.with_(prodded=prodded), events) if events else (state, [])


# ---- the post minimum ---------------------------------------------------------------------------
def short_of_minimum(state: MafiaState) -> list[tuple[str, int]]:
    """The living players with fewer posts today than the minimum, and their posts."""
    need = state.options.post_minimum
    if not need or not state.is_day:
        return []
    return [(name, posts) for name in state.alive if (posts := of_phase(state, name)[0]) < need]
