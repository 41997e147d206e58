"""Reading posts into a game in time order, with its deadlines and the host's commands: the one loop that
the runner, recounts and replays share. No I/O: the caller stores what it returns."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.engine import answers
from forumbot.engine.chart import run_chart
from forumbot.engine.corrections import intents_for
from forumbot.engine.host import HOST_KINDS, HostState, apply_host
from forumbot.engine.loading import GameRun
from forumbot.games.base import refusal
from forumbot.model import Event, Flag, Intent, Post
from forumbot.seating import Chart, PlatformSeats, Taken, name_key, name_taken, same_name
from forumbot.text.clean import clean
from forumbot.text.parse import VOTE_KINDS, Parsed

log = logging.getLogger("forumbot.engine.timeline")
# What an account writes to a game it has no seat in yet: its sign-up.
SIGNUP_KINDS = ("signup", "signup_withdraw")
HOST_HELP = ("extend HOURS, end day, end night, end phase NAME, pause, resume, replace PLAYER with ACCOUNT, "
             "modkill PLAYER, spectate ACCOUNT, unspectate ACCOUNT")


@dataclass
class Step:
    """What a game made of a run of posts: its new state and everything to store with it."""

    state: Any
    host: HostState = field(default_factory=HostState)
    events: list[tuple[Event, str]] = field(default_factory=list)
    intents: list[Intent] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    processed: list[str] = field(default_factory=list)
    corrections: dict[str, Any] = field(default_factory=dict)   # the host's, by post (forumbot/engine/corrections.py)
    # The platform asked about a sign-up's mask (mask, claimant): [] it may be taken, [code, holder] why not,
    # None when it could not answer now (the deal looks again). None: no platform to ask (a recount).
    mask_check: Callable[[str, str], list[str] | None] | None = None




def play(run: GameRun, state: Any, posts: list[Post], now: datetime, bot: str,
         host: HostState | None = None, host_games: tuple[str, ...] = (), reach: datetime | None = None,
         corrections: dict[str, Any] | None = None, seats: PlatformSeats | None = None,
         accounts_before: Callable[[datetime], Iterable[str]] | None = None,
         mask_check: Callable[[str, str], list[str] | None] | None = None) -> Step:
    """Read posts (oldest first) into a game, firing every deadline that falls before each post and, at the
    end, every deadline up to `now` (none while the host has the game paused). The host's commands go to
    the host layer. `host_games`: every game on the platform its host runs, sorted (the host's PMs must
    name one when there are several; the first answers for all). A post whose reading raises is skipped
    and flagged; the game goes on. The runner and recounts share it.

    `reach` (default `now`): the time up to which the platform has been read. A deadline after it does not
    fire yet, and the posts made after that deadline wait with it (they are left out of `processed`).
    `corrections`: the host's corrections in force, by post: a corrected post is read as corrected.
    `seats`: who holds a seat or hosts in each game on the platform (a PM is read by the one game it is for,
    _for_which_game). A PM sent before the game opened is never read. `accounts_before(time)`: the accounts
    that had written on the platform before then (a mask named like one is refused). `mask_check(mask,
    account)`: the platform's answer on a sign-up's mask (Platform.mask_refusal), kept in the host layer by
    the sign-up's post, so a game read again gives it the same answer."""
    game = run.game
    reach = now if reach is None else min(reach, now)
    step = Step(state=state, host=host or HostState(), corrections=corrections or {}, mask_check=mask_check)
    commands = set(map(run.thread_id, game.command_threads(state)))
    # What the game offers, asked once a step rather than at each post (a game's methods do not change).
    guard, roster = getattr(game, "guard_post", None), getattr(game, "roster", None)
    # Who hosts: the chart's hosts (they do not change within a step). A co-host's posts are the host's.
    chart = run_chart(run, state, step.host)
    hosts, host = chart.hosts(), run.config.host
    note = getattr(game, "note_post", None)
    index, count = 0, len(posts)
    stalled: datetime | None = None   # a deadline the game did nothing about: not fired again this step
    while True:
        deadline = game.next_deadline(step.state)
        post = posts[index] if index < count else None
        # A post at the deadline's very second still counts; the deadline fires before later posts.
        if deadline is not None and deadline != stalled and deadline <= now and step.host.paused_at is None \
                and (post is None or deadline < post.created):
            if deadline > reach:
                return step
            before = step.state
            step.state, fired = game.on_deadline(step.state, deadline, now=now)
            step.events += [(e, "") for e in fired]
            step.flags += [Flag(reason=e.data["flag"], author=str(e.data.get("name", "")), at=deadline,
                                code=f"flag_{e.kind}", params=tuple((k, v) for k, v in e.data.items() if k != "flag"))
                           for e in fired if isinstance(e.data.get("flag"), str)]
            if not fired and step.state is before:
                stalled = deadline
            commands = set(map(run.thread_id, game.command_threads(step.state)))
            continue
        if post is None:
            # (roster: the players a game made as it went, Mafia's sign-ups)
            players = roster(step.state) if roster is not None else None
            if players is not None:     # (use_roster(None) leaves the roster as it is)
                run.use_roster(players)
            return step
        index += 1
        step.processed.append(post.platform_id)
        if post.author == bot or (post.pm and run.opened is not None and post.created < run.opened):
            continue
        account = post.author
        if host and account in hosts and account != host:
            post = replace(post, author=host)   # a co-host acts with the host's powers
        if note is not None and not post.pm and REREAD not in post.platform_id:   # (an edit is no new post)
            _note(run, step, post, note)
        if not post.pm and post.author != run.config.host:
            # names are read with what the thread taught before this post; then it teaches too
            taught = run.learn(step.host.taught, post.body, post.dialect)
            if taught is not step.host.taught:
                step.host = replace(step.host, taught=taught)
        if not post.pm and post.thread not in commands:
            _isolated(run, step, post, account, _outside, commands)
            continue
        player = step.host.player_of(post.author)
        if player is None:   # an account the host replaced: its posts no longer count
            step.flags.append(Flag(reason=f"{post.author} was replaced; the post is not counted",
                                   post_id=post.platform_id, author=post.author, at=post.created,
                                   code="flag_replaced_post", params=(("author", post.author),)))
            continue
        if post.pm:   # Mafia: a mask's real account PMs as the mask
            account_player = getattr(game, "account_player", None)
            if account_player is not None:
                player = account_player(step.state, player)
        if player != post.author:
            if any(same_name(player, h) for h in hosts):   # never the host's powers by a name a player chose
                step.flags.append(Flag(reason=f"{post.author} plays under the host's name {player}; the post is not "
                                              "counted", post_id=post.platform_id, author=post.author, at=post.created,
                                       code="flag_host_name", params=(("author", post.author), ("player", player))))
                continue
            post = replace(post, author=player)
        _isolated(run, step, post, account, _read, account, host_games, guard, roster, bot,
                  seats if post.pm else None, accounts_before, chart)


