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
from operator import is_, itemgetter
from pathlib import Path
from typing import Any

from forumbot.kept import ByIdentity, FrozenList
from forumbot.render.defuse import has_bidi

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
    and helpers. What a count repeats from the one before is kept: each wagon's line by the identity of its
    voters (a vote changes two wagons: only they are written afresh), the lines that phrases and numbers make,
    each error's line. With each text is kept whether it holds a bidi control, so a count with none (nearly
    all) needs no search for them over its whole text."""

    _KEEP_LINES, _KEEP_WAGONS = 256, 256

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
        self._lines: dict[Any, tuple[str, bool]] = {}
        self._texts = _Texts(phrases)
        self._wagon_lines: ByIdentity[tuple[tuple[Any, ...], str, bool]] = ByIdentity(self._KEEP_WAGONS)

    def _keep(self, key: Any, line: str) -> tuple[str, bool]:
        if len(self._lines) >= self._KEEP_LINES:
            self._lines.clear()
        kept = self._lines[key] = (line, not has_bidi(line))
        return kept

    def _phrase(self, name: str, params: dict[str, Any]) -> tuple[str, bool]:
        """`t.<name>.format(**params)` as the sandbox does it, kept for the same numbers."""
        key = (name, *params.values(), *map(type, params.values()))    # 1 and True print differently
        kept = self._lines.get(key)
        if kept is None:
            phrase = self.t[name]
            if type(phrase) is not str:
                raise NotThisWay(name)
            kept = self._keep(key, self.formatter.vformat(phrase, (), params))
        return kept

    def _error_line(self, e: dict[str, Any]) -> tuple[str, bool]:
        """One vote error's line, kept by what it says: a day's errors come back in every count after them.
        The key is the error's repr, which tells apart what the line would tell apart (1 from True, a list
        from a tuple), for the plain data a view is, and the players' genders as they are."""
        key = ("error", self.genders.changes, repr(e))
        kept = self._lines.get(key)
        if kept is None:
            kept = self._keep(key, f"{self.marks['item']}{self.link(self.esc(e['author']), e['url'])}: "
                                   f"{self.esc(self.reason(e))}\n")
        return kept

    def _wagon_line(self, w: dict[str, Any]) -> tuple[tuple[Any, ...], str, bool]:
        """One wagon's line, kept by the identity of its voters (a FrozenList, which cannot change) with the
        very objects of its other fields: the same objects print the same."""
        voters = w["voters"]
        fields = _FIELDS(w)
        target, no_lynch, count, needed, l_minus = fields
        name = self._texts["no_lynch"][0] if no_lynch else self.esc(target)
        line = f"{self.marks['item']}{self.marks['bold'][0]}{name}{self.marks['bold'][1]} ({count!s}"
        if needed and not no_lynch:
            line += f"/{needed!s}, L-{l_minus!s}"
        line += f"): {self.voters_text(voters)}\n" if voters else ")\n"
        kept = (fields, line, not has_bidi(line))
        if type(voters) is FrozenList:
            self._wagon_lines.keep((voters,), (kept,))
        return kept

    def raw(self, v: Mapping[str, Any]) -> tuple[str, bool]:
        """The count's text as the templates print it (before the renderer's clean-up), and whether it is
        free of bidi controls."""
        if type(v) is not dict:
            raise NotThisWay("view")
        m, text = self.marks, self._texts
        day, number = str(v["day"]), str(v["count"])
        parts = [text["day"], text["vote_count"], (day, type(v["day"]) is int or not has_bidi(day)),
                 (number, type(v["count"]) is int or not has_bidi(number))]
        out = [m["head"][0], parts[0][0], " ", day, " — ", parts[1][0], " #", number, m["head"][1], "\n"]
        if v.get("corrected"):
            parts.append(text["corrected_by_host"])
            out += [m["corrected"][0], parts[-1][0], m["corrected"][1], "\n"]
        out += ["\n", m["wagons"][0]]
        wagons = v["wagons"]
        if type(wagons) is not list or {*map(type, wagons)} - {dict}:
            raise NotThisWay("wagons")
        # the wagons the last vote did not change, found at once (in C)
        for w, kept in zip(wagons, self._wagon_lines.find(list(map(_VOTERS, wagons))), strict=True):
            if kept is None or type(w["voters"]) is not FrozenList or not all(map(is_, kept[0], _FIELDS(w))):
                kept = self._wagon_line(w)
            parts.append(kept[1:])
            out.append(kept[1])
        out.append(m["wagons"][1])
        not_voting = v["not_voting"]
        if not_voting:
            if type(not_voting) is not list:
                raise NotThisWay("not_voting")
            parts.append(text["not_voting"])
            out += [parts[-1][0], " (", str(len(not_voting)), "): ", ", ".join(map(self.esc, not_voting)), "\n\n"]
        if v["rule"] == "absolute":
            parts.append(self._phrase("absolute", {"alive": v["alive"], "needed": v["needed"]}))
        else:
            parts.append(self._phrase("simple", {"alive": v["alive"], "used": v["no_lynch_used"],
                                                 "limit": v["no_lynch_limit"]}))
        deadline = self.when(v["deadline"])
        parts += [text["deadline"], (deadline, not has_bidi(deadline))]
        out += [parts[-3][0], "\n\n", parts[-2][0], ": ", deadline, "\n"]
        errors = v["errors"]
        if errors:
            parts.append(text["vote_errors"])
            out += ["\n", m["errors"][0], parts[-1][0], m["errors"][1]]
            if v["error_total"] > len(errors):
                parts.append(self._phrase("errors_more", {"shown": len(errors), "total": v["error_total"]}))
                out += [" (", parts[-1][0], ")"]
            out.append(m["errors_list"][0])
            for e in errors:
                if type(e) is not dict:
                    raise NotThisWay("error")
                parts.append(self._error_line(e))
                out.append(parts[-1][0])
            out.append(m["errors_list"][1])
        # escaped names and numbers hold no bidi control; every other part says whether it does
        return "".join(out), all(map(_CLEAN, parts))


_CLEAN = itemgetter(1)
_VOTERS = itemgetter("voters")
_FIELDS = itemgetter("target", "no_lynch", "count", "needed", "l_minus")   # a wagon's line, with its voters


class _Texts(dict[str, tuple[str, bool]]):
    """`{{ t.<name> }}` of each phrase, and whether it is free of bidi controls: made when first asked for,
    then found in C."""

    def __init__(self, phrases: Mapping[str, Any]) -> None:
        super().__init__()
        self.phrases = phrases

    def __missing__(self, name: str) -> tuple[str, bool]:
        text = str(self.phrases[name])
        kept = self[name] = (text, not has_bidi(text))
        return kept
