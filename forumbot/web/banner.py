"""What a thread page shows of its game (the banner: the game, phase, deadline with the time to go, who is
alive, the last vote count), whether the thread is open or locked, and each reader's time zone (chosen once
per account, at /account/timezone; until then, and for readers not signed in, UTC)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from flask import Blueprint, abort, redirect, render_template, request, url_for

from forumbot.web.auth import same_origin_path
from forumbot.web.config import WebGame
from forumbot.web.session import current_user, signed_in
from forumbot.web.site import site
from forumbot.web.speech import w

bp = Blueprint("zones", __name__)


def reader() -> str | None:
    """Who reads the page, as their time zone is kept: "user:NAME" or (in the console) "host:NAME"."""
    user = current_user()
    if user:
        return f"user:{user}"
    host = signed_in("host")
    return f"host:{host}" if host else None


def reader_zone() -> str | None:
    """The zone the reader chose, or None (not chosen yet, or not signed in)."""
    who = reader()
    return site().connections().accounts.time_zone(who) if who else None


def zone_info(zone: str | None) -> ZoneInfo | None:
    try:
        return ZoneInfo(zone) if zone else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def shown(when: datetime | None, zone: str | None) -> str:
    """`when` in the reader's zone, to the second: "2026-12-03 21:00:00 Europe/Moscow (UTC+03:00)"."""
    if when is None:
        return ""
    info = zone_info(zone)
    if info is None:
        return f"{when.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"
    local = when.astimezone(info)
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M:%S} {zone} (UTC{offset[:3]}:{offset[3:]})"


def to_go(deadline: datetime | None, now: datetime) -> str:
    """The time left, to the second: "1d 03:04:05"; "due now" once passed. (static/countdown.js keeps it going.)"""
    if deadline is None:
        return ""
    seconds = int((deadline - now).total_seconds())
    if seconds <= 0:
        return "due now"
    days, rest = divmod(seconds, 86400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}d {text}" if days else text


def game_banner(game: WebGame | None) -> dict[str, Any] | None:
    """The banner of a game's thread page (None for a thread of no game). Never a role or anything secret."""
    if game is None:
        return None
    from forumbot.games import get_game

    store = site().store()
    row = store.game(game.name) if store is not None else None
    zone = reader_zone()
    locked, state_text = site().thread_state(game)
    banner: dict[str, Any] = {"name": game.name, "host": game.host, "zone": zone, "locked": locked,
                              "state": state_text, "phase": "not started", "alive": list(game.players),
                              "deadline": None, "deadline_text": "", "left": "", "count_url": None,
                              "threads": game.threads, "winner": None}
    if row is None:
        return banner
    rules = get_game(row.game)
    state = rules.from_json(row.state)
    summary = rules.summary(state)
    deadline = rules.next_deadline(state)
    now = site().settings.clock()
    banner.update(phase=str(summary.get("phase", "")), alive=list(summary.get("alive", game.players)),
                  winner=summary.get("winner"),
                  deadline=deadline.astimezone(UTC).isoformat() if deadline else None,
                  deadline_text=shown(deadline, zone), left=to_go(deadline, now))
    if banner["phase"] == "over" or locked:
        banner.update(deadline=None, deadline_text="", left="")
    count = store.last_delivered(game.name, "vote_count") if store is not None else None
    if count is not None and str(count["platform_id"]).startswith("local:"):
        banner["count_url"] = url_for("forum.permalink", number=int(str(count["platform_id"]).split(":")[1]))
    return banner


# ---- the reader's time zone ----------------------------------------------------------------------------
@bp.route("/account/timezone", methods=["GET", "POST"])
def timezone() -> Any:
    """Choose one's time zone (once; it can be changed here later): deadlines are shown in it."""
    who = reader()
    if who is None:
        abort(401, w("Sign in first: your time zone is kept with your account."))
    accounts = site().connections().accounts
    zones = sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))
    if request.method == "GET":
        return render_template("timezone.html", zones=["UTC", *zones], zone=accounts.time_zone(who) or "",
                               next=request.args.get("next", ""))
    zone = request.form.get("zone", "")
    if zone != "UTC" and zone not in zones:
        return render_template("timezone.html", zones=["UTC", *zones], zone="", next=request.form.get("next", ""),
                               error=f"'{zone}' is not a time zone: choose one from the list."), 400
    accounts.set_time_zone(who, zone)
    return redirect(same_origin_path(request.form.get("next")) or url_for("forum.index"))
