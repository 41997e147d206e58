"""Discourse through its JSON API: game threads are topics, posts are posts, private messages are topics of
the `private_message` archetype.

An idle poll costs one request for all of a bot's topics and private messages together: the bot's
notifications (`/notifications.json`, newest first), read down to the cursor (the highest notification id
seen). The bot watches its game topics (it sets notification level 3 on each at its first read), so every
new post in one is a "posted" notification, and every private message or reply to one is a
"private_message" notification. Only a topic named by a new notification is read: its post ids
(`/t/{id}.json`'s `post_stream.stream`), then the posts after the last one read, 20 at a time
(`/t/{id}/posts.json?post_ids[]=…&include_raw=true`). Post ids only grow, so "newer than the cursor" is a
comparison of numbers. A notification list that ended before the cursor (a gap), a topic not read before,
and a poll that may fire a deadline (`before_deadline`) read every game topic, whatever the notifications
said. The cursor is a small JSON document the runner stores with the posts it came with.

A post's `raw` (the Markdown its author typed) is the text the reader reads, with Discourse's own quote
and spoiler blocks (`[quote="…"]…[/quote]`, `[details]`, `[spoiler]`) turned into Markdown `>` quotes, so
that a quoted vote never counts. Edits are detected by re-reading posts before a deadline (`recheck`):
`raw`, `version` and `updated_at` say whether and when a post changed; `deleted_at` and `user_deleted`
say it was deleted.

Private messages are read from the topics their notifications name and acknowledged in the store (the
`pms` state: per topic, the last post acknowledged), so one read by a bot killed before its step committed
is read again. Posts carry an invisible marker, an empty link `[](#fbx<hex of KEY>)` (markers.py), that
`find_sent` and `find_thread` look for. A post shorter than the site's minimum is padded with `&nbsp;`
(invisible) or, with `short_posts = "refuse"`, refused as a final failure the host is told of; a post
longer than the site's maximum is split at line ends, the marker on the last part.

The API key is read from an environment variable or a file outside the repository, never the config.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from forumbot.errors import ConfigError, MessageRefused, PlatformError
from forumbot.model import Flag, Post
from forumbot.platforms import markers
from forumbot.platforms.base import EDIT_POLICIES, Recheck, organisers_mask
from forumbot.platforms.discourse_http import Answer, DiscourseSession
from forumbot.platforms.exchange import secret_from, split_text

log = logging.getLogger("forumbot.discourse")
MARKER = markers.MARKDOWN
POST_IDS = 20                     # post ids asked for at once (Discourse's own client asks for 20)
NOTIFICATIONS_PAGE = 60           # what /notifications.json returns at most
POSTED, PRIVATE_MESSAGE, INVITED_TO_PM = 9, 6, 7     # Discourse's notification types
WATCHING = "3"
_TOPIC = re.compile(r"(?:^|/t/(?:[^/?#]+/)?)(\d+)(?:/\d+)?/?(?:[?#].*)?$")
_SHORT = re.compile(r"(?:body|post|message)[^.;]*too short[^0-9]*(\d+)", re.IGNORECASE)
_LONG = re.compile(r"too long[^0-9]*(\d+)", re.IGNORECASE)
_BLOCK = re.compile(r"\[(/?)(quote|details|spoiler)(?:=[^\]\n]*)?\]", re.IGNORECASE)
WITHDRAWN = "(post withdrawn by author"
SHORT_POSTS = ("pad", "refuse")


def topic_id(thread: str) -> int:
    """A topic id as a host writes it: `123`, `/t/slug/123` or a topic URL (with or without a post number)."""
    match = _TOPIC.search(thread.strip())
    if match is None:
        raise ConfigError(f"'{thread}' is not a Discourse topic",
                          fix='map the game\'s threads to topic ids in [games.threads], e.g. votes = "123"')
    return int(match.group(1))


def marker(key: str) -> str:
    return f"\n\n[](#{markers.token(key)})" if key else ""


def reading_text(raw: str) -> str:
    """`raw` with Discourse's quote-like blocks (`[quote]`, `[details]`, `[spoiler]`, nested or not) as Markdown
    `>` quotes on lines of their own; an unclosed one runs to the end, a stray closer is dropped."""
    if "[" not in raw or _BLOCK.search(raw) is None:
        return raw
    out: list[str] = []
    inside: list[str] = []                  # the text of the outermost open block, its inner tags as line ends
    depth, at = 0, 0
    for match in _BLOCK.finditer(raw):
        (inside if depth else out).append(raw[at:match.start()])
        at = match.end()
        if match.group(1) and depth:
            depth -= 1
            if depth:
                inside.append("\n")
            else:
                out.append("\n\n" + _quoted("".join(inside)) + "\n\n")
                inside = []
        elif not match.group(1):
            if depth:
                inside.append("\n")
            depth += 1
    (inside if depth else out).append(raw[at:])
    if depth:
        out.append("\n\n" + _quoted("".join(inside)))
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip("\n")


def _quoted(text: str) -> str:
    text = re.sub(r"\n\s*\n+", "\n\n", text.strip("\n"))
    return "\n".join("> " + line if line.strip() else ">" for line in text.split("\n")) if text.strip() else ""


def _time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def _load(cursor: str | None) -> dict[str, Any]:
    state: dict[str, Any] = {"notif": None, "topics": {}, "missing": []}
    if cursor:
        try:
            state.update(json.loads(cursor))
        except ValueError:
            log.warning("unreadable Discourse cursor %r: reading every topic again", cursor[:80])
    return state


class DiscoursePlatform:
    """The Platform Protocol on a Discourse site."""

    dialect = "markdown"

    def __init__(self, url: str, account: str, api_key: Callable[[], str] | None, *, name: str = "discourse",
                 category: int | None = None, edit_policy: str = "first_seen", short_posts: str = "pad",
                 min_post_length: int = 20, min_pm_length: int = 10, min_title_length: int = 15,
                 max_chars: int = 32000, batch: int = 500, notifications: bool = True,
                 clock: Callable[[], datetime] | None = None, **http: Any) -> None:
        if edit_policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit_policy '{edit_policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        if short_posts not in SHORT_POSTS:
            raise ConfigError(f"unknown short_posts '{short_posts}'", fix='short_posts = "pad" or "refuse"')
        self.name, self.account, self.edit_policy = name, account, edit_policy
        self.category, self.short_posts = category, short_posts
        self.min_post_length, self.min_pm_length = min_post_length, min_pm_length
        self.min_title_length, self.max_chars = min_title_length, max_chars
        self.batch = batch                          # posts returned by one fetch_posts at most (the runner asks on)
        self.notifications = notifications          # False: every topic is read at every poll (a guest reader)
        self.clock = clock or (lambda: datetime.now(UTC))
        self.http = DiscourseSession(url, account, api_key, **http)
        self.base = self.http.base.rstrip("/")
        self._notes: list[dict[str, Any]] | None = None   # what fetch_pms read, for this poll's fetch_posts
        self._deadline_poll = False
        self._pm_state: dict[str, Any] = {"notif": None, "topics": {}}
        self._pm_topic: dict[str, int] = {}              # PM post ids returned → their topic
        self._save_state: Callable[[str, str], None] = lambda _name, _value: None
        self._flagged_deleted: list[str] = []
        self._slug: str | None = None

    # ---- state kept in the store ---------------------------------------------------------------------
    def use_store(self, load: Callable[[str], str | None], save: Callable[[str, str], None]) -> None:
        self._save_state = save
        kept = load("pms")
        if kept:
            self._pm_state = json.loads(kept)
        self._flagged_deleted = json.loads(load("deleted") or "[]")

    def stop(self) -> None:
        self.http.stop()

    def before_deadline(self) -> None:
        """The next poll may fire a deadline: its fetch_posts reads every game topic, whatever the notifications
        said (a safety net under the one-request poll)."""
        self._deadline_poll = True

    # ---- notifications -----------------------------------------------------------------------------
    def _notifications(self) -> list[dict[str, Any]]:
        answer = self.http.get("notifications.json", what="reading the bot's notifications")
        data = answer.data if isinstance(answer.data, dict) else {}
        return [n for n in data.get("notifications") or [] if isinstance(n, dict) and isinstance(n.get("id"), int)]

    @staticmethod
    def _gap(notes: list[dict[str, Any]], floor: int | None) -> bool:
        """The list ended before the cursor: more came than one page shows."""
        return floor is not None and len(notes) >= NOTIFICATIONS_PAGE and min(n["id"] for n in notes) > floor

    # ---- reading topics ----------------------------------------------------------------------------
    def _stream(self, number: int) -> dict[str, Any] | None:
        answer = self.http.get(f"t/{number}.json", what=f"reading topic {number}")
        if answer.status == 404:
            return None
        if not isinstance(answer.data, dict) or not isinstance(answer.data.get("post_stream"), dict):
            raise PlatformError(f"Discourse sent no post stream for topic {number}", retryable=True)
        return answer.data

    def _posts(self, number: int, ids: Sequence[int]) -> list[dict[str, Any]]:
        """The posts `ids` of topic `number` (with `raw`), 20 a request, in the order asked."""
        found: dict[int, dict[str, Any]] = {}
        for start in range(0, len(ids), POST_IDS):
            chunk = list(ids[start:start + POST_IDS])
            params = [("post_ids[]", str(i)) for i in chunk] + [("include_raw", "true")]
            answer = self.http.get(f"t/{number}/posts.json", what=f"reading posts of topic {number}", params=params)
            if answer.status == 404:
                return []
            stream = (answer.data or {}).get("post_stream") if isinstance(answer.data, dict) else None
            for item in (stream or {}).get("posts") or []:
                if isinstance(item, dict) and isinstance(item.get("id"), int):
                    found[item["id"]] = item
        return [found[i] for i in ids if i in found]

    def _post(self, item: dict[str, Any], thread: str, *, pm: bool = False) -> Post:
        raw = item.get("raw")
        if not isinstance(raw, str):
            raise PlatformError(f"Discourse sent post {item.get('id')} without its raw text (include_raw)",
                                retryable=True)
        created = _time(item.get("created_at")) or self.clock()
        edited = _time(item.get("updated_at")) if int(item.get("version") or 1) > 1 else None
        slug = item.get("topic_slug") or "-"
        return Post(platform_id=f"{'pm' if pm else 'p'}{item['id']}", thread=thread,
                    author=str(item.get("username") or ""), created=created, body=reading_text(raw),
                    dialect=self.dialect, edited=edited, pm=pm,
                    url=f"{self.base}/t/{slug}/{item.get('topic_id')}/{item.get('post_number')}")

    def _edit_time(self, item: dict[str, Any]) -> datetime | None:
        """When a post was last edited: its latest revision's `created_at` (GET /posts/{id}/revisions/latest.json),
        else (no revision: an edit within the grace period; the edit history hidden from the bot) `updated_at`."""
        if int(item.get("version") or 1) > 1:
            try:
                answer = self.http.get(f"posts/{item['id']}/revisions/latest.json",
                                       what=f"reading the latest revision of post {item['id']}")
            except PlatformError as err:
                if err.retryable:
                    raise
                log.info("post %s: no revision to read (%s); its updated_at is the edit's time", item["id"], err)
                return _time(item.get("updated_at"))
            if answer.status == 200 and isinstance(answer.data, dict):
                at = _time(answer.data.get("created_at"))
                if at is not None:
                    return at
        return _time(item.get("updated_at"))

    @staticmethod
    def _gone(item: dict[str, Any]) -> bool:
        return bool(item.get("deleted_at")) or bool(item.get("user_deleted")) \
            or str(item.get("raw") or "").startswith(WITHDRAWN)

    def _watch(self, number: int) -> None:
        """Watch a game topic, so that each new post in it is a notification."""
        self.http.request("POST", f"t/{number}/notifications.json", body={"notification_level": WATCHING},
                          what=f"watching topic {number}")

    def fetch_posts(self, threads: Sequence[str], cursor: str | None) -> tuple[list[Post], str | None]:
        state = _load(cursor)
        wanted = {topic_id(t): t for t in threads}
        topics: dict[str, Any] = state["topics"]
        full = self._deadline_poll or not self.notifications
        self._deadline_poll = False
        dirty = {n for n in wanted if str(n) not in topics or topics[str(n)].get("behind")}
        if self.notifications:
            notes = self._notes if self._notes is not None else self._notifications()
            self._notes = None
            floor = state["notif"]
            if self._gap(notes, floor):
                log.info("more notifications came than one list shows: reading every game topic")
                full = True
            fresh = [n for n in notes if floor is None or n["id"] > floor]
            dirty |= {int(n["topic_id"]) for n in fresh if n.get("topic_id") in wanted}
            state["notif"] = max([floor or 0, *(n["id"] for n in notes)])     # 0: read, and none there
        if full:
            dirty = set(wanted)
        found: list[Post] = []
        for number in sorted(dirty):
            if str(number) in state["missing"]:
                continue
            left = self.batch - len(found)
            if left <= 0:
                topics.setdefault(str(number), {"last": 0})["behind"] = True
                continue
            found += self._read_topic(number, wanted[number], state, left)
        posts = sorted(found, key=lambda p: (p.created, int(p.platform_id[1:])))
        return posts, json.dumps(state, sort_keys=True)

    def _read_topic(self, number: int, thread: str, state: dict[str, Any], limit: int) -> list[Post]:
        mark = state["topics"].get(str(number)) or {"last": 0}
        topic = self._stream(number)
        if topic is None:
            log.error("Discourse topic %s does not exist or is hidden from the bot (a typo in [games.threads]?); "
                      "not asked for again", number)
            state["missing"].append(str(number))
            return []
        if topic.get("closed") or topic.get("archived"):
            raise PlatformError(f"Discourse topic {number} is closed: the players cannot post in it. A moderator "
                                "must open it (or the host maps the game to another topic); until then the bot "
                                "waits and no deadline fires")
        if self.notifications and not mark.get("watch"):
            self._watch(number)
            mark["watch"] = True
        stream = [i for i in topic["post_stream"].get("stream") or [] if isinstance(i, int)]
        new = sorted(i for i in stream if i > mark["last"])
        take, more = new[:limit], len(new) > limit
        posts = []
        for item in self._posts(number, take):
            if self._gone(item):
                continue                            # gone before the bot saw it: as if never posted
            posts.append(self._post(item, thread))
        if take:
            mark["last"] = take[-1]
        mark["behind"] = more
        if not more:
            mark.pop("behind")
        state["topics"][str(number)] = mark
        return posts

    # ---- private messages ----------------------------------------------------------------------------
    def fetch_pms(self) -> list[Post]:
        """Private messages to the bot not yet acknowledged: from the PM topics the notifications named."""
        notes = self._notifications()
        self._notes = notes
        pm_state = self._pm_state
        floor = pm_state["notif"]
        changed = False
        for note in notes:
            if note.get("notification_type") not in (PRIVATE_MESSAGE, INVITED_TO_PM) or not note.get("topic_id"):
                continue
            if floor is None and note.get("read"):
                continue                            # the first run: what was read already is the past
            if floor is not None and note["id"] <= floor:
                continue
            entry = pm_state["topics"].setdefault(str(note["topic_id"]), {"acked": 0})
            if not entry.get("want"):
                entry["want"] = True
                changed = True
        newest = max([floor or 0, *(n["id"] for n in notes)])
        if newest != floor:
            pm_state["notif"] = newest
            changed = True
        if changed:
            self._save_state("pms", json.dumps(pm_state))
        found: list[Post] = []
        for key, entry in list(pm_state["topics"].items()):
            if not entry.get("want"):
                continue
            number = int(key)
            topic = self._stream(number)
            ids = [i for i in (topic or {}).get("post_stream", {}).get("stream") or [] if isinstance(i, int)]
            new = [i for i in ids if i > entry["acked"]]
            owed = 0
            for item in self._posts(number, new):
                if str(item.get("username", "")).lower() == self.account.lower() or self._gone(item):
                    continue
                post = self._post(item, "", pm=True)
                self._pm_topic[post.platform_id] = number
                found.append(post)
                owed += 1
            if not owed:                            # nothing from others: nothing owed in this topic
                entry["want"] = False
                if new:
                    entry["acked"] = max(new)
                self._save_state("pms", json.dumps(pm_state))
        return sorted(found, key=lambda p: (p.created, int(p.platform_id[2:])))

    def mark_read(self, platform_ids: Sequence[str]) -> None:
        """Record that the bot's reading of these PMs is committed (in the store): they are not returned again."""
        topics = self._pm_state["topics"]
        for platform_id in platform_ids:
            number = self._pm_topic.pop(platform_id, None)
            if number is None or not platform_id[2:].isdigit():
                continue
            entry = topics.setdefault(str(number), {"acked": 0})
            entry["acked"] = max(entry["acked"], int(platform_id[2:]))
            if not any(n == number for n in self._pm_topic.values()):
                entry["want"] = False
        self._save_state("pms", json.dumps(self._pm_state))

    # ---- writing -------------------------------------------------------------------------------------
    def _padded(self, text: str, minimum: int, what: str) -> str:
        """`text` long enough for the site's minimum: padded with invisible `&nbsp;`, or refused."""
        length = len(text.strip())
        if length >= minimum:
            return text
        if self.short_posts == "refuse":
            raise MessageRefused(f"Discourse would refuse {what}: {length} characters, the site's minimum is "
                                 f'{minimum}; not padded (short_posts = "refuse"): the message waits in the outbox, '
                                 "undelivered")
        need = minimum - length + 1
        return text + "\n\n" + " ".join(["&nbsp;"] * math.ceil(need / 7))

    def _create(self, body: dict[str, Any], minimum: int, what: str) -> dict[str, Any]:
        """POST /posts.json; a body too short for the site (its minimum learnt from the refusal) padded once."""
        body = {**body, "raw": self._padded(body["raw"], minimum, what)}
        for attempt in range(2):
            answer = self.http.request("POST", "posts.json", body=body, what=what)
            if answer.status in (200, 201) and isinstance(answer.data, dict) and isinstance(answer.data.get("id"), int):
                return answer.data
            said = answer.errors()
            short = _SHORT.search(said)
            if attempt == 0 and short and int(short.group(1)) > len(body["raw"].strip()):
                body = {**body, "raw": self._padded(body["raw"], int(short.group(1)), what)}
                continue
            raise self._refused(answer, what)
        raise AssertionError("unreachable")

    def _refused(self, answer: Answer, what: str) -> PlatformError:
        said = answer.errors() or f"HTTP {answer.status}"
        if answer.status == 404:
            return MessageRefused(f"Discourse refused {what}: no such topic or user ({said}); check the config")
        if "closed" in said.lower() or "archived" in said.lower():
            return MessageRefused(f"Discourse refused {what}: the topic is closed ({said}); ask a moderator")
        return MessageRefused(f"Discourse refused {what}: {said}")

    def post(self, thread: str, text: str, key: str = "") -> str:
        number = topic_id(thread)
        parts = split_text(text.rstrip("\n"), self.max_chars - 64)
        last = ""
        for index, part in enumerate(parts):
            raw = part + (marker(key) if index == len(parts) - 1 else "")
            made = self._create({"topic_id": number, "raw": raw}, self.min_post_length, f"posting in topic {number}")
            last = f"p{made['id']}"
        return last

    def _title(self, title: str, minimum: int) -> str:
        title = " ".join(title.split())[:250] or "forumbot"
        return title if len(title) >= minimum else (title + " · forumbot game")[:250].ljust(minimum, ".")

    def account_exists(self, name: str) -> bool:
        """Whether the site has a user of that name (`/u/NAME.json`; 404: none)."""
        answer = self.http.get(f"u/{quote(name, safe='')}.json", what=f"looking up the user {name}")
        return answer.status != 404 and isinstance(answer.data, dict) and bool(answer.data.get("user"))

    def mask_refusal(self, mask: str, claimant: str) -> tuple[str, str] | None:
        """A sign-up's mask needs an account the organisers made (Platform.mask_refusal)."""
        return organisers_mask(self, mask)

    def send_pm(self, to: str, subject: str, text: str, key: str = "") -> str:
        made = self._create({"title": self._title(subject, 2), "raw": text.rstrip("\n") + marker(key),
                             "target_recipients": to, "archetype": "private_message"},
                            self.min_pm_length, f"sending a PM to {to}")
        return f"pm{made['id']}"

    def open_thread(self, title: str, text: str, key: str = "") -> str:
        """A new topic in the configured category; returns its topic id (the thread id for [games.threads])."""
        if not self.category:
            raise ConfigError(f"[platforms.{self.name}] has no category to open topics in",
                              fix="category = <category id>")
        made = self._create({"title": self._title(title, self.min_title_length), "category": self.category,
                             "raw": text.rstrip("\n") + marker(key)}, self.min_post_length,
                            f"opening a topic in category {self.category}")
        return str(made["topic_id"])

    def edit(self, platform_id: str, text: str) -> None:
        if not re.fullmatch(r"p\d+", platform_id):
            raise PlatformError(f"'{platform_id}' is not a Discourse post; only posts can be edited")
        number = platform_id[1:]
        current = self.http.get(f"posts/{number}.json", what=f"reading post {number} to edit it")
        if current.status == 404 or not isinstance(current.data, dict):
            raise PlatformError(f"Discourse has no post {number} to edit")
        kept = markers.keys_in(str(current.data.get("raw") or ""))
        raw = self._padded(MARKER.sub("", text).rstrip("\n") + marker(kept[-1] if kept else ""),
                           self.min_post_length, f"editing post {number}")
        answer = self.http.request("PUT", f"posts/{number}.json", body={"post": {"raw": raw}},
                                   what=f"editing post {number}")
        if answer.status not in (200, 201):
            raise self._refused(answer, f"editing post {number}")

    # ---- exactly once --------------------------------------------------------------------------------
    def find_sent(self, key: str, *, thread: str | None = None, to: str | None = None) -> str | None:
        if to:
            answer = self.http.get(f"topics/private-messages-sent/{self.account}.json",
                                   what="looking for a sent PM")
            topics = ((answer.data or {}).get("topic_list") or {}).get("topics") or [] if answer.status == 200 else []
            for topic in topics[:10]:           # the newest: an unconfirmed message is a recent one
                number = topic.get("id")
                if not isinstance(number, int):
                    continue
                data = self._stream(number)     # (the key names one message: its recipient need not be checked)
                if data is None:
                    continue
                ids = [i for i in data["post_stream"].get("stream") or [] if isinstance(i, int)]
                for item in self._posts(number, ids[-POST_IDS:]):
                    if str(item.get("username", "")).lower() == self.account.lower() \
                            and markers.carries(str(item.get("raw") or ""), key):
                        return f"pm{item['id']}"
            return None
        if thread is None:
            return None
        number = topic_id(thread)
        data = self._stream(number)
        if data is None:
            return None
        ids = [i for i in data["post_stream"].get("stream") or [] if isinstance(i, int)]
        for item in reversed(self._posts(number, ids[-2 * POST_IDS:])):    # the last 40: a recent post
            if str(item.get("username", "")).lower() == self.account.lower() \
                    and markers.carries(str(item.get("raw") or ""), key):
                return f"p{item['id']}"
        return None

    def _category_slug(self) -> str:
        if self._slug is None:
            answer = self.http.get(f"c/{self.category}/show.json", what=f"reading category {self.category}")
            category = (answer.data or {}).get("category") if isinstance(answer.data, dict) else None
            if answer.status != 200 or not isinstance(category, dict):
                raise PlatformError(f"Discourse has no category {self.category} the bot can see; check "
                                    f"[platforms.{self.name}] category and the category's permissions")
            self._slug = str(category.get("slug") or "-")
        return self._slug

    def find_thread(self, key: str, title: str = "") -> str | None:
        """The topic the bot opened with `key`'s marker in its first post: among the category's newest topics,
        those titled `title`, their first posts."""
        if not self.category:
            return None
        wanted = self._title(title, self.min_title_length)
        answer = self.http.get(f"c/{self._category_slug()}/{self.category}.json",
                               what=f"looking for a topic in category {self.category}")
        topics = ((answer.data or {}).get("topic_list") or {}).get("topics") or [] if answer.status == 200 else []
        for topic in topics:
            if topic.get("title") != wanted or not isinstance(topic.get("id"), int):
                continue
            data = self._stream(topic["id"])
            ids = [i for i in (data or {}).get("post_stream", {}).get("stream") or [] if isinstance(i, int)]
            first = self._posts(topic["id"], ids[:1])
            if first and str(first[0].get("username", "")).lower() == self.account.lower() \
                    and markers.carries(str(first[0].get("raw") or ""), key):
                return str(topic["id"])
        return None

    # ---- edits and deletions -------------------------------------------------------------------------
    def recheck(self, posts: Sequence[Post], policy: str | None = None) -> Recheck:
        """Re-read stored posts (20 a request, by topic): edits (`raw` changed; `updated_at` their time),
        deletions (`deleted_at`, `user_deleted`, or gone from the topic), flags for the host under `policy`."""
        policy = policy or self.edit_policy
        if policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit policy '{policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        stored = {int(p.platform_id[1:]): p for p in posts if re.fullmatch(r"p\d+", p.platform_id)}
        by_topic: dict[int, list[int]] = {}
        for number, post in stored.items():
            by_topic.setdefault(topic_id(post.thread), []).append(number)
        current: dict[int, dict[str, Any]] = {}
        for topic, ids in sorted(by_topic.items()):
            for item in self._posts(topic, sorted(ids)):
                current[item["id"]] = item
        result = Recheck()
        now = self.clock()
        for number, old in stored.items():
            found = current.get(number)
            if found is None or self._gone(found):
                result.deleted.append(old.platform_id)
                if old.platform_id not in self._flagged_deleted:     # told once, not before every deadline
                    self._flagged_deleted.append(old.platform_id)
                    result.flags.append(Flag(reason="a post that carried a command was deleted; its first-seen "
                                                    "text still counts", post_id=old.platform_id, author=old.author,
                                             at=now, code="flag_deleted_first_seen"))
                continue
            body = reading_text(str(found.get("raw") or ""))
            if body == old.body:
                continue
            result.edited.append(Post(platform_id=old.platform_id, thread=old.thread, author=old.author,
                                      created=old.created, body=body, dialect=old.dialect,
                                      edited=self._edit_time(found) or now, url=old.url))
            if policy == "flag":
                result.flags.append(Flag(reason="a post that carried a command was edited; the first-seen text "
                                                "counts", post_id=old.platform_id, author=old.author, at=now,
                                         line=body[:200], code="flag_edited_first_seen"))
        if result.flags:
            self._flagged_deleted = self._flagged_deleted[-2000:]
            self._save_state("deleted", json.dumps(self._flagged_deleted))
        return result