# An edited post's new text is stored as a post of its own, "<its id>@<the edit's time>" (no platform's ids
# hold an "@"): a later recheck re-reads the original, never this copy. Under the "edited" policy the copy is
# read as a post made at the edit's time; under "first_seen" and "flag" ("<its id>@kept@<time>") only what
# its votes say now is read, for the count to show beside the vote as first read.
REREAD = "@"
KEPT = "@kept@"


def _note(run: GameRun, step: Step, post: Post, note: Callable[..., Any]) -> None:
    """A player's post in one of the game's threads, counted for the game's activity figures: its words as
    the player wrote them (quotes, code and spoilers left out)."""
    if run.thread_name(post.thread) not in set(run.game.threads(step.state).values()):
        return
    player = step.host.player_of(post.author)
    if player is None:
        return
    words = len(clean(post.body, post.dialect).split())
    step.state = note(step.state, player, words, post.created)


def _isolated(run: GameRun, step: Step, post: Post, account: str, read: Callable[..., None], *args: Any) -> None:
    """One post read into the game by `read(run, step, post, *args)`. When reading it raises (a bug, a value
    out of range), the game is left as it was before the post, the post is flagged for the host and skipped,
    and the game goes on. (A plain call, not a context manager: it wraps every post.)"""
    saved = (step.state, step.host, len(step.events), len(step.intents), len(step.flags))
    try:
        read(run, step, post, *args)
    except Exception as err:   # one post must not stall its game, nor the games after it
        log.exception("%s: reading post %s by %s failed; the post is skipped", run.name, post.platform_id, account)
        step.state, step.host = saved[0], saved[1]
        del step.events[saved[2]:], step.intents[saved[3]:], step.flags[saved[4]:]
        error = f"{type(err).__name__}: {err}"
        step.flags.append(Flag(reason=f"this post could not be read ({error}); it was skipped and nothing in it "
                                      "counted", post_id=post.platform_id, author=account, at=post.created,
                               line=post.body[:200], code="flag_unreadable", params=(("error", error),)))


