"""Who a request comes from: the signed-in player or host of the session cookie, and its CSRF token."""

from __future__ import annotations

import hmac
import secrets

from flask import session

from forumbot.web.site import site


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return str(session["csrf"])


def signed_in(key: str) -> str | None:
    """The session's `key` ("user", "host"): a name, while its stamp is the account's (a sign-out ends it)."""
    name = session.get(key)
    if not name:
        return None
    stamp = site().connections().accounts.stamp(f"{key}:{name}")
    return str(name) if hmac.compare_digest(str(session.get(f"{key}_stamp", "")).encode(), stamp.encode()) else None


def current_user() -> str | None:
    return signed_in("user")
