"""phpBB 3.3 boards (prosilver): game threads are topics, posts are posts, private messages are PMs.

Reading is scraping as the bot's own account (phpbb_http.py signs in and keeps the session; phpbb_html.py
reads the pages). An idle poll costs one request per forum holding game topics: the forum's topic list
shows each topic's last post id and post count, so only a topic whose last post is newer than the cursor
(or whose count changed: a post approved or restored behind it) is read, from the page where the cursor
stopped (stepping back a page when deletions moved posts up). Feeds were not used:
they hold only the newest 15 posts and no user ids; `view=unread` and the unread searches depend on the
board's read marks, which the bot's own reading moves. The private message inbox is read only when the
header's unread count says so, once at start, and in a poll that may fire a deadline whatever the count
said (before_deadline: a PM sent after the last page read is not in its count): viewing a PM marks it read
on the board, so the adapter keeps its own acknowledgements (in the store) and returns a viewed PM until
`mark_read`.

Posts carry an invisible marker, an empty link `[url=#fbx<hex of KEY>][/url]` (markers.py), that `find_sent`
looks for, in that form or the older `#fb:KEY` as phpBB stores it (`#fb:mafia-1%3A20`); a message longer
than the board allows is split at line ends and posted in order, the marker on the last part (a crash
between parts resends the earlier ones rather than losing the rest).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import quote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forumbot.errors import ConfigError, PlatformError
from forumbot.model import Flag, Post
from forumbot.platforms import markers
from forumbot.platforms import phpbb_html as html
from forumbot.platforms.base import EDIT_POLICIES, Recheck, organisers_mask
from forumbot.platforms.exchange import secret_from, split_text
from forumbot.platforms.phpbb_http import USER_AGENT, Page, PhpbbSession, SessionLost

log = logging.getLogger("forumbot.phpbb")
T = TypeVar("T")
MARKER = markers.BBCODE
_TOPIC = re.compile(r"(?:[?&]t=|^t?=?)(\d+)(?:\D.*)?$")
_MAX_CHARS = re.compile(r"maximum number of allowed characters is (\d+)")
STEP_BACK = 3            # pages to step back when deletions moved the cursor's post up
INBOX_PAGES = 5          # inbox pages read at most in one poll (25 PMs a page)


class TopicHidden(PlatformError):
    """A topic page without posts: the board refuses the bot this topic (its forum's permissions)."""


def locked(number: int) -> PlatformError:
    """A game topic locked: nobody can post a vote in it, so the read fails and no deadline fires."""
    return PlatformError(f"phpBB topic {number} is locked: the players cannot post in it. A moderator must unlock it "
                         "(or the host maps the game to another topic); until then the bot waits and no deadline "
                         "fires")


def marker(key: str) -> str:
    return f"\n[url=#{markers.token(key)}][/url]" if key else ""


def topic_id(thread: str) -> int:
    """A topic id as a host writes it: `3`, `t=3` or a viewtopic URL."""
    match = _TOPIC.search(thread.strip())
    if match is None:
        raise ConfigError(f"'{thread}' is not a phpBB topic",
                          fix='map the game\'s threads to topic ids in [games.threads], e.g. votes = "123"')
    return int(match.group(1))


class PhpbbPlatform:
    """The Platform Protocol on a phpBB board."""

    dialect = "bbcode"

    def __init__(self, url: str, account: str, password: Callable[[], str], *, name: str = "phpbb",
                 forum: int | None = None, edit_policy: str = "first_seen", max_chars: int = 60000,
                 timezone: str = "UTC", clock: Callable[[], datetime] | None = None,
                 bbcode_extra: Sequence[str] = (), **http: Any) -> None:
        if edit_policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit_policy '{edit_policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        self.name, self.account, self.edit_policy = name, account, edit_policy
        self.forum, self.max_chars = forum, max_chars
        # the BBCodes the board has beyond stock phpBB's ("s", "vote"...): the games' posts use only these
        self.bbcode_extra = tuple(t.strip().strip("[]").lower() for t in bbcode_extra if t.strip())
        try:
            self.zone = ZoneInfo(timezone)     # the bot account's timezone: PM and edit dates are text in it
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"unknown timezone '{timezone}'", fix='timezone = "UTC" or "Europe/Moscow"') from None
        self.clock = clock or (lambda: datetime.now(UTC))
        self.http = PhpbbSession(url, account, password, **http)
        self.base = self.http.base
        self.members: dict[str, int] = {}           # names (lowercased) → user ids, learned from pages
        self._pending: dict[str, Post] = {}         # PMs viewed (so read on the board) and not yet acknowledged
        self._pm_state = {"floor": None, "acked": []}
        self._inbox_read = False
        self._deadline_poll = False                 # before_deadline: the next fetch_pms reads the inbox
        self._requests_seen = -1                    # the session's request count at the last look at the inbox
        self._save_state: Callable[[str, str], None] = lambda _name, _value: None
        self._flagged_deleted: list[str] = []        # deleted posts the host was told of (recheck), kept

    # ---- the store keeps the session and the PM acknowledgements ---------------------------------
    def use_store(self, load: Callable[[str], str | None], save: Callable[[str, str], None]) -> None:
        self._save_state = save
        self.http.restore(load("session"))
        self.http.keep = lambda text: save("session", text)
        kept = load("pms")
        if kept:
            self._pm_state = json.loads(kept)
        self._flagged_deleted = json.loads(load("deleted") or "[]")

    # ---- reading topics ----------------------------------------------------------------------------
    def topic_of_post(self, post: int) -> int:
        """The topic holding `post`: its permalink (`viewtopic.php?p=`, which phpBB answers with the post's
        page, following any redirect) names the topic in its canonical link."""
        page = self.http.get(f"viewtopic.php?p={post}", what=f"finding the topic of post {post}")
        topic = html.page_topic(page.soup) if page.status == 200 else None
        if topic is None:
            raise ConfigError(f"phpBB shows no topic for post {post} ({html.info_message(page.soup) or page.status})",
                              fix="check the link, or give the topic's address: viewtopic.php?t=123")
        return topic

    def fetch_posts(self, threads: Sequence[str], cursor: str | None) -> tuple[list[Post], str | None]:
        state = _load(cursor)
        topics = {topic_id(t): t for t in threads}
        found: dict[int, Post] = {}
        latest: dict[int, int | None] = {}
        counts: dict[int, int | None] = {}
        for forum in sorted({state["forum"][str(t)] for t in topics if str(t) in state["forum"]}):
            page = self.http.get(f"viewforum.php?f={forum}", what=f"reading forum {forum}")
            for row in html.topic_rows(page.soup):
                latest[row.id] = row.last_post
                counts[row.id] = row.replies + 1 if row.replies is not None else None
                if row.locked and row.id in topics:
                    raise locked(row.id)
        for number, thread in topics.items():
            mark = state["topics"].get(str(number))
            if mark is not None and str(number) in state["forum"] and number in latest \
                    and (latest[number] or 0) <= mark["last"] and counts.get(number) in (None, mark.get("count")):
                continue                            # nothing new: the forum list said so
            if str(number) in state["missing"]:
                continue
            try:
                self._read_topic(number, thread, mark or {"last": 0, "start": 0}, state, found)
            except TopicHidden as err:
                log.error("%s; the other topics are read on", err)
        posts = sorted(found.values(), key=lambda p: (p.created, int(p.platform_id[1:])))
        return posts, json.dumps(state, sort_keys=True)

    def _read_topic(self, number: int, thread: str, mark: dict[str, Any], state: dict[str, Any],
                    found: dict[int, Post]) -> None:
        """The posts after the cursor's, from the page where it stopped. The cursor keeps the topic's post count
        and the ids seen: when the count grew by more than the posts found after the cursor, posts appeared
        behind it (approved, restored) and the pages before are read again for them."""
        per = state.get("per_page") or 10
        start, last = mark["start"], mark["last"]
        seen = set(mark.get("seen", ()))
        before = len(found)
        page = self._topic_page(number, start)
        if page is None:
            state["missing"].append(str(number))
            return
        if page.locked:
            raise locked(number)
        for _ in range(STEP_BACK):                  # deletions moved our place up: step back
            if start == 0 or not page.posts or page.posts[0].id <= last:
                break
            start = max(0, start - per)
            page = self._topic_page(number, start) or page
        at = start
        while True:
            if page.next_start is not None and page.next_start > at:
                per = page.next_start - at          # the board's posts per page, from its own links
            elif len(page.posts) > per:
                per = len(page.posts)
            for item in page.posts:
                self._learn(item.author, item.author_id)
                if not item.deleted and (item.id > last or "seen" in mark and item.id not in seen):
                    found[item.id] = self._post(item, thread)
            total = page.total if page.total is not None else len(page.posts)
            seen.update(p.id for p in page.posts if not p.deleted)
            new = {"last": max([mark["last"], *(p.id for p in page.posts)]), "start": (page.page - 1) * per}
            if page.next_start is None:
                break
            at = page.next_start
            page = self._topic_page(number, at)
            if page is None:
                break
        if "seen" in mark and mark.get("count") is not None and total > mark["count"] + len(found) - before:
            self._read_behind(number, thread, start, per, seen, found)     # posts appeared behind the cursor
        state["topics"][str(number)] = {**new, "count": total, "seen": sorted(seen)}
        if page is not None and page.forum_id:
            state["forum"][str(number)] = page.forum_id
        state["per_page"] = per

    def _read_behind(self, number: int, thread: str, until: int, per: int, seen: set[int],
                     found: dict[int, Post]) -> None:
        """The pages before `until` read again: the posts on them not seen before (a post approved or restored
        after later ones were read sits in its place by its time). Each counts by its own time."""
        for at in range(0, until, per):
            page = self._topic_page(number, at)
            if page is None:
                return
            for item in page.posts:
                if item.id not in seen and not item.deleted:
                    log.info("phpBB post %s appeared in topic %s behind posts already read (approved or "
                             "restored late)", item.id, number)
                    found[item.id] = self._post(item, thread)
                    seen.add(item.id)

    def _topic_page(self, number: int, start: int) -> html.TopicPage | None:
        got = self.http.get(f"viewtopic.php?t={number}" + (f"&start={start}" if start else ""),
                            what=f"reading topic {number}")
        if got.status == 404:
            log.error("phpBB topic %s does not exist (a typo in [games.threads]?); not asked for again", number)
            return None
        page = html.topic_page(got.soup)
        if not page.posts:                          # every topic has a first post: this is a refusal page
            said = html.info_message(got.soup) or f"HTTP {got.status}, no posts on the page"
            raise TopicHidden(f"phpBB does not show topic {number} to the bot: {said} (check the bot's "
                              "permission to read its forum)")
        return page

    def _post(self, item: html.PagePost, thread: str) -> Post:
        edited = html.board_time(item.edit_notice, self.zone) if item.edit_count else None
        return Post(platform_id=f"p{item.id}", thread=thread, author=item.author, created=item.created,
                    body=item.body, dialect=self.dialect, edited=edited,
                    url=f"{self.base}viewtopic.php?p={item.id}#p{item.id}")

    def _learn(self, name: str, user_id: int | None) -> None:
        if name and user_id:
            self.members[name.lower()] = user_id

    # ---- private messages ----------------------------------------------------------------------
    def stop(self) -> None:
        """The bot is stopping (SIGTERM): the running request and every wait end now, as a retryable failure
        (a message that may have gone out is found by its marker at the next start)."""
        self.http.stop()

    def before_deadline(self) -> None:
        """The next poll may fire a deadline: its fetch_pms reads the inbox whatever the header said (a PM
        sent since the last page was read is not in that page's count)."""
        self._deadline_poll = True

    def fetch_pms(self) -> list[Post]:
        """The PMs the bot has not acknowledged. The inbox is read once a run, when the last page read shows
        unread PMs in its header, when no page was read since the last call (the header is unknown), and in a
        poll that may fire a deadline (before_deadline)."""
        fresh = self.http.requests != self._requests_seen
        if self._inbox_read and fresh and not self.http.unread_pms and not self._deadline_poll:
            self._requests_seen = self.http.requests
            return self._owed()
        rows = self._inbox()
        floor = self._pm_state["floor"]
        if floor is None:                            # the first run: what is read already is the past
            floor = max([r.id for r in rows if not r.unread] or [0])
            self._pm_state["floor"] = floor
            self._save_state("pms", json.dumps(self._pm_state))
        acked = set(self._pm_state["acked"])
        for row in sorted(rows, key=lambda r: r.id):
            key = f"pm{row.id}"
            if row.id <= floor or row.id in acked or key in self._pending:
                continue
            self._learn(row.user, row.user_id)
            view = self.http.get(f"ucp.php?i=pm&mode=view&f=0&p={row.id}", what=f"reading PM {row.id}")
            pm = html.pm_view(view.soup, self.zone)
            if pm is None:
                log.warning("PM %s could not be read: %s", row.id, html.info_message(view.soup))
                continue
            self._pending[key] = Post(platform_id=key, thread="", author=pm.author,
                                      created=pm.sent or self.clock(), body=pm.body, dialect=self.dialect, pm=True)
        self._inbox_read = True
        self._deadline_poll = False
        self.http.unread_pms = 0
        self._requests_seen = self.http.requests
        return self._owed()

    def _owed(self) -> list[Post]:
        return sorted(self._pending.values(), key=lambda p: (p.created, int(p.platform_id[2:])))

    def _inbox(self) -> list[html.PmRow]:
        """The inbox's rows, newest first, down to the first one already handled (a few pages at most)."""
        rows: list[html.PmRow] = []
        start = 0
        handled = set(self._pm_state["acked"])
        for _ in range(INBOX_PAGES):
            page = self.http.get("ucp.php?i=pm&folder=inbox" + (f"&start={start}" if start else ""),
                                 what="reading the PM inbox")
            found = html.pm_rows(page.soup)
            rows += found
            floor = self._pm_state["floor"]
            next_start = html.pagination(page.soup)[3]
            if floor is None or next_start is None or not found or \
                    any(r.id <= floor or r.id in handled for r in found):
                break
            start = next_start
        return rows

    def mark_read(self, platform_ids: Sequence[str]) -> None:
        """Viewing a PM already marked it read on the board; here the bot records that its reading of it is
        committed, so it is not returned again (kept in the store across restarts)."""
        ids = [int(p[2:]) for p in platform_ids if p.startswith("pm") and p[2:].isdigit()]
        if not ids:
            return
        for number in ids:
            self._pending.pop(f"pm{number}", None)
        acked = sorted(set(self._pm_state["acked"]) | set(ids))
        self._pm_state["acked"] = acked[-500:]
        self._save_state("pms", json.dumps(self._pm_state))

    def user_id(self, name: str) -> int:
        """A member's id: learned from pages read, else from the member's profile (`un=NAME`), then cached."""
        known = self.members.get(name.lower())
        if known:
            return known
        page = self.http.get(f"memberlist.php?mode=viewprofile&un={quote(name)}",
                             what=f"looking up the member {name}")
        found = html.profile_id(page.soup) if page.status != 404 else None
        if not found:
            raise PlatformError(f"phpBB has no member named '{name}': check the spelling in the game's roster")
        self.members[name.lower()] = found
        return found

    def account_exists(self, name: str) -> bool:
        """Whether the board has a member of that name (its profile, `un=NAME`)."""
        if name.lower() in self.members:
            return True
        page = self.http.get(f"memberlist.php?mode=viewprofile&un={quote(name)}", what=f"looking up the member {name}")
        found = html.profile_id(page.soup) if page.status != 404 else None
        if found:
            self.members[name.lower()] = found
        return bool(found)

    def mask_refusal(self, mask: str, claimant: str) -> tuple[str, str] | None:
        """A sign-up's mask needs an account the organisers made (Platform.mask_refusal)."""
        return organisers_mask(self, mask)

    def send_pm(self, to: str, subject: str, text: str, key: str = "") -> str:
        return self._signed_in(lambda: self._send_pm_once(to, subject, text, key))

    def _send_pm_once(self, to: str, subject: str, text: str, key: str) -> str:
        user = self.user_id(to)
        page = self.http.get(f"ucp.php?i=pm&mode=compose&u={user}", what=f"opening a PM to {to}")
        subject = (subject or "forumbot").strip()[:120] or "forumbot"
        answer = self.http.submit(page, "postform", {"subject": subject, "message": text.rstrip("\n") + marker(key)},
                                  what=f"sending a PM to {to}")
        sent = html.sent_pm_id(answer.soup)
        if sent is None:
            raise self._refused(answer, f"sending a PM to {to}")
        return f"pm{sent}"

    # ---- writing -------------------------------------------------------------------------------
    def post(self, thread: str, text: str, key: str = "") -> str:
        number = topic_id(thread)
        parts = split_text(text.rstrip("\n"), self.max_chars - 64)
        last = ""
        for index, part in enumerate(parts):
            body = part + (marker(key) if index == len(parts) - 1 else "")
            last = self._reply(number, body, f"posting in topic {number}")
        return last

    def _signed_in(self, flow: Callable[[], T]) -> T:
        """Run a form's flow; when the board ended the session before the form went out (a login box came
        back, nothing was posted), sign in and run it once more."""
        try:
            return flow()
        except SessionLost as lost:
            log.info("%s; signing in and sending again", lost)
            self.http.login()
            return flow()

    def _reply(self, number: int, body: str, what: str) -> str:
        return self._signed_in(lambda: self._reply_once(number, body, what))

    def _reply_once(self, number: int, body: str, what: str) -> str:
        page = self.http.get(f"posting.php?mode=reply&t={number}", what=what)
        self._check_form_page(page, what)
        answer = self.http.submit(page, "postform", {"message": body}, what=what)
        for _ in range(3):
            if answer.status == 302:
                return f"p{html.query(answer.location).get('p', '')}"
            if html.new_posts_review(answer.soup):
                log.info("new posts came in while %s; sending again", what)
                answer = self.http.submit(answer, "postform", {"message": body}, what=what)
                continue
            too_long = _MAX_CHARS.search(" ".join(html.form_errors(answer.soup)))
            if too_long and int(too_long.group(1)) < self.max_chars:
                self.max_chars = int(too_long.group(1))
                log.warning("the board allows %s characters a post; splitting", self.max_chars)
                kept = MARKER.search(body)              # the marker stays whole, on the last part
                parts = split_text(MARKER.sub("", body), max(20, self.max_chars - 64))
                parts[-1] += kept.group(0) if kept else ""
                ids = [self._reply(number, part, what) for part in parts]
                return ids[-1]
            break
        raise self._refused(answer, what)

    def open_thread(self, title: str, text: str, key: str = "") -> str:
        """A new topic in the configured forum; returns its topic id (the thread id for [games.threads])."""
        if not self.forum:
            raise ConfigError(f"[platforms.{self.name}] has no forum to open topics in", fix="forum = <forum id>")
        return self._signed_in(lambda: self._open_thread_once(title, text, key))

    def _open_thread_once(self, title: str, text: str, key: str) -> str:
        what = f"opening a topic in forum {self.forum}"
        page = self.http.get(f"posting.php?mode=post&f={self.forum}", what=what)
        self._check_form_page(page, what)
        answer = self.http.submit(page, "postform", {"subject": title.strip()[:120] or "forumbot",
                                                     "message": text.rstrip("\n") + marker(key)}, what=what)
        if answer.status != 302 or "t=" not in answer.location:
            raise self._refused(answer, what)
        return html.query(answer.location)["t"]

    def find_thread(self, key: str, title: str = "") -> str | None:
        """The topic the bot opened with `key`'s marker in its first post (one opened just before a crash):
        the forum's first page of topics, those titled `title`, their first posts."""
        if not self.forum:
            return None
        title = title.strip()[:120] or "forumbot"
        page = self.http.get(f"viewforum.php?f={self.forum}", what=f"looking for a topic in forum {self.forum}")
        for row in html.topic_rows(page.soup):
            if row.title != title:
                continue
            topic = self._topic_page(row.id, 0)
            first = topic.posts[0] if topic is not None and topic.posts and topic.page == 1 else None
            if first is not None and first.author.lower() == self.account.lower() \
                    and markers.carries(first.body, key):
                return str(row.id)
        return None

    def edit(self, platform_id: str, text: str) -> None:
        if not platform_id.startswith("p") or not platform_id[1:].isdigit():
            raise PlatformError(f"'{platform_id}' is not a phpBB post; only posts can be edited")
        self._signed_in(lambda: self._edit_once(platform_id, text))

    def _edit_once(self, platform_id: str, text: str) -> None:
        what = f"editing post {platform_id[1:]}"
        page = self.http.get(f"posting.php?mode=edit&p={platform_id[1:]}", what=what)
        self._check_form_page(page, what)
        current = page.soup.select_one("form#postform textarea#message")
        kept = markers.keys_in(current.get_text() if current else "")
        body = MARKER.sub("", text).rstrip("\n") + marker(kept[-1] if kept else "")
        answer = self.http.submit(page, "postform", {"message": body}, what=what)
        if answer.status != 302:
            raise self._refused(answer, what)

    def _check_form_page(self, page: Page, what: str) -> None:
        if page.soup.select_one("form#postform") is None:
            raise self._refused(page, what)

    def _refused(self, page: Page, what: str) -> PlatformError:
        """What a refusal means for the host, and whether trying again later may help."""
        errors = " ".join(html.form_errors(page.soup))
        info = html.info_message(page.soup) or ""
        text = errors or info or f"HTTP {page.status}"
        if "so soon after your last" in text:
            return PlatformError(f"phpBB flood limit while {what}: {text} (retried at the next poll)", retryable=True)
        if "locked" in text:
            return PlatformError(f"phpBB refused {what}: the topic is locked; ask a moderator to unlock it")
        if "does not exist" in text:
            return PlatformError(f"phpBB refused {what}: {text} (check the thread id in the game's config)")
        if "form was invalid" in text:
            return PlatformError(f"phpBB refused {what}: the form expired or was sent too fast", retryable=True)
        if "not authorised" in text or "not authorized" in text or html.login_box(page.soup):
            return PlatformError(f"phpBB refused {what}: the bot's account may not do this ({text}); check its "
                                 "permissions to post, reply and send private messages")
        return PlatformError(f"phpBB refused {what}: {text}", retryable=page.status >= 500)

    # ---- exactly once --------------------------------------------------------------------------
    def find_sent(self, key: str, *, thread: str | None = None, to: str | None = None) -> str | None:
        if to:
            for folder in ("outbox", "sentbox"):
                page = self.http.get(f"ucp.php?i=pm&folder={folder}", what=f"looking for a sent PM in {folder}")
                rows = [r for r in html.pm_rows(page.soup) if r.user.lower() == to.lower()][:5]
                for row in rows:
                    view = html.pm_view(self.http.get(f"ucp.php?i=pm&mode=view&p={row.id}",
                                                      what=f"reading sent PM {row.id}").soup)
                    if view is not None and markers.carries(view.body, key):
                        return f"pm{row.id}"
            return None
        if thread is None:
            return None
        number = topic_id(thread)
        page = self._topic_page(number, 10 ** 7)      # start past the end: the last page
        seen = 0
        while page is not None and seen < 2:          # the last two pages: an unconfirmed post is a recent one
            for item in reversed(page.posts):
                if item.author.lower() == self.account.lower() and markers.carries(item.body, key):
                    return f"p{item.id}"
            seen += 1
            if page.page <= 1:
                break
            page = self._topic_page(number, (page.page - 2) * _per_page(page))
        return None

    # ---- edits and deletions -------------------------------------------------------------------
    def recheck(self, posts: Sequence[Post], policy: str | None = None) -> Recheck:
        """Re-read stored posts (one request per page holding them): edits (the notice's time), deletions (a
        permalink that 404s, or a post missing from the page its permalink shows), flags under `policy`."""
        policy = policy or self.edit_policy
        if policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit policy '{policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        stored = {int(p.platform_id[1:]): p for p in posts if re.fullmatch(r"p\d+", p.platform_id)}
        current: dict[int, html.PagePost | None] = {}
        for number in sorted(stored):
            if number in current:
                continue
            got = self.http.get(f"viewtopic.php?p={number}", what=f"re-reading post {number}")
            if got.status == 404:
                current[number] = None
                continue
            for item in html.topic_page(got.soup).posts:
                current.setdefault(item.id, item)
            current.setdefault(number, None)
        result = Recheck()
        now = self.clock()
        for number, old in stored.items():
            item = current.get(number)
            if item is None or item.deleted:
                result.deleted.append(old.platform_id)
                if old.platform_id not in self._flagged_deleted:     # told once, not before every deadline
                    self._flagged_deleted.append(old.platform_id)
                    result.flags.append(Flag(reason="a post that carried a command was deleted; its first-seen "
                                                    "text still counts", post_id=old.platform_id, author=old.author,
                                             at=now, code="flag_deleted_first_seen"))
                continue
            if item.body == old.body:
                continue
            result.edited.append(Post(platform_id=old.platform_id, thread=old.thread, author=old.author,
                                      created=old.created, body=item.body, dialect=old.dialect,
                                      edited=html.board_time(item.edit_notice, self.zone) or now, url=old.url))
            if policy == "flag":
                result.flags.append(Flag(reason="a post that carried a command was edited; the first-seen text "
                                                "counts", post_id=old.platform_id, author=old.author, at=now,
                                         line=item.body[:200], code="flag_edited_first_seen"))
        if result.flags:
            self._flagged_deleted = self._flagged_deleted[-2000:]
            self._save_state("deleted", json.dumps(self._flagged_deleted))
        return result


