"""A fake phpBB 3.3 board on 127.0.0.1: the pages of the recorded prosilver markup, filled from a Board.

Behaviours as recorded (../shared/phpbb/README.md): cookies `<name>_u/_k/_sid` and `sid` in links until
cookies come back; a missing, expired or foreign-User-Agent session answers 200 with guest pages or a
login box; forms carry creation_time/form_token and are refused within `form_min_age` seconds; topics
paginate at `posts_per_page`; replies are refused with a review when new posts came in since the form;
flood limit, too long, empty, locked; PM sends answer 200 with a meta refresh. From the second recording: a
disabled board answers 200 "currently unavailable" everywhere but the login form; after max_login_attempts
failures the login POST wants a CAPTCHA, the right password too; a held post answers 200 "will need to be
approved" and stays invisible (its permalink 404s) until approved; the title counts unread PMs. Faults:
Board.fail().
"""

from __future__ import annotations

import html
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.cookies import SimpleCookie
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fakehttp import FakeHandler
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from .bbcode import Quoted, render
from .state import Board, Session

_env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True)
LOCKED = "This topic is locked, you cannot edit posts or make further replies."
FORM_INVALID = "The submitted form was invalid. Try submitting again."
INCORRECT = ("You have specified an incorrect {0}. Please check your {0} and try again. If you continue to have "
             'problems please contact the <a href="./memberlist.php?mode=contactadmin">Board Administrator</a>.')
DISABLED = "Sorry but this board is currently unavailable."
ATTEMPTS = ("You exceeded the maximum allowed number of login attempts. In addition to your username and password "
            "you now also have to pass the CAPTCHA test.")
HELD = ("This message has been submitted successfully, but it will need to be approved by a moderator before it is "
        "publicly viewable. You will be notified when your post has been approved.<br /><br />"
        '<a href="./viewforum.php?f={forum}">Return to the forum last visited</a>')


def board_date(seconds: float) -> str:
    value = datetime.fromtimestamp(seconds, UTC)
    return value.strftime("%a %b %d, %Y ") + value.strftime("%I:%M %p").lstrip("0").lower()


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