def _outside(run: GameRun, step: Step, post: Post, commands: set[str]) -> None:
    """A post outside the threads read for commands."""
    _flag_misplaced(run, step, post, commands)
    _watch(run, step, post)


def _watch(run: GameRun, step: Step, post: Post) -> None:
    """A post in a thread the game only watches (Mafia's game thread under moderation): what the game makes
    of it goes to the host as flags; nothing in it counts as a command."""
    watched, watch = getattr(run.game, "watched_threads", None), getattr(run.game, "watch_post", None)
    if watched is None or watch is None:
        return
    threads = watched(step.state)
    if not threads:   # (a game that watches no thread now: the thread's name is not worked out)
        return
    thread = run.thread_name(post.thread)
    if thread not in threads:
        return
    post_intent = Intent("post", {"text": post.body, "dialect": post.dialect}, post_id=post.platform_id,
                         author=post.author, at=post.created, line=post.body[:200], url=post.url)
    step.state, happened = watch(step.state, post_intent, thread)
    for event in happened:
        step.events.append((event, post.platform_id))
        step.flags.append(Flag(reason=run.renderer.flag_reason(event), post_id=post.platform_id,
                               author=post.author, at=post.created, line=post.body[:200]))




def _read(run: GameRun, step: Step, post: Post, account: str, host_games: tuple[str, ...],
          guard: Callable[..., list[Event]] | None, roster: Callable[[Any], Any] | None, bot: str,
          seats: PlatformSeats | None, accounts_before: Callable[[datetime], Iterable[str]] | None,
          chart: Chart) -> None:
    """`guard`, `roster`: the game's guard_post (a game that moderates its threads: Food Chain's channels) and
    roster, or None. `account`: the account that sent the post (a host is known by it alone: `chart`'s hosts);
    `seats`: who sits where on the platform, for a PM."""
    if guard is not None and not post.pm:
        refused = guard(step.state, post.author, run.thread_name(post.thread),
                        Intent("post", post_id=post.platform_id, author=post.author, at=post.created,
                               line=post.body[:200], url=post.url))
        for event in refused:
            step.events.append((event, post.platform_id))
            step.flags.append(Flag(reason=run.renderer.flag_reason(event), post_id=post.platform_id,
                                   author=post.author, at=post.created, line=post.body[:200]))
        if refused:
            return
    players = roster(step.state) if roster is not None else None
    if players is not None:     # (use_roster(None) leaves the roster as it is)
        run.use_roster(players)
    corrected = step.corrections.get(post.platform_id)
    if corrected is not None and corrected.kind == "nickname":     # the host: read this word as that player
        pair = (str(corrected.data.get("word", "")), str(corrected.data.get("player", "")))
        if pair not in step.host.nicknames:
            step.host = replace(step.host, nicknames=(*step.host.nicknames, pair))
    run.use_nicknames(step.host.nicknames)
    parsed = Parsed(intents_for(corrected, post, run.parser)) if corrected else run.parser.parse(post)
    intents: list[Intent] = parsed.intents
    if REREAD in post.platform_id:   # an edit read again: its votes say which post they replace
        original = post.platform_id.split(REREAD, 1)[0]
        intents = _edit_intents(run, post, original, intents)
        if KEPT in post.platform_id:
            for intent in intents:   # (only what the count shows: no answer, no refusal, nothing else read)
                step.intents.append(intent)
                step.state, happened = run.game.apply(step.state, intent)
                step.events += [(e, post.platform_id) for e in happened if e.kind != "rejected"]
            return
    if seats is not None and len(seats.games_of(account)) > 1:
        host_games = seats.games_of(account)   # a host who plays in another game names the game too
    answers_for_host = not host_games or host_games[0] == run.name
    from_host = post.pm and bool(run.config.host) and chart.is_host(account) and not corrected
    if from_host:
        picked = _for_this_game(run, intents, host_games, answers_for_host)
        if picked is None:
            return   # a PM for another of the host's games
        named_here = not picked and _names_this_game(run, intents)   # "game NAME" and nothing to read
        intents = picked
        if not parsed.flags and (named_here or (not parsed.intents and answers_for_host)):
            line = post.body.strip().splitlines()[0][:200] if post.body.strip() else ""
            asked = Intent("host_unknown", post_id=post.platform_id, author=account, at=post.created,
                           line=line, url=post.url)
            step.events.append((_to_account(refusal(asked, f"no command found; the host's commands are: "
                                                           f"{HOST_HELP}", code="host_not_understood",
                                                    params={"commands": HOST_HELP}, pm=True, subject="host"),
                                            account),
                                post.platform_id))
            return
    named_here = False
    if not from_host and seats is not None and not corrected:
        picked = _for_which_game(run, intents, seats.games_of(account), seats.open)
        if picked is None:
            return   # a PM for another game: this game neither reads nor refuses it
        named_here = not picked and _names_this_game(run, intents)   # "game NAME" and nothing to read
        intents = picked
    if post.pm and not corrected and not from_host and not parsed.flags \
            and (named_here or (not parsed.intents and _answers_for(run, account, seats))):
        answer, flag = answers.unread(run, step.state, post, account, post.author, parsed, host=False)
        step.events.append((answer, post.platform_id))
        step.flags.append(flag)
        return
    step.flags += [run.renderer.flag(f) for f in parsed.flags]
    if intents and not corrected:   # what the bot read other than as written: the host may check it
        step.flags += answers.mended_flags(post, account, parsed)
    answered: list[tuple[Intent, int, int]] = []   # each intent with the range of step.events it added
    for intent in intents:
        first = len(step.events)
        step.intents.append(intent)
        if intent.kind in ("host_which_game", "which_game"):
            code = "host_no_such_game" if intent.data["named"] else "host_which_game"
            if intent.kind == "which_game":
                code = "no_such_game" if intent.data["named"] else "which_game"
            happened = [refusal(intent, intent.data["reason"], code=code, pm=True, subject="refused",
                                params={"games": intent.data["games"], "named": intent.data["named"]})]
        elif intent.kind == "host_replace" and (taken := _substitute_taken(intent, bot, accounts_before)) is not None:
            account_named = str(intent.data.get("account", "")).strip()
            happened = [refusal(intent, f"{account_named} cannot take over {intent.data.get('target')}: it is or "
                                        f"looks like {taken.holder}", code="host_replace_taken", pm=True,
                                subject="host", params={"account": account_named, "player": intent.data.get("target"),
                                                        "taken": "bot" if taken.code == "name_bot" else "account"})]
        elif intent.kind in HOST_KINDS:
            step.state, step.host, happened = apply_host(run.game, step.state, step.host, intent,
                                                         run.config.host, tuple(p.name for p in run.config.players),
                                                         chart.cohosts)
        elif (taken := _name_claimed(run, step, intent, account, bot, accounts_before, chart)) is not None:
            name = taken[0]
            why = ("the platform has no account of that name" if taken[1].code == "mask_no_account"
                   else f"it is or looks like {taken[1].holder}")
            happened = [refusal(intent, f"{name} cannot be taken: {why}",
                                code=taken[1].code, params={"name": name, "holder": taken[1].holder}, pm=True,
                                subject="refused")]
        else:
            step.state, happened = run.game.apply(step.state, intent)
        for event in happened:
            if event.kind == "rejected" and event.data.get("pm_to") == intent.author:
                event = _to_account(event, account)   # the sender's own account, even if replaced since
            step.events.append((event, post.platform_id))
            if event.kind == "rejected":
                step.flags.append(Flag(reason=run.renderer.flag_reason(event), post_id=post.platform_id,
                                       author=post.author, at=post.created, line=intent.line))
        answered.append((intent, first, len(step.events)))
    if post.pm and answered and not corrected:
        answers.merge(step.events, answered, account, post.author, parsed, from_host, post.platform_id)


