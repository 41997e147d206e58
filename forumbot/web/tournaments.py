"""The tournaments' pages: each tournament the bot runs, its games and their status, the table (Tokens of
Life, garnets, Elimination Candidates, best-player places, warnings, forums' penalty points), the masks
(with the players behind them once revealed at the end) and the host's corrections. Read from the bot's
store; nothing secret (the games' seeds and options, the masks before the reveal) is shown."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template

from forumbot.engine.tournament import view
from forumbot.games.tournament import Plan
from forumbot.web.site import site
from forumbot.web.speech import w

bp = Blueprint("tournaments", __name__)
SHOWN = ("corrected", "confirmed", "reveal_approved", "ledger_changed")   # log lines a reader may see


def tournament_names() -> list[str]:
    store = site().store()
    return [n for n in store.tournaments() if store.plan(n) is not None] if store is not None else []


@bp.get("/tournaments/<name>")
def tournament(name: str) -> Any:
    store = site().store()
    kept = store.plan(name) if store is not None else None
    if kept is None:
        abort(404, w("No tournament of that name runs here."))
    shown = view(store, Plan.from_json(kept))
    log = [{"at": r["at"], "by": r["by"], "kind": r["kind"], "game": r["game"],
            "player": r["data"].get("player", ""), "why": r["data"].get("why", ""),
            "changes": {k: r["data"][k] for k in ("tol", "garnets", "ec") if k in r["data"]}}
           for r in shown["log"] if r["kind"] in SHOWN]
    return render_template("tournament.html", t=shown, log=log)
