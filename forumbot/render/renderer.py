"""The renderer: events in, Outgoing messages out. Pure apart from reading template files."""

from __future__ import annotations

import re
import tomllib
import traceback
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter

from forumbot.errors import ConfigError
from forumbot.model import Event, Flag, Outgoing, parse_time
from forumbot.model import zone as zone_of
from forumbot.render.defuse import defuse, strip_bidi
from forumbot.text.decline import CASES, decline, gendered, guess_gender, plural

_HERE = Path(__file__).resolve().parent
DIALECTS = ("markdown", "bbcode")
# Where each Mafia event is posted, by thread purpose ("votes" is the game's first voting thread). Any
# game may instead address an event itself: data "thread" (a purpose) or "pm_to" (a player), "subject".
EVENT_THREADS = {"vote_count": "votes", "day_end": "votes", "phase_start": "game", "night_end": "game"}

# Characters Reddit markdown reads as markup anywhere in a line ("(" only matters after "]", escaped).
_PHASE = re.compile(r"(day|night)(\d+)")
_BLANK_LINES = re.compile(r"\n{3,}")
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


def _esc_markdown(text: Any) -> str:
    return escape_markdown(defuse(str(text), "markdown"))


def _esc_bbcode(text: Any) -> str:
    return escape_bbcode(defuse(str(text), "bbcode"))


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
# the marks the `bold` and `italic` filters put around a text, for a template to write them apart from it.
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
# Phrase parameters that name a status, weapon, kind or action are shown in the post's language: parameter
# → the prefix of its value's phrase ("verb": "heal" → action_heal; "want": "winners" → bp_want_winners).
_TRANSLATED_PARAMS = {"status": "status_", "weapon": "weapon_", "kind": "kind_", "action": "action_",
                      "verb": "action_", "want": "bp_want_", "taken": "host_taken_", "confidence": "flag_confidence_",
                      "habitat": "fc_in_", "channel": "fc_in_", "location": "nm_at_", "other_location": "nm_at_",
                      "spend": "nm_spend_", "piece": "inf_piece_", "card": "inf_card_", "failed": "flag_step_"}
# Phrase parameters that are a player's name: a phrase may decline them ({target:gent}) or agree with them
# ({target:ходил/ходила}).
# A Nisemonogatari Character's label as the game makes it: "Ana's CharA" (a Character's own name has no
# apostrophe; a player's may).
_CHARACTER = re.compile(r"([^()]+)'s Char([ABC])\b")
_NAME_PARAMS = ("target", "to", "name", "author", "carrier", "assistant", "inspector", "player", "owner")


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


def _when(value: str, where: tzinfo = UTC) -> str:
    """A time as the posts show it: "2026-03-01 20:00 UTC", or in a game's zone "2026-03-01 23:00 MSK"."""
    if where is UTC:
        return parse_time(value).strftime("%Y-%m-%d %H:%M UTC")
    return parse_time(value).astimezone(where).strftime("%Y-%m-%d %H:%M %Z")


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


