"""The fake board's state: users, sessions, forums, topics, posts, private messages, form tokens, faults.

Everything a test does as a player or a moderator goes through the helpers here (add_post, edit_post,
soft_delete, hard_delete, lock, add_pm); the bot goes through HTTP (server.py)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class User:
    id: int
    name: str
    password: str = ""
    colour: str = ""                     # group colour: "username-coloured" links
    login_attempts: int = 0              # failed sign-ins since the last good one (max_login_attempts)
    needs_approval: bool = False         # f_noapprove = NEVER: the user's posts wait for a moderator


@dataclass
class Post:
    id: int
    topic: int
    author: int
    time: int
    text: str                            # BBCode
    subject: str
    edits: int = 0
    edit_time: int = 0
    edit_user: int = 0
    edit_reason: str = ""
    soft_deleted: bool = False
    approved: bool = True                # False: held for a moderator, invisible to the others


@dataclass
class Topic:
    id: int
    forum: int
    title: str
    author: int
    locked: bool = False
    posts: list[int] = field(default_factory=list)        # ids in time order, soft-deleted included


@dataclass
class Pm:
    id: int
    sender: int
    to: list[int]
    subject: str
    text: str
    time: int
    unread: set[int] = field(default_factory=set)         # recipients who have not viewed it


@dataclass
class Session:
    sid: str
    user: int
    agent: str
    last: float


@dataclass
class Fault:
    """One injected failure: the next request whose "METHOD /path?query" contains `match` gets it."""

    match: str
    kind: str            # an HTTP status ("500", "403", ...), "redirect", "redirect_away" (to localhost),
    #                      "timeout", "truncated", "login_box"
    times: int = 1


class Board:
    """A phpBB board in memory. `clock` gives post times (seconds); `form_min_age` is the one-second rule."""

    GUEST = 1

    def __init__(self, *, clock: Callable[[], float] = time.time, posts_per_page: int = 10,
                 form_min_age: int = 1, flood_interval: int = 0, max_post_chars: int = 60000,
                 session_length: int = 3600, cookie_name: str = "phpbb3_fk7q2", max_login_attempts: int = 3) -> None:
        self.clock = clock
        self.posts_per_page = posts_per_page
        self.form_min_age = form_min_age
        self.flood_interval = flood_interval
        self.max_post_chars = max_post_chars
        self.session_length = session_length
        self.cookie_name = cookie_name
        self.max_login_attempts = max_login_attempts
        self.disabled = False                        # board_disable: every page but the login form says so
        self.lock = threading.RLock()
        self.users: dict[int, User] = {1: User(1, "Anonymous"), 2: User(2, "admin", colour="#AA0000")}
        self.forums: dict[int, str] = {1: "Games"}
        self.forum_parent: dict[int, int] = {}
        self.topics: dict[int, Topic] = {}
        self.posts: dict[int, Post] = {}
        self.pms: dict[int, Pm] = {}
        self.sessions: dict[str, Session] = {}
        self.tokens: dict[str, int] = {}             # form_token → creation_time it was served with
        self.last_post_at: dict[int, float] = {}
        self.faults: list[Fault] = []
        self.hidden_forums: set[int] = set()           # forums the signed-in users may not read
        self.autologin: dict[str, int] = {}            # "remember me" keys (the _k cookie) → user id
        self.requests: list[tuple[str, str]] = []    # (method, path?query) of every request, in order
        self._next_post = 1
        self._next_topic = 1
        self._next_pm = 1

    # ---- setup ---------------------------------------------------------------------------------
    def add_user(self, user_id: int, name: str, password: str = "", colour: str = "") -> User:
        self.users[user_id] = User(user_id, name, password, colour)
        return self.users[user_id]

    def user_named(self, name: str) -> User | None:
        return next((u for u in self.users.values() if u.name.lower() == name.lower() and u.id != self.GUEST), None)

    def add_forum(self, forum_id: int, name: str, parent: int = 1) -> None:
        self.forums[forum_id] = name
        self.forum_parent[forum_id] = parent

    def new_topic(self, forum: int, author: int, title: str, text: str, at: float | None = None,
                  topic_id: int | None = None, post_id: int | None = None) -> Topic:
        with self.lock:
            number = topic_id or self._next_topic
            self._next_topic = max(self._next_topic, number + 1)
            topic = Topic(number, forum, title, author)
            self.topics[number] = topic
            self.add_post(number, author, text, at=at, subject=title, post_id=post_id)
            return topic

    def add_post(self, topic: int, author: int, text: str, at: float | None = None, subject: str = "",
                 post_id: int | None = None, approved: bool = True) -> Post:
        with self.lock:
            number = post_id or self._next_post
            self._next_post = max(self._next_post, number + 1)
            title = self.topics[topic].title
            post = Post(number, topic, author, int(at if at is not None else self.clock()), text,
                        subject or f"Re: {title}", approved=approved)
            self.posts[number] = post
            self.topics[topic].posts.append(number)
            self.last_post_at[author] = self.clock()
            return post

    def edit_post(self, post_id: int, text: str, by: int | None = None, reason: str = "") -> None:
        with self.lock:
            post = self.posts[post_id]
            post.text = text
            post.edits += 1
            post.edit_time = int(self.clock())
            post.edit_user = by or post.author
            post.edit_reason = reason

    def soft_delete(self, post_id: int) -> None:
        self.posts[post_id].soft_deleted = True

    def restore(self, post_id: int) -> None:
        """A moderator restores a soft-deleted post: back in its place, with its own time."""
        self.posts[post_id].soft_deleted = False

    def approve(self, post_id: int) -> None:
        """A moderator approves a held post: it appears in its place by its own time, already "read"."""
        self.posts[post_id].approved = True

    def hard_delete(self, post_id: int) -> None:
        with self.lock:
            post = self.posts.pop(post_id)
            self.topics[post.topic].posts.remove(post_id)

    def add_pm(self, sender: int, to: list[int], subject: str, text: str, at: float | None = None) -> Pm:
        with self.lock:
            pm = Pm(self._next_pm, sender, list(to), subject, text, int(at if at is not None else self.clock()),
                    unread=set(to))
            self.pms[pm.id] = pm
            self._next_pm += 1
            return pm

    @classmethod
    def for_game(cls, players: dict[str, int], at: float, *, bot: str = "forumbot", password: str = "pw",
                 **options: Any) -> tuple[Board, Topic, Topic]:
        """A board with the bot (user 62), the players (name → user id) and forum 3 "Mafia" holding a votes
        topic and a discussion topic opened by the bot at `at`."""
        board = cls(**options)
        board.add_user(62, bot, password)
        for name, number in players.items():
            board.add_user(number, name)
        board.add_forum(3, "Mafia")
        votes = board.new_topic(3, 62, "Day 1 votes", "Vote here.", at=at)
        return board, votes, board.new_topic(3, 62, "Mafia game", "Talk here.", at=at)

    def fail(self, match: str, kind: str, times: int = 1) -> None:
        self.faults.append(Fault(match, kind, times))

    # ---- reading -------------------------------------------------------------------------------
    def visible(self, topic: int) -> list[Post]:
        return [self.posts[p] for p in self.topics[topic].posts
                if not self.posts[p].soft_deleted and self.posts[p].approved]

    def post_count(self, user: int) -> int:
        return sum(1 for p in self.posts.values() if p.author == user and not p.soft_deleted and p.approved)

    # ---- sessions and forms --------------------------------------------------------------------
    def new_session(self, user: int, agent: str) -> Session:
        session = Session(secrets.token_hex(16), user, agent, self.clock())
        self.sessions[session.sid] = session
        return session

    def session(self, sid: str | None, agent: str) -> Session | None:
        found = self.sessions.get(sid or "")
        if found is None or found.agent != agent or self.clock() - found.last > self.session_length:
            return None
        found.last = self.clock()
        return found

    def expire_sessions(self) -> None:
        """Every session ends (as after `session_length` idle seconds)."""
        self.sessions.clear()

    def form_token(self) -> tuple[int, str]:
        now = int(time.time())
        token = secrets.token_hex(20)
        self.tokens[token] = now
        return now, token

    def form_ok(self, creation_time: str, token: str) -> bool:
        """phpBB's check_form_key: a token it served with this creation_time, a second or more old, < 7200 s."""
        served = self.tokens.get(token)
        if served is None or str(served) != creation_time:
            return False
        age = int(time.time()) - served
        return age >= self.form_min_age and age < 7200
