"""The Flask app factory: sessions in signed cookies, a CSRF token checked on every form, the pages
registered as blueprints (forum, sign-in, private messages; the host console adds its own)."""

from __future__ import annotations

import hmac
from functools import partial
from typing import Any

from flask import Flask, abort, g, render_template, request, session
from werkzeug.exceptions import HTTPException

from forumbot.errors import ForumbotError
from forumbot.model import parse_time
from forumbot.web import archive, auth, banner, console, forum, pms, tournaments
from forumbot.web.config import WebSettings
from forumbot.web.proxy import FromProxies
from forumbot.web.session import csrf_token, current_user
from forumbot.web.site import Site, site
from forumbot.web.speech import page_lang, w
from forumbot.web.words import ending, fate, phase, say, side

MAX_FORM_BYTES = 256 * 1024


def _check_csrf() -> None:
    if request.method != "POST":
        return
    sent = request.form.get("csrf", "")     # compared as bytes: compare_digest refuses a non-ASCII str
    if not sent or "csrf" not in session or not hmac.compare_digest(sent.encode(), str(session["csrf"]).encode()):
        abort(400, w("This form's security token is missing or out of date. Go back, reload the page and send "
                     "it again."))


def _private_check() -> None:
    if site().web.private and not current_user() and request.endpoint not in ("auth.signin", "static") \
            and request.blueprint != "console":   # the host console signs its hosts in itself
        abort(401, w("This forum is private: sign in to read it."))


def _when(value: str | None) -> str:
    """A stored time as the page shows it: to the minute, in the page's zone (the reader's own, else the
    game's calendar zone, else UTC)."""
    if not value:
        return ""
    try:
        return banner.local_time(parse_time(value), banner.page_zone())
    except ValueError:
        return value


def _globals() -> dict[str, Any]:
    user = current_user()
    if "unread" not in g:   # once a request, however many templates it renders (the live feed renders one a post)
        g.unread = site().connections().db.unread_for(user) if user else 0
    lang = page_lang()
    return {"user": user, "csrf_token": csrf_token, "unread": g.unread, "bot": site().settings.account,
            "lang": lang, "w": partial(say, lang), "phase": partial(phase, lang), "side": partial(side, lang),
            "fate": partial(fate, lang), "ending": partial(ending, lang)}


def _error(err: HTTPException) -> Any:
    # Werkzeug's own message (a page that does not exist, a form too big) as the page's language says it; the
    # forum's own messages are said so already, where they are raised.
    message = _STOCK.get(type(err).__name__, err.description) if err.description == type(err).description \
        else err.description
    return render_template("error.html", code=err.code, title=err.name, message=w(message) if message else ""), \
        err.code or 500


# Werkzeug's stock messages, said shorter (forumbot/web/words/<lang>.toml has them).
_STOCK = {"NotFound": "There is no such page here.", "MethodNotAllowed": "This page does not take that request.",
          "RequestEntityTooLarge": "What was sent is too big.", "BadRequest": "The request could not be read.",
          "InternalServerError": "Something went wrong on the server."}


def _failure(err: ForumbotError) -> Any:
    return render_template("error.html", code=503, title="Try again",
                           message=w("The forum could not do that just now: {error}", error=err)), 503


def create_app(settings: WebSettings) -> Flask:
    """The web forum over the local forum in `settings.forum_path`."""
    app = Flask(__name__)
    state = Site(settings)
    app.extensions["forumbot"] = state
    app.secret_key = state.connections().accounts.secret()
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax",
                      SESSION_COOKIE_SECURE=settings.web.url.startswith("https://"),
                      SESSION_COOKIE_NAME="forumbot_session", MAX_CONTENT_LENGTH=MAX_FORM_BYTES)
    app.wsgi_app = FromProxies(app.wsgi_app, settings.web.trusted_proxies,  # type: ignore[method-assign]
                               settings.web.proxy_addresses)
    app.before_request(_check_csrf)
    app.before_request(_private_check)
    app.context_processor(_globals)
    app.add_template_filter(_when, "when")
    app.add_template_filter(lambda text: site().connections().html.html(text), "post_html")
    app.register_error_handler(HTTPException, _error)
    app.register_error_handler(ForumbotError, _failure)

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.setdefault("Content-Security-Policy", "default-src 'self'; img-src 'self'; "
                                    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    for blueprint in (forum.bp, auth.bp, pms.bp, console.bp, banner.bp, tournaments.bp, archive.bp):
        app.register_blueprint(blueprint)
    state.open_game_threads()
    return app

