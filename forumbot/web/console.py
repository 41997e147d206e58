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
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Response, abort, redirect, render_template, request, session, url_for

from forumbot.config.tomlfile import parse_toml
from forumbot.engine import corrections
from forumbot.engine import hosting as hosting_rules
from forumbot.engine.archive import game_log
from forumbot.engine.chart import chart_of
from forumbot.engine.host import HostState
from forumbot.errors import ConfigError
from forumbot.games import get_game
from forumbot.model import Event, Flag, format_time, parse_time
from forumbot.render.renderer import Renderer
from forumbot.storage import GameRow, Store
from forumbot.text.nicknames import Nickname, NicknameBook
from forumbot.text.normalize import fold
from forumbot.web.accounts import check_password, sign_in_keys
from forumbot.web.auth import same_origin_path
from forumbot.web.banner import reader_zone, shown, to_go
from forumbot.web.forum import MAX_ID
from forumbot.web.session import session_mark, signed_in
from forumbot.web.site import site
from forumbot.web.speech import page_lang, w

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
CORRECTIONS = ("vote_for", "not_a_vote", "use_edited", "read_as")
MAX_NICKNAMES = 20   # the thread's nicknames offered at once, most used first


# ---- the store and who is signed in ---------------------------------------------------------------
def store() -> Store:
    """This thread's connection to the bot's store."""
    found = site().store()
    if found is None:
        abort(404, w("This server has no host console (no bot store)."))
    return found


def host() -> str | None:
    return signed_in("host")


def _games_of(name: str | None) -> list[str]:
    cohosts = site().game_cohosts()
    return sorted(g for g, h in site().game_hosts().items() if name and (h == name or name in cohosts.get(g, ())))


