"""Turning game events into posts: one jinja2 template per event for both dialects (templates/<event>.j2),
whose markup is the renderer's filters (bold, link, strike, markup...), and phrases per language
(phrases/<lang>.toml). A game may keep its own templates in templates/<game>/; they win over the shared ones
of the same name. A host overrides any template by putting a file of the same name in a folder named in the
config (`templates = "my-templates"`): in <dialect>/ inside it for one dialect, or in the folder itself for
both; a dialect's file wins over the folder's own."""

from forumbot.render.renderer import Renderer

__all__ = ["Renderer"]
