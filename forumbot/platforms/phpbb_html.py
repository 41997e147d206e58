"""Reading phpBB 3.3 (prosilver) pages: the selectors seen in the recordings of a real board
(../shared/phpbb/README.md), and a post's rendered body turned back into BBCode text.

Pure functions over BeautifulSoup trees: no requests, no clock. `phpbb.py` does the talking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup, NavigableString, Tag

from forumbot.errors import PlatformError

_POST_ID = re.compile(r"^p([0-9]{1,18})$")
_EDITED = re.compile(r"edited (\d+) times? in total")
_SIZE = re.compile(r"font-size:\s*(\d+)%")
_COLOUR = re.compile(r"(?:^|;)\s*color:\s*([^;]+)")
_PROFILE = re.compile(r"mode=viewprofile")
_COUNT = re.compile(r"(\d[\d,]*)\s+(?:posts?|users?|topics?|matches|messages?)\b")   # "29 posts", "9 users"
_BLOCK = ("[list", "[quote", "[code")
_VOTE_PREFIX = re.compile(r"^\s*vote\s*:\s*", re.IGNORECASE)
BOARD_DATE = "%a %b %d, %Y %I:%M %p"        # phpBB's default "D M d, Y g:i a"


def parse(html: str | bytes) -> BeautifulSoup:
    return BeautifulSoup(html, "lxml")


def query(href: str) -> dict[str, str]:
    """A link's query as a flat dict (the last value of a repeated key)."""
    return {k: v[-1] for k, v in parse_qs(urlsplit(href).query, keep_blank_values=True).items()}


_NUMBER = re.compile(r"-?[0-9]{1,18}")


def _int(value: str | None) -> int | None:
    """A number the page shows, or None: only ASCII digits, at most 18 ("²".isdigit() is true and int() refuses
    it; 5,000 digits exceed int()'s limit)."""
    return int(value) if value and _NUMBER.fullmatch(value) else None


def user_id(link: Tag | None) -> int | None:
    return _int(query(str(link.get("href", ""))).get("u")) if link is not None else None


# ---- what kind of page ---------------------------------------------------------------------------
def login_box(soup: BeautifulSoup) -> bool:
    return soup.select_one("form#login") is not None


def logged_in(soup: BeautifulSoup) -> bool:
    return soup.select_one('a[href*="mode=logout"]') is not None


def info_message(soup: BeautifulSoup) -> str | None:
    """The text of an info page (`div#message`), a General Error page, or None."""
    panel = soup.select_one("div#message")
    if panel is not None:
        body = panel.select_one("p")
        return " ".join((body or panel).get_text(" ").split())
    if soup.select_one("body#errorpage") is not None:
        content = soup.select_one("#content")
        return " ".join(content.get_text(" ").split()) if content else "General Error"
    return None


def form_errors(soup: BeautifulSoup) -> list[str]:
    """Errors a form came back with: `p.error` on posting and PM forms, `div.error` on the login form."""
    found = soup.select("form#postform p.error, #postingbox p.error, form#login div.error")
    return [" ".join(e.get_text(" ").split()) for e in found if e.get_text(strip=True)]


def new_posts_review(soup: BeautifulSoup) -> bool:
    """A reply refused because posts came in since its form: the form is back with `ppr<ID>` reviews of them
    (the topic review under every posting form uses `pr<ID>`)."""
    return soup.select_one('form#postform div.postbody[id^="ppr"]') is not None


def login_reason(soup: BeautifulSoup) -> str:
    title = soup.select_one("form#login h2.login-title")
    return " ".join(title.get_text(" ").split()) if title else ""


def unread_pm_count(soup: BeautifulSoup) -> int | None:
    """The header's unread PM count (None when the page has no header badge: logged out, error page)."""
    badge = soup.select_one('a[href="./ucp.php?i=pm&folder=inbox"] strong.badge')
    return _int(badge.get_text(strip=True)) if badge is not None else None


def logout_link(soup: BeautifulSoup) -> str | None:
    link = soup.select_one('a[href*="mode=logout"]')
    return str(link["href"]) if link is not None else None