def _own_game(name: str) -> GameRow:
    """The game, when the signed-in host runs it (404 otherwise: another host's game is not disclosed)."""
    if not host():
        abort(401, w("Sign in to the host console first."))
    row = store().game(name) if name in _games_of(host()) else None
    if row is None:
        abort(404, w("No such game among yours (a game not started yet has no page)."))
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
        abort(429, w("Too many failed sign-ins. Try again in {n} minute/"
                     "Too many failed sign-ins. Try again in {n} minutes",
                      int(wait // 60) + 1, n=int(wait // 60) + 1))
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
        abort(403, w("This sign-in link is used, expired or unknown: ask for a new one (forumbot host-link GAME)."))
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
    ended = site().ended()
    shown = [(g, _phase(r) if r else "waits for the bot's next poll (or its start time)") for g, r in rows
             if not (ended.get(g) or {}).get("archived")]
    archived = [g for g, _ in rows if (ended.get(g) or {}).get("archived")]
    return render_template("console_index.html", games=shown, archived=archived, ended=ended,
                           may_create=_may_create())


def _phase(row: GameRow) -> str:
    return str(get_game(row.game).summary(get_game(row.game).from_json(row.state)).get("phase", ""))


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
    over = summary.get("phase") == "over"
    return render_template(
        "console_game.html", name=name, row=row, summary=summary, tally=tally.data if tally else None,
        deadline=deadline, left=to_go(deadline, now), deadline_text=shown(deadline, reader_zone()), zone=reader_zone(),
        paused=HostState.from_json(row.host).paused_at,
        posts=_posts(name, in_force), fixes=list(reversed(fixes)), waiting=corrections.waiting(store(), name),
        night=_night(rules, state, row.state), activity=activity(state, now) if activity is not None else None,
        flags=len(store().flag_list(name)), commands=COMMANDS, nicknames=_nicknames(row, summary),
        over=over, roles=summary.get("roles", {}) if over else {}, quotes=_quotes(name, fixes),
        history=game_log(store(), name) if over else [],
        chart=chart_of(name, rules, state, HostState.from_json(row.host), site().game_hosts().get(name),
                       site().game_cohosts().get(name, ())),
        ended=site().ended().get(name), made=_made_here(name), version=version(name)["version"])


# How a name was read (the resolution stage, forumbot/text/names.py), as the console says it.
_HOW = {"exact": "exactly", "alias": "by alias", "inflection": "by inflection", "partial": "by part of the name",
        "prefix": "by prefix", "initials": "by initials", "inside": "by part of the nickname",
        "stem": "by the nickname without digits", "letters": "by the nickname's letters", "fuzzy": "despite a typo",
        "taught": "by a nickname the thread uses"}
# What a post was read as (an intent's kind), as the console says it; another kind is its id with spaces.
KIND_WORDS = {"action": "night action", "no_lynch": "no lynch", "not_counted": "not counted",
              "confirm_role": "role confirmed", "best_ballot": "best-player ballot",
              "signup_withdraw": "sign-up withdrawn", "mayor_reveal": "mayor revealed", "tie_break": "tie broken",
              "approve_note": "note approved", "reject_note": "note rejected", "vote_edited": "vote edited"}


def kind_words(kind: str) -> str:
    """An intent's kind in the page's language: "not_counted" is "not counted" («не засчитано»)."""
    return w(KIND_WORDS.get(kind, kind.replace("_", " ")))


def _reading(link: dict[str, Any], renderer: Renderer) -> str:
    """One name of an intent as it was read, in the page's language: "'Хэнкса' → Том Хэнкс by inflection",
    or "'Bobby' → no player (...)"."""
    if "error" in link:
        why = renderer.flag(Flag(reason=str(link["error"]), code=f"error_{link['code']}" if link.get("code") else "",
                                 params=tuple(dict(link.get("params") or {}).items()))).reason
        return f"'{link['raw']}' → {w('no player')} ({why})"
    method = str(link.get("method", ""))
    how = w(_HOW[method]) if method in _HOW else w("by {method}", method=method)
    return f"'{link['raw']}' → {link['name']} {how}"


def _posts(name: str, in_force: dict[str, corrections.Correction]) -> list[dict[str, Any]]:
    """Each post the game read, newest first, with why it counted or did not, in the page's language."""
    read = store().intents_by_post(name)
    edited = store().edited_texts(name)
    renderer = Renderer("markdown", page_lang())
    refusals: dict[str, list[str]] = {}
    for event in store().events(name):
        if event["kind"] == "rejected" and event["post"]:
            refusals.setdefault(event["post"], []).append(
                renderer.flag_reason(Event("rejected", json.loads(event["data"]))))
    flags: dict[str, list[str]] = {}
    for flag in store().flags(name):
        flags.setdefault(flag["post"] or "", []).append(flag["reason"])
    out = []
    own = store().bot_post_ids(name)
    for post in reversed(store().processed_posts(name)):
        if post.platform_id in own:
            continue
        links = [corrections.chain(i["data"]) for i in read.get(post.platform_id, [])]
        intents = [{"kind": i["kind"], "said": kind_words(i["kind"]), "line": i["data"].get("line") or "",
                    "target": i["data"].get("target"), "chain": [_reading(link, renderer) for link in chain]}
                   for i, chain in zip(read.get(post.platform_id, []), links, strict=True)]
        status = ("corrected" if post.platform_id in in_force else "refused" if post.platform_id in refusals
                  else "flagged" if post.platform_id in flags
                  else "check" if any(link.get("method") in ("fuzzy", "taught") for chain in links for link in chain)
                  else "read" if intents else "no command")
        out.append({"post": post, "intents": intents, "refusals": refusals.get(post.platform_id, []),
                    "flags": flags.get(post.platform_id, []), "status": status, "edited": edited.get(post.platform_id),
                    "correction": in_force.get(post.platform_id)})
    return out


def _nicknames(row: GameRow, summary: dict[str, Any]) -> list[Nickname]:
    """The short names the game's thread uses for its players, not confirmed yet ("read 'BK' as BlueKestrel?")."""
    host_state = HostState.from_json(row.host)
    names = [str(n) for n in summary.get("players", summary.get("alive", []))]
    if not host_state.taught or not names:
        return []
    confirmed = {fold(word) for word, _ in host_state.nicknames}
    book = NicknameBook(names)
    return [n for n in book.candidates(host_state.taught) if fold(n.word) not in confirmed][:MAX_NICKNAMES]


def _night(rules: Any, state: Any, stored: dict[str, Any]) -> dict[str, Any] | None:
    """The night as the game tells it (Mafia's night_view: each order with the sender's role, who still owes
    an action), the notes, and the resolved nights as stored."""
    view = getattr(rules, "night_view", None)
    tonight = view(state) if view is not None else None
    if tonight is None and not stored.get("nights"):
        return None
    return {**(tonight or {"orders": [], "awaiting": []}), "tonight": tonight is not None,
            "notes": [n for n in stored.get("notes", []) if not n.get("rejected")],
            "resolved": stored.get("nights", [])}


def _quotes(name: str, fixes: list[corrections.Correction]) -> dict[str, dict[str, Any]]:
    """The post each correction is about: its author, time and the start of its text (the audit trail names
    a post as people know it, not by its id)."""
    wanted = {c.post for c in fixes}
    found = {}
    for post in store().processed_posts(name):
        if post.platform_id in wanted:
            body = " ".join(post.body.split())
            found[post.platform_id] = {"author": post.author, "at": format_time(post.created), "url": post.url,
                                       "pm": post.pm, "quote": body[:120] + ("…" if len(body) > 120 else "")}
    return found


@bp.get("/g/<name>/version.json")
def version(name: str) -> Any:
    """What the game page shows has changed when this has: the console page's live refresh asks every few
    seconds (the game's stored version, its posts read, corrections and open flags)."""
    row = _own_game(name)
    mark = [row.event_seq, store().game_version(name), len(store().processed_posts(name)),
            len(corrections.listing(store(), name)), len(store().flag_list(name)), bool(site().ended().get(name))]
    return {"version": ":".join(str(part) for part in mark)}


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
        abort(400, w("Choose a post the game has read and one of: count as a vote for, not a vote, "
                     "use the edited text."))
    data: dict[str, Any] = {}
    if kind == "vote_for":
        target = request.form.get("target", "")
        if target not in [*_alive(name), corrections.NO_LYNCH]:
            abort(400, w("'{target}' is not a living player of {name}.", target=target, name=name))
        data["target"] = target
    if kind == "use_edited":
        text = store().edited_texts(name).get(post)
        if text is None:
            abort(400, w("That post was not edited after the bot read it."))
        data["text"] = text
    if kind == "read_as":
        text = request.form.get("text", "").strip()[:2000]
        if not text:
            abort(400, w("Write what the post should be read as (for a night action: the command, like "
                         "\"heal Bob\")."))
        data["text"] = text
    corrections.add(store(), name, post, kind, data, _reason(), str(host()), _now())
    _resolve_flags_of(name, post)
    return _back(name, w("Correction saved: the bot applies it at its next poll."))


def _resolve_flags_of(name: str, post: str) -> None:
    open_ids = [f["id"] for f in store().flag_list(name) if f["post"] == post]
    store().resolve_flags(open_ids, _now())


@bp.post("/g/<name>/vote")
def manual_vote(name: str) -> Any:
    _own_game(name)
    player, target = request.form.get("player", ""), request.form.get("target", "")
    alive = _alive(name)
    if player not in alive or target not in [*alive, corrections.NO_LYNCH]:
        abort(400, w("Choose a living player and whom they vote for."))
    if not _reason():
        abort(400, w("Say why you enter this vote for the player (it is kept in the audit trail)."))
    post = corrections.console_post(store(), name, str(host()), _now(), f"vote by {player} for {target}")
    corrections.add(store(), name, post.platform_id, "manual_vote", {"player": player, "target": target},
                    _reason(), str(host()), _now())
    return _back(name, w("Vote by {player} for {target} saved: it counts from the bot's next poll.", player=player,
                         target=target))


@bp.post("/g/<name>/nickname")
def nickname(name: str) -> Any:
    """The host confirms a nickname the thread uses: it is read as that player from the bot's next poll on."""
    row = _own_game(name)
    word, player = request.form.get("word", "").strip()[:40], request.form.get("player", "").strip()
    offered = {(n.word, n.player) for n in _nicknames(row, get_game(row.game).summary(
        get_game(row.game).from_json(row.state)))}
    if (word, player) not in offered:
        abort(400, w("Choose one of the nicknames the console offers."))
    post = corrections.console_post(store(), name, str(host()), _now(), f"read '{word}' as {player}")
    corrections.add(store(), name, post.platform_id, "nickname", {"word": word, "player": player},
                    f"a nickname the thread uses for {player}", str(host()), _now())
    return _back(name, w("'{word}' is read as {player} from the bot's next poll on.", word=word, player=player))


@bp.post(f"/g/<name>/undo/<int(max={MAX_ID}):correction_id>")
def undo(name: str, correction_id: int) -> Any:
    _own_game(name)
    found = corrections.get(store(), correction_id)
    if found is None or found.game != name or found.kind in ("command", "nickname"):
        abort(400, w("No such correction (a host command or a nickname is not undone: give the opposite command)."))
    if not corrections.undo(store(), correction_id, str(host()), _now()):
        abort(400, w("That correction was undone already."))
    return _back(name, w("Correction undone: the bot reads the game again without it at its next poll."))


@bp.post("/g/<name>/command")
def command(name: str) -> Any:
    _own_game(name)
    button = request.form.get("command", "")
    if button not in COMMANDS:
        abort(400, w("Unknown command."))
    intent, fields, text = COMMANDS[button]
    data = {f: request.form.get(f, "").strip() for f in fields}
    post = corrections.console_post(store(), name, str(host()), _now(), text.format(**data))
    corrections.add(store(), name, post.platform_id, "command", {"intent": intent, "data": data,
                                                                "text": text.format(**data)},
                    _reason(), str(host()), _now())
    return _back(name, w("Command \"{command}\" sent: the bot applies it at its next poll, with the same answers "
                         "and announcements as by private message.", command=text.format(**data)))


@bp.post("/g/<name>/flags/resolve")
def resolve(name: str) -> Any:
    _own_game(name)
    try:
        ids = [int(i) for i in request.form.getlist("flag")]
    except ValueError:
        abort(400, w("Bad flag number."))
    mine = {f["id"] for f in store().flag_list(name)}
    store().resolve_flags([i for i in ids if i in mine], _now())
    return _back(name, w("Flag dismissed."))


# ---- games made, ended and archived here (forumbot/engine/hosting.py) --------------------------------
def _may_create() -> bool:
    hosting = site().settings.hosting
    return bool(hosting and host() and host() in hosting.creators)


def _made_here(name: str) -> bool:
    row = store().hosted_game(name)
    return bool(row and row["kind"] != "file")


def _rulesets() -> dict[str, list[str]]:
    """The shipped rulesets by the game they are for."""
    from forumbot.config.paths import data_dir
    from forumbot.config.tomlfile import load_toml

    found: dict[str, list[str]] = {}
    for path in sorted((data_dir("config") / "rulesets").glob("*.toml")):
        try:
            found.setdefault(str(load_toml(path).data.get("game", "")), []).append(path.stem)
        except ConfigError:
            continue
    return found


NEW_FIELDS = ("kind", "name", "game", "ruleset", "lang", "start", "phase", "day_hours", "night_hours", "votes_only",
              "players", "options", "file", "prefix", "threads")


@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Any:
    """A new game or lobby, checked as `forumbot check-config` checks a file and stored; the running bot takes
    it up at its next poll. Only the hosts [hosting] creators names may."""
    if not host():
        return redirect(url_for("console.signin"))
    if not _may_create():
        abort(403, w("Only the hosts named in the bot config's [hosting] creators may make games here."))
    hosting = site().settings.hosting
    assert hosting is not None
    form = {key: request.form.get(key, "") for key in NEW_FIELDS}
    if request.method == "GET":
        start = (_now() + timedelta(minutes=5)).replace(second=0, microsecond=0)
        form.update(kind=request.args.get("kind", "game"), game="mafia", ruleset="bodysnatchers", lang="en",
                    start=format_time(start), phase="day1", day_hours="48", night_hours="24", prefix="duel")
        return render_template("console_new.html", form=form, rulesets=_rulesets(), error=None, text="")
    text = ""
    try:
        kind, name = form["kind"], form["name"].strip()
        if kind == "lobby":
            text = hosting_rules.lobby_toml(name, str(host()), form["lang"] or "en", form["ruleset"] or "infiltration",
                                            form["prefix"].strip() or "duel", hosting.platform)
        elif form["file"].strip():   # a game file pasted as it is (its [game] host is the one signed in)
            text = form["file"].replace("\r\n", "\n")
            found = parse_toml(text, f"game {name}").data.get("game", {})
            if isinstance(found, dict) and found.get("host") not in (None, host()):
                raise ConfigError(f"the pasted game names host = {found.get('host')!r}",
                                  fix=f'a game you make here is yours: host = "{host()}"')
            if isinstance(found, dict) and "host" not in found:
                text = text.replace("[game]\n", f"[game]\nhost = {hosting_rules.toml_value(str(host()))}\n", 1)
        else:
            text = _composed(form)
        taken = [*site().game_hosts(), *(r.name for r in store().games())]
        threads = hosting_rules.threads_text(form["threads"]) if kind == "game" else {}
        config = hosting_rules.create(store(), kind, name, text, hosting.platforms, hosting.platform,
                                      hosting.dialect, str(host()), _now(), taken, threads)
    except ConfigError as err:
        return render_template("console_new.html", form=form, rulesets=_rulesets(), error=str(err), text=text), 400
    _open_threads(config, kind, threads)
    session["console_notice"] = (w("Lobby {name} is made: the bot takes it up at its next poll (no restart).",
                                   name=config.name) if kind == "lobby" else
                                 w("Game {name} is made: the bot takes it up at its next poll (no restart).",
                                   name=config.name))
    return redirect(url_for("console.index"))


def _composed(form: dict[str, str]) -> str:
    """The game file the form describes (checked by hosting.create)."""
    try:
        start = parse_time(form["start"].strip())
    except ValueError:
        raise ConfigError(f"start = {form['start']!r} is not a time", path="the form",
                          fix="write it like 2026-03-01T20:00:00Z (UTC)") from None
    options: dict[str, Any] = {}
    for key in ("day_hours", "night_hours"):
        value = form[key].strip()
        if value:
            try:
                options[key] = int(value) if value.isdigit() else float(value)
            except ValueError:
                raise ConfigError(f"{key} = {value!r} is not a number of hours", path="the form",
                                  fix=f"{key} = 48 (fractions too: 0.5)") from None
    if form["votes_only"]:
        options["votes_only"] = True
    options.update(hosting_rules.options_text(form["options"]))
    phase = form["phase"] or "day1"
    return hosting_rules.GameForm(form["name"].strip(), form["game"], form["ruleset"], form["lang"] or "en", start,
                                  str(host()), phase, options, hosting_rules.roster_text(form["players"])).toml()


def _open_threads(config: Any, kind: str, threads: dict[str, str]) -> None:
    """On the served forum, the new game's threads exist at once (titled for people), so players can post."""
    hosting = site().settings.hosting
    if hosting is None or hosting.platform != site().web.platform:
        return
    from forumbot.engine.loading import setup_of
    from forumbot.web.site import thread_title

    rules = get_game(config.game)
    forum = site().connections().forum
    if kind == "lobby":
        forum.ensure_thread(f"{config.name}/lobby", thread_title(config.name, "lobby"))
        return
    for purpose, thread in rules.threads(rules.new(setup_of(config))).items():
        forum.ensure_thread(threads.get(thread) or f"{config.name}/{thread}", thread_title(config.name, purpose))


@bp.post("/g/<name>/close")
def close(name: str) -> Any:
    """End the game now (the bot lets it go at its next poll; its threads lock), or archive it (ended, and off
    the lists; its pages stay)."""
    if not host():
        abort(401, w("Sign in to the host console first."))
    if name not in _games_of(host()):
        abort(404, w("No such game among yours."))
    archive = request.form.get("what") == "archive"
    if request.form.get("confirm") != name:
        abort(400, w("Type the game's name ({name}) to confirm.", name=name))
    store().end_hosted(name, site().settings.hosting.platform if site().settings.hosting else "", str(host()), _now(),
                       archive=archive)
    session["console_notice"] = (w("{name} is archived: the bot stops reading it at its next poll, and its threads "
                                   "are locked.", name=name) if archive else
                                 w("{name} is ended: the bot stops reading it at its next poll, and its threads are "
                                   "locked.", name=name))
    return redirect(url_for("console.index"))


@bp.get("/g/<name>/game.toml")
def export_toml(name: str) -> Any:
    if not host() or name not in _games_of(host()):
        abort(404, w("No such game among yours."))
    try:
        text = hosting_rules.export(store(), name)
    except ConfigError as err:
        abort(404, str(err))
    return Response(text, mimetype="application/toml",
                    headers={"Content-Disposition": f'attachment; filename="{name}.toml"'})


# ---- export ----------------------------------------------------------------------------------------
@bp.get("/g/<name>/votes.csv")
def votes_csv(name: str) -> Any:
    row = _own_game(name)
    rules = get_game(row.game)
    tally = rules.tally(rules.from_json(row.state), _now())
    # every ended day's last count (the day_end events keep it), then today's
    views = [json.loads(e["data"]).get("view") for e in store().events(name) if e["kind"] == "day_end"]
    views = [v for v in views if isinstance(v, dict)] + ([tally.data] if tally else [])
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["day", "voter", "target", "at", "final", "withdrawn", "post", "url"])
    for view in views:
        for wagon in view.get("wagons", []):
            for voter in wagon["voters"]:
                writer.writerow([view.get("day", ""), voter["name"], wagon["target"], voter["at"], voter["final"],
                                 voter["withdrawn"], voter["post"], voter["url"]])
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
