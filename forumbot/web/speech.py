"""The words of a request's page in its language: a game's console pages speak the game's, the rest the
forum's ([web] lang). The function w here is in Python code what w is in a template."""

from __future__ import annotations

from typing import Any

from flask import request

from forumbot.web.site import site
from forumbot.web.words import say


def page_lang() -> str:
    """The language of the page: a game's console pages speak the game's, the rest the forum's ([web] lang)."""
    settings = site().settings
    name = (request.view_args or {}).get("name") if request.blueprint == "console" else None
    game = next((g for g in settings.games if g.name == name), None) if name else None
    return game.lang if game is not None else settings.web.lang


def w(text: str, count: int | None = None, **fields: Any) -> str:
    """`text` (English, its own key in forumbot/web/words/<lang>.toml) in the page's language."""
    return say(page_lang(), text, count, **fields)
