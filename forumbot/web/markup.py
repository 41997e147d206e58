"""Posts as HTML: markdown through markdown-it-py with raw HTML off, BBCode through a small renderer that
escapes everything first and then turns a short list of tags into HTML. Nothing a player writes can
become a tag, an attribute or a script: links keep only http(s), relative and #fragment targets, and
images are not rendered at all (no requests to other sites from a page)."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

SAFE_LINK = re.compile(r"^(https?://|/(?!/)|#)", re.IGNORECASE)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    md.enable(["strikethrough", "table"]).disable("image")
    md.validateLink = lambda url: bool(SAFE_LINK.match(url.strip()))   # type: ignore[method-assign]

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "nofollow noopener")
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)

    def fence(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].info = ""   # a fence's info string (~~~lang) became a class="language-…" a player chose
        return str(renderer.fence(tokens, idx, options, env))

    md.add_render_rule("fence", fence)
    return md


_MD = _markdown()

_SIMPLE = {"b": "strong", "i": "em", "u": "u", "s": "del", "strike": "del", "sup": "sup", "sub": "sub"}
_DROPPED = ("color", "colour", "size", "font", "center", "left", "right", "highlight")
# Escaped text: `"` became &#34; and `'` &#39;, so a tag's value is matched up to the closing bracket. Only the
# tags rendered or dropped are looked for: a pair is searched from each opener to the next one of its name, and
# thousands of distinct unknown openers ([aa][ab]…) each scanning to the end made a 20 KB post take seconds.
_NAMES = "|".join(sorted([*_SIMPLE, *_DROPPED, "url", "quote", "spoiler", "code"], key=len, reverse=True))
_TAG = re.compile(r"\[(?P<tag>" + _NAMES + r")(?:=(?P<value>[^\]\n]{0,300}))?\](?P<body>(?:(?!\[(?P=tag)[\]=]).)*?)"
                  r"\[/(?P=tag)\]", re.IGNORECASE | re.DOTALL)


def _bbcode_tag(match: re.Match[str]) -> str:
    tag, value, body = match.group("tag").lower(), match.group("value"), match.group("body")
    if tag in _SIMPLE:
        return f"<{_SIMPLE[tag]}>{body}</{_SIMPLE[tag]}>"
    if tag in _DROPPED:
        return body
    if tag == "url":
        target = value if value is not None else body
        plain = Markup(target).unescape().strip()
        if not SAFE_LINK.match(plain):
            return body
        return f'<a href="{escape(plain)}" rel="nofollow noopener">{body}</a>'
    if tag == "quote":
        cite = f"<cite>{re.sub(r'^&#34;|&#34;$', '', value.strip())}</cite>" if value else ""
        return f"<blockquote>{cite}{body}</blockquote>"
    if tag == "spoiler":
        return f"<details><summary>spoiler</summary>{body}</details>"
    if tag == "code":
        return f"<pre><code>{body}</code></pre>"
    return match.group(0)   # an unknown tag stays as the player wrote it, as text


def bbcode_html(text: str) -> str:
    html = str(escape(text)).replace("\r\n", "\n")
    for _ in range(20):   # innermost pairs first; nesting deeper than this stays as text
        html, count = _TAG.subn(_bbcode_tag, html)
        if not count:
            break
    return html.replace("\n", "<br>\n")


# Reddit's spoilers, >!text!< within a line: marked with two private-use characters before markdown reads
# the text (so a line starting with >! is no quote), turned into a span after, where they enclose plain text.
_SPOILER_OUT = re.compile("\ue000([^<\ue000\ue001]*)\ue001")


def _mark_spoilers(text: str) -> str:
    """Each line's `>!text!<` pairs, left to right, as the regex `>!(.+?)!<` would pair them, in one pass: once
    an opener has no `!<` after it, no later one has (the regex tried every opener to the line's end, and a
    100 KB line of them took 30 s)."""
    lines = []
    for line in text.split("\n"):
        at, parts = 0, []
        while (start := line.find(">!", at)) >= 0 and (end := line.find("!<", start + 3)) >= 0:
            parts += [line[at:start], "\ue000", line[start + 2:end], "\ue001"]
            at = end + 2
        lines.append("".join(parts) + line[at:])
    return "\n".join(lines)


def markdown_html(text: str) -> str:
    text = _mark_spoilers(text.replace("\ue000", "").replace("\ue001", ""))
    html = _SPOILER_OUT.sub(r'<span class="spoiler">\1</span>', _MD.render(text))
    return html.replace("\ue000", "").replace("\ue001", "")


def plain_html(text: str) -> Markup:
    """A post's text as written: escaped, its line breaks kept."""
    return Markup(str(escape(text)).replace("\n", "<br>\n"))


def to_html(text: str, dialect: str) -> Markup:
    """A post's body as safe HTML, read in its dialect (markdown, bbcode; anything else as plain text). The web
    forum renders each body once and keeps it (web/posthtml.py)."""
    if dialect == "markdown":
        return Markup(markdown_html(text))
    if dialect == "bbcode":
        return Markup(bbcode_html(text))
    return plain_html(text)


MARKER = re.compile(r"\n?(\[\]\(#fb[^)]*\)|\[url=#fb[^\]]*\]\[/url\])")     # markers.py: both forms


def quoted(author: str, text: str, dialect: str) -> str:
    """A post quoted for a reply, in the forum's dialect (quotes never count as commands)."""
    text = MARKER.sub("", text).strip()
    if dialect == "bbcode":
        return f"[quote={author}]{text}[/quote]\n\n"
    lines = [f"**{author}**:", *text.splitlines()]
    return "\n".join("> " + line if line else ">" for line in lines) + "\n\n"
