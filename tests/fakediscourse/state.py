"""What the fake Discourse site holds: users and API keys, categories, topics (private messages are topics
of the `private_message` archetype), posts with their revisions, notifications, and the faults tests ask
for (429s, 5xx, redirects). Times come from `clock` (seconds), so tests can run on a virtual clock."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

POSTED, PRIVATE_MESSAGE = 9, 6
WITHDRAWN = "(post withdrawn by author, will be automatically deleted in 24 hours unless flagged)"
GRACE = 300            # Discourse's editing_grace_period: an edit within it makes no new revision


def stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def slugify(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "topic"


@dataclass
class User:
    id: int
    username: str
    admin: bool = False
    trust_level: int = 1


@dataclass
class Category:
    id: int
    name: str
    slug: str
    readers: set[int] | None = None     # None: everyone; else the user ids allowed (a private category)


@dataclass
class Topic:
    id: int
    title: str
    user_id: int
    created_at: float
    category_id: int | None = None
    archetype: str = "regular"
    allowed: set[int] = field(default_factory=set)      # a PM's participants
    posts: list[int] = field(default_factory=list)
    watchers: dict[int, int] = field(default_factory=dict)
    closed: bool = False
    deleted: bool = False

    @property
    def slug(self) -> str:
        return slugify(self.title)


@dataclass
class Post:
    id: int
    topic_id: int
    post_number: int
    user_id: int
    raw: str
    created_at: float
    updated_at: float
    revisions: list[str] = field(default_factory=list)    # the raw of each earlier version
    revised_at: list[float] = field(default_factory=list)  # when each revision (version 2, 3, ...) was made
    deleted_at: float | None = None
    user_deleted: bool = False

    @property
    def version(self) -> int:
        return len(self.revisions) + 1


@dataclass
class Notification:
    id: int
    user_id: int
    notification_type: int
    topic_id: int
    post_number: int
    created_at: float
    slug: str
    username: str
    read: bool = False


@dataclass
class Fault:
    path: str           # a prefix of the request path ("" for any)
    status: int
    times: int
    headers: dict[str, str] = field(default_factory=dict)
    method: str = ""
    drip: float = 0.0     # with status 200: the answer sent a byte every `drip` seconds


class DiscourseState:
    def __init__(self, clock: Callable[[], float] | None = None, *, min_post_length: int = 20,
                 min_pm_length: int = 10, min_title_length: int = 15, max_post_length: int = 32000,
                 rate_limit: int | None = None) -> None:
        self.clock = clock or time.time
        self.lock = threading.RLock()
        self.users: dict[str, User] = {}
        self.keys: dict[str, str | None] = {}         # API key → its user (None: any user, an admin's "all users")
        self.categories: dict[int, Category] = {}
        self.topics: dict[int, Topic] = {}
        self.posts: dict[int, Post] = {}
        self.notifications: list[Notification] = []
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str]] = []     # (method, path with query)
        self.min_post_length, self.min_pm_length = min_post_length, min_pm_length
        self.min_title_length, self.max_post_length = min_title_length, max_post_length
        self.rate_limit = rate_limit                   # requests a minute per key (None: unlimited)
        self._hits: dict[str, list[float]] = {}
        self._ids = {"user": 0, "category": 0, "topic": 10, "post": 100, "notification": 1000}

    def _next(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind]

    # ---- people and places -----------------------------------------------------------------------
    def add_user(self, username: str, *, admin: bool = False, trust_level: int = 1, key: str | None = None) -> User:
        with self.lock:
            user = User(self._next("user"), username, admin, trust_level)
            self.users[username.lower()] = user
            if key:
                self.keys[key] = username
            return user

    def add_key(self, key: str, username: str | None = None) -> None:
        self.keys[key] = username

    def user(self, name: str) -> User:
        return self.users[name.lower()]

    def user_by_id(self, user_id: int) -> User:
        return next(u for u in self.users.values() if u.id == user_id)

    def add_category(self, name: str, readers: set[int] | None = None) -> Category:
        with self.lock:
            category = Category(self._next("category"), name, slugify(name), readers)
            self.categories[category.id] = category
            return category

    # ---- topics and posts ------------------------------------------------------------------------
    def add_topic(self, author: str, title: str, raw: str, *, category: int | None = None,
                  at: float | None = None, to: list[str] | None = None) -> Topic:
        """A topic (or, with `to`, a private message to those users) with its first post."""
        with self.lock:
            at = self.clock() if at is None else at
            user = self.user(author)
            topic = Topic(self._next("topic"), title, user.id, at, category,
                          "private_message" if to is not None else "regular")
            if to is not None:
                topic.allowed = {user.id, *(self.user(n).id for n in to)}
            topic.watchers[user.id] = 3              # a topic's creator watches it
            self.topics[topic.id] = topic
            self.add_post(topic.id, author, raw, at=at)
            return topic

    def add_post(self, topic_id: int, author: str, raw: str, *, at: float | None = None) -> Post:
        with self.lock:
            at = self.clock() if at is None else at
            topic = self.topics[topic_id]
            user = self.user(author)
            post = Post(self._next("post"), topic_id, len(topic.posts) + 1, user.id, raw, at, at)
            self.posts[post.id] = post
            topic.posts.append(post.id)
            if topic.archetype == "private_message":
                listeners = topic.allowed - {user.id}
                kind = PRIVATE_MESSAGE
            else:
                listeners = {u for u, level in topic.watchers.items() if level == 3} - {user.id}
                kind = POSTED
            for listener in sorted(listeners):
                self.notifications.append(Notification(self._next("notification"), listener, kind, topic_id,
                                                       post.post_number, at, topic.slug, user.username))
            return post

    def edit_post(self, post_id: int, raw: str, *, at: float | None = None) -> Post:
        """An edit: a new revision (its raw kept), unless made within the grace period of the last one."""
        with self.lock:
            at = self.clock() if at is None else at
            post = self.posts[post_id]
            if at - post.updated_at > GRACE or post.revisions:
                post.revisions.append(post.raw)
                post.revised_at.append(at)
            post.raw, post.updated_at = raw, at
            return post

    def delete_post(self, post_id: int, *, by_author: bool = True, at: float | None = None) -> None:
        """By its author: withdrawn (the raw replaced, `user_deleted`); by staff: `deleted_at` set, hidden from
        everyone but staff."""
        with self.lock:
            post = self.posts[post_id]
            at = self.clock() if at is None else at
            if by_author:
                post.revisions.append(post.raw)
                post.revised_at.append(at)
                post.raw, post.user_deleted, post.updated_at = WITHDRAWN, True, at
            else:
                post.deleted_at = at

    def topic_posts(self, topic_id: int, author: str) -> list[Post]:
        user = self.user(author)
        return [self.posts[i] for i in self.topics[topic_id].posts if self.posts[i].user_id == user.id]

    def pms_from(self, author: str) -> list[tuple[str, Post]]:
        """Each private message (post) `author` sent, with its recipient(s)."""
        user = self.user(author)
        out = []
        for topic in self.topics.values():
            if topic.archetype != "private_message":
                continue
            to = ",".join(sorted(self.user_by_id(u).username for u in topic.allowed - {user.id}))
            out += [(to, self.posts[i]) for i in topic.posts if self.posts[i].user_id == user.id]
        return out

    # ---- faults and limits -----------------------------------------------------------------------
    def fail(self, path: str, status: int, times: int = 1, headers: dict[str, str] | None = None,
             method: str = "", drip: float = 0.0) -> None:
        with self.lock:
            self.faults.append(Fault(path, status, times, dict(headers or {}), method, drip))

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and path.startswith(fault.path) and fault.method in ("", method):
                    fault.times -= 1
                    return fault
            return None

    def limited(self, key: str) -> int | None:
        """Seconds to wait when `key` used up its requests of the last minute, else None (and the hit counted)."""
        if self.rate_limit is None:
            return None
        with self.lock:
            now = self.clock()
            hits = [t for t in self._hits.get(key, []) if now - t < 60]
            if len(hits) >= self.rate_limit:
                self._hits[key] = hits
                return max(1, int(60 - (now - hits[0])) + 1)
            hits.append(now)
            self._hits[key] = hits
            return None

    def count(self, prefix: str, method: str = "GET") -> int:
        return sum(1 for m, p in self.requests if m == method and p.startswith(prefix))
