"""The platform Protocol: what the runner needs from a forum, Reddit or the local forum."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from forumbot.model import Flag, Post

# What a platform does with a post edited after the bot read it (see `recheck`):
# first_seen: the text as first read counts; edited: the new text is read again, as a post made at the
# time of the edit; flag: the first text counts and the host is told.
EDIT_POLICIES = ("first_seen", "edited", "flag")


@dataclass(frozen=True)
class Recheck:
    """What re-reading stored posts found: the current versions of edited ones, the ids now deleted or
    removed, and flags for the host."""

    edited: list[Post] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)


class Platform(Protocol):
    """A place where games are played. Every method raises PlatformError (retryable or not) on failure."""

    name: str          # "local", "reddit", ... (the store keeps cursors and posts per platform)
    dialect: str       # how its posts are marked up: markdown, bbcode, html, plain
    account: str       # the bot's own account name (the runner neither stores nor parses its posts)
    edit_policy: str   # one of EDIT_POLICIES

    def fetch_posts(self, threads: Sequence[str], cursor: str | None) -> tuple[list[Post], str | None]:
        """Posts in `threads` newer than `cursor` (None: from the start), and the new cursor. A platform with
        a `batch` attribute returns at most that many, the cursor after the last; the runner asks again while
        a batch comes back full."""

    def fetch_pms(self) -> list[Post]:
        """Unread private messages to the bot. They stay unread until `mark_read`."""

    def mark_read(self, platform_ids: Sequence[str]) -> None:
        """Mark private messages read, once the intents they carry are committed."""

    def post(self, thread: str, text: str, key: str = "") -> str:
        """Post `text` in a thread with an invisible marker carrying `key`; returns the new post's id."""

    def send_pm(self, to: str, subject: str, text: str, key: str = "") -> str:
        """Send a private message with an invisible marker carrying `key`; returns its platform id."""

    def find_sent(self, key: str, *, thread: str | None = None, to: str | None = None) -> str | None:
        """The id of the bot's post in `thread` (or PM to `to`) that carries `key`'s marker, if any: how a
        restarted bot learns that a message went out just before it died."""

    def open_thread(self, title: str, text: str, key: str = "") -> str:
        """Open a new thread (local forum: a thread; Reddit: a self post in the configured subreddit; phpBB: a
        topic in the configured forum) whose first post is `text` with `key`'s marker; returns the thread's
        id, as [games.threads] takes it."""

    def find_thread(self, key: str, title: str = "") -> str | None:
        """The id of a thread the bot opened with `key`'s marker (titled `title`), if any: how a restarted
        bot learns that `open_thread` went through just before it died."""

    def edit(self, platform_id: str, text: str) -> None:
        """Replace the text of one of the bot's own posts."""

    def recheck(self, posts: Sequence[Post], policy: str | None = None) -> Recheck:
        """Re-read stored posts (the runner asks for those carrying commands, before a deadline): which were
        edited (their current versions), deleted or removed; flags for the host under `policy`."""

    def account_exists(self, name: str) -> bool:
        """Whether the platform has an account (a member, a user) of exactly that name: how the bot checks a
        mask's account, which the organisers create, at the deal."""

    def mask_refusal(self, mask: str, claimant: str) -> tuple[str, str] | None:
        """Why `claimant` cannot sign up under `mask` on this platform, asked at the sign-up: (the refusal's
        code, the account it names) or None. Where the organisers make masks' accounts (phpBB, Reddit,
        Discourse: `organisers_mask`), a mask with no account; on the local forum, which makes them at the
        deal, a mask that is or looks like an account that is not the claimant's."""

    # Optional (the runner asks for it with getattr when the platform's `makes_accounts` is true: the local
    # forum that keeps people's accounts):
    #     def make_mask_account(self, mask: str, owner: str, previous: str | None = None) -> str | None
    # the mask's account made for `owner` at the deal (or handed over from `previous`) with a one-time
    # password (returned; "": it is `owner`'s already; None: the name is an account that is not the mask's).
    #
    # Optional (the runner asks for it with getattr): `before_deadline()`, called before the fetch_pms of a
    # poll that may fire a deadline (phpBB then reads its inbox whatever the header's unread count said).
    #
    # Optional (the runner asks for it with getattr; Reddit and phpBB have none):
    #     def changed_posts(self, since: datetime) -> Collection[str]
    # the platform ids of the thread posts made since `since` that may have changed since they were posted
    # (every post edited, deleted or removed among them; others may be named too). Before a deadline the
    # runner then builds and re-reads only the stored posts named: the others are as the bot read them.


def organisers_mask(platform: Any, mask: str) -> tuple[str, str] | None:
    """Platform.mask_refusal where the organisers make the masks' accounts: a mask must have one."""
    return None if platform.account_exists(mask) else ("mask_no_account", mask)