class Answer(Exception):
    """A finished response: status, body, extra headers."""

    def __init__(self, status: int, body: str, headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or []


class Handler(FakeHandler):
    board: Board
    base: str

    # ---- plumbing ------------------------------------------------------------------------------
    def _handle(self, method: str) -> None:
        board = self.board
        split = urlsplit(self.path)
        self.q = dict(parse_qsl(split.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8") if length else ""
        self.form_list = parse_qsl(raw, keep_blank_values=True)
        self.form = dict(self.form_list)
        self.set_cookies: list[str] = []
        board.requests.append((method, self.path))
        fault = next((f for f in board.faults if f.match in f"{method} {self.path}" and f.times > 0), None)
        if fault is not None:
            fault.times -= 1
            if fault.kind.isdigit():                      # "500", "503", "403", "429": a server or proxy refusal
                return self._send(int(fault.kind), "<html><body>Refused</body></html>")
            if fault.kind == "redirect":                  # a proxy or a moved board: the same page elsewhere
                return self._send(301, "", [("Location", f"{self.base}{self.path}")])
            if fault.kind == "redirect_away":             # the same server under another host name
                away = self.base.replace("127.0.0.1", "localhost")
                return self._send(302, "", [("Location", f"{away}{self.path}")])
            if fault.kind == "timeout":
                time.sleep(3)
            if fault.kind == "login_box":                 # the session is gone, "remember me" keys too
                board.expire_sessions()
                board.autologin.clear()
        with board.lock:
            self.session = self._session()
            try:
                if board.disabled and not (split.path == "/ucp.php" and self.q.get("mode") == "login"):
                    self.message(DISABLED)
                route = getattr(self, "r_" + split.path.strip("/").replace(".php", "").replace("/", "_"), None)
                if route is None:
                    raise Answer(404, "<html><body>Not Found</body></html>")
                route(method)
                raise Answer(500, "no answer")
            except Answer as answer:
                body = answer.body
                if fault is not None and fault.kind == "truncated":
                    body = body[:len(body) // 3]
                self._send(answer.status, body, answer.headers)

    def _send(self, status: int, body: str, headers: list[tuple[str, str]] | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for cookie in self.set_cookies:
            self.send_header("Set-Cookie", cookie)
        for name, value in headers or []:
            self.send_header(name, value)
        self.send_header("Content-type", "text/html; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):     # the client gave up (an injected timeout)
            self.close_connection = True

    def _session(self) -> Session:
        jar = SimpleCookie(self.headers.get("Cookie") or "")
        name = self.board.cookie_name
        self.cookies_sent = f"{name}_sid" in jar
        sid = jar[f"{name}_sid"].value if f"{name}_sid" in jar else self.q.get("sid")
        agent = self.headers.get("User-Agent") or ""
        found = self.board.session(sid, agent)
        if found is None:
            # a valid "remember me" key signs the user in again silently, and is replaced (recorded: 115)
            user = self.board.autologin.pop(jar[f"{name}_k"].value, None) if f"{name}_k" in jar else None
            found = self.board.new_session(user or Board.GUEST, agent)
            self._cookies(found, remember=user is not None)
        return found

    def _cookies(self, session: Session, remember: bool = False) -> None:
        name = self.board.cookie_name
        expires = "expires=Tue, 30-Nov-2027 11:31:15 GMT; path=/; HttpOnly"
        key = ""
        if remember:
            key = secrets.token_hex(8)
            self.board.autologin[key] = session.user
        self.set_cookies += [f"{name}_u={session.user}; {expires}", f"{name}_k={key}; {expires}",
                             f"{name}_sid={session.sid}; {expires}"]

    @property
    def me(self) -> Any:
        return self.board.users[self.session.user] if self.session.user != Board.GUEST else None

    def _sid_q(self) -> tuple[str, str]:
        if self.cookies_sent:
            return "", ""
        return f"?sid={self.session.sid}", f"&sid={self.session.sid}"

    def page(self, template: str, title: str, status: int = 200, *, crumbs: list[dict[str, Any]] | None = None,
             refresh: str = "", canonical: str = "", section: str = "index", **values: Any) -> None:
        sid_q, sid_amp = self._sid_q()
        common = {"me": self.me, "sid": self.session.sid, "sid_q": sid_q, "sid_amp": sid_amp}
        body = _env.get_template(template).render(**common, **values)
        unread = 0
        if self.me is not None:
            unread = sum(1 for pm in self.board.pms.values() if self.me.id in pm.unread)
        text = _env.get_template("layout.html").render(**common, body=Markup(body), title=title, crumbs=crumbs or [],
                                                      refresh=refresh, canonical=canonical, section=section,
                                                      unread_pms=unread)
        raise Answer(status, text)

    def message(self, text: str, status: int = 200, refresh: str = "") -> None:
        self.page("message.html", "Information", status, heading="Information", text=Markup(text), refresh=refresh)

    def login_box(self, reason: str, error: str = "", username: str = "", captcha: bool = False) -> None:
        ctime, token = self.board.form_token()
        self.page("login.html", "Login", reason=reason, error=Markup(error), username=username,
                  redirect="./" + self.path.lstrip("/"), creation_time=ctime, form_token=token,
                  section="ucp", captcha=secrets.token_hex(16) if captcha else "")

    def need_login(self, reason: str) -> None:
        if self.me is None:
            self.login_box(reason)

    def user_link(self, user_id: int) -> Markup:
        user = self.board.users.get(user_id)
        if user is None:
            return Markup('<span class="username">Guest</span>')
        style = f' style="color: {user.colour};"' if user.colour else ""
        kind = "username-coloured" if user.colour else "username"
        return Markup(f'<a href="./memberlist.php?mode=viewprofile&amp;u={user.id}"{style} class="{kind}">'
                      f"{html.escape(user.name)}</a>")

    def rendered(self, text: str) -> Markup:
        board = self.board

        def quoted(post_id: int) -> Quoted | None:
            post = board.posts.get(post_id)
            if post is None:
                return None
            author = board.users[post.author]      # the cite's link has no class (as recorded)
            link = f'<a href="./memberlist.php?mode=viewprofile&amp;u={author.id}">{html.escape(author.name)}</a>'
            return Quoted(link,
                          board_date(post.time))
        return Markup(render(text, quoted=quoted))

    def crumbs(self, forum: int) -> list[dict[str, Any]]:
        chain = []
        while forum:
            chain.insert(0, {"id": forum, "name": self.board.forums.get(forum, "")})
            forum = self.board.forum_parent.get(forum, 0)
        return chain

    # ---- reading -------------------------------------------------------------------------------
    def r_index(self, method: str) -> None:
        self.page("message.html", "Index page", heading="Board index", text="Welcome")

    def r_viewtopic(self, method: str) -> None:
        board = self.board
        per = board.posts_per_page
        post_id = int(self.q["p"]) if self.q.get("p", "").isdigit() else None
        if post_id is not None:
            post = board.posts.get(post_id)
            if post is None or not post.approved:
                self.message("The requested topic does not exist.", 404)
            topic = board.topics[post.topic]
            visible = [p.id for p in board.visible(topic.id)]
            where = visible.index(post_id) if post_id in visible else len([p for p in visible if p < post_id])
            start = (where // per) * per
        else:
            topic = board.topics.get(int(self.q.get("t", "0") or 0))
            if topic is None:
                self.message("The requested topic does not exist.", 404)
            start = int(self.q.get("start", "0") or 0)
        if topic.forum in board.hidden_forums and self.me is not None:
            self.message("You are not authorised to read this forum.")
        posts = board.visible(topic.id)
        pages = max(1, -(-len(posts) // per))
        start = min(max(0, start - start % per), (pages - 1) * per)
        shown = posts[start:start + per]
        last_id = max((p.id for p in posts), default=0)
        ctime, token = board.form_token()
        sid_q, sid_amp = self._sid_q()

        def url(at: int) -> str:
            return f"./viewtopic.php?t={topic.id}" + (f"&start={at}" if at else "") + sid_amp
        pg = {"count": len(posts), "noun": "post" if len(posts) == 1 else "posts", "pages": pages,
              "page": start // per + 1, "per": per, "url": url,
              "prev": start - per if start else None, "next": start + per if start + per < len(posts) else None}
        title = topic.title + (f" - Page {pg['page']}" if pg["page"] > 1 else "")
        self.page("viewtopic.html", title, crumbs=self.crumbs(topic.forum), section="viewtopic",
                  canonical=f"{self.base}/viewtopic.php?t={topic.id}" + (f"&start={start}" if start else ""),
                  topic=topic, posts=[self._post_values(p) for p in shown], pg=pg, last_post=last_id,
                  creation_time=ctime, form_token=token)

    def _post_values(self, post: Any) -> dict[str, Any]:
        board = self.board
        notice = None
        topic_last = board.topics[post.topic].posts[-1] == post.id
        if post.edits and not (post.edit_user == post.author and topic_last and not post.edit_reason):
            notice = {"link": self.user_link(post.edit_user), "date": board_date(post.edit_time), "count": post.edits,
                      "reason": post.edit_reason}
        return {"id": post.id, "author": board.users[post.author].name, "author_id": post.author,
                "author_link": self.user_link(post.author), "author_posts": board.post_count(post.author),
                "subject": post.subject, "iso": iso(post.time), "date": board_date(post.time),
                "html": self.rendered(post.text), "notice": notice, "deleted": post.soft_deleted}

    def r_viewforum(self, method: str) -> None:
        board = self.board
        forum = int(self.q.get("f", "0") or 0)
        if forum not in board.forums:
            self.message("The forum you selected does not exist.", 404)
        rows = []
        for topic in board.topics.values():
            posts = board.visible(topic.id)
            if topic.forum != forum or not posts:
                continue
            first, last = posts[0], posts[-1]
            rows.append({"id": topic.id, "title": topic.title, "replies": len(posts) - 1,
                         "state": "topic_read_locked" if topic.locked else "topic_read",
                         "author_link": self.user_link(first.author), "first_iso": iso(first.time),
                         "first_date": board_date(first.time), "last_link": self.user_link(last.author),
                         "last_id": last.id, "last_iso": iso(last.time), "last_date": board_date(last.time),
                         "sort": last.time})
        rows.sort(key=lambda r: (-r["sort"], -r["last_id"]))
        self.page("viewforum.html", board.forums[forum], crumbs=self.crumbs(forum), section="viewforum",
                  forum={"id": forum, "name": board.forums[forum]}, topics=rows[:25])

    def r_memberlist(self, method: str) -> None:
        board = self.board
        if self.q.get("mode") == "viewprofile":
            user = board.users.get(int(self.q["u"])) if self.q.get("u", "").isdigit() else None
            if "un" in self.q:
                user = board.user_named(self.q["un"])
            if user is None or user.id == Board.GUEST:
                self.message("The requested user does not exist.", 404)
            self.page("profile.html", f"Viewing profile - {user.name}", user=user, posts=board.post_count(user.id))
        users = [{"id": u.id, "link": self.user_link(u.id), "posts": board.post_count(u.id)}
                 for u in board.users.values() if u.id != Board.GUEST]
        self.page("memberlist.html", "Members", users=users)

    # ---- signing in ----------------------------------------------------------------------------
    def r_ucp(self, method: str) -> None:
        mode = self.q.get("mode", "")
        if mode == "login":
            return self._login(method)
        if mode == "logout":
            if self.me is not None and self.q.get("sid") == self.session.sid:
                self.board.sessions.pop(self.session.sid, None)
                guest = self.board.new_session(Board.GUEST, self.session.agent)
                self._cookies(guest)
                raise Answer(302, "", [("Location", f"{self.base}/index.php?sid={guest.sid}")])
            self.message("Invalid session. Logout failed.")
        if self.q.get("i") in ("pm", "ucp_pm"):
            return self._pm(method)
        self.message("Module not accessible")

    def _login(self, method: str) -> None:
        if method == "GET":
            self.login_box("Login")
        if not self.board.form_ok(self.form.get("creation_time", ""), self.form.get("form_token", "")):
            self.login_box("Login", error=FORM_INVALID, username=self.form.get("username", ""))
        user = self.board.user_named(self.form.get("username", ""))
        if user is None:
            self.login_box("Login", error=INCORRECT.format("username"), username=self.form.get("username", ""))
        if user.login_attempts >= self.board.max_login_attempts:       # no CAPTCHA answer can come from a bot
            user.login_attempts += 1
            self.login_box("Login", error=ATTEMPTS, captcha=True)
        if user.password != self.form.get("password"):
            user.login_attempts += 1
            self.login_box("Login", error=INCORRECT.format("password"), username=user.name)
        user.login_attempts = 0
        self.board.sessions.pop(self.session.sid, None)
        session = self.board.new_session(user.id, self.session.agent)
        self._cookies(session, remember=self.form.get("autologin") == "on")
        raise Answer(302, "", [("Location", f"{self.base}/index.php?sid={session.sid}")])

    # ---- posting -------------------------------------------------------------------------------
    def r_posting(self, method: str) -> None:
        board = self.board
        mode = self.q.get("mode", "")
        if mode == "reply":
            topic = board.topics.get(int(self.q.get("t", "0") or 0))
            if topic is None:
                self.message("The requested topic does not exist.", 404)
            self.need_login("You need to login in order to reply to topics within this forum.")
            if topic.locked:
                self.message(LOCKED)
            forum, subject = topic.forum, f"Re: {topic.title}"
        elif mode == "post":
            forum = int(self.q.get("f", "0") or 0)
            if forum not in board.forums:
                self.message("The forum you selected does not exist.", 404)
            self.need_login("You need to login in order to post within this forum.")
            topic, subject = None, ""
        elif mode == "edit":
            post = board.posts.get(int(self.q.get("p", "0") or 0))
            if post is None:
                self.message("The requested post does not exist.", 404)
            self.need_login("You need to login in order to edit posts within this forum.")
            if post.author != self.me.id:
                self.message("You are not authorised to edit this post.")
            topic = board.topics[post.topic]
            forum, subject = topic.forum, post.subject
        else:
            self.message("No valid mode specified.")
        if method == "GET":
            self._posting_form(mode, forum, topic, subject, post.text if mode == "edit" else "")
        message = self.form.get("message", "")
        values = {"subject": self.form.get("subject", subject), "message": message}
        if not board.form_ok(self.form.get("creation_time", ""), self.form.get("form_token", "")):
            self._posting_form(mode, forum, topic, errors=[FORM_INVALID], **values)
        if topic is not None and topic.locked:
            self.message(LOCKED)
        errors = []
        if mode != "edit" and board.flood_interval and \
                time.time() - board.last_post_at.get(self.me.id, 0) < board.flood_interval:
            errors.append("You cannot make another post so soon after your last.")
        length = len(message.rstrip())
        if length == 0:
            errors.append("Your message contains too few characters.")
        elif length > board.max_post_chars:
            errors.append(Markup(f"Your message contains {length} characters.<br />The maximum number of allowed "
                                 f"characters is {board.max_post_chars}."))
        if mode == "post" and not values["subject"].strip():
            errors.append("You must specify a subject when posting a new topic.")
        if errors:
            self._posting_form(mode, forum, topic, errors=errors, **values)
        if mode == "reply":
            seen = int(self.form.get("topic_cur_post_id", "0") or 0)
            newer = [p for p in board.visible(topic.id) if p.id > seen]
            if seen and newer:
                self._posting_form(mode, forum, topic, review=newer, **values)
            post = board.add_post(topic.id, self.me.id, message, subject=values["subject"],
                                  approved=not self.me.needs_approval)
            board.last_post_at[self.me.id] = time.time()
            if not post.approved:
                self.message(HELD.format(forum=topic.forum))
            raise Answer(302, "", [("Location", f"{self.base}/viewtopic.php?p={post.id}#p{post.id}")])
        if mode == "post":
            topic = board.new_topic(forum, self.me.id, values["subject"], message)
            board.last_post_at[self.me.id] = time.time()
            raise Answer(302, "", [("Location", f"{self.base}/viewtopic.php?t={topic.id}")])
        post = board.posts[int(self.q["p"])]
        board.edit_post(post.id, message, by=self.me.id)
        raise Answer(302, "", [("Location", f"{self.base}/viewtopic.php?p={post.id}#p{post.id}")])

    def _posting_form(self, mode: str, forum: int, topic: Any, subject: str = "", message: str = "",
                      errors: list[str] | None = None, review: list[Any] | None = None) -> None:
        ctime, token = self.board.form_token()
        sid_q, sid_amp = self._sid_q()
        target = {"reply": f"t={topic.id}" if topic else "", "post": f"f={forum}", "edit": f"p={self.q.get('p')}"}
        last = max((p.id for p in self.board.visible(topic.id)), default=0) if topic and mode == "reply" else 0
        checksums = [("edit_post_message_checksum", "0" * 32), ("edit_post_subject_checksum", "0" * 32)] \
            if mode == "edit" else []
        self.page("posting.html", "Post a reply", crumbs=self.crumbs(forum), section="posting",
                  forum=forum, heading_title=topic.title if topic else self.board.forums[forum],
                  action=f"./posting.php?mode={mode}&{target[mode]}{sid_amp}",
                  box_title={"reply": "Post a reply", "post": "Post a new topic", "edit": "Edit post"}[mode],
                  errors=errors or [], subject=subject, message=message, topic_cur_post_id=last,
                  checksums=checksums, creation_time=ctime, form_token=token,
                  review=[{"id": p.id, "subject": p.subject, "author_link": self.user_link(p.author),
                           "date": board_date(p.time), "html": self.rendered(p.text)} for p in (review or [])])

    # ---- private messages ----------------------------------------------------------------------
    def _pm(self, method: str) -> None:
        board = self.board
        self.need_login("The board requires you to be registered and logged in to view this page.")
        me = self.me.id
        mode = self.q.get("mode", "")
        if self.q.get("mark") == "all":
            for pm in board.pms.values():
                pm.unread.discard(me)
            self.message("All messages were marked as read.", refresh=f"{self.base}/ucp.php?i=pm&folder=inbox")
        if mode == "view" and "p" in self.q:
            pm = board.pms.get(int(self.q["p"] or 0))
            if pm is None or (me not in pm.to and pm.sender != me):
                self.message("Private message could not be found.")
            pm.unread.discard(me)
            self.page("pm_view.html", pm.subject, section="ucp", m={
                "id": pm.id, "subject": pm.subject, "author_link": self.user_link(pm.sender),
                "date": board_date(pm.time),
                "recipients": [self.user_link(u) for u in pm.to], "html": self.rendered(pm.text)})
        if mode == "compose":
            return self._compose(method)
        if mode:
            raise Answer(503, _env.get_template("errorpage.html").render(text="Module not accessible"))
        folder = self.q.get("folder", "inbox")
        if folder == "inbox":
            mine = [pm for pm in board.pms.values() if me in pm.to]
            rows = [{"id": pm.id, "subject": pm.subject, "user_link": self.user_link(pm.sender),
                     "date": board_date(pm.time), "unread": me in pm.unread} for pm in mine]
        else:
            mine = [pm for pm in board.pms.values() if pm.sender == me and bool(pm.unread) == (folder == "outbox")]
            rows = [{"id": pm.id, "subject": pm.subject, "user_link": self.user_link(pm.to[0]),
                     "date": board_date(pm.time), "unread": False} for pm in mine]
        rows.sort(key=lambda r: -r["id"])
        self.page("pm_folder.html", "Private messages", section="ucp", rows=rows[:25], outgoing=folder != "inbox",
                  folder_id={"inbox": 0, "outbox": -2, "sentbox": -1}.get(folder, 0))

    def _compose(self, method: str) -> None:
        board = self.board
        recipients = [int(name[len("address_list[u]["):-1]) for name, value in self.form_list
                      if name.startswith("address_list[u][") and value == "to"]
        if method == "GET" and self.q.get("u", "").isdigit():
            recipients = [int(self.q["u"])]
        values = {"subject": self.form.get("subject", ""), "message": self.form.get("message", "")}
        errors: list[str] = []
        if method == "POST":
            names = [n.strip() for n in self.form.get("username_list", "").splitlines() if n.strip()]
            if not board.form_ok(self.form.get("creation_time", ""), self.form.get("form_token", "")):
                errors.append(FORM_INVALID)
            elif names:
                found = [board.user_named(n) for n in names]
                if any(u is None for u in found):
                    errors.append("The requested users to be added do not exist.")
                recipients += [u.id for u in found if u is not None]
            elif "post" in self.form:
                if not recipients:
                    errors.append("You must specify at least one recipient.")
                elif not values["message"].strip():
                    errors.append("Your message contains too few characters.")
                else:
                    pm = board.add_pm(self.me.id, recipients, values["subject"], values["message"])
                    self.message(f'This message has been sent successfully.<br /><br /><a href="./ucp.php?i=pm&amp;'
                                 f'mode=view&amp;p={pm.id}">View your submitted private message</a>',
                                 refresh=f"{self.base}/ucp.php?i=pm&mode=view&p={pm.id}")
        ctime, token = board.form_token()
        self.page("pm_compose.html", "Compose message", section="ucp", errors=errors, creation_time=ctime,
                  form_token=token,
                  recipients=[{"id": u, "link": self.user_link(u)} for u in dict.fromkeys(recipients)],
                  **values)


class FakePhpbb:
    """The server in a thread: `with FakePhpbb(board) as fake: fake.url`."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.httpd.RequestHandlerClass = type("BoundHandler", (Handler,), {"board": board, "base": self.url})
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakePhpbb:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def running(board: Board) -> Iterator[FakePhpbb]:
    with FakePhpbb(board) as fake:
        yield fake
