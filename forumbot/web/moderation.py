"""Edits moderated as posts are. An edit is refused when its post was removed by the bot, when its author
may not post in the thread (the forum's rule: a game's threads take its players and host), or when the
game's own guard refuses a post there from its author now (Food Chain: a habitat channel the player is not
in this round). The bot guards posts when it reads them; an edit it would never read again is checked here,
against the game's state in the bot's store. A refusal in a game's thread is flagged for its host."""

from __future__ import annotations

from forumbot.games import get_game
from forumbot.model import Flag, Intent
from forumbot.platforms.local import REMOVED
from forumbot.render.renderer import Renderer
from forumbot.web.forumdb import PostRow
from forumbot.web.site import site
from forumbot.web.words import say


def _game_guard(user: str, post: PostRow, body: str, lang: str) -> str | None:
    """Why the game refuses `body` from `user` in the post's thread now (in `lang`), or None."""
    game, store = site().game_of_thread.get(post.thread), site().store()
    row = store.game(game.name) if game is not None and store is not None else None
    if game is None or row is None:
        return None
    rules = get_game(row.game)
    guard = getattr(rules, "guard_post", None)
    if guard is None:
        return None
    name = next(purpose for purpose, key in game.threads.items() if key == post.thread)
    refused = guard(rules.from_json(row.state), user, name,
                    Intent("post", post_id=f"local:{post.id}", author=user, at=site().settings.clock(),
                           line=body[:200]))
    return Renderer("markdown", lang).flag_reason(refused[0]) if refused else None


def edit_refusal(user: str, post: PostRow, body: str, lang: str = "en") -> str | None:
    """Why `user` may not change `post` to `body`, in `lang`, or None: they may."""
    if post.body.startswith(REMOVED):
        return say(lang, "the bot removed this post")
    if not site().may_post(user, post.thread):
        return say(lang, "only the players and the host of this game post in its threads")
    return _game_guard(user, post, body, lang)


def flag_refused_edit(user: str, post: PostRow, body: str) -> None:
    """The host of the post's game sees the refused edit in the console's flags, in the game's language."""
    game, store = site().game_of_thread.get(post.thread), site().store()
    if game is not None and store is not None:
        why = edit_refusal(user, post, body, game.lang) or ""
        flag = Flag(reason=f"an edit refused by the web forum: {why}", post_id=f"local:{post.id}", author=user,
                    at=site().settings.clock(), line=body[:200], code="flag_web_edit_refused", params=(("why", why),))
        store.add_flags(game.name, [Renderer("markdown", game.lang).flag(flag)])