# ---- forms ---------------------------------------------------------------------------------------
def form_fields(form: Tag, submit: str = "post") -> list[tuple[str, str]]:
    """The fields a browser would send for `form` when its `submit` button is pressed, in page order."""
    out: list[tuple[str, str]] = []
    for el in form.find_all(["input", "textarea", "select", "button"]):
        name = el.get("name")
        if not name or el.has_attr("disabled"):
            continue
        if el.name == "textarea":
            out.append((name, el.get_text()))
        elif el.name == "select":
            chosen = el.find("option", selected=True) or el.find("option")
            if chosen is not None:
                out.append((name, str(chosen.get("value", chosen.get_text()))))
        elif el.name == "button":
            continue
        else:
            kind = str(el.get("type", "text")).lower()
            if kind in ("submit", "image", "reset", "button", "file"):
                if kind == "submit" and name == submit:
                    out.append((name, str(el.get("value", ""))))
                continue
            if kind in ("checkbox", "radio") and not el.has_attr("checked"):
                continue
            out.append((name, str(el.get("value", "on" if kind == "checkbox" else ""))))
    return out


# ---- topic pages ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PagePost:
    """One post as a topic page shows it."""

    id: int
    author: str
    author_id: int | None
    created: datetime
    body: str                       # BBCode text
    subject: str = ""
    edit_count: int = 0             # "edited N times in total"
    edit_notice: str = ""           # the notice's text (who, when, reason)
    deleted: bool = False           # a soft-deleted post as a moderator sees it


@dataclass(frozen=True)
class TopicPage:
    posts: list[PagePost]
    total: int | None               # "29 posts"
    page: int                       # the current page, from 1
    pages: int
    next_start: int | None          # the next page's start=, None on the last page
    forum_id: int | None
    title: str
    locked: bool


def topic_page(soup: BeautifulSoup) -> TopicPage:
    posts = [_page_post(div) for div in soup.find_all("div", id=_POST_ID) if "post" in div.get("class", [])]
    total, page, pages, next_start = pagination(soup)
    crumbs = [c.get("data-forum-id") for c in soup.select("span.crumb[data-forum-id]")]
    title_link = soup.select_one("h2.topic-title a")
    first_button = soup.select_one(".action-bar a.button")
    locked = first_button is not None and first_button.select_one("i.fa-lock") is not None
    return TopicPage(posts, total, page, pages, next_start, _int(crumbs[-1]) if crumbs else None,
                     title_link.get_text(strip=True) if title_link else "", locked)


def page_topic(soup: BeautifulSoup) -> int | None:
    """The topic a viewtopic page shows (a permalink `viewtopic.php?p=` answers with the post's page): its
    canonical link's `t=`, else the topic title's link's."""
    for link in (soup.select_one("link[rel=canonical]"), soup.select_one("h2.topic-title a")):
        topic = _int(query(str(link.get("href", ""))).get("t")) if link is not None else None
        if topic is not None:
            return topic
    return None


def pagination(soup: BeautifulSoup) -> tuple[int | None, int, int, int | None]:
    """(item count, current page, page count, next page's start) from the first `div.pagination`."""
    block = soup.select_one("div.pagination")
    if block is None:
        return None, 1, 1, None
    count = _COUNT.search(block.get_text(" "))
    numbers = [n for n in (_int(li.get_text(strip=True)) for li in block.select("li")) if n is not None]
    active = block.select_one("li.active span")
    strong = block.select("strong")          # "Page 1 of 1" on one-page lists
    page = _int((active or strong[0]).get_text(strip=True)) or 1 if active or strong else 1
    nxt = block.select_one("li.arrow.next a[rel=next]")
    next_start = _int(query(str(nxt["href"])).get("start")) if nxt is not None else None
    total = int(count.group(1).replace(",", "")) if count else None
    return total, page, max(numbers + [page]), next_start


