"""Who a request comes from: the signed-in player or host of the session cookie, and its CSRF token."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import session

from forumbot.web.site import site


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return str(session["csrf"])


def session_mark(key: str, name: str) -> str:
    """The mark a session of `name` as `key` ("user", "host") must carry: the account's stamp (a sign-out or a
    password reset makes a new one) and, for a host, a digest of the host's password hash in the config (a
    changed or removed hash ends the host's sessions)."""
    mark = site().connections().accounts.stamp(f"{key}:{name}")
    if key == "host":
        hashed = site().web.hosts.get(name, "")
        mark += ":" + hashlib.sha256(hashed.encode()).hexdigest()[:32]
    return mark


def signed_in(key: str) -> str | None:
    """The session's `key` ("user", "host"): a name, while its mark is still the account's."""
    name = session.get(key)
    if not name:
        return None
    mark = session_mark(key, str(name))
    return str(name) if hmac.compare_digest(str(session.get(f"{key}_stamp", "")).encode(), mark.encode()) else None


def current_user() -> str | None:
    return signed_in("user")
