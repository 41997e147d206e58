"""The text of a post that may carry commands, per markup dialect.

`clean(raw, dialect)` removes what must never produce a command (quoted text, spoilers, code, struck-through
text), unwraps formatting markup so that `**vote Alice**` reads `vote Alice`, unescapes entities, and hands
back lines, each stripped, with runs of blank lines collapsed to one. The command grammar reads the result
line by line, anchored at line start, so a removed block-level region (a quote, a code block) always ends
the line before it: the text after a quote starts a line of its own, as it does on the rendered page.

What every dialect keeps verbatim: unknown bracket tags such as `[vote]Alice[/vote]` (the grammar uses them)
and `#` / `##` at line start (`##vote X` is a command, not a heading).

Choices where the markup is broken or ambiguous. The rule behind each: a command must never come from
text that someone else wrote, even if that costs a vote now and then (the player can post it again).

* markdown: a `>` quote runs to the next blank line; every line up to it belongs to the quote, whether
  it starts with `>` or not (a lazy continuation, as Reddit renders it). A player who writes their vote on
  the line right after a quote, without a blank line, has written it inside the quote.
* markdown: a line that starts with `>!` is a spoiler, not a quote, only when an unescaped `!<` closes it
  on the same line (Reddit's rule); otherwise it is a quote line. Either way its first words are hidden.
* markdown: inline constructs (code spans, spoilers, strike-through, emphasis, links) pair up within one
  paragraph, never across a blank line or a removed block. An unclosed opener stays literal text (as
  markdown renders it), except an unclosed code fence, which runs to the end of the post (CommonMark).
* bbcode: an unclosed `[quote]` (or any other removing tag: spoiler, hide, code, s, strike, del, img)
  hides everything after it. phpBB would show that text unquoted, but it is almost always quoted text whose
  closing tag was lost while trimming.
* bbcode: a stray closing `[/quote]` (no opener) hides the text before it, back to the end of the previous
  hidden region or the start of the post: its opener was lost while trimming a quote, so that text is most
  likely quoted. The same holds for the other removing tags.
* bbcode: quotes, spoilers and hides nest (`[quote][quote]..[/quote]..[/quote]` is one region); `[code]`
  and `[img]` do not (the first closing tag ends them, as in phpBB).
* html: anything that is not text (comments, CDATA, script, style) gives nothing, and neither does an
  element the browser does not show (`style="display:none"`, `visibility:hidden`, the `hidden` attribute);
  whitespace inside text collapses as a browser collapses it; only `<br>` and block elements break lines.
* every dialect: invisible characters (zero-width spaces and joiners, direction marks, the soft hyphen,
  U+FE0F, NUL) are dropped first, so they can neither hide a command nor forge one. With `marks=True`
  bold text ([b], **, __, <b>, <strong>) is kept between BOLD_OPEN and BOLD_CLOSE for the `bold` reading.

Speed: markdown and bbcode never build a tree; each pass is a precompiled regex or a linear scan with
`str.find`, so no input (10,000 unclosed `[quote]`, `**` or `>!`) makes them slower than linear.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from forumbot.errors import ConfigError

DIALECTS = ("plain", "markdown", "bbcode", "html")

# ---------------------------------------------------------------------------------------------- lines

# Every character str.isspace() accepts, plus the zero-width ones editors leave at line edges (Reddit's
# new editor writes `&#x200B;` for an empty paragraph). Listed once so that strip() needs no scan.
_EDGE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
    "\u200b\u2060\ufeff"
)
_BLANK_RUNS = re.compile(r"\n{3,}")
# Characters that show nothing but split a keyword or a name for a program: zero-width spaces and joiners,
# direction marks and embeddings, the soft hyphen, the emoji variation selector, NUL. Dropped before anything
# reads the text, so "vo\u200bte" is "vote" as the reader saw it.
_INVISIBLE = re.compile("[\x00\u00ad\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufe0f]")
# Where bold text starts and ends, with clean(marks=True): Unicode private-use characters no post keeps.
BOLD_OPEN = "\ue000"
BOLD_CLOSE = "\ue001"


def _newlines(text: str) -> str:
    """\\r\\n and lone \\r (old Mac, some forum exports) become \\n."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _tidy_lines(text: str) -> str:
    """Each line stripped; blank lines at the ends dropped and runs of them collapsed to one.

    Lines are split as str.splitlines() splits them (U+2028, \\x0b, \\x85... too), because that is how
    the caller reads them: every line it sees is then stripped, and "\\n" is the only separator left.
    """
    text = "\n".join([line.strip(_EDGE) for line in text.splitlines()])
    return _BLANK_RUNS.sub("\n\n", text).strip("\n")