def _page_post(div: Tag) -> PagePost:
    # find() rather than CSS selectors here: this runs for every post and soupsieve is several times slower
    number = int(div["id"][1:])
    byline = div.find("p", class_="author")
    author = byline.find("a", class_=("username", "username-coloured")) if byline else None
    when = byline.find("time", datetime=True) if byline else None
    heading = div.find(id=f"post_content{number}")
    subject = heading.find("h3").find("a") if heading is not None and heading.find("h3") else None
    notice = div.find("div", class_="notice")
    notice_text = " ".join(notice.get_text(" ").split()) if notice is not None else ""
    count = _EDITED.search(notice_text)
    postbody = div.find("div", class_="postbody")
    content = postbody.find("div", class_="content") if postbody is not None else None
    return PagePost(id=number, author=author.get_text() if author else "", author_id=user_id(author),
                    created=_iso(str(when["datetime"])) if when is not None else datetime.fromtimestamp(0, UTC),
                    body=to_bbcode(content) if content is not None else "",
                    subject=subject.get_text() if subject else "",
                    edit_count=int(count.group(1)) if count else (1 if notice_text else 0), edit_notice=notice_text,
                    deleted="deleted" in div.get("class", []))


def _iso(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise PlatformError(f"the board's page gives a post the time '{text[:40]}', not an ISO date: is this a "
                            "phpBB 3.3 board with the prosilver style?") from None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)


def board_time(text: str, zone: tzinfo = UTC) -> datetime | None:
    """A date in the board's default format ("Mon Nov 30, 2026 11:25 am") in the reader's timezone `zone`;
    None when the text holds none (another date format chosen in the account's settings)."""
    match = re.search(r"[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2} [ap]m", text)
    if match is None:
        return None
    try:
        return datetime.strptime(match.group(0), BOARD_DATE).replace(tzinfo=zone).astimezone(UTC)
    except ValueError:      # "Mon Nov 99, 2026": no date
        return None


# ---- forum lists and search results --------------------------------------------------------------
@dataclass(frozen=True)
class TopicRow:
    id: int
    title: str
    last_post: int | None
    replies: int | None
    locked: bool


def topic_rows(soup: BeautifulSoup) -> list[TopicRow]:
    rows = []
    for item in soup.select("ul.topiclist.topics li.row dl.row-item"):
        link = item.select_one("a.topictitle")
        if link is None:
            continue
        last = item.select_one('dd.lastpost a[href*="p="]')
        replies = item.select_one("dd.posts")
        rows.append(TopicRow(id=_int(query(str(link["href"])).get("t")) or 0, title=link.get_text(),
                             last_post=_int(query(str(last["href"])).get("p")) if last is not None else None,
                             replies=_int(replies.get_text(" ").split()[0]) if replies else None,
                             locked=any("locked" in c for c in item.get("class", []))))
    return rows


# ---- private messages ----------------------------------------------------------------------------
@dataclass(frozen=True)
class PmRow:
    id: int
    subject: str
    user: str          # the sender (inbox) or the recipient (outbox, sentbox)
    user_id: int | None
    unread: bool


def pm_rows(soup: BeautifulSoup) -> list[PmRow]:
    rows = []
    for item in soup.select("li.row dl.row-item"):
        link = item.select_one("a.topictitle")
        if link is None or "mode=view" not in str(link.get("href", "")):
            continue
        who = item.select_one("a.username, a.username-coloured")
        rows.append(PmRow(id=_int(query(str(link["href"])).get("p")) or 0, subject=link.get_text(),
                          user=who.get_text() if who else "", user_id=user_id(who),
                          unread="pm_unread" in item.get("class", [])))
    return rows


@dataclass(frozen=True)
class PmView:
    id: int
    subject: str
    author: str
    author_id: int | None
    sent: datetime | None
    body: str
    recipients: list[str] = field(default_factory=list)


def pm_view(soup: BeautifulSoup, zone: tzinfo = UTC) -> PmView | None:
    div = soup.select_one("div.post.pm[id^=post-]")
    if div is None or _int(str(div["id"])[5:]) is None:
        return None
    author = div.select_one("p.author")
    names = author.select("a.username, a.username-coloured") if author else []
    subject = div.select_one("h3.first")
    content = div.select_one("div.content")
    return PmView(id=int(str(div["id"])[5:]), subject=subject.get_text() if subject else "",
                  author=names[0].get_text() if names else "", author_id=user_id(names[0]) if names else None,
                  sent=board_time(author.get_text(" "), zone) if author else None,
                  body=to_bbcode(content) if content is not None else "", recipients=[a.get_text() for a in names[1:]])


