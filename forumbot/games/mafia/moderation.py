"""Automatic checks of the game thread (Body Snatchers section 8): each finding is a flag for the host, who
confirms it with `warn` or lets it go; no penalty comes from here (8.2.7 is counted at the night's end).

What is flagged: a post before the night is announced (section 3); a mask's real account posting; a dead
player posting; a post naming a player's real account (8.2.9) or a community's slang (`slang`, 8.2.8);
and the wordings of the grammar files' `[[checks]]` (parsers/mafia.<lang>.toml): bare role claims about
oneself (8.2.1) or another (8.2.2), note confirmations (8.2.6) and hints at night results (8.2.4). A
sentence with an argument ("думаю", "потому что", "I think", "because", a question) is not a bare claim
(8.3.2). Role words come from the role set's names in the game's language with every inflected form.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from forumbot.config.paths import data_dir
from forumbot.config.tomlfile import load_toml
from forumbot.games.mafia.state import PRE_PHASES, MafiaState
from forumbot.model import Event, Intent
from forumbot.text.clean import clean
from forumbot.text.normalize import fold

_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")
_GAP = r"(?:[\w\-]+\s+){0,3}?"


@dataclass(frozen=True)
class Check:
    rule: str
    what: str
    patterns: tuple[str, ...]
    confidence: str = "high"


@dataclass(frozen=True)
class Checks:
    checks: tuple[Check, ...]
    exempt: tuple[str, ...]
    role_words: tuple[str, ...]
    night_words: tuple[str, ...] = ()


@functools.lru_cache(maxsize=8)
def load_checks(lang: str) -> Checks:
    """The `[[checks]]`, `[check_words] exempt` and `role_words` of parsers/mafia.<lang>.toml."""
    doc = load_toml(data_dir("parsers") / f"mafia.{lang}.toml")
    entries = doc.data.get("checks", [])
    words = doc.data.get("check_words", {})
    checks = tuple(Check(str(e["rule"]), str(e["what"]), tuple(e["patterns"]), str(e.get("confidence", "high")))
                   for e in entries)
    return Checks(checks, tuple(words.get("exempt", ())), tuple(words.get("role_words", ())),
                  tuple(words.get("night_words", ())))


@functools.lru_cache(maxsize=64)
def _word_forms(word: str, lang: str) -> tuple[str, ...]:
    word = fold(word)
    if lang != "ru":
        return (word, word + "s")
    from forumbot.text.names import morph_analyzer

    forms = {word}
    for parse in morph_analyzer().parse(word)[:2]:
        forms |= {fold(f.word) for f in parse.lexeme}
    return tuple(sorted(forms, key=len, reverse=True))


@functools.lru_cache(maxsize=32)
def _role_regex(names: tuple[str, ...], lang: str) -> str:
    forms: set[str] = set()
    for name in names:
        for word in fold(name).split():
            if len(word) >= 3:
                forms.update(_word_forms(word, lang))
    return "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + r")(?!\w)"


@functools.lru_cache(maxsize=32)
def _compiled(lang: str, role_names: tuple[str, ...], players: tuple[str, ...]
              ) -> tuple[tuple[Check, re.Pattern[str]], ...]:
    checks = load_checks(lang)
    role = _role_regex((*role_names, *checks.role_words), lang)
    words = sorted({w for p in players for w in fold(p).split() if len(w) >= 3}, key=len, reverse=True)
    player = "(?:" + "|".join(re.escape(w) + r"\w{0,3}" for w in words) + ")" if words else "(?!)"
    out = []
    for check in checks.checks:
        parts = []
        for pattern in check.patterns:
            text = re.escape(fold(pattern)).replace(r"\ ", r"\s+")
            text = text.replace(r"\{role\}", role).replace(r"\{player\}", player).replace(r"\{gap\}\s+", _GAP)
            parts.append(text)
        out.append((check, re.compile(r"^\W*(?:" + "|".join(parts) + r")(?!\w)")))
    return tuple(out)


def _exempt(sentence: str, exempt: tuple[str, ...]) -> bool:
    if sentence.rstrip().endswith("?"):
        return True
    padded = f" {sentence} "
    return any(re.search(r"(?<!\w)" + re.escape(fold(w)) + r"(?!\w)", padded) for w in exempt)


def findings(state: MafiaState, text: str, dialect: str = "markdown") -> list[tuple[Check, str]]:
    """The checks a post's text trips, with the sentence that tripped each (quotes removed first)."""
    if state.lang not in ("ru", "en"):
        return []
    role_names = tuple(n for r in state.options.roles for n in (r.name(state.lang),))
    checks = load_checks(state.lang)
    compiled = _compiled(state.lang, role_names, tuple(state.players))
    out: list[tuple[Check, str]] = []
    for sentence in _SENTENCE.split(clean(text, dialect)):
        folded = fold(sentence)
        if not folded:
            continue
        for check, regex in compiled:
            if regex.search(folded) and (check.rule not in ("8.2.1", "8.2.2") or not _exempt(folded, checks.exempt)):
                out.append((check, sentence.strip()))
                break
    return out


