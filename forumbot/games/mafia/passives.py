"""Passives the role data cannot say, as small named functions a ruleset lists (`passives = [...]`).

Each runs at one stage of the night: "power" (after the power actions), "info" (with the information
actions: rule 0, the psychologist's, inspector's, assistant's and policeman's passives fire with their
action), "end" (the end-of-night news), or "day" (at the
end of the day, handled by dayside.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forumbot.games.mafia.modifiers import VOTE_PASSIVES

if TYPE_CHECKING:
    from forumbot.games.mafia.night import NightRun

Passive = Callable[["NightRun", str], None]


def _active(run: NightRun, name: str, action: str) -> list[Any]:
    return [a for a in run.acts_of(name) if a.action == action and a.source == "own" and not a.cancelled]


def counts_visitors(run: NightRun, name: str) -> None:
    """The bouncer learns how many visited the player he blocked (himself counted)."""
    for act in _active(run, name, "block"):
        if not act.ignored:
            run.tell(name, "visitors", target=act.final, count=run.visitors(act.final))


def learns_assistant_visitor(run: NightRun, name: str) -> None:
    """The psychologist learns the assistant's name when the assistant visits the checked player."""
    for act in _active(run, name, "check"):
        for helper in run.acts:
            if helper.action == "heal" and helper.source == "own" and not helper.cancelled \
                    and helper.final == act.final and run.state.roles.get(helper.actor) == "assistant":
                run.tell(name, "assistant_is", target=act.final, assistant=helper.actor)


def meets_assistant(run: NightRun, name: str) -> None:
    """The inspector who checks the assistant gets acquainted: he learns who the assistant is (and the
    assistant learns him, unless the ruleset says only the inspector learns)."""
    for act in _active(run, name, "check"):
        if run.state.roles.get(act.final) == "assistant":
            run.tell(name, "met_assistant", assistant=act.final)
            if run.state.options.inspector_meets == "both":
                run.tell(act.final, "met_inspector", inspector=name)


def learns_healed_role(run: NightRun, name: str) -> None:
    """The assistant learns the role of the player healed."""
    for act in _active(run, name, "heal"):
        run.tell(name, "healed_role", target=act.final, role=run.role_name(act.final))


def kills_thief(run: NightRun, name: str) -> None:
    """The policeman who comes to the thief kills him the same night (his action becomes (-), which the
    detective already sees); a blocked policeman neither kills nor learns that he came to the thief. The
    attempt is queued now and takes its place after the maniac's and the mafia's (в)."""
    for act in _active(run, name, "protect"):
        if run.state.roles.get(act.final) == "thief":
            act.kind = "minus"
            run.attempt(name, act.final, act)
            run.tell(name, "killed_thief", target=act.final)


def counts_town(run: NightRun, name: str) -> None:
    """ж) the town is counted at every night's end; з) the writer learns last night's count."""
    game = run.mem("@game")
    last = game.get("town_count")
    if last is not None and last.get("night") == run.state.number - 1:
        run.tell(name, "town_count", count=last["count"], night=last["night"])


def knows_policeman(run: NightRun, name: str) -> None:
    """з) the thief learns at the night's end whether the policeman is still in the game."""
    alive = [n for n in run.has("policeman") if n not in run.deaths]
    run.tell(name, "policeman_alive" if alive else "policeman_gone")


def learns_protege_role(run: NightRun, name: str) -> None:
    """Marker: dayside.py tells the politician his protégé's role when a majority votes to hang them."""


def vote_modifier(run: NightRun, name: str) -> None:
    """Marker: the vote modifiers (modifiers.py) act on the day's count, not at night."""


PASSIVES: dict[str, tuple[str, Passive]] = {
    "counts_visitors": ("power", counts_visitors),
    "learns_assistant_visitor": ("info", learns_assistant_visitor),
    "meets_assistant": ("info", meets_assistant),
    "learns_healed_role": ("info", learns_healed_role),
    "kills_thief": ("power", kills_thief),
    "counts_town": ("end", counts_town),
    "knows_policeman": ("end", knows_policeman),
    "learns_protege_role": ("day", learns_protege_role),
    **{name: ("vote", vote_modifier) for name in VOTE_PASSIVES},
}
