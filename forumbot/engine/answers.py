"""Every private message answered once, whole: what the bot understood, what it did not and why, and the
forms it accepts, in the game's language.

* A PM in which nothing could be read gets a `pm_unread` answer (the accepted forms for what the author may
  send now, words that came close to several commands) and the host a flag.
* A PM that made several answers to its author (an acknowledgement and a refusal, two commands), or whose
  reading mended a typo or took a correction, gets them in one `pm_reply`, command by command; the answers
  it holds stay in the event log without a message of their own.
* The host's PM is answered once too, command by command: a command that was done is told with what it did
  (the announcement the players see), one refused with why.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from forumbot.engine.loading import GameRun
from forumbot.model import Event, Flag, Intent, Post
from forumbot.text.parse import Parsed

_SLOT = re.compile(r"\{(\w+)(?::(\w+))?\}")
# The host layer's commands and the game commands only a host sends: never offered to a player.
HOST_ONLY = frozenset({"host_extend", "host_end_phase", "host_pause", "host_resume", "host_replace", "host_modkill",
                       "host_game", "reject_note", "approve_note", "deal_roles", "start_game", "reveal_masks", "warn",
                       "best_player_open", "award", "stalemate", "stalemate_warning", "tiebreak"})
FORMS_SHOWN = 8        # accepted forms an answer lists at most
QUOTED = 200           # characters of the message quoted back


def forms(run: GameRun, state: Any, player: str, host: bool) -> list[list[dict[str, str]]]:
    """The accepted forms of what `player` may send by PM now: the first template of each command the game
    says it expects (its `pm_commands`), else of every command a PM may carry (the host's, for the host).
    Each form is a list of pieces: {"text": ...} or {"slot": its type}."""
    expected = getattr(run.game, "pm_commands", None)
    wanted = None if host or expected is None else set(expected(state, player))
    shown: list[list[dict[str, str]]] = []
    seen: set[tuple[str, str]] = set()
    for command in run.parser.grammar.commands:
        if command.where not in ("pm", "any") or not command.templates:
            continue
        key = (command.kind, str(command.data.get("action", "")))
        if wanted is not None:
            if key not in wanted and (command.kind, "") not in wanted:
                continue
        elif (command.kind in HOST_ONLY) != host or command.kind == "host_game":
            continue
        if key in seen:
            continue
        seen.add(key)
        shown.append(_pieces(command.templates[0]))
        if len(shown) >= FORMS_SHOWN:
            break
    return shown


def _pieces(template: str) -> list[dict[str, str]]:
    text = unicodedata.normalize("NFKC", template.strip())
    out: list[dict[str, str]] = []
    position = 0
    for slot in _SLOT.finditer(text):
        if slot.start() > position:
            out.append({"text": text[position:slot.start()]})
        kind = slot.group(2) or slot.group(1)
        out.append({"slot": kind if kind in ("player", "players", "number", "square") else "text"})
        position = slot.end()
    if position < len(text):
        out.append({"text": text[position:]})
    return out


def unread(run: GameRun, state: Any, post: Post, account: str, player: str, parsed: Parsed,
           host: bool) -> tuple[Event, Flag]:
    """The answer to a PM in which no command could be read, and the host's flag."""
    said = post.body.strip()
    quoted = said[:QUOTED] + ("…" if len(said) > QUOTED else "")
    data = {"pm_to": account, "to_account": True, "subject": "not_understood", "line": quoted,
            "forms": forms(run, state, player, host), "near": parsed.near, "host": host, "post": post.platform_id}
    written = language_of(said)
    if written and written != run.config.lang:
        data["lang"] = written     # answered in the language it was written in
    flag = Flag(reason=f"a private message with no command the bot could read: '{quoted[:80]}'",
                post_id=post.platform_id, author=account, at=post.created, line=said[:200], code="flag_pm_unread",
                params=(("text", quoted[:80]),))
    return Event("pm_unread", data), flag


_LETTER = re.compile(r"[^\W\d_]")


def language_of(text: str) -> str:
    """The language a message is written in, where its letters say so plainly: "ru" (mostly Cyrillic), "en"
    (Latin only), else ""."""
    letters = _LETTER.findall(text)
    if len(letters) < 3:
        return ""
    cyrillic = sum(1 for c in letters if "\u0400" <= c <= "\u04ff")
    if cyrillic * 2 > len(letters):
        return "ru"
    return "en" if cyrillic == 0 and all(c.isascii() for c in letters) else ""


def mended_flags(post: Post, account: str, parsed: Parsed) -> list[Flag]:
    """A flag for each change the reading made to a PM (a typo read as a command, a correction taken)."""
    out = []
    for note in parsed.mended:
        if "wrote" in note:
            reason, code = f"read '{note['wrote']}' as the command word '{note['read']}'", "flag_read_typo"
        else:
            reason, code = f"'{note['replaced']}' replaced by the correction '{note['by']}'", "flag_read_correction"
        out.append(Flag(reason=reason, post_id=post.platform_id, author=account, at=post.created,
                        line=post.body[:200], code=code, params=tuple((k, str(v)) for k, v in note.items())))
    return out


def to_author(event: Event, account: str, player: str) -> bool:
    """Whether an event answers the message's author: a refusal or an acknowledgement addressed to them (a
    role, a board or a warning that a command brought about stays a message of its own)."""
    pm_to = event.data.get("pm_to")
    return isinstance(pm_to, str) and pm_to in (account, player) and is_answer(event.kind)


def is_answer(kind: str) -> bool:
    return kind == "rejected" or kind.endswith(("_ack", "_reply", "_note", "_rejected"))


def merge(events: list[tuple[Event, str]], answered: list[tuple[Intent, int, int]], account: str, player: str,
          parsed: Parsed, host: bool, post_id: str) -> None:
    """Gather the answers to one PM (`answered`: each intent with the range of `events` it added) into one
    `pm_reply`, in place, when there is more than one, or the reading changed the message (a typo, a
    correction), or the host's message was done without a private word. The answers gathered keep their
    place in the log, without a message of their own."""
    parts: list[dict[str, Any]] = []
    gathered: list[int] = []      # the author's answers the reply holds, by their place in `events`
    commands = 0
    for intent, first, last in answered:
        if intent.kind in ("host_game", "not_counted"):
            continue
        commands += 1
        told = [i for i in range(first, last)
                if to_author(events[i][0], account, player) or (host and events[i][0].kind == "host_notice")]
        gathered += [i for i in told if to_author(events[i][0], account, player)]
        parts.append({"line": (intent.line or "")[:QUOTED], "kind": intent.kind,
                      "events": [{"kind": events[i][0].kind, "data": dict(events[i][0].data)} for i in told]})
    private = len(gathered)
    if not parts or not (private >= 2 or (parsed.mended and private) or (host and (commands >= 2 or not private))):
        return
    subject = ""
    for index in gathered:
        event, post = events[index]
        subject = subject or str(event.data.get("subject", ""))
        kept = {k: v for k, v in event.data.items() if k not in ("pm_to", "to_account", "subject")}
        events[index] = (Event(event.kind, {**kept, "in_reply": True}), post)
    events.append((Event("pm_reply", {"pm_to": account, "to_account": True, "subject": subject or "reply",
                                      "parts": parts,
                                      "notes": list(parsed.mended), "host": host}), post_id))