def api_key_from(options: dict[str, Any], name: str) -> Callable[[], str]:
    """The bot's API key: `api_key_env` (default FORUMBOT_DISCOURSE_API_KEY) or `api_key_file`."""
    return secret_from(options, name, "the Discourse API key", "api_key", "FORUMBOT_DISCOURSE_API_KEY")


def reader(topic_url: str, api_key: Callable[[], str] | None = None, account: str = "",
           **http: Any) -> tuple[DiscoursePlatform, str]:
    """A reader of one topic (as a guest without a key) and its thread id, from its URL
    (`https://site/t/slug/123`)."""
    base, found, _ = topic_url.partition("/t/")
    if not found or not base.startswith(("http://", "https://")):
        raise ConfigError(f"'{topic_url}' is not a Discourse topic URL",
                          fix="give the topic's address, like https://forum.example/t/slug/123")
    platform = DiscoursePlatform(base, account, api_key if account else None, notifications=False, **http)
    return platform, str(topic_id(topic_url))


def from_options(name: str, options: dict[str, Any],
                 clock: Callable[[], datetime] | None = None) -> DiscoursePlatform:
    """The platform a [platforms.NAME] table with kind = "discourse" describes (service.make_platform)."""
    if not options.get("url") or not options.get("account"):
        raise ConfigError(f"[platforms.{name}] needs url and account",
                          fix='url = "https://forum.example", account = "forumbot"')
    http: dict[str, Any] = {k: float(options[k]) for k in ("requests_per_minute", "timeout") if k in options}
    ints: dict[str, Any] = {k: int(options[k]) for k in ("min_post_length", "min_pm_length", "min_title_length",
                                                         "max_chars") if k in options}
    return DiscoursePlatform(str(options["url"]), str(options["account"]), api_key_from(options, name), name=name,
                             category=int(options["category"]) if options.get("category") else None,
                             edit_policy=str(options.get("edit_policy", "first_seen")),
                             short_posts=str(options.get("short_posts", "pad")), clock=clock, **ints, **http)
