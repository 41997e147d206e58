"""Signing in and out. Every sign-in counts against the account name from its address (5 in 5 minutes) and
the address (30), before the password is checked; one that succeeds is uncounted. A name is never blocked
from everywhere: wrong passwords sent from elsewhere do not lock its player out."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from flask import Blueprint, abort, redirect, render_template, request, session, url_for

from forumbot.web.accounts import sign_in_keys
from forumbot.web.session import current_user, session_mark
from forumbot.web.site import site
from forumbot.web.speech import w

bp = Blueprint("auth", __name__)
MIN_PASSWORD = 10


def same_origin_path(target: str | None) -> str | None:
    """`target` when it is a path on this site, else None: no scheme or host (//other.site), no backslash
    and no control character, before or after %-decoding (a browser drops a tab or a line break from a
    URL: /<TAB>/evil.example/ is //evil.example/ to it, and a line break cannot go in a header)."""
    if not target or not target.startswith("/"):
        return None
    decoded = unquote(target)
    if any(c == "\\" or ord(c) < 32 or 127 <= ord(c) < 160 for c in target + decoded):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith("//") \
            or decoded.startswith("//"):
        return None
    return target


@bp.route("/signin", methods=["GET", "POST"])
def signin() -> Any:
    if request.method == "GET":
        return render_template("signin.html", next=request.args.get("next", ""), name="")
    name = request.form.get("name", "").strip()
    password = request.form.get("password", "")
    keys = sign_in_keys("user", name, request.remote_addr)
    wait = site().limiter.take(*keys)
    if wait:
        abort(429, w("Too many failed sign-ins. Try again in {n} minute/"
                     "Too many failed sign-ins. Try again in {n} minutes",
                      int(wait // 60) + 1, n=int(wait // 60) + 1))
    if not site().connections().accounts.verify(name, password):
        return render_template("signin.html", next=request.form.get("next", ""), name=name,
                               error="Wrong name or password."), 401
    site().limiter.give_back(*keys)
    accounts = site().connections().accounts
    once = accounts.one_time(name)
    if once:   # a mask's one-time password (the bot sent it): it signs in this once, then a password is set
        accounts.use_once(name)
    session.clear()   # a new session (and CSRF token) on sign-in: nothing set before it carries over
    session["user"], session["user_stamp"] = name, session_mark("user", name)
    if once:
        session["set_password"] = True
        return redirect(url_for("auth.password"))
    return redirect(same_origin_path(request.form.get("next")) or url_for("forum.index"))


@bp.post("/signout")
def signout() -> Any:
    user = current_user()
    if user:
        site().connections().accounts.end_sessions(f"user:{user}")   # a copy of this cookie signs in no more
        session.clear()
    return redirect(url_for("forum.index"))


@bp.route("/account/password", methods=["GET", "POST"])
def password() -> Any:
    """Change one's password (the host's `add-user` printed a generated one)."""
    user = current_user()
    if not user:
        abort(401, w("Sign in first."))
    first = bool(session.get("set_password"))   # signed in with a one-time password: no current one to give
    if request.method == "GET":
        return render_template("password.html", first=first)
    accounts = site().connections().accounts
    new = request.form.get("new", "")
    wrong = not first and not accounts.verify(user, request.form.get("current", ""))
    error = ("The current password is wrong." if wrong
             else
             f"A new password needs at least {MIN_PASSWORD} characters." if len(new) < MIN_PASSWORD else
             "The two new passwords differ." if new != request.form.get("again") else None)
    if error:
        return render_template("password.html", error=error, first=first), 400
    accounts.set_password(user, new)
    session.pop("set_password", None)
    session["user_stamp"] = accounts.end_sessions(f"user:{user}")    # other sessions end with the old password
    return render_template("password.html", done=True)