def sent_pm_id(soup: BeautifulSoup) -> int | None:
    """The id in a "message has been sent" page's "View your submitted private message" link."""
    link = soup.select_one('div#message a[href*="mode=view"]')
    return _int(query(str(link["href"])).get("p")) if link is not None else None


def profile_id(soup: BeautifulSoup) -> int | None:
    for link in soup.select('a[href*="author_id="], a[href*="mode=compose"][href*="u="]'):
        found = _int(query(str(link["href"])).get("author_id") or query(str(link["href"])).get("u"))
        if found:
            return found
    return None


def member_rows(soup: BeautifulSoup) -> dict[str, int]:
    out = {}
    for link in soup.select("table#memberlist tbody tr a.username, table#memberlist tbody tr a.username-coloured"):
        uid = user_id(link)
        if uid:
            out[link.get_text()] = uid
    return out


# ---- a rendered body back to BBCode --------------------------------------------------------------
def to_bbcode(content: Tag) -> str:
    """A post's `div.content` as the BBCode dialect's text: the tags the recorded pages render, back."""
    return "".join(_children(content)).strip("\n")


# Tags nested deeper than this are read as their plain text: a player may nest thousands of [b] or [quote]
# tags on a board without a depth limit, and reading each level by recursion raised RecursionError.
MAX_DEPTH = 100


def _children(tag: Tag, depth: int = 0) -> list[str]:
    out: list[str] = []
    for child in tag.children:
        text = _node(child, depth + 1)
        if text.startswith(_BLOCK) and out and not out[-1].endswith("\n"):
            out.append("\n")        # a block starts a line (phpBB keeps the newline before it as plain text)
        out.append(text)
    return out


def _node(node: object, depth: int = 0) -> str:
    if isinstance(node, NavigableString):
        if node.__class__.__name__ in ("Comment", "Doctype", "CData", "ProcessingInstruction"):
            return ""
        return str(node).replace("\n", "")      # phpBB writes "<br>\n": the <br> is the line break
    if not isinstance(node, Tag):
        return ""
    if depth > MAX_DEPTH:
        return node.get_text().replace("\n", "")
    name, classes, style = node.name, node.get("class", []), str(node.get("style", ""))
    # The blocks first, each reading its own children: the inner text read before them as well made the work
    # double at each level (30 nested quotes or lists: 2**30 visits).
    if name == "br":
        return "\n"
    if name == "img":
        return str(node.get("alt", ""))
    if name in ("ul", "ol"):
        kind = "=1" if name == "ol" else ""
        items = "".join(f"[*]{''.join(_children(li, depth))}\n" for li in node.find_all("li", recursive=False))
        return f"[list{kind}]\n{items}[/list]\n"
    if name == "blockquote":
        return _quote(node, depth)
    if name == "div" and "codebox" in classes:
        code = node.find("code")
        return f"[code]{code.get_text() if code else ''}[/code]\n"
    inner = "".join(_children(node, depth))
    if name == "strong":
        return f"[b]{inner}[/b]"
    if name == "em":
        return f"[i]{inner}[/i]"
    if name == "span":
        if "bbvote" in classes:           # a board's template may print a prefix of its own: "VOTE: Name"
            return f"[vote]{_VOTE_PREFIX.sub('', inner)}[/vote]"
        if "text-decoration:underline" in style.replace(" ", ""):
            return f"[u]{inner}[/u]"
        colour, size = _COLOUR.search(style), _SIZE.search(style)
        if colour:
            return f"[color={colour.group(1).strip()}]{inner}[/color]"
        if size:
            return f"[size={size.group(1)}]{inner}[/size]"
        return inner
    if name == "a":
        href = str(node.get("href", ""))
        if "postlink" in classes and inner != href:
            return f"[url={href}]{inner}[/url]"
    return inner


def _quote(node: Tag, depth: int) -> str:
    body = node.find("div", recursive=False) or node
    cite = body.find("cite", recursive=False)
    who = ""
    if cite is not None:
        author = cite.find("a", href=_PROFILE)
        who = author.get_text() if author is not None else cite.get_text().removesuffix(" wrote:").strip()
    kept = [child for child in body.children if child is not cite]
    inner = "".join(_node(child, depth + 1) for child in kept).strip("\n")
    opener = f'[quote="{who}"]' if who else "[quote]"
    return f"{opener}{inner}[/quote]\n"