def _edit_intents(run: GameRun, post: Post, original: str, intents: list[Intent]) -> list[Intent]:
    """What an edited post's new text says, as the game reads it. Under "edited": its votes, each naming the
    post it edits, and, where it has no vote left, the news that the edit took the vote out. Under
    "first_seen" and "flag": the news of the edit alone, with the vote the post says now (the vote counts as
    first read). A game that does not read that news ("marks_edits") gets the votes under "edited" only."""
    votes = [i for i in intents if i.kind in VOTE_KINDS]
    marks = getattr(run.game, "marks_edits", False)
    if KEPT in post.platform_id:
        if not marks:
            return []
        last = votes[-1] if votes else None
        now = "" if last is None or last.kind == "unvote" else \
            "no_lynch" if last.kind == "no_lynch" else str(last.data.get("target") or "")
        return [Intent("vote_edited", {"post": original, "now": now}, post_id=post.platform_id,
                       author=post.author, at=post.created, line=post.body[:200], url=post.url)]
    out = [replace(i, data={**i.data, "edit_of": original}) if i.kind in VOTE_KINDS else i for i in intents]
    if marks and all(i.kind == "unvote" for i in votes):
        out = [i for i in out if i.kind != "unvote"]
        out.append(Intent("vote_edited", {"post": original, "withdraw": True}, post_id=post.platform_id,
                          author=post.author, at=post.created, line=post.body[:200], url=post.url))
    return out


