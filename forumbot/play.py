"""Reading posts into a game in time order, with its deadlines and the host's commands: the one loop that
the runner, recounts and replays share. No I/O: the caller stores what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from forumbot.gamerun import GameRun
from forumbot.host import HOST_KINDS, HostState, apply_host
from forumbot.model import Event, Flag, Intent, Post
from forumbot.parse import VOTE_KINDS


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
            return step
        index += 1
        step.processed.append(post.platform_id)
        if post.author == bot:
            continue
        if not post.pm and post.thread not in commands:
            _flag_misplaced(run, step, post, commands)
            continue
        player = step.host.player_of(post.author)
        if player is None:   # an account the host replaced: its posts no longer count
            step.flags.append(Flag(reason=f"{post.author} was replaced; the post is not counted",
                                   post_id=post.platform_id, author=post.author, at=post.created))
            continue
        if player != post.author:
            post = replace(post, author=player)
        _read(run, step, post)


def _read(run: GameRun, step: Step, post: Post) -> None:
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


def _flag_misplaced(run: GameRun, step: Step, post: Post, commands: set[str]) -> None:
    """A vote posted where votes do not count (the game thread) is not read, but the host hears of it."""
    if not any(i.kind in VOTE_KINDS for i in run.parser.parse(post).intents):
        return
    where = ", ".join(sorted(run.thread_name(t) for t in commands)) or "no thread now"
    step.flags.append(Flag(reason=f"a vote in '{run.thread_name(post.thread)}' does not count; votes count in "
                                  f"{where}", post_id=post.platform_id, author=post.author, at=post.created))
