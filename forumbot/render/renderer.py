"""The renderer: events in, Outgoing messages out. Pure apart from reading template files."""

from __future__ import annotations

import re
import tomllib
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from functools import lru_cache, partial
from operator import itemgetter
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter
from jinja2.utils import internalcode

from forumbot.errors import ConfigError
from forumbot.kept import REMADE, ByIdentity, ByValue, FrozenDict, FrozenList, edited
from forumbot.model import Event, Outgoing, filled, parse_time
from forumbot.render import shared
from forumbot.render.codegen import LeanContext, SandboxCodeGenerator, render
from forumbot.render.codegen import named_fields as _named_fields
from forumbot.render.defuse import defuse, strip_bidi
from forumbot.text.decline import CASES, decline, gendered, guess_gender, plural

_HERE = Path(__file__).resolve().parent
DIALECTS = ("markdown", "bbcode")
# Where each Mafia event is posted, by thread purpose ("votes" is the game's first voting thread). Any
# game may instead address an event itself: data "thread" (a purpose) or "pm_to" (a player), "subject".
EVENT_THREADS = {"vote_count": "votes", "day_end": "votes", "phase_start": "game", "night_end": "game"}

# Characters Reddit markdown reads as markup anywhere in a line ("(" only matters after "]", escaped).
_PHASE = re.compile(r"(day|night)(\d+)")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]#|>~^<])")