def note_problem(state: MafiaState, author: str, text: str) -> str | None:
    """Why a note must wait for the host (section 4), or None: "own_role" when it states its writer's role
    (a bare "I am the X", or the writer's name beside a role), "nights" when it quotes results of more than
    one night (two night numbers or more)."""
    if state.lang not in ("ru", "en"):
        return None
    checks = load_checks(state.lang)
    if any(check.rule == "8.2.1" for check, _ in findings(state, text)):
        return "own_role"
    role = re.compile(_role_regex((*(r.name(state.lang) for r in state.options.roles), *checks.role_words),
                                  state.lang))
    mine = [w for w in fold(author).split() if len(w) >= 3]
    for sentence in _SENTENCE.split(fold(text)):
        if role.search(sentence) and any(re.search(r"(?<!\w)" + re.escape(w) + r"\w{0,3}(?!\w)", sentence)
                                         for w in mine):
            return "own_role"
    if checks.night_words:
        words = "|".join(re.escape(fold(w)) for w in sorted(checks.night_words, key=len, reverse=True))
        nights = set(re.findall(r"(?<!\w)(?:" + words + r")\s*[-№#]?\s*(\d+)", fold(text)))
        if len(nights) >= 2:
            return "nights"
    return None


def _flag(post: Intent, code: str, reason: str, **params: Any) -> Event:
    """A flag for the host: the English `reason`, and a `code` with `params` for the game's language
    (phrase flag_<code>)."""
    return Event("moderation", {"author": post.author, "reason": reason, "code": code,
                                "params": {"author": post.author, **params},
                                "post": post.post_id, "url": post.url})


def watch(state: MafiaState, post: Intent, thread: str) -> tuple[MafiaState, list[Event]]:
    """The flags one game-thread post raises (state unchanged: the host decides)."""
    author, text = post.author, str(post.data.get("text", ""))
    dialect = str(post.data.get("dialect") or "markdown")
    if author == state.host:
        return state, []
    events: list[Event] = []
    if author in state.masks.values() and author not in state.players:   # a mask may bear its player's name
        events.append(_flag(post, "real_account", f"{author} posted from their real account, not their mask"))
    elif state.phase in PRE_PHASES:
        events.append(_flag(post, "early_post", f"{author} posted before the night was announced (section 3)"))
    elif author in state.players and author not in state.alive:
        events.append(_flag(post, "dead_post", f"{author} is dead and posted in the game thread"))
    if author not in state.players:
        return state, events
    folded = f" {fold(clean(text, dialect))} "
    for mask, account in state.masks.items():
        if re.search(r"(?<!\w)" + re.escape(fold(account)) + r"(?!\w)", folded):
            events.append(_flag(post, "mask_reveal", f"8.2.9? {author} named the real account of {mask}",
                                rule="8.2.9", mask=mask))
    for word in state.options.slang:
        if re.search(r"(?<!\w)" + re.escape(fold(word)) + r"(?!\w)", folded):
            events.append(_flag(post, "slang", f"8.2.8? {author} used the slang '{word}'", rule="8.2.8",
                                word=word))
    for check, sentence in findings(state, text, dialect):
        low = " (low confidence)" if check.confidence == "low" else ""
        events.append(_flag(post, check.what, f"{check.rule}?{low} {author}: \"{sentence[:120]}\"",
                            rule=check.rule, confidence=check.confidence, sentence=sentence[:120]))
    return state, events
