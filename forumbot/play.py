"""Reading posts into a game in time order, with its deadlines and the host's commands: the one loop that
the runner, recounts and replays share. No I/O: the caller stores what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.gamerun import GameRun
from forumbot.host import HOST_KINDS, HostState, apply_host
from forumbot.model import Event, Flag, Intent, Post


@dataclass
class Step:
    """What a game made of a run of posts: its new state and everything to store with it."""

    state: Any
    host: HostState = field(default_factory=HostState)
    events: list[tuple[Event, str]] = field(default_factory=list)
    intents: list[Intent] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    processed: list[str] = field(default_factory=list)


def play(run: GameRun, state: Any, posts: list[Post], now: datetime, bot: str,
         host: HostState | None = None) -> Step:
    """Read posts (oldest first) into a game, firing every deadline that falls before each post and, at the
    end, every deadline up to `now` (none while the host has the game paused). The host's commands go to
    the host layer. The runner and recounts share it."""
    game = run.game
    step = Step(state, host or HostState())
    commands = {run.thread_id(t) for t in game.command_threads(state)}
    index = 0
    stalled: datetime | None = None   # a deadline the game did nothing about: not fired again this step
    while True:
        deadline = game.next_deadline(step.state)
        post = posts[index] if index < len(posts) else None
        # A post at the deadline's very second still counts; the deadline fires before later posts.
        if deadline is not None and deadline != stalled and deadline <= now and step.host.paused_at is None \
                and (post is None or deadline < post.created):
            before = step.state
            step.state, fired = game.on_deadline(step.state, deadline, now=now)
            step.events += [(e, "") for e in fired]
            if not fired and step.state is before:
                stalled = deadline
            commands = {run.thread_id(t) for t in game.command_threads(step.state)}
            continue
        if post is None:
            roster = getattr(game, "roster", None)   # the players a game made as it went (Mafia's sign-ups)
            if roster is not None:
                run.use_roster(roster(step.state))
            return step
        index += 1
        step.processed.append(post.platform_id)
        if post.author == bot:
            continue
        if not post.pm and post.thread not in commands:
            _watch(run, step, post)
            continue
        player = step.host.player_of(post.author)
        if player is None:   # an account the host replaced: its posts no longer count
            step.flags.append(Flag(reason=f"{post.author} was replaced; the post is not counted",
                                   post_id=post.platform_id, author=post.author, at=post.created))
            continue
        account_player = getattr(game, "account_player", None)   # Mafia: a mask's real account PMs as the mask
        if post.pm and account_player is not None:
            player = account_player(step.state, player)
        if player != post.author:
            post = replace(post, author=player)
        _read(run, step, post)


def _watch(run: GameRun, step: Step, post: Post) -> None:
    """A post in a thread the game only watches (Mafia's game thread under moderation): what the game makes
    of it goes to the host as flags; nothing in it counts as a command."""
    watched, watch = getattr(run.game, "watched_threads", None), getattr(run.game, "watch_post", None)
    thread = run.thread_name(post.thread)
    if watched is None or watch is None or thread not in watched(step.state):
        return
    post_intent = Intent("post", {"text": post.body, "dialect": post.dialect}, post_id=post.platform_id,
                         author=post.author, at=post.created, line=post.body[:200], url=post.url)
    step.state, happened = watch(step.state, post_intent, thread)
    for event in happened:
        step.events.append((event, post.platform_id))
        step.flags.append(Flag(reason=event.data["reason"], post_id=post.platform_id, author=post.author,
                               at=post.created, line=post.body[:200]))


def _read(run: GameRun, step: Step, post: Post) -> None:
    guard = getattr(run.game, "guard_post", None)   # a game that moderates its threads (Food Chain's channels)
    if guard is not None and not post.pm:
        refused = guard(step.state, post.author, run.thread_name(post.thread),
                        Intent("post", post_id=post.platform_id, author=post.author, at=post.created,
                               line=post.body[:200], url=post.url))
        for event in refused:
            step.events.append((event, post.platform_id))
            step.flags.append(Flag(reason=event.data["reason"], post_id=post.platform_id, author=post.author,
                                   at=post.created, line=post.body[:200]))
        if refused:
            return
    roster = getattr(run.game, "roster", None)
    if roster is not None:
        run.use_roster(roster(step.state))
    parsed = run.parser.parse(post)
    step.flags += parsed.flags
    for intent in parsed.intents:
        step.intents.append(intent)
        if intent.kind in HOST_KINDS:
            step.state, step.host, happened = apply_host(run.game, step.state, step.host, intent,
                                                         run.config.host)
        else:
            step.state, happened = run.game.apply(step.state, intent)
        for event in happened:
            step.events.append((event, post.platform_id))
            if event.kind == "rejected":
                step.flags.append(Flag(reason=event.data["reason"], post_id=post.platform_id,
                                       author=post.author, at=post.created, line=intent.line))
