"""Reddit through praw: game threads are submissions, posts are comments, private messages are PMs.

Polling costs one request per subreddit when nothing happened: the subreddit's new-comments listing
(`/r/SUB/comments`, newest first) read down to the cursor, filtered by the games' submissions. Comment ids
are base-36 numbers that only grow, so "newer than the cursor" is a comparison of numbers, and a deleted
cursor comment cannot lose our place. A submission not read before, or any gap (the listing, which
reaches only about 1,000 comments back, ran out before reaching the cursor), is read once through its
whole comment tree (`/comments/ID` and every `more` through `/api/morechildren`). The cursor is a small
JSON document the runner stores in SQLite with the posts it came with, so a restart neither refetches nor
misses.

Credentials never live in forumbot's config: praw reads them from a `praw.ini` site or from `praw_*`
environment variables (`praw_client_id`, `praw_client_secret`, `praw_username`, `praw_password`).
Every praw/prawcore failure becomes a PlatformError, retryable or not (reddit_errors.py).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from forumbot.errors import ConfigError, PlatformError
from forumbot.model import Flag, Post
from forumbot.platforms import markers
from forumbot.platforms.base import EDIT_POLICIES, Recheck, organisers_mask
from forumbot.platforms.reddit_errors import platform_error

log = logging.getLogger("forumbot.reddit")

PAGE = 100                  # the most a Reddit listing returns per request
INFO_BATCH = 100            # the most ids /api/info takes
MAX_PAGES = 10              # a listing reaches back about 1,000 items: 10 pages of 100
MARKER = markers.MARKDOWN
_SUBMISSION = re.compile(r"(?:^t3_|/comments/|^)([a-z0-9]{1,12})(?:[/?#].*)?$")


def submission_id(thread: str) -> str:
    """The submission id of a game thread as a host writes it: `abc123`, `t3_abc123` or a thread URL."""
    text = thread.strip().lower()
    match = _SUBMISSION.search(text)
    if match is None:
        raise ConfigError(f"'{thread}' is not a Reddit submission",
                          fix="map the game's threads to submission ids in [games.threads], e.g. votes = \"1abcde\"")
    return match.group(1)


def b36(text: str) -> int:
    return int(text, 36)


def to_b36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, digit = divmod(number, 36)
        out = digits[digit] + out
        if not number:
            return out


def marker(key: str) -> str:
    """The invisible marker a message carries: an empty markdown link."""
    return f"\n\n[](#{markers.token(key)})" if key else ""


def _when(value: Any) -> datetime | None:
    if value is None or value is False or value is True:
        return None
    return datetime.fromtimestamp(float(value), UTC)


@dataclass
class Cursor:
    """Where polling stands. `newest`: per subreddit, the id of the newest comment its listing showed;
    `synced`: submissions whose whole tree was read; `subreddit`: which subreddit each submission is in;
    `missing`: submissions Reddit does not know (a typo in the config), not asked for again."""

    newest: dict[str, str] = field(default_factory=dict)
    synced: list[str] = field(default_factory=list)
    subreddit: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, text: str | None) -> Cursor:
        if not text:
            return cls()
        try:
            data = json.loads(text)
            return cls(dict(data.get("newest", {})), list(data.get("synced", [])),
                       dict(data.get("subreddit", {})), list(data.get("missing", [])))
        except (ValueError, AttributeError, TypeError):
            log.warning("unreadable Reddit cursor %r: reading every thread again", text[:80])
            return cls()

    def dump(self) -> str:
        return json.dumps({"newest": self.newest, "synced": sorted(self.synced), "subreddit": self.subreddit,
                           "missing": sorted(self.missing)}, sort_keys=True)




def _make_reddit(options: dict[str, Any]) -> Any:
    import praw
    from praw.exceptions import MissingRequiredAttributeException

    settings = {k: v for k, v in options.items() if k in ("user_agent", "oauth_url", "reddit_url", "short_url",
                                                            "timeout", "ratelimit_seconds")}
    settings.setdefault("check_for_updates", False)
    try:
        return praw.Reddit(options.get("site") or None, **settings)
    except MissingRequiredAttributeException as err:
        raise ConfigError(f"Reddit credentials are missing: {err}",
                          fix="put client_id, client_secret, username, password and user_agent in a praw.ini "
                              "site (site = \"NAME\") or in praw_client_id, praw_client_secret, praw_username, "
                              "praw_password, praw_user_agent") from None
    except Exception as err:    # praw.ini syntax, an unknown site
        raise ConfigError(f"cannot set up Reddit: {err}") from None


class RedditPlatform:
    """The Platform Protocol on Reddit. `reddit` is a ready praw.Reddit (tests); otherwise one is made from
    `site`/`user_agent` and praw's own configuration."""

    dialect = "markdown"

    def __init__(self, reddit: Any = None, *, name: str = "reddit", site: str | None = None,
                 account: str = "", subreddit: str = "", user_agent: str | None = None,
                 inbox_every: int = 1, reserve: int = 10, max_wait: float = 10.0, listing_reach: int = 1000,
                 clock: Callable[[], datetime] | None = None, **settings: Any) -> None:
        if reddit is None:
            options = {"site": site, **settings}
            if user_agent:
                options["user_agent"] = user_agent
            reddit = _make_reddit(options)
        self.reddit = reddit
        self.name = name
        self.account = account or str(getattr(reddit.config, "username", "") or "")
        if not self.account:
            raise ConfigError("the Reddit account is not known", fix="set username in praw.ini or account = \"...\"")
        self.subreddits = [s for s in subreddit.split("+") if s]
        self.inbox_every = max(1, int(inbox_every))
        self.reserve, self.max_wait = reserve, max_wait
        self.listing_reach = listing_reach
        self.clock = clock
        self._inbox_polls = 0
        self.edit_policy = "first_seen"             # what recheck() does with an edit (see EDIT_POLICIES)
        self._markers: dict[str, str] = {}          # comment fullname → its marker, for edits
        self._web = str(getattr(reddit.config, "reddit_url", "https://www.reddit.com")).rstrip("/")

    # ---- calling Reddit ---------------------------------------------------------------------------
    @contextmanager
    def _calling(self, what: str) -> Iterator[None]:
        self._check_budget(what)
        try:
            yield
        except PlatformError:
            raise
        except Exception as err:
            raise platform_error(what, err) from err

    def _check_budget(self, what: str) -> None:
        """Respect X-Ratelimit-*: with the window nearly used up, prawcore would sleep until it resets;
        a poll gives up instead (retryable) so the service backs off and other platforms go on."""
        core = getattr(self.reddit, "_core", None)
        limiter = getattr(core, "_rate_limiter", None)
        remaining = getattr(limiter, "remaining", None)
        wake = getattr(limiter, "next_request_timestamp_ns", None)
        if remaining is None or wake is None or remaining > self.reserve:
            return
        import time

        wait = (wake - time.monotonic_ns()) / 1e9
        if wait > self.max_wait:
            raise PlatformError(f"Reddit rate limit: {remaining:g} requests left, the window resets in "
                                f"{wait:.0f}s ({what} postponed)", retryable=True)

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        with self._calling(f"GET {path}"):
            return self.reddit.get(path, params=params or {})

    # ---- reading threads ------------------------------------------------------------------------
    def fetch_posts(self, threads: Sequence[str], cursor: str | None) -> tuple[list[Post], str | None]:
        state = Cursor.load(cursor)
        wanted: dict[str, str] = {}                  # submission id → the runner's thread id
        for thread in threads:
            wanted[submission_id(thread)] = thread
        found: dict[str, Post] = {}
        # The listings first, then the walks: a comment made in between is read twice (and kept once),
        # never missed. A subreddit read for the first time only sets its cursor; the walks cover the past.
        subs = sorted({state.subreddit[s] for s in wanted if s in state.subreddit} | set(self.subreddits))
        for sub in subs:
            gap = self._poll_listing(sub, state, wanted, found)
            if gap:
                log.warning("r/%s: more new comments than its listing reaches; re-reading its threads", sub)
                state.synced = [s for s in state.synced if state.subreddit.get(s) != sub]
        for sid, thread in wanted.items():
            if sid in state.synced or sid in state.missing:
                continue
            walked = self._walk(sid, thread, found)
            if walked is None:
                state.missing.append(sid)
                continue
            sub = walked
            state.subreddit[sid] = sub
            if sub not in state.newest:              # a subreddit we had not polled yet
                self._poll_listing(sub, state, {}, {})
            state.synced.append(sid)
        posts = sorted(found.values(), key=lambda p: (p.created, b36(p.platform_id[3:])))
        return posts, state.dump()

    def _poll_listing(self, sub: str, state: Cursor, wanted: dict[str, str], found: dict[str, Post]) -> bool:
        """Read r/SUB's new comments down to the cursor (one request when nothing happened). Returns True on
        a gap: the listing, which reaches only about 1,000 comments back, ended before the cursor."""
        cursor = state.newest.get(sub)
        floor = b36(cursor) if cursor else None
        after: str | None = None
        newest: int | None = None
        reached, count = False, 0
        for _ in range(MAX_PAGES):
            params: dict[str, Any] = {"limit": PAGE}
            if after:
                params["after"] = after
            listing = self._get(f"r/{sub}/comments", params)
            children = list(getattr(listing, "children", None) or [])
            for comment in children:
                number = b36(comment.id)
                newest = number if newest is None else max(newest, number)
                if floor is not None and number <= floor:
                    reached = True
                    break
                count += 1
                sid = str(comment.link_id)[3:]
                if sid in wanted:
                    found[str(comment.name)] = self._post(comment, wanted[sid])
            after = getattr(listing, "after", None)
            # The first read of a subreddit needs one page: it only sets the cursor (the walks read the past).
            if reached or floor is None or not after or not children:
                break
        if newest is not None and newest > (b36(cursor) if cursor else -1):
            state.newest[sub] = to_b36(newest)
        elif cursor is None:
            state.newest[sub] = "0"
        return floor is not None and not reached and count >= self.listing_reach

    def _walk(self, sid: str, thread: str, found: dict[str, Post]) -> str | None:
        """Read a submission's whole comment tree; returns its subreddit (None: no such submission)."""
        from prawcore.exceptions import Forbidden, NotFound

        try:
            with self._calling(f"reading submission {sid}"):
                submission = self.reddit.submission(sid)
                submission.comment_sort = "old"
                submission.comments.replace_more(limit=None)
                comments = submission.comments.list()
                sub = str(submission.subreddit.display_name)
        except PlatformError as err:
            if isinstance(err.__cause__, (NotFound, Forbidden)):
                log.error("submission %s (%s) is not on Reddit or not readable: %s", sid, thread, err)
                return None
            raise
        for comment in comments:
            if comment.__class__.__name__ == "MoreComments":
                continue
            if str(comment.body) in ("[deleted]", "[removed]") and comment.author is None:
                continue                              # gone before we saw it: as if never posted
            found.setdefault(comment.name, self._post(comment, thread))
        return sub

    def _post(self, comment: Any, thread: str) -> Post:
        author = comment.author
        return Post(platform_id=str(comment.name), thread=thread,
                    author=str(author.name) if author is not None else "[deleted]",
                    created=_when(comment.created_utc) or datetime.now(UTC), body=str(comment.body),
                    dialect=self.dialect, edited=_when(comment.edited),
                    url=f"{self._web}{comment.permalink}" if getattr(comment, "permalink", None) else "")

    # ---- private messages -----------------------------------------------------------------------
    def fetch_pms(self) -> list[Post]:
        self._inbox_polls += 1
        if (self._inbox_polls - 1) % self.inbox_every:
            return []
        posts: list[Post] = []
        other: list[str] = []                        # comment replies and mentions: read via the listing
        after: str | None = None
        for _ in range(MAX_PAGES):
            params: dict[str, Any] = {"limit": PAGE, "mark": "false"}
            if after:
                params["after"] = after
            listing = self._get("message/unread", params)
            for item in getattr(listing, "children", None) or []:
                if item.__class__.__name__ != "Message" or getattr(item, "was_comment", False) or item.author is None:
                    other.append(str(item.fullname))
                    continue
                posts.append(Post(platform_id=str(item.fullname), thread="", author=str(item.author.name),
                                  created=_when(item.created_utc) or datetime.now(UTC), body=str(item.body),
                                  dialect=self.dialect, pm=True))
            after = getattr(listing, "after", None)
            if not after:
                break
        if other:
            try:
                self._read(other)
            except PlatformError as err:             # harmless: they come back next poll
                log.info("could not mark %d inbox notifications read: %s", len(other), err)
        return sorted(posts, key=lambda p: (p.created, b36(p.platform_id[3:])))

    def mark_read(self, platform_ids: Sequence[str]) -> None:
        self._read([p for p in platform_ids if p.startswith(("t4_", "t1_"))])

    def _read(self, fullnames: list[str]) -> None:
        for start in range(0, len(fullnames), 25):
            with self._calling("marking messages read"):
                self.reddit.post("api/read_message/", data={"id": ",".join(fullnames[start:start + 25])})

    # ---- writing --------------------------------------------------------------------------------
    def post(self, thread: str, text: str, key: str = "") -> str:
        sid = submission_id(thread)
        with self._calling(f"commenting in {sid}"):
            comment = self.reddit.submission(sid).reply(text.rstrip("\n") + marker(key))
        if comment is None:
            raise PlatformError(f"Reddit did not return the comment posted in {sid}", retryable=False)
        if key:
            self._markers[str(comment.name)] = key
        return str(comment.name)

    def open_thread(self, title: str, text: str, key: str = "") -> str:
        """A self post in the configured subreddit (the first of `subreddit = "a+b"`); returns its id."""
        if not self.subreddits:
            raise ConfigError(f"[platforms.{self.name}] has no subreddit to post new threads in",
                              fix='subreddit = "yoursubreddit"')
        sub = self.subreddits[0]
        with self._calling(f"opening a thread in r/{sub}"):
            submission = self.reddit.subreddit(sub).submit(title.strip()[:300] or "forumbot",
                                                          selftext=text.rstrip("\n") + marker(key))
        return str(submission.id)

    def send_pm(self, to: str, subject: str, text: str, key: str = "") -> str:
        subject = (subject or "forumbot").strip()[:100] or "forumbot"
        with self._calling(f"sending a PM to {to}"):
            self.reddit.redditor(to).message(subject=subject, message=text.rstrip("\n") + marker(key))
        # /api/compose answers without the message's id; the marker finds it in message/sent if needed.
        return f"pm:{to}:{key}" if key else f"pm:{to}"

    def account_exists(self, name: str) -> bool:
        """Whether Reddit has a user of that name (`/user/NAME/about`; a suspended or deleted one is none)."""
        from prawcore.exceptions import NotFound

        with self._calling(f"looking up u/{name}"):
            try:
                about = self.reddit.get(f"/user/{name.removeprefix('u/')}/about")
            except NotFound:
                return False
        return getattr(about, "name", None) is not None

    def mask_refusal(self, mask: str, claimant: str) -> tuple[str, str] | None:
        """A sign-up's mask needs an account the organisers made (Platform.mask_refusal)."""
        return organisers_mask(self, mask)

    def edit(self, platform_id: str, text: str) -> None:
        if not platform_id.startswith("t1_"):
            raise PlatformError(f"'{platform_id}' is not a Reddit comment; only comments can be edited")
        key = self._markers.get(platform_id)
        if key is None:                              # keep the marker the comment was posted with
            for thing in self._info([platform_id]):
                found = markers.keys_in(str(getattr(thing, "body", "")))
                key = found[-1] if found else ""
        body = MARKER.sub("", text).rstrip("\n") + marker(key or "")
        with self._calling(f"editing {platform_id}"):
            self.reddit.comment(platform_id[3:]).edit(body)

    def find_sent(self, key: str, *, thread: str | None = None, to: str | None = None) -> str | None:
        if to:
            listing = self._get("message/sent", {"limit": PAGE})
            for message in getattr(listing, "children", None) or []:
                if str(getattr(message, "dest", "")).lower() == to.lower() and markers.carries(str(message.body), key):
                    return f"pm:{to}:{key}"
            return None
        sid = submission_id(thread) if thread else None
        after: str | None = None
        for _ in range(2):      # the bot's 200 newest comments: an unconfirmed message is a recent one
            listing = self._get(f"user/{self.account}/comments", {"limit": PAGE, "sort": "new",
                                                                  **({"after": after} if after else {})})
            for comment in getattr(listing, "children", None) or []:
                if markers.carries(str(comment.body), key) and (sid is None or str(comment.link_id) == f"t3_{sid}"):
                    return str(comment.name)
            after = getattr(listing, "after", None)
            if not after:
                break
        return None

    def find_thread(self, key: str, title: str = "") -> str | None:
        """The id of the bot's newest self post carrying `key`'s marker (a thread opened just before a
        crash), among its 100 newest submissions."""
        listing = self._get(f"user/{self.account}/submitted", {"limit": PAGE, "sort": "new"})
        for submission in getattr(listing, "children", None) or []:
            if markers.carries(str(getattr(submission, "selftext", "")), key):
                return str(submission.id)
        return None

    # ---- edits and deletions --------------------------------------------------------------------
    def _info(self, fullnames: Sequence[str]) -> list[Any]:
        things: list[Any] = []
        for start in range(0, len(fullnames), INFO_BATCH):
            listing = self._get("api/info", {"id": ",".join(fullnames[start:start + INFO_BATCH])})
            things += list(getattr(listing, "children", None) or [])
        return things

    def recheck(self, posts: Sequence[Post], policy: str | None = None) -> Recheck:
        """Re-read stored comments (those carrying votes, before a deadline) in one /api/info call per 100,
        and apply an edit policy: `first_seen` keeps what was read (edits are reported to the host only
        as flags when `flag`), `edited` returns the edited versions to be read again. Deleted and removed
        comments are reported, never dropped: the store keeps what was first seen."""
        policy = policy or self.edit_policy
        if policy not in EDIT_POLICIES:
            raise ConfigError(f"unknown edit policy '{policy}'", fix="edit_policy: " + ", ".join(EDIT_POLICIES))
        stored = {p.platform_id: p for p in posts if p.platform_id.startswith("t1_")}
        edited: list[Post] = []
        deleted: list[str] = []
        flags: list[Flag] = []
        now = self.clock() if self.clock else datetime.now(UTC)
        for thing in self._info(list(stored)):
            old = stored.get(str(thing.name))
            if old is None:
                continue
            body = str(thing.body)
            if thing.author is None and body in ("[deleted]", "[removed]"):
                deleted.append(old.platform_id)
                how = "deleted by its author" if body == "[deleted]" else "removed by a moderator"
                flags.append(Flag(reason=f"a comment that carried a vote was {how}; its first-seen text still "
                                         f"counts", post_id=old.platform_id, author=old.author, at=now,
                                  code="flag_comment_deleted" if body == "[deleted]" else "flag_comment_removed"))
                continue
            if body == old.body:
                continue
            current = Post(platform_id=old.platform_id, thread=old.thread, author=old.author, created=old.created,
                           body=body, dialect=old.dialect, edited=_when(thing.edited) or now, url=old.url)
            edited.append(current)
            if policy == "flag":
                flags.append(Flag(reason="a comment that carried a vote was edited; the first-seen text counts",
                                  post_id=old.platform_id, author=old.author, at=now, line=body[:200],
                                  code="flag_comment_edited"))
        return Recheck(edited, deleted, flags)


def from_options(name: str, options: dict[str, Any], clock: Callable[[], datetime] | None = None) -> RedditPlatform:
    """The platform a [platforms.NAME] table with kind = "reddit" describes (service.make_platform)."""
    policy = str(options.get("edit_policy", "first_seen"))
    if policy not in EDIT_POLICIES:
        raise ConfigError(f"unknown edit_policy '{policy}' in [platforms.{name}]",
                          fix="edit_policy: " + ", ".join(EDIT_POLICIES))
    platform = RedditPlatform(name=name, site=options.get("site"), account=str(options.get("account", "")),
                              subreddit=str(options.get("subreddit", "")), user_agent=options.get("user_agent"),
                              inbox_every=int(options.get("inbox_every", 1)), clock=clock)
    platform.edit_policy = policy
    return platform
