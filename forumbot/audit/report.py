"""The audit as a post a host can paste (only the differences; BBCode for phpBB, markdown for Reddit), or JSON."""

from __future__ import annotations

from typing import Any

from forumbot.audit.audit import AuditResult
from forumbot.audit.mistakes import mistakes_data
from forumbot.model import Event
from forumbot.render import Renderer


def report_data(result: AuditResult) -> dict[str, Any]:
    data = result.to_json()
    checks = [c for c in data["checks"] if c["differences"] or c["unknown_names"]]
    for check in checks:
        check["post"] = check["post"] if check["url"] else f"{check['post']} ({check['at']})"
    return {"counts": data["counts"], "voters": sum(c.voters for c in result.checks),
            "differences": data["differences"], "sure": data["sure"], "checks": checks, **mistakes_data(result)}


def render_report(result: AuditResult, dialect: str, lang: str = "en") -> str:
    """The report in `dialect` (bbcode or markdown; html and plain boards get BBCode's text)."""
    renderer = Renderer("markdown" if dialect == "markdown" else "bbcode", lang)
    return renderer.text(Event("audit_report", report_data(result)))
