"""The bot's memory: SQLite through sqlite-utils, the only package that writes SQL.

`Store` (store.py) is put together from one part per concern: the posts and cursors (posts.py), the games'
steps (steps.py), the outbox (outbox.py), the flags and the tournament ledger (ledger.py) and the host
console's rows (console.py), over their shared connection and transactions (base.py). The schema is
migrations.py's; sqlite.py opens a database, lock.py keeps one bot per store.
"""

from forumbot.storage.migrations import migrations
from forumbot.storage.steps import GameRow
from forumbot.storage.store import Store

__all__ = ["GameRow", "Store", "migrations"]