class Renderer:
    """Renders events for one game: its dialect, language, threads and the host's overrides."""

    def __init__(self, dialect: str = "markdown", lang: str = "en", *, template_dir: str | Path | None = None,
                 overrides: Mapping[str, str] | None = None, genders: Mapping[str, str] | None = None,
                 bbcode_extra: Collection[str] | None = None, zone: str = "UTC") -> None:
        """`bbcode_extra`: the BBCodes the board has beyond phpBB's stock ones (None: a board with [s]);
        `zone`: the IANA zone the posts show times in (a game's `calendar_tz`)."""
        if dialect not in DIALECTS:
            raise ConfigError(f"no post templates for dialect '{dialect}'", fix="use markdown or bbcode")
        # A template is looked up in the host's folder for this dialect (<folder>/<dialect>/<event>.j2), then
        # among the host's dialect-neutral ones (<folder>/<event>.j2, written with the same filters as the
        # shipped ones), then among the shipped ones (templates/<event>.j2, one for both dialects).
        self.host_folders: tuple[tuple[Path, bool], ...] = ()     # (folder, neutral) in that order
        if template_dir is not None:
            self.host_folders = host_folders(Path(template_dir), dialect)
        self._template_dir = template_dir
        self._bbcode_extra = bbcode_extra
        self.zone = zone
        self._zone = zone_of(zone)
        self._others: dict[str, Renderer] = {}   # the same game's renderer in another language, made when asked
        loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(str(f)) for f, _ in self.host_folders]
        loaders.append(jinja2.FileSystemLoader(str(_HERE / "templates")))
        self.dialect = dialect
        self.lang = lang
        self._filters = _DIALECT_FILTERS[dialect]
        if dialect == "bbcode" and bbcode_extra is not None and "s" not in bbcode_extra:
            self._filters = {**self._filters, **_STOCK_STRIKE}
        self.env = self.environment(jinja2.ChoiceLoader(loaders))
        self._formatter = SandboxedFormatter(self.env)
        self.phrases = {**phrases(lang), **(overrides or {})}
        self.genders = dict(genders or {})     # player → "f" / "m" (the roster's; guessed for the others)
        # Replaced seats as posts name them (the `seat` filter): seat → (account now, account before, day);
        # the runner sets it from the seating chart before it renders a step's events.
        self.replaced: dict[str, tuple[str, str, int]] = {}
        # An event's template by (game, kind), found once: a running game's templates do not change under it,
        # and a missing game's own template is not looked for on disk again at every vote count.
        self._chosen: dict[tuple[str, str], jinja2.Template] = {}

    def environment(self, loader: jinja2.BaseLoader,
                    undefined: type[jinja2.Undefined] = jinja2.StrictUndefined) -> jinja2.Environment:
        """A sandboxed jinja2 environment (a host's template may read its data, never Python's insides nor
        change anything) with this renderer's filters and globals."""
        env = ImmutableSandboxedEnvironment(loader=loader, trim_blocks=True, lstrip_blocks=True,
                                            keep_trailing_newline=False, undefined=undefined, autoescape=False,
                                            auto_reload=False)
        env.filters.update(self._filters)
        env.filters["when"] = self.when
        env.filters["person"] = self.person
        env.filters["seat"] = self.seat
        env.filters["count"] = self.count
        env.filters["char"] = self.character
        env.globals["voter"] = self._voter
        env.globals["reason"] = self._reason
        env.globals["result"] = self._result
        return env

    def when(self, value: str) -> str:
        """A time in the game's zone (the `when` filter)."""
        return _when(value, self._zone)

    def count(self, value: Any) -> Any:
        """A whole number that a phrase can agree with (`{n:vote/votes}`; the `count` filter); anything
        else as it is."""
        return Count(value, self.lang) if isinstance(value, int) and not isinstance(value, bool) else value

    def character(self, label: Any) -> str:
        """A Nisemonogatari Character as the post's language says it: the game's "Ana's CharA" (and "Hitagi
        (Ana's CharA)") is phrase nm_label ("CharA игрока Ана"); anything else as it is. Not escaped."""
        def said(found: re.Match[str]) -> str:
            return self._format(self.phrases.get("nm_label", "{player}'s Char{slot}"),
                                {"player": found.group(1), "slot": found.group(2)})
        return _CHARACTER.sub(said, str(label))

    def person(self, name: Any, escaped: bool = True) -> Person:
        """A player's name for a phrase (the `person` filter): escaped, declinable, with a gender."""
        raw = str(name)
        gender = self.genders.get(raw) or (guess_gender(raw) if self.lang == "ru" else "m")
        escape: Callable[[str], str] = self._filters["esc"] if escaped else str
        return Person(escape(raw), raw, self.lang, gender, escape)

    def _format(self, phrase: str, params: Mapping[str, Any]) -> str:
        """A phrase (possibly the host's) filled in through the sandbox: `{x.__class__}` cannot look inside."""
        return self._formatter.vformat(phrase, (), params)

    def seat(self, name: Any) -> str:
        """A player's name in a count, a list or the newspaper, escaped: a replaced seat as hosts write it,
        "Bob (replaced Alice, day 2)" («Bob (вместо Alice, день 2)»)."""
        held = self.replaced.get(str(name))
        if held is None:
            return self._filters["esc"](name)
        account, before, day = held
        phrase = self.phrases["replaced_seat" if day else "replaced_seat_no_day"]
        return self._filters["esc"](self._format(phrase, {"account": self.person(account, escaped=False),
                                                          "before": self.person(before, escaped=False), "day": day}))

    def _voter(self, entry: Mapping[str, Any]) -> str:
        """One voter of a wagon: the name linked to the vote, "(final)" after a final vote, struck when
        withdrawn."""
        f = self._filters
        text = f["link"](self.seat(entry["name"]), entry.get("url", ""))
        if entry.get("final"):
            text += f" ({self.phrases['final']})"
        if entry.get("edited") and ("now" in entry or entry.get("removed")):
            # an edit the count marks: what the post says now (the vote counts as first read), or the vote
            # the edit took away
            now = entry.get("now")
            phrase = "edited_vote_removed" if entry.get("removed") else \
                "edited_vote_now" if now else "edited_vote_now_none"
            shown = (self.phrases["no_lynch"] if now == "no_lynch" else self.seat(now)) if now else ""
            text += " (" + self._format(self.phrases[phrase], {"at": _when(entry["edited"]),
                                                                "now": f["link"](shown, entry.get("url", ""))}) + ")"
        elif entry.get("edited"):
            was = entry.get("was")
            shown = (self.phrases["no_lynch"] if was == "no_lynch" else self.seat(was)) if was else ""
            phrase = self.phrases["edited_vote_was" if was else "edited_vote"]
            text += " (" + self._format(phrase, {"at": _when(entry["edited"]),
                                                 "was": f["link"](shown, entry.get("was_url", ""))}) + ")"
        elif entry.get("edited_away"):
            text += f" ({self.phrases['edited_away']})"
        if entry.get("weight") is not None:
            text += f" ({self.phrases['vote_weight'].format(weight=entry['weight'])})"
        return f["strike"](text) if entry.get("withdrawn") else text

    def _reason(self, error: Mapping[str, Any], prefix: str = "error_") -> str:
        """A vote error (or, with prefix "refuse_", a refusal) in the post's language: phrase
        `<prefix><code>` (or `<prefix><code>_candidates` when there are candidates), else the English
        reason. Not escaped: the template escapes the whole line."""
        params = {k: self._param(k, v) for k, v in dict(error.get("params") or {}).items()}
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

    def flag(self, flag: Flag) -> Flag:
        """A flag of the reading as the host reads it: its phrase (flag.code) in the game's language."""
        if not flag.code:
            return flag
        said = self._reason({"code": flag.code, "params": dict(flag.params), "reason": flag.reason}, prefix="")
        return replace(flag, reason=said)

    def flag_reason(self, event: Event) -> str:
        """What the host reads in a flag for a refusal ("rejected") or a moderation event: its phrase
        (refuse_<code>, flag_<code>) in the game's language, plain text; the English reason where there is
        none."""
        if event.kind == "moderation":
            return self._reason(event.data, "flag_")
        return self._reason(event.data, "error_" if event.data.get("vote") else "refuse_")

    def _param(self, key: str, value: Any) -> Any:
        """A refusal's or error's parameter as its phrase shows it (not escaped): a name declinable, an id
        (action, phase, status...) in the post's language, a number able to agree with a word."""
        if isinstance(value, str):
            if key in _NAME_PARAMS:
                return self.person(value, escaped=False)
            if key in ("query", "holder"):
                return self.character(value)
            if key in _TRANSLATED_PARAMS:
                return self.phrases.get(f"{_TRANSLATED_PARAMS[key]}{value}", value)
            if key in ("phase", "current", "named"):
                return self.phase_name(value)
            if key == "end":     # the host's command ending a phase: "end day", "end phase signup"
                found = self.phrases.get(f"host_end_{value}")
                return found or f"{self.phrases.get('host_end_phase', 'end phase')} {value}"
        return self.count(value)

    def _result(self, line: Mapping[str, Any]) -> str:
        """One line of a night's results: phrase `result_<code>`, its text parameters escaped and its
        status/weapon/kind/action in the post's language (the code itself when the phrase is missing)."""
        params: dict[str, Any] = {}
        for key, value in dict(line.get("params") or {}).items():
            if key in _TRANSLATED_PARAMS:
                params[key] = self.phrases.get(f"{_TRANSLATED_PARAMS[key]}{value}", value)
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
        (`not_voting_text`), so the templates stay short."""
        out = {**view, "wagons": [{**wagon, "voters_text": ", ".join(map(self._voter, wagon["voters"]))}
                                  for wagon in view.get("wagons", [])]}
        not_voting = view.get("not_voting")
        if isinstance(not_voting, list):
            out["not_voting_text"] = ", ".join(map(self.seat, not_voting))
        detail = view.get("not_voting_activity")
        if isinstance(detail, list):
            out["not_voting_text"] = ", ".join(map(self._activity, detail))
        return out

    def _activity(self, line: Mapping[str, Any]) -> str:
        """A player not voting, with their posts today and the hours since their last post."""
        name = self.seat(line["name"])
        if line.get("hours") is None:
            return f"{name} ({self.phrases['activity_never']})"
        params = {"posts": self.count(line["posts"]), "words": self.count(line["words"]),
                  "hours": self.count(line["hours"])}
        return f"{name} ({self._format(self.phrases['activity_line'], params)})"

    def phase_name(self, phase: str) -> str:
        """"night1" as the post's language says it: "Night 1", «Ночь 1»; a phase without a number by its
        phrase `phase_<id>` ("signup": «запись»)."""
        found = _PHASE.fullmatch(phase)
        if not found:
            return self.phrases.get(f"phase_{phase}", phase)
        return f"{self.phrases.get(found.group(1), found.group(1))} {found.group(2)}"

    def subject(self, data: Mapping[str, Any]) -> str:
        """A private message's subject in the post's language: the event's "subject" names phrase
        `subject_<subject>`, filled in from the event's numbers and texts ("night" → «Ночь 2»); a subject
        with no phrase is shown as it is."""
        named = str(data.get("subject", ""))
        phrase = self.phrases.get(f"subject_{named}")
        if phrase is None:
            return named
        params = {k: self.count(v) if isinstance(v, int) else v       # (a subject is plain text: no markup)
                  for k, v in data.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}
        try:
            return self._format(phrase, params)
        except (KeyError, IndexError, ValueError, AttributeError, jinja2.TemplateError):
            return named

    def template(self, kind: str, game: str = "") -> jinja2.Template:
        """The template of an event: <game>/<kind>.j2 if the game has its own, else <kind>.j2. Raises
        ConfigError when there is none, or it does not parse."""
        chosen = self._chosen.get((game, kind))
        if chosen is None:
            names = [f"{game}/{kind}.j2"] if game else []
            try:
                chosen = self.env.select_template([*names, f"{kind}.j2"])
            except jinja2.TemplateNotFound:
                raise ConfigError(f"no template for event '{kind}' in dialect {self.dialect}") from None
            except jinja2.TemplateError as err:
                raise template_error(err, kind) from None
            self._chosen[(game, kind)] = chosen
        return chosen

    def text(self, event: Event, game: str = "") -> str:
        """The text of one event's post. Raises ConfigError when a template is missing or broken. A reply that
        gathers the answers to one message (`pm_reply`) holds each answer's event: each is rendered by its own
        template, and the reply's template lays them out (`texts` of each part)."""
        return self.body(self.template(event.kind, game), event, game)

    def body(self, template: jinja2.Template, event: Event, game: str = "") -> str:
        """An event rendered by `template`, cleaned (see `_clean`). Raises ConfigError naming the template's
        file and line when it fails."""
        data = self._with_voter_lists(event.data) if "wagons" in event.data else dict(event.data)
        parts = data.get("parts") if event.kind == "pm_reply" else None
        if isinstance(parts, list):   # each answer a reply gathers, by its own template
            data["parts"] = [{**part, "texts": [self.text(Event(str(told["kind"]), dict(told["data"])), game).strip()
                                                for told in part.get("events", [])]} for part in parts]
        params = data.get("params")
        if isinstance(params, dict) and isinstance(params.get("phase"), str):
            data["params"] = {**params, "phase": self.phase_name(params["phase"])}
        if isinstance(data.get("view"), dict):
            data["view"] = self._with_voter_lists(data["view"])
        try:
            body = template.render(e=data, v=data, t=self.phrases)
        except (jinja2.TemplateError, TypeError, ValueError, LookupError, AttributeError, RecursionError) as err:
            raise template_error(err, event.kind) from None    # (RecursionError: a template including itself)
        return self._clean(body)

    @staticmethod
    def _clean(body: str) -> str:
        """A template's text as posted: no run of blank lines, no bidi control, no leading or trailing space."""
        return strip_bidi(_BLANK_LINES.sub("\n\n", body)).strip() + "\n"

    def in_lang(self, lang: Any) -> Renderer:
        """This renderer, or the same one in `lang` (a private answer to a message written in another of the
        languages the bot has phrases for; the host's phrase overrides are the game language's own)."""
        if not isinstance(lang, str) or lang == self.lang or not (_HERE / "phrases" / f"{lang}.toml").exists():
            return self
        other = self._others.get(lang)
        if other is None:
            other = self._others[lang] = Renderer(self.dialect, lang, template_dir=self._template_dir,
                                                  genders=self.genders, bbcode_extra=self._bbcode_extra,
                                                  zone=self.zone)
        return other

    @staticmethod
    def silent(event: Event) -> bool:
        """Whether `render` surely owes nothing for the event (a single vote: no pm_to, no thread, a kind
        posted nowhere)."""
        data = event.data
        return event.kind not in EVENT_THREADS and not data.get("pm_to") and not data.get("thread")

    def render(self, event: Event, *, key: str, threads: Mapping[str, str], at: datetime,
               game: str = "") -> list[Outgoing]:
        """The messages an event owes (none for events nobody is told about, such as a single vote)."""
        data = event.data
        pm_to = data.get("pm_to")
        if isinstance(pm_to, str) and pm_to:
            speaks = self.in_lang(data.get("lang"))   # an answer in the language its message was written in
            return [Outgoing(key=key, text=speaks.text(event, game), pm_to=pm_to, at=at, kind=event.kind,
                             subject=speaks.subject(data))]
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
        return [Outgoing(key=key, text=self.text(event, game), thread=thread, at=at, kind=event.kind,
                         slot=slot if isinstance(slot, str) else "")]
