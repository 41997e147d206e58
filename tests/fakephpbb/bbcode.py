"""BBCode → HTML as phpBB 3.3 (s9e TextFormatter, prosilver) rendered the recorded posts.

Covers what the recordings show: b, i, u, color, size, list, list=1, *, url, bare URLs, code, quote (with a
name, with post_id/user_id, without a name, nested), the board's custom [vote] (span.bbvote), smilies and
emoji. Newlines become `<br>\n`, except next to a block tag (quote, code, list), where s9e keeps them as
plain newlines: one before an opening tag and after it, one before a closing tag, up to two after it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

SMILIES = {":)": ("icon_e_smile.gif", "Smile"), ":(": ("icon_e_sad.gif", "Sad"), ";)": ("icon_e_wink.gif", "Wink"),
           ":lol:": ("icon_lol.gif", "Laughing"), ":roll:": ("icon_rolleyes.gif", "Rolling Eyes"),
           "8-)": ("icon_cool.gif", "Cool"), ":D": ("icon_e_biggrin.gif", "Very Happy")}
BLOCK = {"quote", "code", "list"}
_TAG = re.compile(r"\[(/?)(b|i|u|color|size|list|\*|url|code|quote|vote)(?:=([^\]]*?))?((?:\s+\w+=[^\s\]]+)*)\]",
                  re.IGNORECASE)
_SMILEY = re.compile("(?<!\\S)(" + "|".join(re.escape(s) for s in SMILIES) + ")(?!\\S)")
_URL = re.compile(r"(?<![=\]\"'])\bhttps?://[^\s\[\]<]+")
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]")


@dataclass
class Quoted:
    """What a quote's post_id/user_id point at, for the cite line."""

    author_link: str
    date_text: str


def render(text: str, *, quoted: Callable[[int], Quoted | None] = lambda _id: None) -> str:
    return _Renderer(text, quoted).run()


