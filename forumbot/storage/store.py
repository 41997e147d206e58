"""The store: one class put together from the parts of this package (see __init__.py).

A game's step is written in ONE transaction, so a crash leaves either all of it or none: the posts are then
simply processed again. A runner's step stores what it fetched in the same transaction as its first game's
step (Store.step): a crash before that commit loses the posts with the cursor that passed them, so they
are fetched again."""

from __future__ import annotations

from collections.abc import Iterable

from forumbot.model import Flag, Post
from forumbot.storage.console import Console
from forumbot.storage.hosted import Hosted
from forumbot.storage.ledger import Ledger
from forumbot.storage.outbox import Outbox
from forumbot.storage.sqlite import Transaction
from forumbot.storage.steps import Steps


class Store(Steps, Outbox, Ledger, Console, Hosted):
    """The SQLite store. `path` is a file (WAL mode) or ":memory:"."""

    def rechecked(self, platform: str, game: str, mark: str, value: str, posts: Iterable[Post],
                  flags: Iterable[Flag]) -> None:
        """What a recheck found, stored at once: edited bodies and re-read posts, flags, and the mark that
        says this deadline's recheck is done."""
        with Transaction(self.db.conn):
            self.save_posts(platform, posts)
            self.add_flags(game, flags)
            self.set_cursor(platform, mark, value)
