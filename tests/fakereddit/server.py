"""A local Reddit API server (127.0.0.1, a thread) speaking the wire format praw uses.

    with FakeReddit() as fake:
        fake.state.add_user("forumbot", "pw")
        reddit = praw.Reddit(**fake.praw_settings("forumbot", "pw"))

praw is pointed at it through its `oauth_url` and `reddit_url` settings, so the real praw and prawcore
code runs: the password grant at /api/v1/access_token, bearer tokens, retries, rate-limit headers.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fakehttp import FakeHandler

from .state import RedditState, Request

MAX_BODY = 10_000


def _api_error(code: str, message: str, field: str) -> dict[str, Any]:
    return {"json": {"errors": [[code, message, field]]}}


class _Handler(FakeHandler):
    server: _Server

    # ---- plumbing ----------------------------------------------------------------------------
    def _handle(self, method: str) -> None:
        state = self.server.state
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if raw and "json" not in (self.headers.get("Content-Type") or ""):
            params.update(parse_qsl(raw.decode("utf-8")))
        path = url.path.rstrip("/") or "/"
        user = self._user()
        with state.lock:
            state.requests.append(Request(method, path, params, user))
        fault = state.take_fault(path)
        if fault is not None and fault.kind == "timeout":
            time.sleep(fault.delay)
        if fault is not None and fault.kind == "status":
            body = {"message": "Too Many Requests", "error": 429} if fault.status == 429 else \
                {"message": "Internal Server Error", "error": fault.status}
            self._send(fault.status, body, extra=fault.headers)
            return
        try:
            status, body = self._route(method, path, params, user)
        except KeyError:
            status, body = 404, {"message": "Not Found", "error": 404}
        if fault is not None and fault.kind == "truncate":
            self._send(status, body, truncate=True)
        elif fault is not None and fault.kind == "badjson":
            self._send(status, body, badjson=True)
        else:
            self._send(status, body)

    def _user(self) -> str | None:
        header = self.headers.get("Authorization") or ""
        if header.lower().startswith("bearer "):
            return self.server.state.tokens.get(header[7:].strip())
        return None

    def _send(self, status: int, body: Any, *, truncate: bool = False, badjson: bool = False,
              extra: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        if badjson:
            data = data[: max(1, len(data) // 2)]
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in self.server.state.ratelimit_headers().items():
                self.send_header(key, value)
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            if truncate:
                self.send_header("Connection", "close")
            self.end_headers()
            if truncate:
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):     # the client gave up (a timeout)
            self.close_connection = True

    # ---- routes ------------------------------------------------------------------------------
    def _route(self, method: str, path: str, p: dict[str, str], user: str | None) -> tuple[int, Any]:
        state = self.server.state
        if path == "/api/v1/access_token":
            return self._token(p)
        if user is None:
            return 401, {"message": "Unauthorized", "error": 401}
        limit = min(int(p.get("limit") or 25), 100)
        after, before = p.get("after") or None, p.get("before") or None
        if path == "/api/v1/me":
            return 200, {"name": user, "id": "me1", "created_utc": 1.6e9, "has_mail": False,
                         "inbox_count": len([m for m in state.messages_to(user) if m.new]), "is_suspended": False}
        if match := re.fullmatch(r"/comments/(\w+)(?:/[^/]*/(\w+))?", path):
            sid, focus = match.group(1), match.group(2)
            if sid not in state.submissions or (focus and focus not in state.comments):
                return 404, {"message": "Not Found", "error": 404}
            limit_arg = int(p["limit"]) if p.get("limit") else None
            return 200, state.submission_page(sid, limit_arg, p.get("sort") or "confidence", focus)
        if path == "/api/morechildren":
            ids = [i for i in (p.get("children") or "").split(",") if i]
            return 200, state.more_children(p.get("link_id", ""), ids, p.get("sort") or "confidence")
        if match := re.fullmatch(r"/r/([\w+]+)/comments", path):
            return 200, state.subreddit_comments(match.group(1), limit, after, before)
        if match := re.fullmatch(r"/user/(\w[\w-]*)/about", path):
            known = next((n for n in state.passwords if n.lower() == match.group(1).lower()), None)
            if known is None:
                return 404, {"message": "Not Found", "error": 404}
            return 200, {"kind": "t2", "data": {"name": known, "id": f"u{len(known)}", "created_utc": 1.6e9}}
        if match := re.fullmatch(r"/user/(\w[\w-]*)/comments", path):
            return 200, state.user_comments(match.group(1), limit, after, before)
        if match := re.fullmatch(r"/user/(\w[\w-]*)/submitted", path):
            return 200, state.user_submissions(match.group(1), limit, after, before)
        if path == "/api/info":
            return 200, state.info([i for i in (p.get("id") or "").split(",") if i])
        if match := re.fullmatch(r"/message/(unread|inbox|messages|sent)", path):
            return 200, state.inbox(user, match.group(1), limit, after, before, p.get("mark") == "true")
        if path == "/api/read_message" and method == "POST":
            with state.lock:
                for name in (p.get("id") or "").split(","):
                    message = state.messages.get(name.removeprefix("t4_"))
                    if message is not None and message.dest.lower() == user.lower():
                        message.new = False
            return 200, {}
        if path == "/api/comment" and method == "POST":
            return self._comment(p, user)
        if path == "/api/editusertext" and method == "POST":
            return self._edit(p, user)
        if path == "/api/compose" and method == "POST":
            return self._compose(p, user)
        if path == "/api/submit" and method == "POST":
            return self._submit(p, user)
        return 404, {"message": "Not Found", "error": 404}

    def _token(self, p: dict[str, str]) -> tuple[int, Any]:
        state = self.server.state
        header = self.headers.get("Authorization") or ""
        try:
            client, _, secret = base64.b64decode(header.split(" ", 1)[1]).decode().partition(":")
        except (IndexError, ValueError):
            return 401, {"message": "Unauthorized", "error": 401}
        if (client, secret) != (state.client_id, state.client_secret):
            return 401, {"message": "Unauthorized", "error": 401}
        if p.get("grant_type") != "password" or state.passwords.get(p.get("username", "")) != p.get("password"):
            return 200, {"error": "invalid_grant"}           # Reddit answers a bad password with a 200
        token = f"tok-{len(state.tokens) + 1}-{p['username']}"
        with state.lock:
            state.tokens[token] = p["username"]
        return 200, {"access_token": token, "token_type": "bearer", "expires_in": 86400, "scope": "*"}

    def _comment(self, p: dict[str, str], user: str) -> tuple[int, Any]:
        state = self.server.state
        parent, text = p.get("thing_id", ""), p.get("text", "")
        if len(text) > MAX_BODY:
            return 200, _api_error("TOO_LONG", f"this is too long (max: {MAX_BODY})", "text")
        if not text.strip():
            return 200, _api_error("NO_TEXT", "we need something here", "text")
        kind, _, thing = parent.partition("_")
        if kind == "t3" and thing in state.submissions:
            if state.submissions[thing].locked:
                return 200, _api_error("THREAD_LOCKED", "Comments are locked.", "parent")
        elif kind == "t1" and thing in state.comments:
            if state.comments[thing].deleted or state.comments[thing].removed:
                return 200, _api_error("DELETED_COMMENT", "that comment has been deleted", "parent")
        else:
            return 200, _api_error("INVALID_OPTION", "that parent does not exist", "parent")
        cid = state.add_comment(parent, user, text)
        return 200, {"json": {"errors": [], "data": {"things": [state.t1(state.comments[cid])]}}}

    def _edit(self, p: dict[str, str], user: str) -> tuple[int, Any]:
        state = self.server.state
        thing, text = p.get("thing_id", "").removeprefix("t1_"), p.get("text", "")
        comment = state.comments.get(thing)
        if comment is None or comment.deleted:
            return 200, _api_error("DELETED_COMMENT", "that comment has been deleted", "thing_id")
        if comment.author != user:
            return 403, {"message": "Forbidden", "error": 403}
        if len(text) > MAX_BODY:
            return 200, _api_error("TOO_LONG", f"this is too long (max: {MAX_BODY})", "text")
        state.edit_comment(thing, text)
        return 200, {"json": {"errors": [], "data": {"things": [state.t1(comment)]}}}

    def _compose(self, p: dict[str, str], user: str) -> tuple[int, Any]:
        state = self.server.state
        to, subject, text = p.get("to", ""), p.get("subject", ""), p.get("text", "")
        if to not in state.passwords:
            return 200, _api_error("USER_DOESNT_EXIST", "that user doesn't exist", "to")
        if not subject.strip():
            return 200, _api_error("NO_SUBJECT", "please enter a subject", "subject")
        if len(subject) > 100:
            return 200, _api_error("TOO_LONG", "this is too long (max: 100)", "subject")
        if len(text) > MAX_BODY:
            return 200, _api_error("TOO_LONG", f"this is too long (max: {MAX_BODY})", "text")
        state.add_message(user, to, subject, text)
        return 200, {"json": {"errors": []}}


    def _submit(self, p: dict[str, str], user: str) -> tuple[int, Any]:
        """A self post (kind=self) in p["sr"], answered as Reddit's /api/submit does with api_type=json."""
        state = self.server.state
        title, text = p.get("title", ""), p.get("text", "")
        if p.get("kind") != "self":
            return 200, _api_error("INVALID_OPTION", "only self posts here", "kind")
        if not title.strip():
            return 200, _api_error("NO_TEXT", "we need something here", "title")
        if len(title) > 300:
            return 200, _api_error("TOO_LONG", "this is too long (max: 300)", "title")
        if len(text) > MAX_BODY:
            return 200, _api_error("TOO_LONG", f"this is too long (max: {MAX_BODY})", "text")
        sid = state.add_submission(p.get("sr", ""), title, author=user, selftext=text)
        url = f"https://www.reddit.com/r/{p.get('sr', '')}/comments/{sid}/"
        return 200, {"json": {"errors": [], "data": {"url": url, "drafts_count": 0, "id": sid, "name": f"t3_{sid}"}}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, state: RedditState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


class FakeReddit:
    """The server, run in a thread. Use as a context manager or call start()/stop()."""

    def __init__(self, state: RedditState | None = None) -> None:
        self.state = state or RedditState()
        self._server = _Server(self.state)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fakereddit", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeReddit:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeReddit:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def praw_settings(self, username: str, password: str, **extra: Any) -> dict[str, Any]:
        """Keyword arguments for praw.Reddit (or the keys of a praw.ini site) aiming at this server."""
        return {"client_id": self.state.client_id, "client_secret": self.state.client_secret,
                "username": username, "password": password, "user_agent": "test:forumbot:v0 (by u/forumbot)",
                "oauth_url": self.url, "reddit_url": self.url, "short_url": self.url,
                "check_for_updates": False, "timeout": 5, **extra}


def no_retry_sleep(reddit: Any) -> Any:
    """Make prawcore retry at once (it sleeps up to 4 s between retries): tests inject faults by the dozen."""
    from prawcore.sessions import FiniteRetryStrategy

    class _NoSleep(FiniteRetryStrategy):
        def _sleep_seconds(self) -> float | None:
            return None

        def consume_available_retry(self) -> FiniteRetryStrategy:
            return type(self)(retries=self.retries - 1)

    for core in {id(c): c for c in (reddit._core, reddit._authorized_core, reddit._read_only_core) if c}.values():
        core._retry_strategy_class = _NoSleep
    return reddit
