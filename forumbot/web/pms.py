"""Private messages: the inbox (conversations, unread counts), a conversation, sending. A player reads
only their own; the host of a game (and its co-hosts) also reads its players' messages that belong to the game
(Site.readable_pms)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for

from forumbot.web.forum import posted_text, url_number
from forumbot.web.session import current_user
from forumbot.web.site import site
from forumbot.web.speech import w

bp = Blueprint("pms", __name__, url_prefix="/pm")


def _signed_in() -> str:
    user = current_user()
    if not user:
        abort(401, w("Sign in to read your private messages."))
    return user


@bp.get("/")
def inbox() -> Any:
    user = _signed_in()
    db = site().connections().db
    conversations = []
    for c in db.conversations(site().watched(user)):
        c["other"] = c["b"] if c["a"] == user else c["a"] if c["b"] == user else None
        c["unread"] = db.unread_for(user, c["other"]) if c["other"] else 0
        if c["other"] is None:   # someone else's: counted by what the host may read of it
            readable = site().readable_pms(user, c["a"], c["b"], db.conversation(c["a"], c["b"]))
            if not readable:
                continue
            c["count"], c["last_at"] = len(readable), readable[-1]["created"]
        conversations.append(c)
    return render_template("inbox.html", conversations=conversations, recipients=site().pm_recipients(user))


@bp.route("/<name>", methods=["GET", "POST"])
def conversation(name: str) -> Any:
    user = _signed_in()
    allowed = site().pm_recipients(user)
    db = site().connections().db
    if request.method == "POST":
        if name not in allowed:
            abort(403, w("You cannot write to '{name}' here.", name=name))
        site().connections().forum.add_pm(user, name, posted_text(user), subject=request.form.get("subject", "")[:200])
        return redirect(url_for("pms.conversation", name=name) + "#last")
    messages = db.conversation(user, name)
    if not messages and name not in allowed:
        abort(404, w("No conversation with '{name}'.", name=name))
    db.mark_read(user, name)
    return render_template("conversation.html", a=user, b=name, messages=messages, may_write=name in allowed)


@bp.get("/<a>/<b>")
def between(a: str, b: str) -> Any:
    """A host reading a conversation of one of their players (read-only)."""
    user = _signed_in()
    if not site().may_read_pms(user, a, b):
        abort(403, w("You can read only your own private messages."))
    if user in (a, b):
        return redirect(url_for("pms.conversation", name=b if user == a else a))
    messages = site().readable_pms(user, a, b, site().connections().db.conversation(a, b))
    return render_template("conversation.html", a=a, b=b, messages=messages, may_write=False)


@bp.get("/new.json")
def new_messages() -> Any:
    """The messages of a conversation after an id, rendered, for the conversation page's live refresh (the same
    rights as reading it: one's own, or a host's player's)."""
    user = _signed_in()
    a, b = request.args.get("a", ""), request.args.get("b", "")
    after = url_number(request.args.get("after", "0"))
    if after is None:
        abort(400, w("after must be a message number"))
    if not site().may_read_pms(user, a, b):
        abort(403, w("You can read only your own private messages."))
    messages = [m for m in site().readable_pms(user, a, b, site().connections().db.conversation(a, b))
                if m["id"] > after]
    if user in (a, b) and messages:
        site().connections().db.mark_read(user, b if user == a else a)
    return jsonify({"messages": [{"id": m["id"], "html": render_template("_pm.html", m=m)} for m in messages]})