def escape_markdown(text: str) -> str:
    """Backslash-escape every character Reddit markdown could read as markup."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def escape_bbcode(text: str) -> str:
    """Break every bracket so no tag can form: a zero-width space after [ keeps the look and kills the tag."""
    return str(text).replace("[", "[\u200b").replace("]", "\u200b]")


def _link_markdown(text: str, url: str) -> str:
    return f"[{text}]({url.replace(')', '%29').replace(' ', '%20')})" if url else text


def _link_bbcode(text: str, url: str) -> str:
    return f"[url={url.replace(']', '%5D')}]{text}[/url]" if url else text


def _escaped(text: str, dialect: str) -> str:
    defused = defuse(text, dialect)
    return escape_markdown(defused) if dialect == "markdown" else escape_bbcode(defused)


# Names come back in every vote count: each is defused and escaped once.
_ESCAPED_MARKDOWN = ByValue(partial(_escaped, dialect="markdown"), 4096)
_ESCAPED_BBCODE = ByValue(partial(_escaped, dialect="bbcode"), 4096)


def _esc_markdown(text: Any) -> str:
    return _ESCAPED_MARKDOWN[str(text)]


def _esc_bbcode(text: Any) -> str:
    return _ESCAPED_BBCODE[str(text)]


def _code_markdown(text: str) -> str:
    """Text for inside a `code span`: defused, and a backtick (which would end the span) shown as ˋ."""
    return defuse(text, "markdown").replace("`", "\u02cb")


def _codeblock_markdown(lines: Any) -> str:
    return "\n".join(f"    {line}" for line in lines)


def _codeblock_bbcode(lines: Any) -> str:
    return "[code]\n" + "".join(f"{line}\n" for line in lines) + "[/code]"


# The dialect's markup with no text of its own, by name: `{{ "bullet" | markup }}`. A bulleted list is
# "list_start", a line "bullet"... per item, then "list_end": in markdown a list stands apart from the text
# around it by blank lines (extra ones are dropped when the post is cleaned), in bbcode it is [list]...[/list].
# "gap" ends a paragraph where one line break does not (markdown needs a blank line; in bbcode a line break
# is enough). "thread" is what the platform calls a thread. "bold" ... "/bold" and "italic" ... "/italic" are
# the marks the `bold` and `italic` filters put around a text, for the vote count (and its wagons): written as
# a filter of a constant, jinja looks each up once, when it compiles the template, where a filter of a value
# is a call at every render (a global, a look-up) - and a count is posted after every vote.
_MARKUP: dict[str, dict[str, str]] = {
    "markdown": {"list_start": "", "bullet": "* ", "list_end": "", "gap": "\n", "thread": "thread",
                 "bold": "**", "/bold": "**", "italic": "_", "/italic": "_"},
    "bbcode": {"list_start": "[list]\n", "bullet": "[*]", "list_end": "[/list]\n", "gap": "", "thread": "topic",
               "bold": "[b]", "/bold": "[/b]", "italic": "[i]", "/italic": "[/i]"},
}

# One template per event serves both dialects: it writes markup only through these filters (`markup` above),
# never itself. `esc` is the one filter for text a player wrote (names, notes, reasons quoting them):
# it defuses links, mentions and bidi controls, then escapes markup; `code` does the same for text inside a
# code span (`mono`: phpBB has no inline code tag, and a [font] tag it does not know would show as typed, so
# in BBCode a command to type stands as it is). `italic` and `emphasis` are the same look, spelled _x_ and
# *x* in markdown (each where the posts have always spelled it). `codeblock` is a block of lines shown as
# they are (a board); `item_breaks` keeps a text's line breaks inside its numbered list item.
_DIALECT_FILTERS: dict[str, dict[str, Callable[..., str]]] = {
    "markdown": {"esc": _esc_markdown, "code": _code_markdown, "link": _link_markdown,
                 "strike": lambda s: f"~~{s}~~", "bold": lambda s: f"**{s}**", "italic": lambda s: f"_{s}_",
                 "emphasis": lambda s: f"*{s}*", "mono": lambda s: f"`{s}`", "codeblock": _codeblock_markdown,
                 "item_breaks": lambda s: s.replace("\n", "  \n   "), "markup": _MARKUP["markdown"].__getitem__},
    "bbcode": {"esc": _esc_bbcode, "code": _esc_bbcode, "link": _link_bbcode,
               "strike": lambda s: f"[s]{s}[/s]", "bold": lambda s: f"[b]{s}[/b]", "italic": lambda s: f"[i]{s}[/i]",
               "emphasis": lambda s: f"[i]{s}[/i]", "mono": str,
               "codeblock": _codeblock_bbcode, "item_breaks": str, "markup": _MARKUP["bbcode"].__getitem__},
}
# A board without [s] (stock phpBB: Renderer(bbcode_extra=())) shows a withdrawn vote greyed out instead.
_STOCK_STRIKE: dict[str, Callable[..., str]] = {"strike": lambda s: f"[color=gray]{s}[/color]"}
# Phrase parameters that name a status, weapon, kind or action are shown in the post's language.
_TRANSLATED_PARAMS = ("status", "weapon", "kind", "action")
# Phrase parameters that are a player's name: a phrase may decline them ({target:gent}) or agree with them
# ({target:ходил/ходила}).
_NAME_PARAMS = ("target", "to", "name", "author", "carrier", "assistant", "inspector", "player")


class Count(int):
    """A number in a phrase: `{count:visitor/visitors}` (Russian: `{count:гость/гостя/гостей}`) is the word
    that agrees with it."""

    _lang: str

    def __new__(cls, value: int, lang: str) -> Count:
        number = super().__new__(cls, value)
        number._lang = lang
        return number

    def __format__(self, spec: str) -> str:
        return plural(int(self), spec, self._lang) if "/" in spec else format(int(self), spec)


class Person(str):
    """A player's name in a phrase. It reads as the name (escaped as the phrase needs); in a format spec,
    a Russian case (`{target:gent}`, `datv`, `accs`, `ablt`, `loct`) is the declined name and
    `{target:погиб/погибла}` the word for the player's gender. Other languages keep the name as it is."""

    _raw: str
    _lang: str
    _gender: str
    _escape: Callable[[str], str]

    def __new__(cls, shown: str, raw: str, lang: str, gender: str, escape: Callable[[str], str]) -> Person:
        person = super().__new__(cls, shown)
        person._raw, person._lang, person._gender, person._escape = raw, lang, gender, escape
        return person

    def __format__(self, spec: str) -> str:
        if "/" in spec:
            return gendered(spec, self._gender)
        if spec in CASES:
            return self._escape(decline(self._raw, spec, self._gender)) if self._lang == "ru" else str(self)
        return format(str(self), spec)


def _when_text(value: str) -> str:
    return parse_time(value).strftime("%Y-%m-%d %H:%M UTC")


_WHEN = ByValue(_when_text, 256)   # a day's deadline, in every vote count of the day


def _when(value: str) -> str:
    return _WHEN[value]


@lru_cache(maxsize=8)
def phrases(lang: str) -> dict[str, str]:
    """The phrase table of a language (English where a language has none)."""
    path = _HERE / "phrases" / f"{lang}.toml"
    if not path.exists():
        path = _HERE / "phrases" / "en.toml"
    with path.open("rb") as handle:
        return dict(tomllib.load(handle))


SANDBOX_FIX = "a template reads only its event (e, v), the phrases (t) and the filters"


def template_error(err: Exception, kind: str) -> ConfigError:
    """A ConfigError naming the template file and line where rendering failed (a runtime error, such as a
    sandbox refusal, has its place only in the traceback, whose frames jinja2 maps to template lines)."""
    path, line = getattr(err, "filename", None), getattr(err, "lineno", None)
    if path is None:
        for frame in reversed(traceback.extract_tb(err.__traceback__)):
            if frame.filename.endswith(".j2"):
                path, line = frame.filename, frame.lineno
                break
    if isinstance(err, SecurityError):
        return ConfigError(f"template {kind}.j2 breaks out of the sandbox: {err}", path=path, line=line,
                           fix=SANDBOX_FIX)
    return ConfigError(f"template {kind}.j2 failed: {err}", path=path, line=line,
                       fix="check the template against the shipped one")


def _format_named(env: _Sandbox, phrase: str, fields: frozenset[str], *args: Any, **kwargs: Any) -> str:
    """`phrase.format(...)` from a template. With only bare-name fields, all given by name, str.format (in C)
    reads nothing but the arguments the template passed and formats each as the sandbox's formatter would
    (the same conversion, the same __format__): the same text and the same errors, nothing more reachable.
    Any other call goes through the sandbox's formatter."""
    if args or not fields <= kwargs.keys():
        return ImmutableSandboxedEnvironment.getattr(env, phrase, "format")(*args, **kwargs)
    return phrase.format(**kwargs)


class _Sandbox(ImmutableSandboxedEnvironment):
    """The sandbox, compiling templates with the shortcuts of `codegen` (a plain dict's item for `v.day`, its
    read methods, a phrase of bare names: each checked at run time to be the sandbox's own answer, without a
    call here) and rendering them in a leaner context. What reaches `getattr` is the sandbox's own, but for a
    phrase's `format` fetched where codegen cannot see it (`_format_named`)."""

    code_generator_class = SandboxCodeGenerator
    context_class = LeanContext

    @internalcode
    def compile(self, source: Any, name: str | None = None, filename: str | None = None, raw: bool = False,
                defer_init: bool = False) -> Any:
        """jinja2's compile, of a template's text once for every environment that compiles it the same (see
        `shared`): each new renderer (a replay, a page of the host console) no longer parses and generates
        every template again."""
        if raw or defer_init or not isinstance(source, str):
            return super().compile(source, name, filename, raw, defer_init)
        return shared.compiled(self, source, name, filename,
                               lambda: super(_Sandbox, self).compile(source, name, filename))

    def getattr(self, obj: Any, attribute: str) -> Any:
        if attribute == "format" and type(obj) is str:    # `t.absolute.format(...)`: see _format_named
            fields = _named_fields(obj)
            if fields is not None:
                return partial(_format_named, self, obj, fields)
        return super().getattr(obj, attribute)

    def make_globals(self, d: Mapping[str, Any] | None) -> Any:
        """A template's globals as a plain dict, not jinja's ChainMap over the environment's: each render and
        each include copies them into a new context, and a ChainMap is walked key by key in Python. The
        renderer sets its globals before it loads a template, and never after."""
        return {**self.globals, **(d or {})}


def host_folders(folder: Path, dialect: str) -> tuple[tuple[Path, bool], ...]:
    """Where a host's templates for `dialect` are, first found first, each with whether it is the
    dialect-neutral one: `folder/<dialect>/`, then `folder/` itself when it holds templates outside the
    dialects' folders. Raises ConfigError when the folder is missing, or holds neither (a host who wrote
    templates only for the other dialect would otherwise get the shipped posts without a word)."""
    if not folder.is_dir():
        raise ConfigError(f"template folder {folder} does not exist",
                          fix=f"create {folder} with the templates to override")
    found = [(folder / dialect, False)] if (folder / dialect).is_dir() else []
    if host_templates(folder, neutral=True):
        found.append((folder, True))
    if not found:
        raise ConfigError(f"template folder {folder / dialect} does not exist",
                          fix=f"create {folder / dialect} with the templates to override, or write "
                              f"templates for both dialects in {folder}")
    return tuple(found)


def host_templates(folder: Path, neutral: bool) -> list[Path]:
    """The templates in a host's folder; in its dialect-neutral folder, not those in a dialect's own."""
    return sorted(p for p in folder.rglob("*.j2") if not (neutral and p.relative_to(folder).parts[0] in DIALECTS))


class _NotFrozen(Exception):
    """A wagon's view or voter that could change (not the game's FrozenDict): nothing made from it is kept."""


_ONLY_FROZEN = frozenset((FrozenDict,))   # the types of a FrozenList's voters whose texts are kept
_ONLY_STR = frozenset((str,))             # of a FrozenList of names
_FIRST = itemgetter(0)


class Renderer:
    """Renders events for one game: its dialect, language, threads and the host's overrides."""

    # Kept by identity (a voter's text, a wagon's view with its text: a MB or two), then started afresh.
    _KEEP_VOTERS, _KEEP_WAGONS = 4096, 256

    def __init__(self, dialect: str = "markdown", lang: str = "en", *, template_dir: str | Path | None = None,
                 overrides: Mapping[str, str] | None = None, genders: Mapping[str, str] | None = None,
                 bbcode_extra: Collection[str] | None = None) -> None:
        """`bbcode_extra`: the BBCodes the board has beyond phpBB's stock ones (None: a board with [s])."""
        if dialect not in DIALECTS:
            raise ConfigError(f"no post templates for dialect '{dialect}'", fix="use markdown or bbcode")
        # A template is looked up in the host's folder for this dialect (<folder>/<dialect>/<event>.j2), then
        # among the host's dialect-neutral ones (<folder>/<event>.j2, written with the same filters as the
        # shipped ones), then among the shipped ones (templates/<event>.j2, one for both dialects).
        self.host_folders: tuple[tuple[Path, bool], ...] = ()     # (folder, neutral) in that order
        if template_dir is not None:
            self.host_folders = host_folders(Path(template_dir), dialect)
        loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(str(f)) for f, _ in self.host_folders]
        loaders.append(jinja2.FileSystemLoader(str(_HERE / "templates")))
        self.dialect = dialect
        self.lang = lang
        self._filters = _DIALECT_FILTERS[dialect]
        if dialect == "bbcode" and bbcode_extra is not None and "s" not in bbcode_extra:
            self._filters = {**self._filters, **_STOCK_STRIKE}
        self._esc, self._link, self._strike = self._filters["esc"], self._filters["link"], self._filters["strike"]
        self.env = self.environment(jinja2.ChoiceLoader(loaders))
        self._formatter = SandboxedFormatter(self.env)
        self.phrases = {**phrases(lang), **(overrides or {})}
        self.genders = dict(genders or {})     # player → "f" / "m" (the roster's; guessed for the others)
        # A template is looked up (and its file read) once per renderer: a running game's templates do not
        # change under it (auto_reload off), and a vote count after every vote must not stat a file each time.
        self._chosen: dict[tuple[str, str], jinja2.Template] = {}    # an event's template by (game, kind)
        # Consecutive vote counts repeat almost every voter: each link is formatted once.
        self._voter_cache: dict[tuple[str, str, bool, bool], str] = {}
        self._frozen_texts: ByIdentity[str] = ByIdentity(self._KEEP_VOTERS)   # a FrozenDict voter's text
        # A FrozenDict wagon's view with its voters' text (and the text of each), by the view's identity.
        self._finished: ByIdentity[tuple[FrozenDict, list[str]]] = ByIdentity(self._KEEP_WAGONS)
        self._not_voting_texts: ByIdentity[str] = ByIdentity(self._KEEP_WAGONS)   # a FrozenList of names, joined

    def environment(self, loader: jinja2.BaseLoader,
                    undefined: type[jinja2.Undefined] = jinja2.StrictUndefined) -> jinja2.Environment:
        """A sandboxed jinja2 environment (a host's template may read its data, never Python's insides nor
        change anything) with this renderer's filters and globals."""
        env = _Sandbox(loader=loader, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
                       undefined=undefined, autoescape=False, auto_reload=False)
        env.filters.update(self._filters)
        env.filters["when"] = _when
        env.globals["voter"] = self._voter
        env.globals["reason"] = self._reason
        env.globals["result"] = self._result
        env.filters["person"] = self.person
        env.filters["count"] = self.count
        # What a template loop's text may be kept by (codegen.py's kept loops): the phrase table, which nothing
        # changes once the renderer is made, and the filters that answer by their arguments alone (not
        # `person`: the genders it reads grow with a game's roster).
        env.kept_names = frozenset({"t"})    # type: ignore[attr-defined]
        env.kept_filters = frozenset({*self._filters, "when", "count", "length"})    # type: ignore[attr-defined]
        return env

    @property
    def compile_token(self) -> tuple[str, str]:
        """What this renderer's own filters (`person`, `count`) give a constant when jinja2 folds one into a
        template's code (shared.token): the name's or number's text, which reads the dialect's escape and
        nothing else (a name's gender and cases only matter in a phrase's format, never folded)."""
        return self.dialect, self.lang

    def count(self, value: Any) -> Any:
        """A whole number that a phrase can agree with (`{n:vote/votes}`; the `count` filter); anything
        else as it is."""
        return Count(value, self.lang) if isinstance(value, int) and not isinstance(value, bool) else value

    def person(self, name: Any, escaped: bool = True) -> Person:
        """A player's name for a phrase (the `person` filter): escaped, declinable, with a gender."""
        raw = str(name)
        gender = self.genders.get(raw) or (guess_gender(raw) if self.lang == "ru" else "m")
        escape: Callable[[str], str] = self._filters["esc"] if escaped else str
        return Person(escape(raw), raw, self.lang, gender, escape)

    def _format(self, phrase: str, params: Mapping[str, Any]) -> str:
        """A phrase (possibly the host's) filled in through the sandbox: `{x.__class__}` cannot look inside."""
        return self._formatter.vformat(phrase, (), params)

    def _voter(self, entry: Mapping[str, Any]) -> str:
        key = (entry["name"], entry.get("url", ""), bool(entry.get("final")), bool(entry.get("withdrawn")))
        text = self._voter_cache.get(key)
        if text is None:
            text = self._voter_made(*key)
            if len(self._voter_cache) > 50_000:   # a long game: start afresh rather than grow forever
                self._voter_cache.clear()
            self._voter_cache[key] = text
        return text

    def _frozen_voter(self, entry: FrozenDict) -> str:
        """_voter's text of a voter that cannot change (_voter_made's, in one call: one or two a count): kept
        by its identity (_voters_text), so not by what it says as well. _NotFrozen for any other voter: only
        one not kept is asked for, and one kept is the very object kept (it is held), so a FrozenDict."""
        if type(entry) is not FrozenDict:
            raise _NotFrozen
        return self._game_voter({id(entry): entry}, entry)

    def _game_voter(self, put: dict[int, FrozenDict], made_from: Any) -> str:
        """_frozen_voter's text of a voter the game's view put, by the id of what it was made from (kept.REMADE's:
        a FrozenDict)."""
        entry = put[id(made_from)]
        text = self._link(self._esc(entry["name"]), entry.get("url", ""))
        if entry.get("final"):
            text += f" ({self.phrases['final']})"
        return self._strike(text) if entry.get("withdrawn") else text

    def _voter_made(self, name: str, url: str, final: bool, withdrawn: bool) -> str:
        f = self._filters
        text = f["link"](f["esc"](name), url)
        if final:
            text += f" ({self.phrases['final']})"
        return f["strike"](text) if withdrawn else text

    def _voters_text(self, voters: list[Any]) -> str:
        """A wagon's voters, joined. The game's FrozenList of FrozenDict voters cannot change: the text of
        each voter is found by identity (in C), only a new one made (a count after every vote has one or two);
        any other voter's by what it says."""
        if type(voters) is FrozenList and _ONLY_FROZEN.issuperset(map(type, voters)):
            return ", ".join(self._frozen_texts.made(voters, self._frozen_voter))
        return ", ".join(self._voter(e) for e in voters)

    def _reason(self, error: Mapping[str, Any], prefix: str = "error_") -> str:
        """A vote error (or, with prefix "refuse_", a refusal) in the post's language: phrase
        `<prefix><code>` (or `<prefix><code>_candidates` when there are candidates), else the English
        reason. Not escaped: the template escapes the whole line."""
        params = {k: (self.person(v, escaped=False) if k in _NAME_PARAMS and isinstance(v, str) else self.count(v))
                  for k, v in dict(error.get("params") or {}).items()}
        code = error.get("code") or ""
        phrase = None
        if params.get("candidates"):
            phrase = self.phrases.get(f"{prefix}{code}_candidates")
        phrase = phrase or self.phrases.get(f"{prefix}{code}")
        if phrase is None:
            return str(error.get("reason", ""))
        try:
            return self._format(phrase, params)
        except (KeyError, IndexError, ValueError, AttributeError, jinja2.TemplateError):
            return str(error.get("reason", ""))

    def _result(self, line: Mapping[str, Any]) -> str:
        """One line of a night's results: phrase `result_<code>`, its text parameters escaped and its
        status/weapon/kind/action in the post's language (the code itself when the phrase is missing)."""
        params: dict[str, Any] = {}
        for key, value in dict(line.get("params") or {}).items():
            if key in _TRANSLATED_PARAMS:
                params[key] = self.phrases.get(f"{key}_{value}", value)
            elif key in _NAME_PARAMS and isinstance(value, str):
                params[key] = self.person(value)
            else:
                params[key] = self._filters["esc"](value) if isinstance(value, str) else self.count(value)
        code = str(line.get("code", ""))
        try:
            return self._format(self.phrases.get(f"result_{code}", code), params)
        except (KeyError, IndexError, ValueError, AttributeError, jinja2.TemplateError):
            return code

    def _with_voter_lists(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """The view with each wagon's voters already joined (`voters_text`), and those not voting
        (`not_voting_text`): the templates stay short and a vote count renders several times faster than
        looping over voters in jinja. A wagon the last votes did not change is the game's same FrozenDict in
        the next count: its dict with `voters_text` is found by its identity, only the others made."""
        wagons = view.get("wagons", [])
        if not isinstance(wagons, list):
            wagons = list(wagons)
        remade = REMADE.dicts[0].get(id(wagons))     # (ByIdentity.get's, without its frame)
        if remade is not None:
            # The game's views of this count remade from views of the count before by edits of their voters:
            # each one's texts are those of the one before (when kept here) with the same edits, the voters
            # it put made. Only the game's lists are in REMADE (held there: the identity is this very list).
            carried, put = remade
            kept, held = self._finished.dicts
            if len(kept) + len(carried) > self._finished.size:
                kept, held = self._finished.dicts = ({}, {})
            make = partial(self._game_voter, put)
            for wagon, shown, edits in carried:
                before = kept.get(id(shown))
                if before is not None:
                    texts = edited(before[1], edits, make)
                    key = id(wagon)
                    held[key] = wagon                # the view first: then its finished dict
                    kept[key] = FrozenDict(wagon, voters_text=", ".join(texts)), texts
        try:
            finished = list(map(_FIRST, self._finished.made(wagons, self._finished_wagon)))
        except _NotFrozen:     # not the game's views (read back from JSON): each by what it says, none kept
            finished = [{**w, "voters_text": self._voters_text(w["voters"])} for w in wagons]
        out = {**view, "wagons": finished}
        not_voting = view.get("not_voting")
        if not_voting == []:    # a list, empty (the commonest once the day is under way)
            out["not_voting_text"] = ""
        elif type(not_voting) is FrozenList and _ONLY_STR.issuperset(map(type, not_voting)):
            text = self._not_voting_texts.get(not_voting)   # the game's list of the count before
            if text is None:
                text = ", ".join(map(self._filters["esc"], not_voting))
                self._not_voting_texts.put(not_voting, text)
            out["not_voting_text"] = text
        elif isinstance(not_voting, list):
            out["not_voting_text"] = ", ".join(map(self._filters["esc"], not_voting))
        return out

    def _finished_wagon(self, wagon: Any) -> tuple[FrozenDict, list[str]]:
        """A wagon's view with its voters' text, and the text of each voter, kept by the view's identity: only
        when neither can change (else _NotFrozen: the view is not the game's, nothing of it is kept; a voter
        that is no FrozenDict raises it when its text is made, _frozen_voter)."""
        voters = wagon["voters"]
        if type(wagon) is not FrozenDict or type(voters) is not FrozenList:
            raise _NotFrozen
        texts = self._frozen_texts.made(voters, self._frozen_voter)
        return FrozenDict(wagon, voters_text=", ".join(texts)), texts

    def phase_name(self, phase: str) -> str:
        """"night1" as the post's language says it: "Night 1", «Ночь 1»."""
        found = _PHASE.fullmatch(phase)
        if not found:
            return phase
        return f"{self.phrases.get(found.group(1), found.group(1))} {found.group(2)}"

    def text(self, event: Event, game: str = "") -> str:
        """The text of one event's post: template <game>/<kind>.j2 if the game has its own, else <kind>.j2.
        Raises ConfigError when a template is missing or broken."""
        kind = event.kind
        template = self._chosen.get((game, kind))
        if template is not None and template.environment is self.env:    # (a vote count after every vote)
            return self.body(self.env, (), event, template)
        names = [f"{game}/{kind}.j2"] if game else []
        return self.body(self.env, [*names, f"{kind}.j2"], event, chosen=(game, kind))

    def body(self, env: jinja2.Environment, names: Sequence[str], event: Event,
             template: jinja2.Template | None = None, chosen: tuple[str, str] | None = None) -> str:
        """An event rendered by the first of the templates `names` that exists in `env` (or by `template`,
        chosen before; `chosen`: text's key to keep the one found by, so it is chosen once)."""
        # One copy of the event's data: a count's is the copy _with_voter_lists makes.
        data = self._with_voter_lists(event.data) if "wagons" in event.data else dict(event.data)
        params = data.get("params")
        if isinstance(params, dict) and isinstance(params.get("phase"), str):
            data["params"] = {**params, "phase": self.phase_name(params["phase"])}
        if isinstance(data.get("view"), dict):
            data["view"] = self._with_voter_lists(data["view"])
        try:
            if template is None:
                template = env.select_template(names)
                if chosen is not None:
                    self._chosen[chosen] = template
            body = render(template, {"e": data, "v": data, "t": self.phrases})
        except jinja2.TemplateNotFound:
            raise ConfigError(f"no template for event '{event.kind}' in dialect {self.dialect}") from None
        except (jinja2.TemplateError, TypeError, ValueError, LookupError, AttributeError) as err:
            raise template_error(err, event.kind) from None
        return self._clean(body)

    @staticmethod
    def _clean(body: str) -> str:
        """A template's text as posted: no run of blank lines, no bidi control, no leading or trailing space."""
        # \n{3,} → \n\n in C, several times faster than the regex, in one pass over the text: split at each run
        # of three, joined by two. A run is left only where one run of three had a line break beside it (four or
        # more), or where there were several runs (a vote count has one of three): then replaced until none is
        # left. Not searched for four afterwards: that was a second pass over the whole text.
        parts = body.split("\n\n\n")
        if len(parts) > 1:
            body = "\n\n".join(parts)
            again = len(parts) > 2 or parts[0][-1:] == "\n" or parts[1][:1] == "\n"
            while again:
                shorter = body.replace("\n\n\n", "\n\n")
                again, body = len(shorter) != len(body), shorter
        # No bidi control belongs in a bot post: whatever a template printed, none is left.
        body = strip_bidi(body)
        # A text that already ends in one line break after its last word, and starts with a word, is what
        # strip() + "\n" would make: it is not copied twice to be the same.
        if body[-1:] == "\n" and not body[-2:-1].isspace() and not body[:1].isspace() and len(body) > 1:
            return body
        return body.strip() + "\n"

    @staticmethod
    def silent(event: Event) -> bool:
        """Whether `render` surely owes nothing for the event (a single vote: no pm_to, no thread, a kind
        posted nowhere), asked before its key is made: a step of several votes renders each."""
        data = event.data
        return event.kind not in EVENT_THREADS and not data.get("pm_to") and not data.get("thread")

    def render(self, event: Event, *, key: str, threads: Mapping[str, str], at: datetime,
               game: str = "") -> list[Outgoing]:
        """The messages an event owes (none for events nobody is told about, such as a single vote)."""
        data = event.data
        pm_to = data.get("pm_to")
        if isinstance(pm_to, str) and pm_to:
            return [Outgoing(key=key, text=self.text(event, game), pm_to=pm_to, at=at, kind=event.kind,
                             subject=str(data.get("subject", "")))]
        role = data.get("thread")
        if not (isinstance(role, str) and role):
            role = EVENT_THREADS.get(event.kind)
        if role is None:
            return []
        thread = threads.get(role)
        if thread is None:
            raise ConfigError(f"the game has no '{role}' thread for {event.kind} posts",
                              fix=f"add {role} to the game's threads")
        slot = data.get("slot")
        # Outgoing(...) as __init__ fills it (model.filled): a vote count after every vote makes one.
        return [filled(Outgoing, key=key, text=self.text(event, game), thread=thread, pm_to=None, subject="",
                       at=at, kind=event.kind, slot=slot if isinstance(slot, str) else "")]
