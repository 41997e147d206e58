"""A local Discourse API server (127.0.0.1, a thread) over a DiscourseState.

    with FakeDiscourse(state) as fake:
        platform = DiscoursePlatform(fake.url, "forumbot", lambda: "KEY")

Every answer is shaped by the response schema of its operation in `openapi_subset.json` (the operations
served, copied unchanged from Discourse's API description): the fields the site's state knows are set from
it, every other required field gets a plain value of its type, and a field the schema does not allow is never
sent (test_discourse_fake checks the answers against the schemas with a checker of its own).
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fakehttp import FakeHandler

from .state import PRIVATE_MESSAGE, DiscourseState, Notification, Post, Topic, User, stamp

SPEC = json.loads((Path(__file__).parent / "openapi_subset.json").read_text(encoding="utf-8"))
INVALID_KEY = "You are not permitted to view the requested resource. The API username or key is invalid."


def schema_of(path: str, method: str, status: str = "200") -> dict[str, Any]:
    operation = SPEC["paths"][path][method]
    return operation["responses"][status]["content"]["application/json"]["schema"]


def _plain(schema: dict[str, Any]) -> Any:
    kinds = schema.get("type", "object")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "null" in kinds:
        return None
    kind = kinds[0]
    if kind == "object" or "properties" in schema:
        return shaped(schema, {})
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": []}.get(kind)


def shaped(schema: dict[str, Any], values: Any) -> Any:
    """`values` in the shape of `schema`: known fields kept (recursively), missing required ones filled,
    fields the schema does not allow left out."""
    if isinstance(values, list):
        return [shaped(schema.get("items", {}), v) for v in values]
    if not isinstance(values, dict) or not ("properties" in schema or schema.get("type") == "object"):
        return values
    props = schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name in props:
            out[name] = shaped(props[name], value)
        elif schema.get("additionalProperties") is not False:
            out[name] = value
    for name in schema.get("required", []):
        if name not in out:
            out[name] = _plain(props.get(name, {}))
    return out


class _Handler(FakeHandler):
    server: _Server

    def do_PUT(self) -> None:   # noqa: N802
        self._handle("PUT")

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8") if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _drip(self, every: float, headers_too: bool) -> None:
        data = json.dumps({"notifications": []}).encode("utf-8")
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
                f"Content-Length: {len(data)}\r\n\r\n").encode("ascii")
        try:
            if not headers_too:
                self.wfile.write(head)
                head = b""
            for byte in head + data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(every)
        except OSError:
            pass

    def _handle(self, method: str) -> None:
        state = self.server.state
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        with state.lock:
            state.requests.append((method, self.path))
        fault = state.take_fault(method, url.path)
        if fault is not None:
            if fault.status == 429:
                wait = fault.headers.get("Retry-After", "1")
                self._send(429, {"errors": [f"You’ve performed this action too many times. Please wait {wait} "
                                            "seconds before trying again."], "error_type": "rate_limit",
                                 "extras": {"wait_seconds": int(wait), "time_left": f"{wait} seconds"}},
                           fault.headers)
            elif fault.drip:
                self._drip(fault.drip, fault.headers.get("drip") == "headers")
            elif 300 <= fault.status < 400:
                self._send(fault.status, None, fault.headers)
            else:
                self._send(fault.status, {"errors": ["Oops"], "error_type": "server_error"}, fault.headers)
            return
        user, refused = self._user()
        if refused:
            self._send(403, {"errors": [INVALID_KEY], "error_type": "invalid_access"})
            return
        key = self.headers.get("Api-Key") or self.client_address[0]
        wait = state.limited(key)
        if wait is not None:
            self._send(429, {"errors": [f"You’ve performed this action too many times. Please wait {wait} seconds "
                                        "before trying again."], "error_type": "rate_limit",
                             "extras": {"wait_seconds": wait, "time_left": f"{wait} seconds"}},
                       {"Retry-After": str(wait)})
            return
        try:
            with state.lock:
                status, answer = self.server.site.route(method, url.path, query, body, user)
        except KeyError:
            status, answer = 404, {"errors": ["The requested URL or resource could not be found."],
                                   "error_type": "not_found"}
        self._send(status, answer)

    def _user(self) -> tuple[User | None, bool]:
        state = self.server.state
        key, name = self.headers.get("Api-Key"), self.headers.get("Api-Username")
        if key is None:
            return None, False
        if key not in state.keys or not name or name.lower() not in state.users:
            return None, True
        owner = state.keys[key]
        if owner is not None and owner.lower() != name.lower():
            return None, True
        return state.user(name), False


class Site:
    """The routes: each answer built from the state and shaped by its operation's schema."""

    def __init__(self, state: DiscourseState, base: str = "") -> None:
        self.state = state
        self.base = base

    # ---- visibility ----------------------------------------------------------------------------------
    def can_see(self, topic: Topic, user: User | None) -> bool:
        if topic.deleted:
            return bool(user and user.admin)
        if topic.archetype == "private_message":
            return user is not None and (user.id in topic.allowed or user.admin)
        category = self.state.categories.get(topic.category_id or -1)
        if category is not None and category.readers is not None:
            return user is not None and (user.admin or user.id in category.readers)
        return True

    def visible_posts(self, topic: Topic, user: User | None) -> list[Post]:
        posts = [self.state.posts[i] for i in topic.posts]
        return [p for p in posts if p.deleted_at is None or (user is not None and user.admin)]

    # ---- serializers ---------------------------------------------------------------------------------
    def post_json(self, post: Post, user: User | None, *, raw: bool) -> dict[str, Any]:
        author = self.state.user_by_id(post.user_id)
        topic = self.state.topics[post.topic_id]
        data: dict[str, Any] = {
            "id": post.id, "name": author.username, "username": author.username,
            "avatar_template": f"/letter_avatar/{author.username.lower()}/{{size}}/1.png",
            "created_at": stamp(post.created_at), "cooked": f"<p>{_escape(post.raw)}</p>",
            "post_number": post.post_number, "post_type": 1, "posts_count": len(topic.posts),
            "updated_at": stamp(post.updated_at), "reply_count": 0, "reply_to_post_number": None,
            "topic_id": topic.id, "topic_slug": topic.slug, "display_username": author.username,
            "version": post.version, "can_edit": bool(user and (user.id == post.user_id or user.admin)),
            "yours": bool(user and user.id == post.user_id), "user_id": author.id, "trust_level": author.trust_level,
            "admin": author.admin, "staff": author.admin, "moderator": False,
            "deleted_at": stamp(post.deleted_at) if post.deleted_at is not None else None,
            "user_deleted": post.user_deleted, "can_view_edit_history": True,
            "post_url": f"/t/{topic.slug}/{topic.id}/{post.post_number}",
            "actions_summary": [],
        }
        if raw:
            data["raw"] = post.raw
        return data

    def topic_list_item(self, topic: Topic) -> dict[str, Any]:
        posts = [self.state.posts[i] for i in topic.posts]
        last = posts[-1] if posts else None
        return {"id": topic.id, "title": topic.title, "fancy_title": topic.title, "slug": topic.slug,
                "posts_count": len(posts), "reply_count": max(0, len(posts) - 1),
                "highest_post_number": len(posts), "created_at": stamp(topic.created_at),
                "last_posted_at": stamp(last.created_at) if last else stamp(topic.created_at), "bumped": True,
                "bumped_at": stamp(last.created_at) if last else stamp(topic.created_at),
                "archetype": topic.archetype, "visible": True, "closed": topic.closed,
                "category_id": topic.category_id, "last_poster_username":
                    self.state.user_by_id(last.user_id).username if last else "",
                "allowed_user_count": len(topic.allowed),
                "posters": [{"extras": "latest", "description": "Original Poster", "user_id": topic.user_id,
                             "primary_group_id": None}],
                "participants": [{"extras": "", "description": "", "user_id": u, "primary_group_id": None}
                                 for u in sorted(topic.allowed)]}

    # ---- routes ----------------------------------------------------------------------------------------
    def route(self, method: str, path: str, query: dict[str, list[str]], body: dict[str, Any],
              user: User | None) -> tuple[int, Any]:
        if method != "GET" and user is None:
            return 403, {"errors": ["You are not permitted to view the requested resource."],
                         "error_type": "not_logged_in"}
        if method == "GET" and path == "/notifications.json":
            return self.notifications(user)
        if method == "PUT" and path == "/notifications/mark-read.json":
            for note in self.state.notifications:
                if user and note.user_id == user.id and (not body.get("id") or note.id == int(body["id"])):
                    note.read = True
            return 200, {"success": "OK"}
        if method == "POST" and path == "/posts.json":
            return self.create(body, user)
        if method == "GET" and (match := re.fullmatch(r"/posts/(\d+)/revisions/latest\.json", path)):
            return self.latest_revision(int(match.group(1)), user)
        if match := re.fullmatch(r"/posts/(\d+)\.json", path):
            return self.one_post(method, int(match.group(1)), body, user)
        if match := re.fullmatch(r"/t/(\d+)\.json", path):
            return self.topic(int(match.group(1)), user)
        if match := re.fullmatch(r"/t/(\d+)/posts\.json", path):
            return self.topic_posts(int(match.group(1)), query, user)
        if method == "POST" and (match := re.fullmatch(r"/t/(\d+)/notifications\.json", path)):
            topic = self.state.topics[int(match.group(1))]
            if user is None or not self.can_see(topic, user):
                raise KeyError(path)
            topic.watchers[user.id] = int(body.get("notification_level", 1))
            return 200, {"success": "OK"}
        if match := re.fullmatch(r"/topics/private-messages(-sent)?/([^/]+)\.json", path):
            return self.pm_list(match.group(2), bool(match.group(1)), user)
        if method == "GET" and (match := re.fullmatch(r"/u/([^/]+)\.json", path)):
            found = self.state.users.get(match.group(1).lower())
            if found is None:
                raise KeyError(path)
            return 200, shaped(schema_of("/u/{username}.json", "get"), {"user": {
                "id": found.id, "username": found.username, "name": found.username}})
        if match := re.fullmatch(r"/c/(\d+)/show\.json", path):
            category = self.state.categories[int(match.group(1))]
            return 200, shaped(schema_of("/c/{id}/show.json", "get"), {"category": {
                "id": category.id, "name": category.name, "slug": category.slug,
                "read_restricted": category.readers is not None}})
        if match := re.fullmatch(r"/c/([^/]+)/(\d+)\.json", path):
            category = self.state.categories[int(match.group(2))]
            if category.slug != match.group(1):
                raise KeyError(path)
            topics = sorted((t for t in self.state.topics.values() if t.category_id == category.id
                             and self.can_see(t, user)), key=lambda t: -t.id)[:30]
            schema = schema_of("/c/{slug}/{id}.json", "get")
            return 200, shaped(schema, {"users": [], "topic_list": {
                "can_create_topic": user is not None, "per_page": 30,
                "topics": [self.topic_list_item(t) for t in topics]}})
        raise KeyError(path)

    def notifications(self, user: User | None) -> tuple[int, Any]:
        if user is None:
            return 403, {"errors": ["You are not permitted to view the requested resource."],
                         "error_type": "not_logged_in"}
        mine: list[Notification] = [n for n in self.state.notifications if n.user_id == user.id]
        newest = sorted(mine, key=lambda n: -n.id)[:60]
        items = [{"id": n.id, "user_id": n.user_id, "notification_type": n.notification_type, "read": n.read,
                  "high_priority": n.notification_type == PRIVATE_MESSAGE, "created_at": stamp(n.created_at),
                  "post_number": n.post_number, "topic_id": n.topic_id, "fancy_title": n.slug, "slug": n.slug,
                  "data": {"topic_title": n.slug, "original_post_id": 0, "original_post_type": 1,
                           "original_username": n.username, "display_username": n.username}}
                 for n in newest]
        return 200, shaped(schema_of("/notifications.json", "get"), {
            "notifications": items, "total_rows_notifications": len(mine),
            "seen_notification_id": max((n.id for n in mine if n.read), default=0),
            "load_more_notifications": f"/notifications?offset=60&username={user.username}"})

    def topic(self, number: int, user: User | None) -> tuple[int, Any]:
        topic = self.state.topics[number]
        if not self.can_see(topic, user):
            return 404, {"errors": ["The requested URL or resource could not be found."], "error_type": "not_found"}
        posts = self.visible_posts(topic, user)
        allowed = [{"id": u.id, "username": u.username, "name": u.username, "avatar_template": ""}
                   for u in (self.state.user_by_id(i) for i in sorted(topic.allowed))]
        data = {"post_stream": {"posts": [self.post_json(p, user, raw=False) for p in posts[:20]],
                                "stream": [p.id for p in posts]},
                "id": topic.id, "title": topic.title, "fancy_title": topic.title, "posts_count": len(posts),
                "created_at": stamp(topic.created_at), "archetype": topic.archetype, "slug": topic.slug,
                "category_id": topic.category_id or 0, "user_id": topic.user_id, "closed": topic.closed,
                "visible": True, "highest_post_number": len(topic.posts), "chunk_size": 20,
                "last_posted_at": stamp(posts[-1].created_at) if posts else None,
                "details": {"allowed_users": allowed, "can_create_post": not topic.closed}}
        return 200, shaped(schema_of("/t/{id}.json", "get"), data)

    def topic_posts(self, number: int, query: dict[str, list[str]], user: User | None) -> tuple[int, Any]:
        topic = self.state.topics[number]
        if not self.can_see(topic, user):
            return 404, {"errors": ["The requested URL or resource could not be found."], "error_type": "not_found"}
        wanted = {int(i) for i in query.get("post_ids[]", []) if i.isdigit()}
        raw = query.get("include_raw", ["false"])[0] in ("true", "1")
        posts = [p for p in self.visible_posts(topic, user) if p.id in wanted]
        return 200, shaped(schema_of("/t/{id}/posts.json", "get"),
                           {"post_stream": {"posts": [self.post_json(p, user, raw=raw) for p in posts]},
                            "id": topic.id})

    def one_post(self, method: str, number: int, body: dict[str, Any], user: User | None) -> tuple[int, Any]:
        post = self.state.posts[number]
        topic = self.state.topics[post.topic_id]
        if not self.can_see(topic, user) or (post.deleted_at is not None and not (user and user.admin)):
            raise KeyError(number)
        if method == "GET":
            return 200, shaped(schema_of("/posts/{id}.json", "get"), self.post_json(post, user, raw=True))
        if method != "PUT" or user is None or not (user.id == post.user_id or user.admin):
            return 403, {"errors": ["You are not permitted to view the requested resource."],
                         "error_type": "invalid_access"}
        raw = str((body.get("post") or {}).get("raw") or "")
        refused = self.length_errors(raw, self.state.min_post_length)
        if refused:
            return 422, {"errors": refused}
        self.state.edit_post(post.id, raw)
        return 200, shaped(schema_of("/posts/{id}.json", "put"), {"post": self.post_json(post, user, raw=True)})

    def latest_revision(self, number: int, user: User | None) -> tuple[int, Any]:
        """GET /posts/{id}/revisions/latest.json, as Discourse's PostRevisionSerializer writes it: 404 for a
        post without revisions (never edited, or edited within the grace period only)."""
        post = self.state.posts[number]
        topic = self.state.topics[post.topic_id]
        if not self.can_see(topic, user) or post.deleted_at is not None or not post.revisions:
            raise KeyError(number)
        author = next(u for u in self.state.users.values() if u.id == post.user_id)
        last = post.version
        before = post.revisions[-1]
        return 200, {
            "created_at": stamp(post.revised_at[-1]), "post_id": post.id, "previous_hidden": False,
            "current_hidden": False, "first_revision": 2, "previous_revision": last - 1 if last > 2 else None,
            "current_revision": last, "next_revision": None, "last_revision": last, "current_version": last,
            "version_count": last, "username": author.username, "display_username": author.username,
            "avatar_template": f"/letter_avatar/{author.username.lower()}/{{size}}/1.png", "edit_reason": None,
            "body_changes": {"inline": f"<div class=\"inline-diff\"><del>{_escape(before)}</del>"
                                       f"<ins>{_escape(post.raw)}</ins></div>",
                             "side_by_side": f"<div class=\"revision-content\">{_escape(before)}</div>"
                                             f"<div class=\"revision-content\">{_escape(post.raw)}</div>",
                             "side_by_side_markdown": f"<table class=\"markdown\"><tr><td class=\"diff-del\">"
                                                      f"{_escape(before)}</td><td class=\"diff-ins\">"
                                                      f"{_escape(post.raw)}</td></tr></table>"},
            "title_changes": None, "user_changes": None, "tags_changes": None, "category_id_changes": None,
            "wiki": False, "can_edit": bool(user and (user.id == post.user_id or user.admin))}

    def length_errors(self, raw: str, minimum: int) -> list[str]:
        length = len(re.sub(r"<!--.*?-->", "", raw, flags=re.S).strip())
        if length < minimum:
            return [f"Body is too short (minimum is {minimum} characters)"]
        if length > self.state.max_post_length:
            return [f"Body is too long (maximum is {self.state.max_post_length} characters)"]
        return []

    def create(self, body: dict[str, Any], user: User) -> tuple[int, Any]:
        state = self.state
        raw = str(body.get("raw") or "")
        if body.get("archetype") == "private_message":
            names = [n.strip() for n in str(body.get("target_recipients") or "").split(",") if n.strip()]
            unknown = [n for n in names if n.lower() not in state.users]
            if not names or unknown:
                return 422, {"errors": [f"Sorry, there is no such user: {', '.join(unknown) or '(none)'}"]}
            errors = self.length_errors(raw, state.min_pm_length) + self.title_errors(body, 2)
            if errors:
                return 422, {"action": "create_post", "errors": errors}
            topic = state.add_topic(user.username, str(body["title"]).strip(), raw, to=names)
            post = state.posts[topic.posts[0]]
        elif body.get("topic_id") is not None:
            topic = state.topics.get(int(body["topic_id"]))
            if topic is None or not self.can_see(topic, user):
                raise KeyError(body["topic_id"])
            if topic.closed:
                return 403, {"errors": ["You are not permitted to view the requested resource."],
                             "error_type": "invalid_access"}
            minimum = state.min_pm_length if topic.archetype == "private_message" else state.min_post_length
            errors = self.length_errors(raw, minimum)
            if errors:
                return 422, {"action": "create_post", "errors": errors}
            post = state.add_post(topic.id, user.username, raw)
        else:
            category = body.get("category")
            if category is not None and int(category) not in state.categories:
                return 422, {"action": "create_post", "errors": ["Category can't be blank"]}
            errors = self.length_errors(raw, state.min_post_length) + self.title_errors(body, state.min_title_length)
            if errors:
                return 422, {"action": "create_post", "errors": errors}
            topic = state.add_topic(user.username, str(body["title"]).strip(), raw,
                                    category=int(category) if category is not None else None)
            post = state.posts[topic.posts[0]]
        return 200, shaped(schema_of("/posts.json", "post"), {**self.post_json(post, user, raw=True),
                                                              "draft_sequence": 0})

    def title_errors(self, body: dict[str, Any], minimum: int) -> list[str]:
        title = str(body.get("title") or "").strip()
        if len(title) < minimum:
            return [f"Title is too short (minimum is {minimum} characters)"]
        if body.get("archetype") != "private_message" and any(
                t.title == title and t.archetype == "regular" for t in self.state.topics.values()):
            return ["Title has already been used"]
        return []

    def pm_list(self, name: str, sent: bool, user: User | None) -> tuple[int, Any]:
        owner = self.state.user(name)
        if user is None or (user.id != owner.id and not user.admin):
            return 403, {"errors": ["You are not permitted to view the requested resource."],
                         "error_type": "invalid_access"}
        topics = [t for t in self.state.topics.values() if t.archetype == "private_message"
                  and owner.id in t.allowed and (not sent or any(self.state.posts[i].user_id == owner.id
                                                                 for i in t.posts))]
        topics.sort(key=lambda t: -max(self.state.posts[i].created_at for i in t.posts))
        path = "/topics/private-messages-sent/{username}.json" if sent else "/topics/private-messages/{username}.json"
        users = [{"id": u.id, "username": u.username, "name": u.username, "avatar_template": ""}
                 for u in self.state.users.values()]
        return 200, shaped(schema_of(path, "get"), {"users": users, "primary_groups": [], "topic_list": {
            "can_create_topic": True, "draft": None, "draft_key": "new_topic", "draft_sequence": 0, "per_page": 30,
            "topics": [self.topic_list_item(t) for t in topics[:30]]}})


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: DiscourseState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state
        self.site = Site(state)


class FakeDiscourse:
    """The server on 127.0.0.1 on a free port, in a thread, for a `with` block."""

    def __init__(self, state: DiscourseState | None = None) -> None:
        self.state = state or DiscourseState()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def __enter__(self) -> FakeDiscourse:
        self._server = _Server(self.state)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
