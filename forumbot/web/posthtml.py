"""Posts' HTML, rendered once per body and kept in the forum's file, keyed by a hash of the dialect and the
body. A reply or an edit is rendered when it is written (its author's request pays for it); a post written
otherwise (the bot's) when it is first shown. A page then reads its posts' HTML by key and renders nothing,
however hostile the posts: markdown-it reads 20 KB of `[` in more than half a second.

A body whose rendering takes more than RENDER_SECONDS of the thread's CPU time is kept as its plain text
(escaped, its line breaks kept): it is shown as written, and never rendered again. CPU time, not the clock:
a busy server (other threads holding the GIL) makes an ordinary post's rendering slow by the clock, and it
would be kept as text. The forum's MAX_POST_CHARS bounds the one render. The table is not pruned: it holds
about as much as the posts themselves."""

from __future__ import annotations

import hashlib
import time

from markupsafe import Markup
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from forumbot.web.markup import plain_html, to_html

html_migrations = Migrations("webforum-html")
RENDER_SECONDS = 0.5


@html_migrations()
def m001_post_html(db: Database) -> None:
    db.table("web_post_html").create({"key": str, "html": str}, pk="key")


def render(body: str, dialect: str) -> str:
    """The body's HTML, or its plain text when rendering took more than RENDER_SECONDS of CPU time."""
    start = time.thread_time()
    html = str(to_html(body, dialect))
    return html if time.thread_time() - start <= RENDER_SECONDS else str(plain_html(body))


class PostHTML:
    def __init__(self, db: Database, dialect: str) -> None:
        self.db, self.dialect = db, dialect
        html_migrations.apply(db)

    def key(self, body: str) -> str:
        return hashlib.sha256(f"{self.dialect}\0{body}".encode()).hexdigest()

    def html(self, body: str) -> Markup:
        """The body's HTML: as kept, or rendered now and kept."""
        key = self.key(body)
        row = self.db.execute("SELECT html FROM web_post_html WHERE key = ?", [key]).fetchone()
        if row is not None:
            return Markup(row[0])
        html = render(body, self.dialect)
        with self.db.atomic():
            self.db.execute("INSERT OR IGNORE INTO web_post_html (key, html) VALUES (?, ?)", [key, html])
        return Markup(html)