def _clean_plain(raw: str, marks: bool = False) -> str:
    return _tidy_lines(_newlines(raw))


# ---------------------------------------------------------------------------------------------- markdown

# A quote (`>`) or a fence opener, after at most 3 spaces of indent (4 would be indented code).
_MD_OPENER = re.compile(r" {0,3}(?:(>)|(`{3,}|~{3,}))")
_MD_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
_MD_INDENTED = re.compile(r" {4}| {0,3}\t")
# Whether any line may start a block (quote, fence, indented code); most posts have none and skip the
# line-by-line pass. The first line is matched, the others found after their newline: a literal start
# lets re skip through the text in C, where a MULTILINE `^` would be tried at every position.
_MD_BLOCK_START = re.compile(r" {0,3}[>`~\t]| {4}")
_MD_BLOCK_START_AFTER_NL = re.compile(r"\n(?: {0,3}[>`~\t]| {4})")
_MD_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_MD_BACKTICKS = re.compile(r"`+")
# ~~struck~~. A failed attempt means no `~~` follows at all, so the lazy scan never repeats: linear.
_MD_STRIKE = re.compile(r"~~.*?~~", re.DOTALL)
# [text](url) with at most one level of parentheses in the url (Wikipedia links). The alternatives start
# with different characters, so a failed match backtracks linearly.
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()\n]|\([^()\n]*\))*\)")
# Reddit's superscript: ^(several words) or ^word, possibly stacked (^^^tiny). Tried only at the first `^`
# of a run (the lookbehind) and the run taken possessively: otherwise 100,000 `^` cost 100,000 rescans.
_MD_SUPERSCRIPT = re.compile(r"\^(?<!\^\^)\^*+(?:\(([^()\n]*)\)|(?=[^\s^]))")
# Emphasis, CommonMark's flanking rules simplified: the opener is not followed by a space, the closer not
# preceded by one, and they are equal runs of 1-3. `*` may sit inside a word (2*3*4); `_` may not, which
# keeps user_name_1 intact, but `_` may sit inside the emphasised words (__user_name__). The content holds
# no other delimiter of its kind, so an attempt never scans past the next one (linear); nested emphasis
# (**bold *it* bold**) is unwrapped inside out, one pass per level. Each pattern starts with its literal
# character (the "not preceded by" check is a lookbehind after it), so re skips to candidates in C.
_MD_STAR = re.compile(r"\*(?<!\*\*)(\*{0,2})(?=[^\s*])([^*]*?[^\s*])\*\1(?!\*)")
_MD_UNDERSCORE = re.compile(r"_(?<!\w_)(_{0,2})(?=[^\s_])((?:[^_]|(?<=[^\W_])_(?=[^\W_]))*?[^\s_])_\1(?!\w)")
_MD_EMPHASIS_LEVELS = 3  # deeper nesting than ***a **b *c* b** a*** is left literal

# Backslash escapes are hidden behind Unicode noncharacters (U+FDD0..U+FDEF: exactly 32, one per ASCII
# punctuation character, reserved by Unicode for a program's internal use) so that no later pass reads
# `\*` as emphasis; they turn back into the plain character at the very end.
_ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_TO_SENTINEL = {ch: chr(0xFDD0 + i) for i, ch in enumerate(_ASCII_PUNCT)}
_FROM_SENTINEL = str.maketrans({chr(0xFDD0 + i): ch for i, ch in enumerate(_ASCII_PUNCT)})
_NONCHARS = re.compile("[\ufdd0-\ufdef]")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _clean_markdown(raw: str, marks: bool = False) -> str:
    # Reddit's API hands back the body with & < > escaped; undo that before `>` can be seen as a quote.
    text = _newlines(html.unescape(raw) if "&" in raw else raw)
    if _MD_BLOCK_START.match(text) or _MD_BLOCK_START_AFTER_NL.search(text):
        paragraphs = ["\n".join(lines) for lines in _markdown_blocks(text)]
    else:
        paragraphs = _MD_BLANK_LINE.split(text)
    return _tidy_lines("\n\n".join([_markdown_inline(para, marks) for para in paragraphs]))


