"""The host's corrections from the console (forumbot/web/console.py), kept in the store with who, when and
why, and read by the game in its order of posts, so a recount or replay of the store gives the same result.

Kinds:
  vote_for     the post counts as a vote for `target` (its own commands are not read)
  not_a_vote   the post's votes and unvotes do not count (its other commands still do)
  use_edited   the post is read with its edited text (`text`, copied when the host chose it)
  read_as      the post is read as if it said `text` (the host retypes a misread night action or vote)
  manual_vote  a vote by `player` for `target`, on a post the console adds (a PM from the host)
  command      a host command (`intent`, `data`), on a post the console adds: it goes through the host
               layer exactly like the same command by PM, with the same refusals and announcements
  reread_round the post (an order, a move, a ranking of any game) is read as the host's `text`, even in a
               round that has ended: the game's results are worked out again, and a tournament's ledger
               follows (forumbot/engine/tournament.py), its log naming the host
  nickname     read `word` as `player` from then on (a nickname the thread uses, confirmed by the host), on
               a post the console adds

The first three change posts the game has already read: the runner then reads the game again from its
first post (the state is a pure function of stored posts and corrections) and posts a vote count saying
the host corrected it. A correction that would change a phase that has ended is not applied (its outcome
says so), but for `reread_round`, whose purpose it is. A correction can be undone, which reads the game again
without it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from forumbot.model import Intent, Post

if TYPE_CHECKING:
    from forumbot.storage import Store
    from forumbot.text.parse import PostParser

KINDS = ("vote_for", "not_a_vote", "use_edited", "read_as", "manual_vote", "command", "reread_round", "nickname")
REREAD = ("vote_for", "not_a_vote", "use_edited", "read_as", "reread_round")   # kinds that change a post already read
VOTE_KINDS = ("vote", "unvote", "no_lynch")
NO_LYNCH = "no_lynch"


@dataclass(frozen=True)
class Correction:
    id: int
    game: str
    post: str
    kind: str
    data: dict[str, Any]
    reason: str
    by: str
    at: str
    undone: str | None = None
    undone_by: str | None = None
    applied: str | None = None
    outcome: str | None = None

    @property
    def active(self) -> bool:
        return self.undone is None and not (self.outcome or "").startswith("not applied")

    def describe(self) -> str:
        target = self.data.get("target")
        shown = "no lynch" if target == NO_LYNCH else target
        return {"vote_for": f"counted as a vote for {shown}",
                "not_a_vote": "not counted as a vote",
                "use_edited": "read with its edited text",
                "read_as": f"read as “{self.data.get('text', '')}”",
                "reread_round": f"read as {self.data.get('text', '')!r} in a round that has ended",
                "manual_vote": f"a vote by {self.data.get('player')} for {shown}, entered by the host",
                "nickname": f"'{self.data.get('word')}' read as {self.data.get('player')} from here on",
                "command": f"the host's command {self.data.get('intent', '').removeprefix('host_')} "
                           f"{self.data.get('text', '')}".strip()}.get(self.kind, self.kind)


def _rows(rows: list[tuple[Any, ...]]) -> list[Correction]:
    return [Correction(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"), *r[5:]) for r in rows]


def listing(store: Store, game: str) -> list[Correction]:
    """Every correction of a game, undone ones included (the audit trail), oldest first."""
    return _rows(store.correction_rows(game=game))


def get(store: Store, correction_id: int) -> Correction | None:
    found = _rows(store.correction_rows(correction_id=correction_id))
    return found[0] if found else None


def active(store: Store, game: str) -> dict[str, Correction]:
    """The corrections in force, by the post each is about (a later one on the same post wins)."""
    return for_step(store, game)[1]


def for_step(store: Store, game: str) -> tuple[list[int], dict[str, Correction]]:
    """What a step needs, in one read: the corrections (and undos) that wait for the game to be read again,
    and the corrections in force."""
    rows = _rows(store.correction_rows(game=game, current=True))
    return [c.id for c in rows if c.applied is None], _in_force(rows)


def _in_force(rows: list[Correction]) -> dict[str, Correction]:
    return {c.post: c for c in rows if c.undone is None and not (c.outcome or "").startswith("not applied")}


def waiting(store: Store, game: str) -> list[int]:
    """The corrections (and undos) that wait for the game to be read again."""
    return for_step(store, game)[0]


def add(store: Store, game: str, post: str, kind: str, data: dict[str, Any], reason: str, by: str,
        at: datetime) -> int:
    """Store a correction. One on a post the game has read waits for the runner to read the game again
    (`applied` NULL); one on a post the console adds is read with that post, in its place."""
    return store.add_correction(game, post, kind, json.dumps(data, ensure_ascii=False), reason, by, at,
                                applied=None if kind in REREAD else at)


def undo(store: Store, correction_id: int, by: str, at: datetime) -> bool:
    """Undo a correction (the game is read again without it). False when it was undone already."""
    return store.undo_correction(correction_id, by, at)


def mark_applied(store: Store, ids: list[int], at: datetime, refused: str = "") -> None:
    """The waiting corrections `ids` read in (or, with `refused`, not applied, and why)."""
    store.mark_corrections(ids, at, f"not applied: {refused}" if refused else "")


# What must come out the same when a game is read again with a correction: a correction may change the
# votes of the phase running now, never how an ended phase came out (that has been announced).
SETTLED = ("phase", "dead", "days", "winner", "nights")


def changes_ended_phase(game: Any, live: Any, rebuilt: Any) -> list[str]:
    """What of an ended phase (SETTLED keys) the game read again with the corrections would change: why it
    cannot replace the live one (none when it can)."""
    before, after = game.summary(live), game.summary(rebuilt)
    return [key for key in SETTLED if before.get(key) != after.get(key)]


def mends_ended_round(store: Store, ids: list[int]) -> bool:
    """Whether every correction waiting (`ids`) is a `reread_round` (or its undo): the host means to change
    how an ended round came out."""
    found = [get(store, i) for i in ids]
    return bool(found) and all(c is not None and c.kind == "reread_round" for c in found)


def carry_counts(live: Any, rebuilt: Any) -> Any:
    """The rebuilt state keeps the live one's vote count numbering, and its next report is due now (a game
    that numbers its vote counts keeps them in `count_number` and `changes`)."""
    if not all(hasattr(s, "count_number") and hasattr(s, "changes") for s in (live, rebuilt)):
        return rebuilt
    return replace(rebuilt, count_number=live.count_number, changes=max(rebuilt.changes, 1_000_000))


def console_post(store: Store, game: str, host: str, at: datetime, what: str) -> Post:
    """A private message from the host to the bot that carries a vote or command given in the console. It
    names the game on its first line, so the host's other games pass it by."""
    post = Post(platform_id=f"console:{secrets.token_hex(8)}", thread="", author=host, created=at,
                body=f"game {game}\n(host console) {what}", pm=True)
    store.save_posts("console", [post])
    return post


