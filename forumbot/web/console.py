"""The host console (/console): a game's host checks what the bot read and corrects it, for games on every
platform (it reads the bot's own store). Hosts sign in with the password hash in [web.hosts] or a one-time
link (`forumbot host-link GAME`); a host sees only their own games. A player's forum session is not a host
session. Every form carries the app's CSRF token.

Corrections and commands are stored (forumbot/engine/corrections.py) and applied by the bot's next poll, through
the same reading and host layer as posts and PM commands: the game's state stays a function of the store.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, session, url_for

from forumbot.engine import corrections
from forumbot.engine.chart import chart_of
from forumbot.engine.host import HostState
from forumbot.games import get_game
from forumbot.storage import GameRow, Store
from forumbot.web.accounts import check_password, sign_in_keys
from forumbot.web.auth import same_origin_path
from forumbot.web.forum import MAX_ID
from forumbot.web.session import session_mark, signed_in
from forumbot.web.site import site

bp = Blueprint("console", __name__, url_prefix="/console")
LINK_HOURS = 24
COMMANDS = {   # button → (host intent, what the form sends, what the console post says)
    "extend": ("host_extend", ("hours",), "extend {hours}"),
    "end": ("host_end_phase", ("phase",), "end {phase}"),
    "pause": ("host_pause", (), "pause"),
    "resume": ("host_resume", (), "resume"),
    "replace": ("host_replace", ("target", "account"), "replace {target} with {account}"),
    "modkill": ("host_modkill", ("target",), "modkill {target}"),
}
CORRECTIONS = ("vote_for", "not_a_vote", "use_edited")


# ---- the store and who is signed in ---------------------------------------------------------------
def store() -> Store:
    """This thread's connection to the bot's store."""
    found = site().store()
    if found is None:
        abort(404, "This server has no host console (no bot store).")
    return found


def host() -> str | None:
    return signed_in("host")


def _games_of(name: str | None) -> list[str]:
    return sorted(g for g, h in site().settings.game_hosts.items() if name and h == name)


def _own_game(name: str) -> GameRow:
    """The game, when the signed-in host runs it (404 otherwise: another host's game is not disclosed)."""
    if not host():
        abort(401, "Sign in to the host console first.")
    row = store().game(name) if name in _games_of(host()) else None
    if row is None:
        abort(404, "No such game among yours (a game not started yet has no page).")
    return row


def _now() -> datetime:
    return site().settings.clock()


# ---- signing in ------------------------------------------------------------------------------------
@bp.route("/signin", methods=["GET", "POST"])
def signin() -> Any:
    if request.method == "GET":
        return render_template("console_signin.html", name="")
    name = request.form.get("name", "").strip()
    keys = sign_in_keys("console", name, request.remote_addr)
    wait = site().limiter.take(*keys)
    if wait:
        abort(429, f"Too many failed sign-ins. Try again in {int(wait // 60) + 1} minute(s).")
    hashed = site().web.hosts.get(name)
    if not hashed or not check_password(hashed, request.form.get("password", "")):
        return render_template("console_signin.html", name=name, error="Wrong host name or password."), 401
    site().limiter.give_back(*keys)
    session.clear()
    session["host"], session["host_stamp"] = name, session_mark("host", name)
    return redirect(url_for("console.index"))


@bp.route("/link/<token>", methods=["GET", "POST"])
def link(token: str) -> Any:
    """GET: a page with a button; only its POST (with the page's CSRF token) spends the link."""
    if request.method == "GET":
        return render_template("console_link.html", token=token)
    found = corrections.use_link(store(), token, _now())
    if found is None or found[1] not in _games_of(found[0]):
        abort(403, "This sign-in link is used, expired or unknown: ask for a new one (forumbot host-link GAME).")
    session.clear()
    session["host"], session["host_stamp"] = found[0], session_mark("host", found[0])
    return redirect(url_for("console.game", name=found[1]))


@bp.post("/signout")
def signout() -> Any:
    if host():
        site().connections().accounts.end_sessions(f"host:{host()}")
    session.pop("host", None)
    return redirect(url_for("console.signin"))


# ---- pages -----------------------------------------------------------------------------------------
@bp.get("/")
def index() -> Any:
    if not host():
        return redirect(url_for("console.signin"))
    rows = [(g, store().game(g)) for g in _games_of(host())]
    return render_template("console_index.html", games=[(g, _phase(r) if r else "not started") for g, r in rows])


def _phase(row: GameRow) -> str:
    return str(get_game(row.game).summary(get_game(row.game).from_json(row.state)).get("phase", ""))


def _left(deadline: datetime | None, now: datetime) -> dict[str, int] | None:
    """The time to the deadline in days, hours and minutes (the page writes them in its language); None
    without a deadline, {} when it is due."""
    if deadline is None:
        return None
    seconds = int((deadline - now).total_seconds())
    if seconds <= 0:
        return {}
    return {"d": seconds // 86400, "h": seconds % 86400 // 3600, "m": seconds % 3600 // 60}


@bp.get("/g/<name>")
def game(name: str) -> Any:
    row = _own_game(name)
    rules = get_game(row.game)
    state = rules.from_json(row.state)
    summary = rules.summary(state)
    now = _now()
    deadline = rules.next_deadline(state)
    tally = rules.tally(state, now)
    activity = getattr(rules, "activity", None)
    fixes = corrections.listing(store(), name)
    in_force = corrections.active(store(), name)
    return render_template(
        "console_game.html", name=name, row=row, summary=summary, tally=tally.data if tally else None,
        deadline=deadline, left=_left(deadline, now), paused=HostState.from_json(row.host).paused_at,
        posts=_posts(name, in_force), fixes=list(reversed(fixes)), waiting=corrections.waiting(store(), name),
        night=_night(row.state), activity=activity(state, now) if activity is not None else None,
        flags=len(store().flag_list(name)), commands=COMMANDS,
        chart=chart_of(name, rules, state, HostState.from_json(row.host), site().settings.game_hosts.get(name)))


def _posts(name: str, in_force: dict[str, corrections.Correction]) -> list[dict[str, Any]]:
    """Each post the game read, newest first, with why it counted or did not."""
    read = store().intents_by_post(name)
    edited = store().edited_texts(name)
    refusals: dict[str, list[str]] = {}
    for event in store().events(name):
        if event["kind"] == "rejected" and event["post"]:
            refusals.setdefault(event["post"], []).append(json.loads(event["data"]).get("reason", ""))
    flags: dict[str, list[str]] = {}
    for flag in store().flags(name):
        flags.setdefault(flag["post"] or "", []).append(flag["reason"])
    out = []
    own = store().bot_post_ids(name)
    for post in reversed(store().processed_posts(name)):
        if post.platform_id in own:
            continue
        intents = [{"kind": i["kind"], "line": i["data"].get("line") or "", "target": i["data"].get("target"),
                    "chain": corrections.chain(i["data"])} for i in read.get(post.platform_id, [])]
        status = ("corrected" if post.platform_id in in_force else "refused" if post.platform_id in refusals
                  else "flagged" if post.platform_id in flags
                  else "check" if any(" by fuzzy" in c for i in intents for c in i["chain"])   # a guess: worth a look
                  else "read" if intents else "no command")
        out.append({"post": post, "intents": intents, "refusals": refusals.get(post.platform_id, []),
                    "flags": flags.get(post.platform_id, []), "status": status, "edited": edited.get(post.platform_id),
                    "correction": in_force.get(post.platform_id)})
    return out


def _night(state: dict[str, Any]) -> dict[str, Any] | None:
    """Mafia's night: tonight's orders, who has sent none, notes, and the resolved nights as stored."""
    if "orders" not in state:
        return None
    orders = state.get("orders", {})
    acted = set(orders) | {o.get("actor") for o in orders.values()}   # the mafia's kill is keyed apart, by carrier
    acting = [p for p in state.get("alive", []) if state.get("roles", {}).get(p) not in (None, "", "townie")]
    return {"orders": orders, "silent": [p for p in acting if p not in acted],
            "notes": [n for n in state.get("notes", []) if not n.get("rejected")], "resolved": state.get("nights", [])}


@bp.get("/g/<name>/flags")
def flags(name: str) -> Any:
    _own_game(name)
    listed = store().flag_list(name, include_resolved=request.args.get("all") == "1")
    for flag in listed:
        flag["candidates"] = json.loads(flag["candidates"] or "[]")
    return render_template("console_flags.html", name=name, flags=listed, alive=_alive(name))


def _alive(name: str) -> list[str]:
    row = _own_game(name)
    return list(get_game(row.game).summary(get_game(row.game).from_json(row.state)).get("alive", []))


# ---- actions ---------------------------------------------------------------------------------------
def _reason() -> str:
    return request.form.get("reason", "").strip()[:500]


def _back(name: str, message: str) -> Any:
    session["console_notice"] = message
    target = same_origin_path(request.form.get("back"))
    return redirect(target if target and target.startswith("/console/") else url_for("console.game", name=name))


@bp.post("/g/<name>/correct")
def correct(name: str) -> Any:
    _own_game(name)
    kind, post = request.form.get("kind", ""), request.form.get("post", "")
    known = {p.platform_id: p for p in store().processed_posts(name)}
    if kind not in CORRECTIONS or post not in known:
        abort(400, "Choose a post the game has read and one of: count as a vote for, not a vote, use the edited text.")
    data: dict[str, Any] = {}
    if kind == "vote_for":
        target = request.form.get("target", "")
        if target not in [*_alive(name), corrections.NO_LYNCH]:
            abort(400, f"'{target}' is not a living player of {name}.")
        data["target"] = target
    if kind == "use_edited":
        text = store().edited_texts(name).get(post)
        if text is None:
            abort(400, "That post was not edited after the bot read it.")
        data["text"] = text
    corrections.add(store(), name, post, kind, data, _reason(), str(host()), _now())
    _resolve_flags_of(name, post)
    return _back(name, "Correction saved: the bot applies it at its next poll.")


def _resolve_flags_of(name: str, post: str) -> None:
    open_ids = [f["id"] for f in store().flag_list(name) if f["post"] == post]
    store().resolve_flags(open_ids, _now())


@bp.post("/g/<name>/vote")
def manual_vote(name: str) -> Any:
    _own_game(name)
    player, target = request.form.get("player", ""), request.form.get("target", "")
    alive = _alive(name)
    if player not in alive or target not in [*alive, corrections.NO_LYNCH]:
        abort(400, "Choose a living player and whom they vote for.")
    if not _reason():
        abort(400, "Say why you enter this vote for the player (it is kept in the audit trail).")
    post = corrections.console_post(store(), name, str(host()), _now(), f"vote by {player} for {target}")
    corrections.add(store(), name, post.platform_id, "manual_vote", {"player": player, "target": target},
                    _reason(), str(host()), _now())
    return _back(name, f"Vote by {player} for {target} saved: it counts from the bot's next poll.")


@bp.post(f"/g/<name>/undo/<int(max={MAX_ID}):correction_id>")
def undo(name: str, correction_id: int) -> Any:
    _own_game(name)
    found = corrections.get(store(), correction_id)
    if found is None or found.game != name or found.kind == "command":
        abort(400, "No such correction (a host command is not undone: give the opposite command).")
    if not corrections.undo(store(), correction_id, str(host()), _now()):
        abort(400, "That correction was undone already.")
    return _back(name, "Correction undone: the bot reads the game again without it at its next poll.")


@bp.post("/g/<name>/command")
def command(name: str) -> Any:
    _own_game(name)
    button = request.form.get("command", "")
    if button not in COMMANDS:
        abort(400, "Unknown command.")
    intent, fields, text = COMMANDS[button]
    data = {f: request.form.get(f, "").strip() for f in fields}
    post = corrections.console_post(store(), name, str(host()), _now(), text.format(**data))
    corrections.add(store(), name, post.platform_id, "command", {"intent": intent, "data": data,
                                                                "text": text.format(**data)},
                    _reason(), str(host()), _now())
    return _back(name, f"Command \"{text.format(**data)}\" sent: the bot applies it at its next poll, with the same "
                       "answers and announcements as by private message.")


@bp.post("/g/<name>/flags/resolve")
def resolve(name: str) -> Any:
    _own_game(name)
    try:
        ids = [int(i) for i in request.form.getlist("flag")]
    except ValueError:
        abort(400, "Bad flag number.")
    mine = {f["id"] for f in store().flag_list(name)}
    store().resolve_flags([i for i in ids if i in mine], _now())
    return _back(name, "Flag dismissed.")


# ---- export ----------------------------------------------------------------------------------------
@bp.get("/g/<name>/votes.csv")
def votes_csv(name: str) -> Any:
    row = _own_game(name)
    rules = get_game(row.game)
    tally = rules.tally(rules.from_json(row.state), _now())
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["day", "voter", "target", "at", "final", "withdrawn", "post", "url"])
    for wagon in (tally.data.get("wagons", []) if tally else []):
        for voter in wagon["voters"]:
            writer.writerow([tally.data.get("day") if tally else "", voter["name"], wagon["target"], voter["at"],
                             voter["final"], voter["withdrawn"], voter["post"], voter["url"]])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}-votes.csv"'})


@bp.get("/g/<name>/log.jsonl")
def log_jsonl(name: str) -> Any:
    _own_game(name)
    lines: list[dict[str, Any]] = []
    for post in store().processed_posts(name):
        lines.append({"type": "post", "id": post.platform_id, "author": post.author, "at": post.created.isoformat(),
                      "thread": post.thread, "pm": post.pm, "body": post.body, "url": post.url})
    for post_id, intents in store().intents_by_post(name).items():
        lines += [{"type": "intent", "post": post_id, "kind": i["kind"], **i["data"]} for i in intents]
    lines += [{"type": "flag", **{k: v for k, v in f.items() if k != "url"}} for f in store().flags(name)]
    lines += [{"type": "correction", **c.__dict__} for c in corrections.listing(store(), name)]
    lines += [{"type": "event", **e, "data": json.loads(e["data"])} for e in store().events(name)]
    text = "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines)
    return Response(text, mimetype="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{name}-log.jsonl"'})


@bp.app_context_processor
def notice() -> dict[str, Any]:
    return {"console_notice": session.pop("console_notice", None) if request.blueprint == "console" else None,
            "console_host": host()}
