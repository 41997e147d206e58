"""Turning game events into posts: jinja2 templates per dialect (templates/<dialect>/<event>.j2) and
phrases per language (phrases/<lang>.toml). A game may keep its own templates in templates/<dialect>/<game>/;
they win over the shared ones of the same name. A host overrides any template by putting a file of the same
name in a folder named in the config (`templates = "my-templates"`, with <dialect>/ inside)."""

from forumbot.render.renderer import Renderer

__all__ = ["Renderer"]