def intents_for(correction: Correction, post: Post, parser: PostParser) -> list[Intent]:
    """What a corrected post asks for, in place of what the parser reads in it."""
    data = correction.data
    line = f"(corrected by the host: {correction.describe()})"
    if correction.kind in ("vote_for", "manual_vote"):
        author = str(data["player"]) if correction.kind == "manual_vote" else post.author
        if data.get("target") == NO_LYNCH:
            return [Intent("no_lynch", {"corrected": correction.id}, post_id=post.platform_id, author=author,
                           at=post.created, line=line, url=post.url)]
        return [Intent("vote", {"target": data["target"], "final": False, "corrected": correction.id},
                       post_id=post.platform_id, author=author, at=post.created, line=line, url=post.url)]
    if correction.kind == "command":
        return [Intent(str(data["intent"]), dict(data.get("data", {})), post_id=post.platform_id,
                       author=post.author, at=post.created, line=line, url=post.url)]
    if correction.kind == "nickname":
        return []                  # the timeline reads names with it from here on (HostState.nicknames)
    if correction.kind in ("use_edited", "read_as", "reread_round"):
        return parser.parse(replace(post, body=str(data.get("text", post.body)))).intents
    return [i for i in parser.parse(post).intents if i.kind not in VOTE_KINDS]   # not_a_vote


# ---- one-time sign-in links ---------------------------------------------------------------------
def _digest(token: str) -> str:
    import hashlib
    return hashlib.sha256(token.encode()).hexdigest()


def new_link(store: Store, host: str, game: str, expires: datetime) -> str:
    """A one-time sign-in token for `host` (only its hash is stored)."""
    token = secrets.token_urlsafe(24)
    store.add_host_link(_digest(token), host, game, expires)
    return token


def use_link(store: Store, token: str, now: datetime) -> tuple[str, str] | None:
    """(host, game) for a token not used nor expired, marking it used; None otherwise."""
    return store.use_host_link(_digest(token), now)


# ---- what the console shows about each post -----------------------------------------------------
def chain(data: dict[str, Any]) -> list[dict[str, Any]]:
    """How each name in an intent was read: {"raw": "Хэнкса", "name": "Том Хэнкс", "method": "inflection"}
    (the resolution stage, forumbot/text/names.py; "exact" for a name written whole), or why it was not:
    {"raw", "error": the English reason, "code" and "params" of its phrase error_<code>}."""
    out: list[dict[str, Any]] = []
    for field_name, how in data.get("matched", {}).items():
        raw, _, method = str(how).rpartition(" (")
        out.append({"raw": raw, "name": data.get(field_name), "method": method.rstrip(")")})
    coded = data.get("error_code") or {}
    for field_name, raw in data.get("unresolved", {}).items():
        error = coded.get(field_name) or {}
        out.append({"raw": raw, "error": data.get("error", "not a player"), "code": error.get("code", ""),
                    "params": error.get("params", {})})
    if not out and data.get("target"):
        out.append({"raw": data["target"], "name": data["target"], "method": "exact"})
    return out