def _substitute_taken(intent: Intent, bot: str, accounts_before: Callable[[datetime], Iterable[str]] | None
                      ) -> Taken | None:
    """Why the account a `replace` names cannot take a seat, beyond the game's own reasons (the host layer's):
    it is or looks like the bot, or looks like another account that had written on the platform."""
    account = str(intent.data.get("account", "")).strip()
    if not account or not intent.data.get("target"):
        return None   # (the host layer asks for both)
    if same_name(account, bot):
        return Taken("name_bot", bot)
    others = accounts_before(intent.at) if accounts_before is not None and intent.at else ()
    return name_taken(account, account, accounts=others)


def _names_this_game(run: GameRun, intents: list[Intent]) -> bool:
    """Whether a PM names this game on a line of its own ("game NAME"): then this game answers it, even when
    nothing else in it could be read (the author's first game, which answers the others, leaves it alone)."""
    return any(i.kind == "host_game" and same_name(str(i.data.get("game", "")), run.name) for i in intents)


def _answers_for(run: GameRun, account: str, seats: PlatformSeats | None) -> bool:
    """Whether this game answers a PM of the account that no game could read: its first game, or, for an
    account in none, the first game taking sign-ups (one answer, not one per game)."""
    if seats is None:
        return True
    games = seats.games_of(account) or seats.open
    return not games or games[0] == run.name


def _name_claimed(run: GameRun, step: Step, intent: Intent, account: str, bot: str,
                  accounts_before: Callable[[datetime], Iterable[str]] | None, chart: Chart
                  ) -> tuple[str, Taken] | None:
    """A name the intent claims (a mask at sign-up) that the host, a co-host, the bot or another account on
    the platform holds, or that the platform refuses (a mask with no account where the organisers make them):
    the name and why, or None. The game itself refuses names its own seats hold."""
    claimed = getattr(run.game, "claimed_name", None)
    name = claimed(step.state, intent) if claimed is not None else None
    if not name:
        return None
    accounts = accounts_before(intent.at) if accounts_before is not None and intent.at else ()
    taken = name_taken(name, account, hosts=chart.hosts(), bot=bot, accounts=(*chart.spectators, *accounts))
    if taken is not None:
        return name, taken
    key = f"{intent.post_id} {name}"
    answer = step.host.signup_masks.get(key) if intent.post_id else None
    if answer is None and step.mask_check is not None:
        answer = step.mask_check(name, account)
        if answer is not None and intent.post_id:
            step.host = replace(step.host, signup_masks={**step.host.signup_masks, key: list(answer)})
    return (name, Taken(answer[0], answer[1])) if answer else None


