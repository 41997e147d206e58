"""What the web pages read from the local forum's tables: threads with their counts, a page of posts,
a post, private-message conversations. Writes go through LocalForum (posts, edits, PMs), except marking
a person's PMs read when they open them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forumbot.platforms.local import LocalForum


@dataclass(frozen=True)
class PostRow:
    id: int
    thread: str
    author: str
    body: str
    created: str
    edited: str | None


def _post(row: Any) -> PostRow:
    return PostRow(*row)


_POST_COLUMNS = "id, thread, author, body, created, edited"


class ForumDB:
    def __init__(self, forum: LocalForum) -> None:
        self.forum = forum
        self.db = forum.db

    def threads(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT t.key, t.title, count(p.id), max(p.id), max(p.created) FROM forum_threads t "
            "LEFT JOIN forum_posts p ON p.thread = t.key GROUP BY t.key ORDER BY t.key").fetchall()
        return [{"key": r[0], "title": r[1], "posts": r[2], "last_id": r[3], "last_at": r[4]} for r in rows]

    def thread(self, key: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT key, title FROM forum_threads WHERE key = ?", [key]).fetchone()
        return {"key": row[0], "title": row[1]} if row else None

    def count(self, thread: str) -> int:
        return int(self.db.execute("SELECT count(*) FROM forum_posts WHERE thread = ?", [thread]).fetchone()[0])

    def page(self, thread: str, page: int, per_page: int) -> list[PostRow]:
        rows = self.db.execute(f"SELECT {_POST_COLUMNS} FROM forum_posts WHERE thread = ? ORDER BY id "
                               "LIMIT ? OFFSET ?", [thread, per_page, (page - 1) * per_page]).fetchall()
        return [_post(r) for r in rows]

    def after(self, thread: str, after: int, limit: int = 100) -> list[PostRow]:
        rows = self.db.execute(f"SELECT {_POST_COLUMNS} FROM forum_posts WHERE thread = ? AND id > ? ORDER BY id "
                               "LIMIT ?", [thread, after, limit]).fetchall()
        return [_post(r) for r in rows]

    def post(self, number: int) -> PostRow | None:
        row = self.db.execute(f"SELECT {_POST_COLUMNS} FROM forum_posts WHERE id = ?", [number]).fetchone()
        return _post(row) if row else None

    def page_of(self, post: PostRow, per_page: int) -> int:
        before = self.db.execute("SELECT count(*) FROM forum_posts WHERE thread = ? AND id < ?",
                                 [post.thread, post.id]).fetchone()[0]
        return int(before) // per_page + 1

    def written_since(self, post_id: int, pm_id: int) -> tuple[list[dict[str, Any]], int, int]:
        """What people (not the bot) posted and sent after the given ids, oldest first, as the terminal demo
        prints them, and the newest ids."""
        bot = self.forum.account
        posts = self.db.execute("SELECT id, thread, author, body, created FROM forum_posts WHERE id > ? ORDER BY id",
                                [post_id]).fetchall()
        pms = self.db.execute("SELECT id, sender, body, created FROM forum_pms WHERE id > ? ORDER BY id",
                              [pm_id]).fetchall()
        out = [{"at": r[4], "author": r[2], "thread": r[1], "text": r[3]} for r in posts if r[2] != bot]
        out += [{"at": r[3], "author": r[1], "pm": True, "text": r[2]} for r in pms if r[1] != bot]
        return out, max([post_id, *(r[0] for r in posts)]), max([pm_id, *(r[0] for r in pms)])

    # ---- private messages -------------------------------------------------------------------
    def conversations(self, people: set[str]) -> list[dict[str, Any]]:
        """The conversations (pairs of accounts) with anyone of `people` in them, newest first, with the
        number of messages unread by their recipient."""
        if not people:
            return []
        marks = ",".join("?" * len(people))
        rows = self.db.execute(
            f"SELECT min(sender, recipient), max(sender, recipient), count(*), max(created), "
            f"sum(CASE WHEN read = 0 THEN 1 ELSE 0 END) FROM forum_pms "
            f"WHERE sender IN ({marks}) OR recipient IN ({marks}) GROUP BY 1, 2 ORDER BY max(id) DESC",
            [*people, *people]).fetchall()
        return [{"a": r[0], "b": r[1], "count": r[2], "last_at": r[3]} for r in rows]

    def unread_for(self, name: str, other: str | None = None) -> int:
        sql, args = "SELECT count(*) FROM forum_pms WHERE recipient = ? AND read = 0", [name]
        if other is not None:
            sql, args = sql + " AND sender = ?", [name, other]
        return int(self.db.execute(sql, args).fetchone()[0])

    def conversation(self, a: str, b: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT id, sender, recipient, subject, body, created, read FROM forum_pms "
                               "WHERE (sender = ? AND recipient = ?) OR (sender = ? AND recipient = ?) ORDER BY id",
                               [a, b, b, a]).fetchall()
        return [dict(zip(("id", "sender", "recipient", "subject", "body", "created", "read"), r, strict=True))
                for r in rows]

    def mark_read(self, recipient: str, sender: str) -> None:
        """A person opened their conversation: the messages they received are read (never the bot's own
        inbox, which the bot marks read itself once it has acted on them)."""
        if recipient == self.forum.account:
            return
        with self.db.atomic():
            self.db.execute("UPDATE forum_pms SET read = 1 WHERE recipient = ? AND sender = ? AND read = 0",
                            [recipient, sender])