def _per_page(page: html.TopicPage) -> int:
    """The board's posts per page, from a page past the first: the pages before it are full."""
    if page.total is not None and page.page > 1 and page.page == page.pages:
        return max(1, (page.total - len(page.posts)) // (page.page - 1))
    return max(1, len(page.posts))


def _load(cursor: str | None) -> dict[str, Any]:
    state: dict[str, Any] = {"topics": {}, "forum": {}, "missing": [], "per_page": 10}
    if cursor:
        try:
            state.update(json.loads(cursor))
        except ValueError:
            log.warning("unreadable phpBB cursor %r: reading every topic again", cursor[:80])
    return state


def guest_reader(topic_url: str, **http: Any) -> tuple[PhpbbPlatform, str]:
    """A reader of one topic as a guest (no account, never signs in, one page a second by default) and the
    topic's thread id, from its viewtopic URL."""
    base, found, _ = topic_url.partition("viewtopic.php")
    if not found:
        raise ConfigError(f"'{topic_url}' is not a phpBB topic URL",
                          fix="give the topic's address, like https://board/viewtopic.php?t=123")
    reader = PhpbbPlatform(base, "", lambda: "", guest=True, **http)
    post = html.query(topic_url).get("p", "")
    if _TOPIC.search(topic_url.strip()) is None and post.isascii() and post.isdigit():
        return reader, str(reader.topic_of_post(int(post)))
    return reader, str(topic_id(topic_url))


def password_from(options: dict[str, Any], name: str) -> Callable[[], str]:
    """The bot's password: `password_env` (default FORUMBOT_PHPBB_PASSWORD) or `password_file`."""
    return secret_from(options, name, "the phpBB password", "password", "FORUMBOT_PHPBB_PASSWORD")


def _names(value: Any) -> list[str]:
    """A list of BBCode names from the config: ["s", "vote"] or "s, vote"."""
    if isinstance(value, str):
        return [v for v in re.split(r"[\s,]+", value) if v]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    raise ConfigError(f"bbcode_extra = {value!r} is not a list of BBCode names", fix='bbcode_extra = ["s", "vote"]')


def from_options(name: str, options: dict[str, Any], clock: Callable[[], datetime] | None = None) -> PhpbbPlatform:
    """The platform a [platforms.NAME] table with kind = "phpbb" describes (service.make_platform)."""
    if not options.get("url") or not options.get("account"):
        raise ConfigError(f"[platforms.{name}] needs url and account", fix='url = "https://board.example/forum", '
                                                                             'account = "forumbot"')
    http = {k: float(options[k]) for k in ("min_interval", "form_wait", "timeout") if k in options}
    return PhpbbPlatform(str(options["url"]), str(options["account"]), password_from(options, name), name=name,
                         forum=int(options["forum"]) if options.get("forum") else None,
                         edit_policy=str(options.get("edit_policy", "first_seen")),
                         max_chars=int(options.get("max_chars", 60000)), clock=clock,
                         timezone=str(options.get("timezone", "UTC")),
                         bbcode_extra=_names(options.get("bbcode_extra", ())),
                         user_agent=str(options.get("user_agent", USER_AGENT)), **http)
