"""The archive on the web forum (/archive): finished games with their roles, the days' results and final
counts and the log (each event's message as it went out), and each player's record across them and the
tournaments. Public: a game is in the archive only once it
is over. Read from the bot's store through forumbot/engine/archive.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template

from forumbot.engine import archive as arch
from forumbot.seating import name_key
from forumbot.storage import Store
from forumbot.web.site import site
from forumbot.web.speech import w

bp = Blueprint("archive", __name__, url_prefix="/archive")


def _store() -> Store:
    found = site().store()
    if found is None:
        abort(404, w("This server has no archive (no bot store)."))
    return found


def _records() -> list[arch.GameRecord]:
    return arch.finished(_store(), dict(site().settings.game_hosts))


def _players(records: list[arch.GameRecord]) -> dict[str, arch.PlayerRecord]:
    return arch.players(records, arch.tournaments(_store()))


@bp.get("/")
def index() -> Any:
    records = _records()
    return render_template("archive_index.html", records=records,
                           players=sorted(_players(records).values(), key=lambda p: p.name.casefold()))


@bp.get("/game/<name>")
def game(name: str) -> Any:
    record = next((r for r in _records() if r.name == name), None)
    if record is None:
        abort(404, w("No finished game of that name."))
    return render_template("archive_game.html", record=record, log=arch.game_log(_store(), name))


@bp.get("/player/<name>")
def player(name: str) -> Any:
    found = _players(_records()).get(name_key(name))
    if found is None:
        abort(404, w("Nobody of that name played in a finished game or a tournament."))
    return render_template("archive_player.html", player=found.to_json())
