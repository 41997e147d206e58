"""A tournament file (TOML) → forumbot.games.tournament.Plan, with every error naming the file, the line and
the fix. docs/tournaments.md documents every key.

    [tournament]          name, host, lang, dialect, reveal ("host" or "never")
    [[players]]           name (the mask every game knows), player (who plays it), forum
    [[games]]             name, game or picked_by + [games.choices."<option>"], ruleset, options, after,
                          start | start_hours | confirm

A tournament sample adds [[posts]] (each with `game`), [[host]] (the host's confirmations, approvals and
corrections at their times) and [expect] (forumbot/engine/tournament.py replays it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forumbot.config.game import LANGS, _time, load_ruleset
from forumbot.config.tomlfile import TomlFile, load_toml
from forumbot.games import GAMES
from forumbot.games.tournament import Choice, Member, Plan, Stage
from forumbot.render.renderer import DIALECTS
from forumbot.seating import name_taken

TOURNAMENT_KEYS = ("name", "host", "lang", "dialect", "reveal")
MEMBER_KEYS = ("name", "player", "forum")
STAGE_KEYS = ("name", "game", "ruleset", "options", "after", "picked_by", "choices", "start", "start_hours",
              "confirm")
CHOICE_KEYS = ("game", "ruleset", "options")
REVEALS = ("host", "never")


def _game_options(doc: TomlFile, table: dict[str, Any], where: str) -> Choice:
    game = table.get("game")
    if game not in GAMES:
        raise doc.error(f"{where}: game = {game!r} is not a game the bot runs", str(game) if game else where,
                        fix="games: " + ", ".join(sorted(GAMES)))
    options: dict[str, Any] = {}
    if table.get("ruleset"):
        options.update(load_ruleset(str(table["ruleset"]), str(game)))
    extra = table.get("options", {})
    if not isinstance(extra, dict):
        raise doc.error(f"{where}: options must be a table", "options")
    options.update(extra)
    return Choice(str(game), options)


def _members(doc: TomlFile, host: str | None) -> tuple[Member, ...]:
    entries = doc.data.get("players")
    if not isinstance(entries, list) or len(entries) < 2:
        raise doc.error("a tournament needs a roster of at least two players", fix='add [[players]] name = "..."')
    members: list[Member] = []
    for entry in entries:
        doc.table(entry, MEMBER_KEYS, "players")
        mask = entry.get("name")
        if not isinstance(mask, str) or not mask.strip():
            raise doc.error("a player needs a name (the mask the games know them by)", "[[players]]")
        mask = mask.strip()
        # One rule for names that cannot be taken (forumbot/seating.py): a mask may not be, or look like, the
        # host's name, another mask or another member's account.
        taken = name_taken(mask, str(entry.get("player") or mask), hosts=(host,),
                           masks=[m.mask for m in members], accounts=[m.player for m in members if m.player])
        if taken is not None:
            raise doc.error(f"the mask {mask!r} is taken: it is or looks like {taken.holder!r}", mask,
                            fix="give every player a mask of their own")
        player, forum = entry.get("player", ""), entry.get("forum", "")
        if not isinstance(player, str) or not isinstance(forum, str):
            raise doc.error(f"player and forum of {mask} must be strings", mask)
        members.append(Member(mask, player.strip(), forum.strip()))
    return tuple(members)


def _stages(doc: TomlFile) -> tuple[Stage, ...]:
    entries = doc.data.get("games")
    if not isinstance(entries, list) or not entries:
        raise doc.error("a tournament needs its games", fix='add [[games]] name = "..." game = "..."')
    stages: list[Stage] = []
    for entry in entries:
        doc.table(entry, STAGE_KEYS, "games")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise doc.error("a game of the tournament needs a name (no '/')", "[[games]]")
        if name in (s.name for s in stages):
            raise doc.error(f"two games are called {name!r}", name, fix="give each game its own name")
        after = entry.get("after", stages[-1].name if stages else None)
        if after is not None and after not in (s.name for s in stages):
            raise doc.error(f"{name}: after = {after!r} is not a game listed before it", str(after))
        picked_by = entry.get("picked_by")
        choices: dict[str, Choice] | None = None
        game, options = "", None
        if picked_by is not None:
            before = next((s for s in stages if s.name == picked_by), None)
            if before is None or before.game != "ranked-vote":
                raise doc.error(f"{name}: picked_by = {picked_by!r} is not a ranked vote listed before it",
                                str(picked_by))
            table = entry.get("choices")
            if not isinstance(table, dict) or not table:
                raise doc.error(f"{name}: a game picked by a vote needs [games.choices.\"<option>\"] tables", name)
            choices = {}
            for option, value in table.items():
                doc.table(value, CHOICE_KEYS, f"games.choices.{option}")
                choices[option] = _game_options(doc, value, f"{name}, choice {option!r}")
            offered = (before.options or {}).get("choices", ())
            unknown = [c for c in choices if offered and c not in offered]
            if unknown:
                raise doc.error(f"{name}: {unknown[0]!r} is not an option of {picked_by}", unknown[0],
                                fix="options: " + ", ".join(offered))
        else:
            chosen = _game_options(doc, entry, name)
            game, options = chosen.game, chosen.options
        kinds = [k for k in ("start", "start_hours", "confirm") if entry.get(k) not in (None, False)]
        if len(kinds) > 1:
            raise doc.error(f"{name}: give one of start, start_hours and confirm", kinds[-1])
        if not stages and not entry.get("start"):
            raise doc.error(f"{name}: the first game needs start = \"...\"", name,
                            fix='add start = "2026-09-01T12:00:00Z"')
        hours = entry.get("start_hours")
        if hours is not None and (not isinstance(hours, (int, float)) or hours < 0):
            raise doc.error(f"{name}: start_hours must be a number of hours, 0 or more", "start_hours")
        stages.append(Stage(name.strip(), game, options, None if not stages else after, picked_by, choices,
                            _time(doc, entry["start"], "start") if entry.get("start") else None,
                            float(hours) if hours is not None else None, bool(entry.get("confirm", False))))
    return tuple(stages)


def plan_from(doc: TomlFile) -> Plan:
    head = doc.data.get("tournament")
    if head is None:
        raise doc.error("there is no [tournament] table", fix='start the file with [tournament] and name = "..."')
    doc.table(head, TOURNAMENT_KEYS, "tournament")
    name = head.get("name")
    if not isinstance(name, str) or not name.strip():
        raise doc.error("[tournament] needs a name", "[tournament]")
    lang, dialect, reveal = head.get("lang", "en"), head.get("dialect", "markdown"), head.get("reveal", "host")
    if lang not in LANGS:
        raise doc.error(f"lang = {lang!r} is not supported", "lang", fix="use one of: " + ", ".join(LANGS))
    if dialect not in DIALECTS:
        raise doc.error(f"dialect = {dialect!r} is not one the bot can post in", "dialect",
                        fix="use one of: " + ", ".join(DIALECTS))
    if reveal not in REVEALS:
        raise doc.error(f"reveal = {reveal!r} is not a choice", "reveal", fix="use one of: " + ", ".join(REVEALS))
    host = head.get("host")
    return Plan(name.strip(), str(host) if host else None, lang, dialect, _members(doc, host), _stages(doc),
                reveal, doc.path)


PLAN_TABLES = ("tournament", "players", "games")


def load_plan(path: str | Path) -> Plan:
    """A tournament file for a live bot. Raises ConfigError naming the file, the line and the fix (a sample's
    posts and host actions are refused here rather than left unread)."""
    doc = load_toml(path)
    for key in doc.data:
        if key not in PLAN_TABLES:
            raise doc.error(f"[{key}] is not part of a tournament file", key,
                            fix="posts, host actions and expectations belong to a sample: "
                                "`forumbot tournament --replay FILE` plays them")
    return plan_from(doc)