class _Renderer:
    def __init__(self, text: str, quoted: Callable[[int], Quoted | None]) -> None:
        self.text = text.rstrip()
        self.quoted = quoted

    def run(self) -> str:
        tokens = self._tokens()
        out, _ = self._seq(tokens, 0, None)
        return out

    def _tokens(self) -> list[tuple[str, ...]]:
        tokens: list[tuple[str, ...]] = []
        pos = 0
        for match in _TAG.finditer(self.text):
            if match.start() > pos:
                tokens.append(("text", self.text[pos:match.start()]))
            closing, name, arg, extra = match.groups()
            tokens.append(("close" if closing else "open", name.lower(), arg or "", extra or "", match.group(0)))
            pos = match.end()
        tokens.append(("text", self.text[pos:]))
        return tokens

    def _seq(self, tokens: list[tuple[str, ...]], i: int, until: str | None) -> tuple[str, int]:
        out: list[str] = []
        while i < len(tokens):
            token = tokens[i]
            if token[0] == "text":
                text, lead, tail = token[1], 0, 0
                if i > 0 and tokens[i - 1][0] in ("open", "close") and tokens[i - 1][1] in BLOCK:
                    lead = _newlines(text, 2 if tokens[i - 1][0] == "close" else 1)
                if i + 1 < len(tokens) and tokens[i + 1][0] in ("open", "close") and tokens[i + 1][1] in BLOCK:
                    tail = min(_newlines(text[::-1], 1), len(text) - lead)
                out.append(text[:lead] + _plain(text[lead:len(text) - tail]) + text[len(text) - tail:])
                i += 1
                continue
            kind, name, arg, extra, raw = token
            if kind == "close":
                if name == until:
                    return "".join(out), i + 1
                out.append(_plain(raw))
                i += 1
                continue
            if name == "code":
                end = next((j for j in range(i + 1, len(tokens)) if tokens[j][0] == "close" and tokens[j][1] == "code"),
                           None)
                if end is None:
                    out.append(_plain(raw))
                    i += 1
                    continue
                inner = "".join(t[1] if t[0] == "text" else t[4] for t in tokens[i + 1:end])
                out.append('<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">'
                           f'Select all</a></p><pre><code>{html.escape(inner.strip(chr(10)), quote=False)}</code></pre>'
                           '</div>')
                i = end + 1
                continue
            if name == "*":
                out.append(_plain(raw))
                i += 1
                continue
            inner, j = self._seq(tokens, i + 1, name)
            if j > len(tokens) or not _closed(tokens, i, name):
                out.append(_plain(raw))
                i += 1
                continue
            out.append(self._wrap(name, arg, extra, inner))
            i = j
        return "".join(out), i

    def _wrap(self, name: str, arg: str, extra: str, inner: str) -> str:
        if name == "b":
            return f'<strong class="text-strong">{inner}</strong>'
        if name == "i":
            return f'<em class="text-italics">{inner}</em>'
        if name == "u":
            return f'<span style="text-decoration:underline">{inner}</span>'
        if name == "color":
            return f'<span style="color:{html.escape(arg)}">{inner}</span>'
        if name == "size":
            return f'<span style="font-size:{int(arg or 100)}%;line-height:116%">{inner}</span>'
        if name == "vote":
            return f'<span class="bbvote">{inner}</span>'
        if name == "url":
            href = _stored_url(arg or re.sub(r"<[^>]+>", "", inner))
            return f'<a href="{html.escape(href)}" class="postlink">{inner}</a>'
        if name == "list":
            items = [item.replace("<br>\n", "").strip("\n") for item in inner.split("[*]")[1:]]
            tag = 'ol style="list-style-type:decimal"' if arg == "1" else "ul"
            sep = "" if arg == "1" else "\n"
            lis = sep.join(f"<li>{item}</li>" for item in items)
            return f"<{tag}>{sep}{lis}{sep}</{tag.split()[0]}>"
        return self._quote(arg, extra, inner)

    def _quote(self, arg: str, extra: str, inner: str) -> str:
        name = arg.strip('"')
        params = dict(re.findall(r"(\w+)=(\S+)", extra))
        post_id = int(params["post_id"]) if params.get("post_id", "").isdigit() else None
        found = self.quoted(post_id) if post_id else None
        if not name:
            return f'<blockquote class="uncited"><div>{inner}</div></blockquote>'
        if found is None or post_id is None:
            return f"<blockquote><div><cite>{html.escape(name)} wrote:</cite>{inner}</div></blockquote>"
        link = f"./viewtopic.php?p={post_id}#p{post_id}"
        return (f'<blockquote cite="{link}"><div><cite>{found.author_link} wrote: <a href="{link}" '
                f'aria-label="View quoted post" data-post-id="{post_id}" '
                'onclick="if(document.getElementById(hash.substr(1)))href=hash"><i class="icon fa-arrow-circle-up '
                f'fa-fw" aria-hidden="true"></i></a><span class="responsive-hide">{found.date_text}</span></cite>'
                f"{inner}</div></blockquote>")


def _stored_url(url: str) -> str:
    """A link as s9e TextFormatter stores it: a URL with no scheme has the last colon before its first slash
    percent-encoded, so that it cannot be read as a scheme (recorded: `#fb:mafia-1:20` → `#fb:mafia-1%3A20`)."""
    if re.match(r"[a-z][-+.\w]*:", url, re.IGNORECASE):
        return url
    return re.sub(r"^([^/]*):", r"\1%3A", url)


def _closed(tokens: list[tuple[str, ...]], i: int, name: str) -> bool:
    depth = 0
    for token in tokens[i:]:
        if token[0] == "open" and token[1] == name:
            depth += 1
        elif token[0] == "close" and token[1] == name:
            depth -= 1
            if depth == 0:
                return True
    return False


def _newlines(text: str, most: int) -> int:
    count = 0
    while count < most and text[count:count + 1] == "\n":
        count += 1
    return count


def _plain(text: str) -> str:
    """Plain text: escaped, bare URLs, smilies and emoji, newlines as <br>."""
    text = html.escape(text, quote=False)
    text = _URL.sub(lambda m: f'<a href="{m.group(0)}" class="postlink">{m.group(0)}</a>', text)
    text = _SMILEY.sub(lambda m: (f'<img class="smilies" src="./images/smilies/{SMILIES[m.group(1)][0]}" width="15" '
                                  f'height="17" alt="{m.group(1)}" title="{SMILIES[m.group(1)][1]}">'), text)
    text = _EMOJI.sub(lambda m: (f'<img alt="{m.group(0)}" class="emoji smilies" draggable="false" '
                                 f'src="//cdn.jsdelivr.net/gh/twitter/twemoji@latest/assets/svg/{ord(m.group(0)):x}.svg">'),
                      text)
    return text.replace("\n", "<br>\n")
