"""The shipped vote count template, written out in Python (issue 16): a count after every vote is the bot's
commonest post, and jinja2's sandbox spends most of a count's time on its own machinery (two contexts, some
fifty guarded lookups, a generator per template). The text is byte for byte what vote_count.j2 and
_wagons.j2 print, before the renderer's last clean-up (blank lines, bidi controls, strip).

It is used only where both templates are the shipped ones, unchanged (`SHIPPED` holds their digests: edit a
template and this is no longer used until it is brought in line, see tests/test_render_fast.py). A host's
own vote_count.j2 or _wagons.j2, or a game's, is rendered by the sandbox as before. Nothing a host or
player wrote reaches Python here: phrases are filled in by the sandbox's formatter (as the template's
`.format` is) and players' text is only escaped and joined.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"
FILES = ("vote_count.j2", "_wagons.j2")
# sha256 of each dialect's vote_count.j2 and _wagons.j2 that `CountWriter` prints as.
SHIPPED = {
    "markdown": ("fd47014e10b88064a2c2b96fb4c203b6cccdd5c796575f0b8750c34dfea1c2b3",
                 "5b4d65a3367f8b61828452757857a2fde989f0f3053f6b9acc5f4642932553d9"),
    "bbcode": ("321c474e33fa1003b0ed72eedfe020689156e2994a9255634e9d25b0ace0bec8",
               "616a09cfbd05e1c7d3e2bed6820f46679be2dccc598b11674b817d85da449b76"),
}


def shipped_path(dialect: str, name: str) -> Path:
    return TEMPLATES / dialect / name


@lru_cache(maxsize=4)
def digests(dialect: str) -> tuple[str, str]:
    """The digests of the shipped vote_count.j2 and _wagons.j2 of a dialect, as they are on disk."""
    return tuple(hashlib.sha256(shipped_path(dialect, name).read_bytes()).hexdigest()  # type: ignore[return-value]
                 for name in FILES)


def shipped_unchanged(dialect: str) -> bool:
    return digests(dialect) == SHIPPED.get(dialect)


class NotThisWay(Exception):
    """The view is not the shape the shipped template reads without fail: the template itself decides."""


# What differs between the dialects' templates, around the same lines.
_MARKS = {
    "markdown": {"head": ("**", "**"), "corrected": ("_", "_"), "wagons": ("", "\n"), "item": "* ",
                 "bold": ("**", "**"), "errors": ("**", "**"), "errors_list": ("\n\n", "")},
    "bbcode": {"head": ("[b]", "[/b]"), "corrected": ("[i]", "[/i]"), "wagons": ("[list]\n", "[/list]\n\n"),
               "item": "[*]", "bold": ("[b]", "[/b]"), "errors": ("[b]", "[/b]"),
               "errors_list": ("\n[list]\n", "[/list]\n")},
}


class CountWriter:
    """Writes a vote count as the shipped templates of one dialect do, with one renderer's phrases, filters
    and helpers. Lines that only phrases and numbers make (the rule line) are kept by what they are made of."""

    _KEEP_LINES = 256

    def __init__(self, dialect: str, phrases: Mapping[str, Any], filters: Mapping[str, Callable[..., str]],
                 formatter: Any, voters_text: Callable[[Any], str], reason: Callable[[Any], str],
                 when: Callable[[str], str], genders: Any) -> None:
        self.marks = _MARKS[dialect]
        self.t = phrases
        # A name is escaped once (found in C after that); 1 and True are kept apart (typed).
        self.esc = lru_cache(maxsize=4096, typed=True)(filters["esc"])
        self.link = filters["link"]
        self.formatter = formatter
        self.voters_text, self.reason, self.when = voters_text, reason, when
        self.genders = genders      # a reason may agree with a player's gender: kept for its `changes`
        self._lines: dict[tuple[Any, ...], str] = {}

    def _phrase(self, name: str, params: dict[str, Any]) -> str:
        """`t.<name>.format(**params)` as the sandbox does it, kept for the same numbers."""
        key = (name, *params.values(), *map(type, params.values()))    # 1 and True print differently
        line = self._lines.get(key)
        if line is None:
            phrase = self.t[name]
            if type(phrase) is not str:
                raise NotThisWay(name)
            line = self.formatter.vformat(phrase, (), params)
            self._keep(key, line)
        return line

    def _error_line(self, e: dict[str, Any]) -> str:
        """One vote error's line, kept by what it says: a day's errors come back in every count after them.
        The key is the error's repr, which tells apart what the line would tell apart (1 from True, a list
        from a tuple), for the plain data a view is, and the players' genders as they are."""
        key = ("error", self.genders.changes, repr(e))
        line = self._lines.get(key)
        if line is None:
            line = f"{self.marks['item']}{self.link(self.esc(e['author']), e['url'])}: {self.esc(self.reason(e))}\n"
            self._keep(key, line)
        return line

    def _keep(self, key: tuple[Any, ...], line: str) -> None:
        if len(self._lines) >= self._KEEP_LINES:
            self._lines.clear()
        self._lines[key] = line

    def raw(self, v: Mapping[str, Any]) -> str:
        """The count's text as the templates print it (before the renderer's clean-up)."""
        if type(v) is not dict:
            raise NotThisWay("view")
        t, m, esc = self.t, self.marks, self.esc
        out = [m["head"][0], str(t["day"]), " ", str(v["day"]), " — ", str(t["vote_count"]), " #", str(v["count"]),
               m["head"][1], "\n"]
        if v.get("corrected"):
            out += [m["corrected"][0], str(t["corrected_by_host"]), m["corrected"][1], "\n"]
        out += ["\n", m["wagons"][0]]
        bold_open, bold_close = m["bold"]
        for w in v["wagons"]:
            if type(w) is not dict:
                raise NotThisWay("wagon")
            no_lynch = w["no_lynch"]
            out += [m["item"], bold_open, str(t["no_lynch"]) if no_lynch else esc(w["target"]), bold_close, " (",
                    str(w["count"])]
            if w["needed"] and not no_lynch:
                out += ["/", str(w["needed"]), ", L-", str(w["l_minus"])]
            out.append(")")
            voters = w["voters"]
            if voters:
                out += [": ", self.voters_text(voters)]
            out.append("\n")
        out.append(m["wagons"][1])
        not_voting = v["not_voting"]
        if not_voting:
            if type(not_voting) is not list:
                raise NotThisWay("not_voting")
            out += [str(t["not_voting"]), " (", str(len(not_voting)), "): ", ", ".join(map(esc, not_voting)), "\n\n"]
        if v["rule"] == "absolute":
            out.append(self._phrase("absolute", {"alive": v["alive"], "needed": v["needed"]}))
        else:
            out.append(self._phrase("simple", {"alive": v["alive"], "used": v["no_lynch_used"],
                                               "limit": v["no_lynch_limit"]}))
        out += ["\n\n", str(t["deadline"]), ": ", self.when(v["deadline"]), "\n"]
        errors = v["errors"]
        if errors:
            out += ["\n", m["errors"][0], str(t["vote_errors"]), m["errors"][1]]
            if v["error_total"] > len(errors):
                out += [" (", self._phrase("errors_more", {"shown": len(errors), "total": v["error_total"]}), ")"]
            out.append(m["errors_list"][0])
            for e in errors:
                if type(e) is not dict:
                    raise NotThisWay("error")
                out.append(self._error_line(e))
            out.append(m["errors_list"][1])
        return "".join(out)
