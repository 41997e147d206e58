"""What the fake Reddit knows: submissions, comments, private messages, accounts, the clock, the faults.

Ids are base-36 and increase with every new thing of a kind, as Reddit's do. The JSON it renders follows
Reddit's wire format (`Listing`, `t1`, `t3`, `t4`, `more`); the server (server.py) only routes requests.
Everything is guarded by one lock: tests and benchmarks change the state from their own thread while the
HTTP server's threads read it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def b36(number: int) -> str:
    out = ""
    while True:
        number, digit = divmod(number, 36)
        out = ALPHABET[digit] + out
        if not number:
            return out


@dataclass
class Submission:
    id: str
    subreddit: str
    title: str
    author: str
    created: float
    selftext: str = ""
    locked: bool = False


@dataclass
class Comment:
    id: str
    link_id: str            # t3_...
    parent_id: str          # t3_... (top level) or t1_...
    author: str
    body: str
    created: float
    subreddit: str
    edited: float | bool = False
    deleted: bool = False    # by its author: author and body "[deleted]"
    removed: bool = False    # by a moderator: author "[deleted]", body "[removed]"


@dataclass
class Message:
    id: str
    author: str
    dest: str
    subject: str
    body: str
    created: float
    new: bool = True


@dataclass
class Fault:
    """A failure to inject: `kind` is status (answer `status`), timeout (answer after `delay` seconds),
    truncate (close the connection half-way through the body), badjson (a 200 with malformed JSON)."""

    kind: str
    path: str = ""            # applies to requests whose path contains this ("" = any)
    times: int = 1
    status: int = 500
    delay: float = 2.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str]
    user: str | None


class RedditState:
    """The whole fake Reddit. `clock` gives the time things are created at (a test's virtual clock)."""

    def __init__(self, *, clock: Callable[[], float] = time.time, client_id: str = "fb-client",
                 client_secret: str = "fb-secret", ratelimit: int = 1_000_000, window: int = 600,
                 comment_limit: int = 200, max_depth: int = 10, listing_cap: int = 1000) -> None:
        self.lock = threading.RLock()
        self.clock = clock
        self.client_id, self.client_secret = client_id, client_secret
        self.passwords: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        self.submissions: dict[str, Submission] = {}
        self.comments: dict[str, Comment] = {}
        self.messages: dict[str, Message] = {}
        self.children: dict[str, list[str]] = {}       # parent fullname → child comment ids, oldest first
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        self.ratelimit, self.window = ratelimit, window
        self.window_start = time.time()
        self.window_used = 0
        self.forced_ratelimit: tuple[float, int, int] | None = None   # (remaining, used, reset) to send once
        self.comment_limit, self.max_depth, self.listing_cap = comment_limit, max_depth, listing_cap
        self._next = {"t1": 36 ** 5, "t3": 20 * 36 ** 4, "t4": 30 * 36 ** 4}

    # ---- building the world ---------------------------------------------------------------------
    def _new_id(self, kind: str) -> str:
        with self.lock:
            self._next[kind] += 1
            return b36(self._next[kind])

    def add_user(self, name: str, password: str = "hunter2") -> None:
        with self.lock:
            self.passwords[name] = password

    def add_submission(self, subreddit: str, title: str, author: str = "host", selftext: str = "",
                       at: float | None = None) -> str:
        with self.lock:
            sid = self._new_id("t3")
            self.submissions[sid] = Submission(sid, subreddit, title, author, at or self.clock(), selftext)
            return sid

    def add_comment(self, parent: str, author: str, body: str, at: float | None = None) -> str:
        """A comment on a submission ("t3_x" or a bare submission id) or a reply to a comment ("t1_x")."""
        with self.lock:
            if not parent.startswith(("t1_", "t3_")):
                parent = f"t3_{parent}"
            if parent.startswith("t3_"):
                link = parent
            else:
                link = self.comments[parent[3:]].link_id
            submission = self.submissions[link[3:]]
            cid = self._new_id("t1")
            self.comments[cid] = Comment(cid, link, parent, author, body, at or self.clock(), submission.subreddit)
            self.children.setdefault(parent, []).append(cid)
            return cid

    def edit_comment(self, cid: str, body: str, at: float | None = None) -> None:
        with self.lock:
            comment = self.comments[cid.removeprefix("t1_")]
            comment.body, comment.edited = body, float(at or self.clock())

    def delete_comment(self, cid: str) -> None:
        with self.lock:
            self.comments[cid.removeprefix("t1_")].deleted = True

    def remove_comment(self, cid: str) -> None:
        with self.lock:
            self.comments[cid.removeprefix("t1_")].removed = True

    def add_message(self, author: str, dest: str, subject: str, body: str, at: float | None = None) -> str:
        with self.lock:
            mid = self._new_id("t4")
            self.messages[mid] = Message(mid, author, dest, subject, body, at or self.clock())
            return mid

    def inject(self, kind: str, path: str = "", **kw: Any) -> Fault:
        fault = Fault(kind, path, **kw)
        with self.lock:
            self.faults.append(fault)
        return fault

    # ---- reading it back (tests) ----------------------------------------------------------------
    def comments_by(self, author: str, link: str | None = None) -> list[Comment]:
        with self.lock:
            return [c for c in sorted(self.comments.values(), key=lambda c: int(c.id, 36))
                    if c.author == author and (link is None or c.link_id == f"t3_{link.removeprefix('t3_')}")]

    def messages_to(self, dest: str) -> list[Message]:
        with self.lock:
            return [m for m in self.messages.values() if m.dest.lower() == dest.lower()]

    def count(self, path: str = "", *, user: str | None = None) -> int:
        """Requests made so far (the token endpoint included) whose path contains `path`."""
        with self.lock:
            return sum(1 for r in self.requests if path in r.path and (user is None or r.user == user))

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and fault.path in path:
                    fault.times -= 1
                    if fault.times == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def ratelimit_headers(self) -> dict[str, str]:
        """x-ratelimit-* as Reddit sends them: requests left and used in the window, seconds to its end."""
        with self.lock:
            if self.forced_ratelimit is not None:
                remaining, used, reset = self.forced_ratelimit
                self.forced_ratelimit = None
                return {"x-ratelimit-remaining": f"{remaining:.1f}", "x-ratelimit-used": str(used),
                        "x-ratelimit-reset": str(reset)}
            now = time.time()
            if now - self.window_start >= self.window:
                self.window_start, self.window_used = now, 0
            self.window_used += 1
            reset = max(0, int(self.window - (now - self.window_start)))
            return {"x-ratelimit-remaining": f"{max(0, self.ratelimit - self.window_used):.1f}",
                    "x-ratelimit-used": str(self.window_used), "x-ratelimit-reset": str(reset)}

    # ---- JSON: things ---------------------------------------------------------------------------
    def t1(self, c: Comment, *, depth: int = 0, replies: Any = "", listing: bool = False) -> dict[str, Any]:
        gone = c.deleted or c.removed
        author = "[deleted]" if gone else c.author
        body = "[deleted]" if c.deleted else "[removed]" if c.removed else c.body
        submission = self.submissions[c.link_id[3:]]
        data: dict[str, Any] = {
            "id": c.id, "name": f"t1_{c.id}", "link_id": c.link_id, "parent_id": c.parent_id,
            "author": author, "body": body, "body_html": f"<div class=\"md\"><p>{body}</p></div>",
            "created": c.created, "created_utc": c.created, "edited": c.edited, "score": 1, "ups": 1,
            "downs": 0, "subreddit": c.subreddit, "subreddit_id": "t5_" + b36(abs(hash(c.subreddit)) % 36 ** 5),
            "subreddit_name_prefixed": f"r/{c.subreddit}", "subreddit_type": "public",
            "permalink": f"/r/{c.subreddit}/comments/{submission.id}/_/{c.id}/", "replies": replies,
            "depth": depth, "is_submitter": c.author == submission.author, "stickied": False,
            "distinguished": None, "locked": False, "archived": False, "collapsed": gone,
            "collapsed_reason": None, "controversiality": 0, "gilded": 0, "total_awards_received": 0,
            "saved": False, "likes": None, "send_replies": True, "score_hidden": False, "no_follow": True,
            "can_mod_post": False, "can_gild": False, "author_flair_text": None, "mod_reports": [],
            "user_reports": [], "approved_by": None, "banned_by": None, "num_reports": None,
        }
        if not gone:
            data["author_fullname"] = "t2_" + b36(abs(hash(c.author)) % 36 ** 6)
        if listing:
            data.update({"link_title": submission.title, "link_author": submission.author,
                         "link_permalink": f"https://www.reddit.com/r/{c.subreddit}/comments/{submission.id}/",
                         "link_url": f"https://www.reddit.com/r/{c.subreddit}/comments/{submission.id}/",
                         "num_comments": len([x for x in self.comments.values() if x.link_id == c.link_id]),
                         "over_18": False, "quarantine": False})
            data.pop("depth")
        return {"kind": "t1", "data": data}

    def t3(self, s: Submission) -> dict[str, Any]:
        count = sum(1 for c in self.comments.values() if c.link_id == f"t3_{s.id}")
        return {"kind": "t3", "data": {
            "id": s.id, "name": f"t3_{s.id}", "title": s.title, "author": s.author, "selftext": s.selftext,
            "selftext_html": None, "created": s.created, "created_utc": s.created, "subreddit": s.subreddit,
            "subreddit_id": "t5_" + b36(abs(hash(s.subreddit)) % 36 ** 5), "subreddit_name_prefixed":
            f"r/{s.subreddit}", "permalink": f"/r/{s.subreddit}/comments/{s.id}/", "url":
            f"https://www.reddit.com/r/{s.subreddit}/comments/{s.id}/", "num_comments": count, "score": 1,
            "locked": s.locked, "archived": False, "is_self": True, "over_18": False, "stickied": False,
            "edited": False, "distinguished": None, "suggested_sort": None, "domain": f"self.{s.subreddit}"}}

    def t4(self, m: Message) -> dict[str, Any]:
        return {"kind": "t4", "data": {
            "id": m.id, "name": f"t4_{m.id}", "author": m.author, "dest": m.dest, "subject": m.subject,
            "body": m.body, "body_html": f"<div class=\"md\"><p>{m.body}</p></div>", "created": m.created,
            "created_utc": m.created, "new": m.new, "was_comment": False, "parent_id": None,
            "first_message": None, "first_message_name": None, "context": "", "distinguished": None,
            "replies": "", "subreddit": None, "type": "unknown", "likes": None, "num_comments": None}}

    @staticmethod
    def listing(children: list[dict[str, Any]], after: str | None = None,
                before: str | None = None) -> dict[str, Any]:
        return {"kind": "Listing", "data": {"after": after, "before": before, "children": children,
                                            "dist": len(children), "modhash": None, "geo_filter": ""}}

    # ---- JSON: comment trees --------------------------------------------------------------------
    def _descendants(self, cid: str) -> int:
        total = 0
        for child in self.children.get(f"t1_{cid}", []):
            total += 1 + self._descendants(child)
        return total

    def _more(self, parent: str, ids: list[str], depth: int) -> dict[str, Any]:
        count = sum(1 + self._descendants(i) for i in ids)
        first = ids[0] if ids else "_"
        return {"kind": "more", "data": {"count": count, "name": f"t1_{first}", "id": first,
                                         "parent_id": parent, "depth": depth, "children": ids}}

    def _tree(self, parent: str, ids: list[str], depth: int, budget: list[int],
              max_depth: int) -> list[dict[str, Any]]:
        """Render comments `ids` (siblings under `parent`) with their replies, while the budget lasts."""
        out: list[dict[str, Any]] = []
        for index, cid in enumerate(ids):
            if budget[0] <= 0:
                rest = ids[index:]
                for start in range(0, len(rest), 100):      # Reddit caps a `more` at 100 children
                    out.append(self._more(parent, rest[start:start + 100], depth))
                break
            budget[0] -= 1
            comment = self.comments[cid]
            kids = self.children.get(f"t1_{cid}", [])
            replies: Any = ""
            if kids:
                if depth + 1 >= max_depth:       # "continue this thread": count 0, no children
                    more = {"kind": "more", "data": {"count": 0, "name": "t1__", "id": "_",
                                                     "parent_id": f"t1_{cid}", "depth": depth + 1, "children": []}}
                    replies = self.listing([more])
                else:
                    rendered = self._tree(f"t1_{cid}", kids, depth + 1, budget, max_depth)
                    replies = self.listing(rendered) if rendered else ""
            out.append(self.t1(comment, depth=depth, replies=replies))
        return out

    def submission_page(self, sid: str, limit: int | None, sort: str, focus: str | None = None) -> list[Any]:
        with self.lock:
            submission = self.submissions[sid]
            budget = [min(limit or self.comment_limit, 500)]
            if focus:
                comment = self.comments[focus]
                tree = self._tree(comment.parent_id, [focus], 0, budget, self.max_depth)
            else:
                roots = self._sorted(self.children.get(f"t3_{sid}", []), sort)
                tree = self._tree(f"t3_{sid}", roots, 0, budget, self.max_depth)
            return [self.listing([self.t3(submission)]), self.listing(tree)]

    def _sorted(self, ids: list[str], sort: str) -> list[str]:
        return list(reversed(ids)) if sort == "new" else list(ids)

    def more_children(self, link_id: str, ids: list[str], sort: str) -> dict[str, Any]:
        """/api/morechildren: the asked-for comments and their replies, flat, parents first, up to 100;
        what does not fit comes back as `more` objects."""
        with self.lock:
            budget = [100]
            things: list[dict[str, Any]] = []
            wanted = [i for i in ids if i in self.comments and self.comments[i].link_id == link_id]

            def walk(cid: str, depth: int) -> None:
                budget[0] -= 1
                comment = self.comments[cid]
                things.append(self.t1(comment, depth=depth))
                kids = self.children.get(f"t1_{cid}", [])
                for index, kid in enumerate(kids):
                    if budget[0] <= 0:
                        things.append(self._more(f"t1_{cid}", kids[index:index + 100], depth + 1))
                        return
                    walk(kid, depth + 1)

            for index, cid in enumerate(wanted):
                if budget[0] <= 0:
                    rest = wanted[index:]
                    parent = self.comments[rest[0]].parent_id
                    things.append(self._more(parent, rest, 0))
                    break
                walk(cid, 0)
            return {"json": {"errors": [], "data": {"things": things}}}

    # ---- JSON: listings -------------------------------------------------------------------------
    @staticmethod
    def _page(items: list[Any], name: Callable[[Any], str], limit: int, after: str | None,
              before: str | None) -> tuple[list[Any], str | None, str | None]:
        """A newest-first page: after=X gives the items older than X, before=X the `limit` items just
        newer than X. Returns the page and the listing's after/before."""
        names = [name(i) for i in items]
        if before:
            if before not in names:
                return [], None, None
            end = names.index(before)
            start = max(0, end - limit)
            page = items[start:end]
            return page, (name(page[-1]) if page else None), (name(page[0]) if page and start > 0 else None)
        start = 0
        if after:
            if after not in names:
                return [], None, None
            start = names.index(after) + 1
        page = items[start:start + limit]
        more = start + limit < len(items)
        return page, (name(page[-1]) if page and more else None), (name(page[0]) if page and start > 0 else None)

    def subreddit_comments(self, subs: str, limit: int, after: str | None, before: str | None) -> dict[str, Any]:
        with self.lock:
            wanted = {s.lower() for s in subs.split("+")}
            items = [c for c in self.comments.values()
                     if c.subreddit.lower() in wanted and not (c.deleted or c.removed)]
            items.sort(key=lambda c: int(c.id, 36), reverse=True)
            items = items[:self.listing_cap]
            page, after_name, before_name = self._page(items, lambda c: f"t1_{c.id}", limit, after, before)
            return self.listing([self.t1(c, listing=True) for c in page], after_name, before_name)

    def user_comments(self, user: str, limit: int, after: str | None, before: str | None) -> dict[str, Any]:
        with self.lock:
            items = [c for c in self.comments.values() if c.author.lower() == user.lower() and not c.deleted]
            items.sort(key=lambda c: int(c.id, 36), reverse=True)
            page, after_name, before_name = self._page(items, lambda c: f"t1_{c.id}", limit, after, before)
            return self.listing([self.t1(c, listing=True) for c in page], after_name, before_name)

    def user_submissions(self, user: str, limit: int, after: str | None, before: str | None) -> dict[str, Any]:
        """/user/NAME/submitted: the user's self posts, newest first (t3 things)."""
        with self.lock:
            items = [s for s in self.submissions.values() if s.author.lower() == user.lower()]
            items.sort(key=lambda s: int(s.id, 36), reverse=True)
            page, after_name, before_name = self._page(items, lambda s: f"t3_{s.id}", limit, after, before)
            return self.listing([self.t3(s) for s in page], after_name, before_name)

    def inbox(self, user: str, which: str, limit: int, after: str | None, before: str | None,
              mark: bool) -> dict[str, Any]:
        with self.lock:
            if which == "sent":
                items = [m for m in self.messages.values() if m.author.lower() == user.lower()]
            else:
                items = [m for m in self.messages.values() if m.dest.lower() == user.lower()
                         and (m.new or which != "unread")]
            items.sort(key=lambda m: int(m.id, 36), reverse=True)
            page, after_name, before_name = self._page(items, lambda m: f"t4_{m.id}", limit, after, before)
            rendered = [self.t4(m) for m in page]
            if mark and which != "sent":
                for message in page:
                    message.new = False
            return self.listing(rendered, after_name, before_name)

    def info(self, fullnames: list[str]) -> dict[str, Any]:
        with self.lock:
            out: list[dict[str, Any]] = []
            for name in fullnames[:100]:
                kind, _, thing = name.partition("_")
                if kind == "t1" and thing in self.comments:
                    out.append(self.t1(self.comments[thing], listing=True))
                elif kind == "t3" and thing in self.submissions:
                    out.append(self.t3(self.submissions[thing]))
                elif kind == "t4" and thing in self.messages:
                    out.append(self.t4(self.messages[thing]))
            return self.listing(out)
