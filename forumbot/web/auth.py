"""Signing in and out. A failed sign-in counts against the address and the account name; five in five
minutes on either blocks further tries for the rest of the window."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, session, url_for

from forumbot.web.session import current_user
from forumbot.web.site import site

bp = Blueprint("auth", __name__)
MIN_PASSWORD = 10


def _safe_next(target: str | None) -> str:
    """Only a path on this site (never //other.site or a scheme)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("forum.index")


@bp.route("/signin", methods=["GET", "POST"])
def signin() -> Any:
    if request.method == "GET":
        return render_template("signin.html", next=request.args.get("next", ""), name="")
    name = request.form.get("name", "").strip()
    password = request.form.get("password", "")
    keys = (f"address:{request.remote_addr}", f"name:{name.casefold()}")
    wait = site().limiter.blocked(*keys)
    if wait:
        abort(429, f"Too many failed sign-ins. Try again in {int(wait // 60) + 1} minute(s).")
    if not site().connections().accounts.verify(name, password):
        site().limiter.failed(*keys)
        return render_template("signin.html", next=request.form.get("next", ""), name=name,
                               error="Wrong name or password."), 401
    session.clear()   # a new session (and CSRF token) on sign-in: nothing set before it carries over
    session["user"], session["user_stamp"] = name, site().connections().accounts.stamp(f"user:{name}")
    return redirect(_safe_next(request.form.get("next")))


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
        abort(401, "Sign in first.")
    if request.method == "GET":
        return render_template("password.html")
    accounts = site().connections().accounts
    new = request.form.get("new", "")
    error = ("The current password is wrong." if not accounts.verify(user, request.form.get("current", "")) else
             f"A new password needs at least {MIN_PASSWORD} characters." if len(new) < MIN_PASSWORD else
             "The two new passwords differ." if new != request.form.get("again") else None)
    if error:
        return render_template("password.html", error=error), 400
    accounts.add_user(user, password=new)
    session["user_stamp"] = accounts.end_sessions(f"user:{user}")    # other sessions end with the old password
    return render_template("password.html", done=True)