def _markdown_blocks(text: str) -> list[list[str]]:
    """The paragraphs (lists of lines) left after dropping quotes, fenced and indented code blocks."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    in_quote = in_code = False
    fence = ""  # the opening fence while inside a fenced block

    def end_paragraph() -> None:
        nonlocal current
        if current:
            paragraphs.append(current)
            current = []

    for line in text.split("\n"):
        # Markdown's blank line holds spaces and tabs only: a line of U+3000 does not end a quote.
        blank = not line.strip(" \t")
        if fence:
            if _closes_fence(line, fence):
                fence = ""
            continue
        if in_quote:
            in_quote = not blank  # the quote, lazy lines included, runs to the next blank line
            continue
        if in_code:
            if blank or _MD_INDENTED.match(line):
                continue
            in_code = False
        if blank:
            end_paragraph()
            continue
        if line[0] in " \t>`~":
            opener = _MD_OPENER.match(line)
            if opener and opener.group(1):
                rest = _after_leading_spoiler(line, opener.end())
                if rest is None:
                    end_paragraph()
                    in_quote = True
                else:
                    current.append(rest)
                continue
            if opener and opener.group(2) and _opens_fence(line, opener.group(2), opener.end()):
                end_paragraph()
                fence = opener.group(2)
                continue
            # Indented code cannot interrupt a paragraph: only at the start or after a blank line/block.
            if not current and _MD_INDENTED.match(line):
                in_code = True
                continue
        current.append(line)
    end_paragraph()
    return paragraphs


def _after_leading_spoiler(line: str, after_gt: int) -> str | None:
    """For `>!secret!< text` the text after the spoiler; None if the line is a quote line.

    On Reddit a line that starts with `>!` is a spoiler, not a quote, when an (unescaped) `!<` closes it
    on the same line. The spoiler is cut here rather than with the inline ones so that nothing later
    (a code span or an escape that swallows the `!<`) can turn it back into visible text.
    """
    if not line.startswith("!", after_gt):
        return None
    close = line.find("!<", after_gt + 1)
    while close >= 0 and _backslashed(line, close):
        close = line.find("!<", close + 1)
    return None if close < 0 else line[close + 2:]


def _opens_fence(line: str, run: str, after: int) -> bool:
    # A backtick fence's info string may not contain a backtick: "```x```" is an inline code span.
    return run[0] == "~" or "`" not in line[after:]


def _closes_fence(line: str, fence: str) -> bool:
    close = _MD_FENCE_CLOSE.match(line)
    if close is None:
        return False
    run = close.group(1)
    return run[0] == fence[0] and len(run) >= len(fence)


def _markdown_inline(para: str, marks: bool = False) -> str:
    """One paragraph with code spans, spoilers and strike-through removed and the rest unwrapped."""
    # Each pass is gated by a substring test: str's `in` is far cheaper than a regex search that fails.
    if "`" in para:
        para = _drop_code_spans(para)  # first: nothing inside a code span is markup, escapes included
    escaped = "\\" in para
    if escaped:
        if _NONCHARS.search(para):
            para = _NONCHARS.sub("", para)  # they would come out as punctuation with the sentinels
        para = _MD_ESCAPE.sub(_hide_escape, para)
    if ">!" in para:
        para = _drop_between(para, ">!", "!<")
    if "~~" in para:
        para = _MD_STRIKE.sub("", para)
    if "](" in para:
        para = _MD_LINK.sub(r"\1", para)
    if "^" in para:
        para = _MD_SUPERSCRIPT.sub(r"\1", para)
    if "*" in para:
        para = _unwrap(_MD_STAR, "*", para, marks)
    if "_" in para:
        para = _unwrap(_MD_UNDERSCORE, "_", para, marks)
    if "&" in para:
        para = html.unescape(para)  # entities the poster typed, which markdown renders (`&nbsp;`)
    if escaped:
        para = para.translate(_FROM_SENTINEL)
    return para


def _hide_escape(match: re.Match[str]) -> str:
    return _TO_SENTINEL[match.group(1)]


def _bold_marked(match: re.Match[str]) -> str:
    """Emphasis unwrapped; strong emphasis (`**x**`, `__x__`) kept between the bold marks."""
    return f"{BOLD_OPEN}{match.group(2)}{BOLD_CLOSE}" if match.group(1) else match.group(2)


def _unwrap(emphasis: re.Pattern[str], delimiter: str, para: str, marks: bool = False) -> str:
    """Unwrap emphasis, innermost first, at most _MD_EMPHASIS_LEVELS levels deep."""
    for _ in range(_MD_EMPHASIS_LEVELS):
        para, count = emphasis.subn(_bold_marked if marks else r"\2", para)
        if not count or delimiter not in para:
            break
    return para


def _drop_code_spans(para: str) -> str:
    """Remove `code` spans: a run of n backticks up to the next run of exactly n (CommonMark)."""
    runs = [(run.start(), run.end()) for run in _MD_BACKTICKS.finditer(para)]
    if len(runs) < 2:
        return para
    # For each run, the index of the next run of the same length: one backward pass keeps this linear.
    following = [-1] * len(runs)
    last_of_length: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last_of_length.get(length, -1)
        last_of_length[length] = i
    pieces: list[str] = []
    pos = 0
    i = 0
    while i < len(runs):
        close = following[i]
        if close < 0 or _backslashed(para, runs[i][0]):  # \` is a literal backtick, not an opener
            i += 1
            continue
        pieces.append(para[pos:runs[i][0]])
        pos = runs[close][1]
        i = close + 1
    pieces.append(para[pos:])
    return "".join(pieces)


def _backslashed(text: str, index: int) -> bool:
    """Whether text[index] is escaped: preceded by an odd number of backslashes."""
    count = 0
    while index - count > 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _drop_between(text: str, opener: str, closer: str) -> str:
    """Remove every `opener ... closer` (shortest match); an opener without a closer stays.

    A scan with str.find rather than a regex: a lazy regex retried at each of 10,000 unclosed openers
    would rescan the rest of the text each time (quadratic). Here `close` is searched again only once
    the scan has passed it.
    """
    pieces: list[str] = []
    pos = 0
    close = -1
    while True:
        start = text.find(opener, pos)
        if start < 0:
            break
        if close < start + len(opener):
            close = text.find(closer, start + len(opener))
            if close < 0:
                break  # no closer after this opener, so none after any later one either
        pieces.append(text[pos:start])
        pos = close + len(closer)
    pieces.append(text[pos:])
    return "".join(pieces)


# ---------------------------------------------------------------------------------------------- bbcode

# A tag: `[name`, `[/name`, optional phpBB uid (`:3f2a1b`) or attributes (`="Alice" post_id=12`, `=red:uid`),
# then `]`. The first attribute form lets a quoted value hold `]` (`[quote="[Mod] Bob"]`); its loop is
# possessive so that it never backtracks. If it fails (a stray `"`), the plain form up to `]` is tried.
# Neither form crosses a `[` or a newline, so each attempt costs at most the distance to the next one.
# Case is matched by [a-zA-Z] rather than re.IGNORECASE, which makes this pattern twice as slow.
_BB_TAG = re.compile(
    r"""\[(/?)([a-zA-Z][a-zA-Z0-9]*|\*)
        (?: \]
          | [=\s:](?:"[^"\n]*"|[^\[\]\n"])*+\]
          | [=\s:][^\[\]\n]*\]
        )""",
    re.VERBOSE,
)
# What each known tag does. Unknown tags (`[vote]`) are kept verbatim: the grammar uses them.
_BB_UNWRAP = 0  # the tag goes, its content stays
_BB_DROP = 1  # removed with its content; the first closing tag ends it
_BB_DROP_NESTED = 2  # removed with its content; opens and closes of the same tag are counted
_BB_ACTIONS: dict[str, int] = {
    **dict.fromkeys(("quote", "spoiler", "hide", "s", "strike", "del"), _BB_DROP_NESTED),
    **dict.fromkeys(("code", "img"), _BB_DROP),
    **dict.fromkeys(("b", "i", "u", "color", "colour", "size", "font", "url", "email", "highlight", "sup",
                     "sub", "center", "left", "right", "justify", "align", "indent", "list", "*", "hr"),
                    _BB_UNWRAP),
}
# Rendered as blocks: removing or unwrapping them must end the line, so that the text after a quote starts
# a line of its own (the grammar is anchored at line start).
_BB_BLOCK = frozenset({
    "quote", "spoiler", "hide", "code", "center", "left", "right", "justify", "align", "indent", "list", "*",
    "hr",
})


def _clean_bbcode(raw: str, marks: bool = False) -> str:
    text = _newlines(raw)
    if "[" in text:
        text = _strip_bbcode(text, marks)
    # After the tags: phpBB stores a literal "[" typed by the poster as `&#91;`, and it must stay text.
    if "&" in text:
        text = html.unescape(text)
    return _tidy_lines(text)


def _strip_bbcode(text: str, marks: bool = False) -> str:
    pieces: list[str] = []
    pos = 0
    hiding = ""  # the removing tag we are inside, if any
    depth = 0
    visible_from = 0  # len(pieces) when the last hidden region ended: where a stray closer hides back to
    for tag in _BB_TAG.finditer(text):
        slash, name = tag.group(1, 2)
        name = name.lower()
        if hiding:
            if name == hiding:
                if slash:
                    depth -= 1
                elif _BB_ACTIONS[name] == _BB_DROP_NESTED:
                    depth += 1
                if not depth:
                    hiding = ""
                    pos = tag.end()
                    pieces.append("\n" if name in _BB_BLOCK else "")
                    visible_from = len(pieces)
            continue
        action = _BB_ACTIONS.get(name)
        pieces.append(text[pos:tag.start()])
        pos = tag.end()
        if action is None:
            pieces.append(tag.group())  # [vote]Alice[/vote] and other tags of the grammar's own
        elif action == _BB_UNWRAP:
            # A block tag ends the line; a list item starts one, but its closing tag (`[/*:m]`) does not.
            pieces.append("\n" if name in _BB_BLOCK and not (slash and name == "*") else "")
            if marks and name == "b":
                pieces.append(BOLD_CLOSE if slash else BOLD_OPEN)
        elif slash:
            del pieces[visible_from:]  # a stray closer: its opener was lost, the text before is quoted
            pieces.append("\n" if name in _BB_BLOCK else "")
            visible_from = len(pieces)
        else:
            hiding, depth = name, 1
            pieces.append("\n" if name in _BB_BLOCK else "")
    if not hiding:  # an unclosed removing tag hides the rest of the post
        pieces.append(text[pos:])
    return "".join(pieces)


# ---------------------------------------------------------------------------------------------- html

_HTML_DROP = frozenset({
    "blockquote", "q", "code", "pre", "del", "s", "strike", "script", "style", "template", "noscript",
    "details",  # a collapsed <details> is how Discourse and others render a spoiler
    "head", "title",
})
_HTML_BLOCK = frozenset({
    "p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "ul", "ol", "dl", "dt", "dd", "table",
    "thead", "tbody", "tfoot", "caption", "blockquote", "pre", "section", "article", "header", "footer",
    "aside", "nav", "main", "figure", "figcaption", "address", "fieldset", "form", "center", "hr",
    "details", "summary",
})
_HTML_CELL = frozenset({"td", "th"})
_HTML_BOLD = frozenset({"b", "strong"})
_HTML_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)", re.IGNORECASE)
# Inline styles that hide an element: its text is not on the page, so it can never be a command.
_HTML_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)", re.IGNORECASE)
# HTML collapses its own whitespace (not U+00A0: `&nbsp;` is meant to stay), source newlines included.
_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _clean_html(raw: str, marks: bool = False) -> str:
    if _SURROGATES.search(raw):
        raw = _SURROGATES.sub("\ufffd", raw)  # lxml cannot encode a lone surrogate and would raise
    if "<" not in raw:
        # No tag at all: the parser would only unescape entities.
        return _tidy_lines(_HTML_SPACE.sub(" ", html.unescape(raw)))
    # Imported here so that the markdown and bbcode paths, and the CLI's start-up, never pay for lxml.
    from lxml import etree

    # lxml's parser streams its events to a target (no tree, no depth limit): BeautifulSoup on the same
    # parser was several times slower on a post dense with tags. Given bytes: lxml refuses a str that
    # declares an encoding.
    visible = _VisibleText(marks)
    parser = etree.HTMLParser(target=visible, recover=True, encoding="utf-8")
    try:
        parser.feed(raw.encode("utf-8", "replace"))
        parser.close()
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        pass                                # what was read before the parser gave up stays
    return _tidy_lines("".join(visible.pieces))


class _VisibleText:
    """An lxml parser target that keeps the text a browser shows: "\\n" for each <br>, and a line break
    around each block unless the text is at a line start already (`<p>a</p><p>b</p>` is two lines, not two
    lines and a blank one). Hidden elements give nothing; bold is marked with `marks`."""

    def __init__(self, marks: bool) -> None:
        self.marks = marks
        self.pieces: list[str] = []
        self.at_line_start = True
        self.open: list[tuple[str, bool, bool]] = []   # (name, hidden, bold) of the open elements
        self.hidden = 0                             # how many of them are hidden or inside a hidden one

    def start(self, tag: Any, attrib: Any) -> None:
        name = tag.lower() if isinstance(tag, str) else ""
        hides = bool(self.hidden) or _html_hidden(attrib, name)
        self.open.append((name, hides, False))
        if hides:
            if not self.hidden and name in _HTML_BLOCK:
                self._break()                       # a hidden block still ends the line before it
            self.hidden += 1
            return
        if name == "br":
            self.pieces.append("\n")
            self.at_line_start = True
        elif name in _HTML_BLOCK:
            self._break()
        elif name in _HTML_CELL:
            self.pieces.append(" ")
        elif self.marks and _html_bold(attrib, name):
            self.pieces.append(BOLD_OPEN)
            self.open[-1] = (name, False, True)

    def end(self, tag: Any) -> None:
        if not self.open:
            return
        name, hides, bold = self.open.pop()
        if hides:
            self.hidden -= 1
        elif name in _HTML_BLOCK:
            self._break()
        elif bold:
            self.pieces.append(BOLD_CLOSE)

    def data(self, text: str) -> None:
        if not self.hidden:
            text = _HTML_SPACE.sub(" ", text)
            self.pieces.append(text)
            self.at_line_start = self.at_line_start and not text.strip(" ")

    def comment(self, text: str) -> None:           # comments, CDATA, doctypes are not shown
        pass

    def close(self) -> None:
        pass

    def _break(self) -> None:
        if not self.at_line_start:
            self.pieces.append("\n")
            self.at_line_start = True


def _html_bold(attrib: Any, name: str) -> bool:
    """Bold for the `bold` reading: <b>, <strong>, a bold inline style, phpBB's rendered vote tag
    (`span.bbvote`)."""
    if name in _HTML_BOLD:
        return True
    style = attrib.get("style")
    if isinstance(style, str) and _HTML_BOLD_STYLE.search(style):
        return True                         # older phpBB: <span style="font-weight: bold">
    classes = attrib.get("class")
    return isinstance(classes, str) and "vote" in classes.lower()


def _html_hidden(tag: Any, name: str) -> bool:
    """Dropped with its content: quoting, code and struck-out elements, elements the browser does not show
    (the `hidden` attribute, an inline `display:none` or `visibility:hidden`), and any element whose class
    mentions quote or spoiler (phpBB's `div.quotecontent`, XenForo's `bbCodeBlock--quote`, ...)."""
    if name in _HTML_DROP or tag.get("hidden") is not None:
        return True
    style = tag.get("style")
    if isinstance(style, str) and _HTML_HIDING_STYLE.search(style):
        return True
    classes = tag.get("class")
    if not classes:
        return False
    for token in classes.split() if isinstance(classes, str) else classes:
        token = token.lower()
        # `js-` classes are script hooks, not the look of quoted text: XenForo marks the body of every
        # post `js-selectToQuote`, and hiding that would hide every post.
        if ("quote" in token or "spoiler" in token) and not token.startswith("js-"):
            return True
    return False


# ---------------------------------------------------------------------------------------------- API

_CLEANERS: dict[str, Callable[[str, bool], str]] = {
    "plain": _clean_plain,
    "markdown": _clean_markdown,
    "bbcode": _clean_bbcode,
    "html": _clean_html,
}


def clean(raw: str, dialect: str, *, marks: bool = False) -> str:
    """The text of a post that may carry commands: quotes, spoilers, code and struck-through text removed,
    formatting markup unwrapped, entities unescaped, invisible characters dropped. Lines are kept
    (newline-separated), each stripped, runs of blank lines collapsed. With `marks`, bold text is kept
    between BOLD_OPEN and BOLD_CLOSE (the `bold` reading mode needs to know what was bold). Raises
    forumbot.errors.ConfigError for an unknown dialect; never raises for any post text."""
    cleaner = _CLEANERS.get(dialect)
    if cleaner is None:
        raise ConfigError(f"unknown text dialect {dialect!r}",
                          fix=f"use one of: {', '.join(DIALECTS)}")
    raw = _INVISIBLE.sub("", raw)
    raw = raw.replace(BOLD_OPEN, "").replace(BOLD_CLOSE, "")   # a player cannot forge bold
    return cleaner(raw, marks)