def _to_account(event: Event, account: str) -> Event:
    """A private answer addressed to the account that sent the post (the runner does not redirect it to
    whoever plays the player now)."""
    return Event(event.kind, {**event.data, "pm_to": account, "to_account": True})


def _for_this_game(run: GameRun, intents: list[Intent], host_games: tuple[str, ...], answers: bool
                   ) -> list[Intent] | None:
    """The host's PM as this game reads it. A host with several games names the game on a line of its own
    ("game NAME"); a PM naming another of them is not this game's (None); a PM with commands that names
    none, or names no game of the host's, is answered once (by the host's first game) with the choices."""
    named = [str(i.data.get("game", "")) for i in intents if i.kind == "host_game"]
    rest = [i for i in intents if i.kind != "host_game"]
    keys = {name_key(g) for g in host_games}
    if any(name_key(n) == name_key(run.name) for n in named):
        return rest
    if not rest or (not named and len(host_games) <= 1):
        return rest
    if any(name_key(n) in keys for n in named):
        return None
    if not answers:
        return None
    choices = ", ".join(host_games or (run.name,))
    if named:
        reason = f"you run no game named {named[0]}; your games: {choices}"
    else:
        reason = f"you run several games ({choices}): say which on a line of its own, like \"game {host_games[0]}\""
    return [replace(rest[0], kind="host_which_game",
                    data={"reason": reason, "games": choices, "named": named[0] if named else ""})]


def _for_which_game(run: GameRun, intents: list[Intent], games: tuple[str, ...], open_games: tuple[str, ...]
                    ) -> list[Intent] | None:
    """A player's PM as this game reads it, or None when it is another game's. `games`: the games the author
    holds a seat in, `open_games`: those taking anyone's sign-ups. A PM naming a game on a line of its own
    ("game NAME" / "игра NAME") is that game's. A sign-up is for the game taking sign-ups; anything else for
    the game the author plays in, and an author playing in several must name it: their first game asks."""
    named = [str(i.data.get("game", "")) for i in intents if i.kind == "host_game"]
    rest = [i for i in intents if i.kind != "host_game"]
    if not games and not open_games:
        return rest
    if named:
        if any(same_name(n, run.name) for n in named):
            return rest
        known = (*games, *open_games)
        if not games or games[0] != run.name or any(same_name(n, g) for n in named for g in known):
            return None   # another game's (the author's first game answers a name that is none of its)
        return [replace(rest[0] if rest else intents[0], kind="which_game",
                        data={"reason": f"you play in no game named {named[0]}; your games: {', '.join(games)}",
                              "games": ", ".join(games), "named": named[0]})]
    seated, taking = run.name in games, run.name in open_games
    mine: list[Intent] = []
    for intent in rest:
        if intent.kind in SIGNUP_KINDS and (taking or (seated and not open_games)):
            mine.append(intent)
        elif intent.kind not in SIGNUP_KINDS and (seated or (taking and not games)):
            mine.append(intent)
    if not rest and (seated or (taking and not games)):
        return rest
    if not mine:
        return None
    if seated and len(games) > 1 and any(i.kind not in SIGNUP_KINDS for i in mine):
        if games[0] != run.name:
            return None
        choices = ", ".join(games)
        return [replace(mine[0], kind="which_game",
                        data={"reason": f"you take part in several games ({choices}): say which on a line of its "
                                        f"own, like \"game {games[0]}\"", "games": choices, "named": ""})]
    return mine


def _flag_misplaced(run: GameRun, step: Step, post: Post, commands: set[str]) -> None:
    """A vote posted where votes do not count (the game thread) is not read, but the host hears of it."""
    if not any(i.kind in VOTE_KINDS for i in run.parser.parse(post).intents):
        return
    where = ", ".join(sorted(run.thread_name(t) for t in commands)) or run.renderer.phrases.get("flag_no_thread_now",
                                                                                             "no thread now")
    flag = Flag(reason=f"a vote in '{run.thread_name(post.thread)}' does not count; votes count in {where}",
                post_id=post.platform_id, author=post.author, at=post.created, code="flag_vote_elsewhere",
                params=(("thread", run.thread_name(post.thread)), ("threads", where)))
    step.flags.append(run.renderer.flag(flag))
