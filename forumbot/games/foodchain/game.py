"""Food Chain (seed 003) as a pure state machine: the selection by PM, four rounds of secret moves and
attacks by PM resolved at each deadline, the end of the game with its winners, garnets and the Elimination
Candidate chosen by the winners by PM, and the awards for the tournament ledger."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ConfigError
from forumbot.games.base import GameSetup, Refused, refused
from forumbot.games.foodchain import views
from forumbot.games.foodchain.options import FoodChainOptions
from forumbot.games.foodchain.rules import (
    ANIMALS,
    HABITATS,
    NEEDS_HABITAT,
    Animal,
    crowd_penalty,
    death_conditions,
    outcome,
    resolve_round,
)
from forumbot.games.foodchain.state import EC_VOTE, OVER, ROUND, SELECTION, FCState, state_from_json, state_to_json
from forumbot.games.foodchain.words import habitat_in, selection
from forumbot.games.tournament import Entry
from forumbot.model import Event, Intent

ROUND_KINDS = ("move", "attack", "no_attack")
DEAD_CHANNEL = "dead"


class FoodChainGame:
    name = "foodchain"

    def new(self, setup: GameSetup) -> FCState:
        options = FoodChainOptions.from_dict(dict(setup.options))
        players = tuple(p.name for p in setup.players)
        if len(players) < 2 or len(set(players)) != len(players):
            raise ConfigError("Food Chain needs at least two players with different names")
        if setup.dead or setup.state or setup.phase not in (None, SELECTION):
            raise ConfigError("a Food Chain game starts at its selection phase",
                              fix="remove phase, no_lynch_used and alive = false")
        return FCState(players=players, options=options, host=setup.host, phase=SELECTION,
                       ends=setup.start + timedelta(hours=options.selection_hours))

    def start_events(self, state: FCState) -> list[Event]:
        return [views.open_event(state)]

    # ---- intents -----------------------------------------------------------------------------
    def apply(self, state: FCState, intent: Intent) -> tuple[FCState, list[Event]]:
        try:
            if intent.kind == "attack":
                self._check_round(state, intent)
                return self._attack(state, intent)
            return self._apply(state, intent), []
        except Refused as why:
            return state, [refused(intent, why, "fc_refused")]

    def _apply(self, state: FCState, intent: Intent) -> FCState:
        author, kind = intent.author, intent.kind
        if author not in state.players:
            raise Refused(f"{author} is not playing this game", "not_player", author=author)
        if state.phase == OVER:
            raise Refused("the game is over", "state_over")
        if kind == "select":
            if state.phase != SELECTION:
                raise Refused("the selection phase is over; your animal can no longer change", "fc_selection_over")
            # The whole line is read: "Predator, main habitat Forest" matches the bare "predator" template.
            found = selection(intent.line or str(intent.data.get("text", "")), intent.data.get("animal"))
            if not found:
                raise Refused("name an animal (Predator, Prey, Scavenger or Hunter), a Main Habitat for a "
                              "Predator or Prey, and a starting location (Forest, Field, River or Sky)",
                              "fc_select_how")
            pick = {**state.picks.get(author, {}), **found}
            if pick.get("animal") not in NEEDS_HABITAT:
                pick.pop("main", None)
            return state.with_(picks={**state.picks, author: pick}).touch(author)
        if kind == "ec":
            return self._ec_vote(state, intent)
        if kind not in ROUND_KINDS:
            raise Refused(f"'{kind}' is not a Food Chain submission", "fc_not_submission")
        self._check_round(state, intent)
        if kind == "move":
            place = habitat_in(str(intent.data.get("place", "")))
            if place is None:
                raise Refused(f"'{intent.data.get('place', '')}' is not a habitat: Forest, Field, River or Sky",
                              "fc_not_habitat", query=str(intent.data.get("place", "")))
            return state.with_(moves={**state.moves, author: place}).touch(author)
        if kind == "no_attack":
            return state.with_(attacks={**state.attacks, author: []}, attempts={**state.attempts, author: []},
                               attack_post={**state.attack_post, author: intent.post_id}).touch(author)
        raise Refused(f"'{kind}' is not a Food Chain submission", "fc_not_submission")

    def pm_commands(self, state: FCState, player: str) -> tuple[tuple[str, str], ...]:
        """The commands a private message from `player` may carry now, as (kind, ""): the accepted forms the
        answer to a message nobody could read offers."""
        if state.phase == SELECTION:
            return (("select", ""),)
        if state.phase == EC_VOTE:
            return (("ec", ""),)
        if state.phase != ROUND or player in state.dead:
            return ()
        attacks = (("attack", ""), ("no_attack", "")) if state.animals[player].kind in ("hunter", "predator") else ()
        return (("move", ""), *attacks)

    @staticmethod
    def _check_round(state: FCState, intent: Intent) -> None:
        if intent.author not in state.players:
            raise Refused(f"{intent.author} is not playing this game", "not_player", author=intent.author)
        if state.phase == OVER:
            raise Refused("the game is over", "state_over")
        if state.phase != ROUND:
            raise Refused("moves and attacks are taken during the rounds", "fc_not_round")
        if intent.author in state.dead:
            raise Refused("you are dead; the dead neither move nor attack", "fc_dead_self")

    def _attack(self, state: FCState, intent: Intent) -> tuple[FCState, list[Event]]:
        """An order of attacks, read whole: more names than the rules allow refuses it all (no name is
        dropped in silence); a name that is no player, a dead player or the attacker is dropped and the others
        stand, said in the answer; a player in another location is an attempt, revealed to the attacker's
        location at the round's end like every attempted attack, that cannot kill."""
        author, data = intent.author, intent.data
        if state.animals[author].kind not in ("hunter", "predator"):
            raise Refused("only Hunters and Predators attack", "fc_not_attacker")
        targets = list(data.get("targets") or [t for t in (data.get("target"), data.get("other")) if t])
        unknown = data.get("unresolved", {})
        unresolved = [str(u) for u in (unknown.get("targets") or [v for k, v in unknown.items()
                                                                     if k in ("target", "other")])]
        same_post = state.attack_post.get(author) == intent.post_id and intent.post_id
        before = [*state.attacks.get(author, []), *state.attempts.get(author, [])] if same_post else []
        named = list(dict.fromkeys([*before, *targets])) + unresolved
        limit = state.options.max_attacks
        if len(named) > limit:
            listed = ", ".join(named)
            raise Refused(f"at most {limit} attacks a round: you named {len(named)} ({listed}); nothing was "
                          "changed, send the attacks again with at most that many", "fc_too_many_attacks",
                          limit=limit, count=len(named), names=listed)
        if not named:
            raise Refused("name the players you attack", "fc_attack_nobody")
        here = state.location[author]
        dropped = [{"name": u, "why": "unknown"} for u in unresolved]
        kept = [t for t in state.attacks.get(author, []) if same_post]
        elsewhere = [t for t in state.attempts.get(author, []) if same_post]
        for target in targets:
            if target == author:
                dropped.append({"name": target, "why": "self"})
            elif target in state.dead:
                dropped.append({"name": target, "why": "dead"})
            elif state.location[target] != here:
                elsewhere.append(target)
            else:
                kept.append(target)
        kept, elsewhere = list(dict.fromkeys(kept)), list(dict.fromkeys(elsewhere))
        if not kept and not elsewhere:
            why = {"unknown": "is not a player", "self": "is you", "dead": "is dead"}
            raise Refused("no one to attack: " + "; ".join(f"{d['name']} {why[d['why']]}" for d in dropped),
                          "fc_attack_none_valid", names=", ".join(d["name"] for d in dropped))
        state = state.with_(attacks={**state.attacks, author: kept}, attempts={**state.attempts, author: elsewhere},
                            attack_post={**state.attack_post, author: intent.post_id}).touch(author)
        if not dropped and not elsewhere:
            return state, []
        note = Event("fc_attack_note", {"pm_to": author, "subject": "fc", "location": here,
                                        "kept": kept, "elsewhere": elsewhere, "dropped": dropped,
                                        "post": intent.post_id})
        return state, [note]

    def _ec_vote(self, state: FCState, intent: Intent) -> FCState:
        if state.phase != EC_VOTE:
            raise Refused("there is no Elimination Candidate to choose now", "fc_no_ec")
        voters, candidates = state.result["ec_voters"], state.result["ec_candidates"]
        if intent.author not in voters:
            raise Refused("only " + ", ".join(voters) + " choose the Elimination Candidate", "fc_not_ec_voter",
                          names=", ".join(voters))
        target = intent.data.get("target")
        if target not in candidates:
            name = target or intent.data.get("unresolved", {}).get("target", "?")
            raise Refused(f"{name} cannot be the Elimination Candidate; choose one of: {', '.join(candidates)}",
                          "fc_not_candidate", name=name, names=", ".join(candidates))
        return state.with_(ec_votes={**state.ec_votes, intent.author: target}).touch(intent.author)

    def report(self, state: FCState, at: datetime) -> tuple[FCState, list[Event]]:
        """One reply per player whose submission changed in this batch; the EC vote ends once all voted."""
        if not state.touched:
            return state, []
        events = [views.reply_event(state, p) for p in state.touched]
        state = state.with_(touched=())
        if state.phase == EC_VOTE and set(state.ec_votes) >= set(state.result["ec_voters"]):
            state, more = _settle_ec(state)
            events += more
        return state, events

    # ---- time --------------------------------------------------------------------------------
    def next_deadline(self, state: FCState) -> datetime | None:
        return None if state.phase == OVER else state.ends

    def shift(self, state: FCState, delta: timedelta) -> FCState:
        return state if state.phase == OVER else state.with_(ends=state.ends + delta)

    def on_deadline(self, state: FCState, at: datetime, now: datetime | None = None) -> tuple[FCState, list[Event]]:
        state, replies = self.report(state, at)
        if state.phase == SELECTION:
            state, events = _begin(state)
        elif state.phase == ROUND:
            state, events = _end_round(state)
        elif state.phase == EC_VOTE:
            state, events = _settle_ec(state)
        else:
            return state, replies
        return state, replies + events

    def tally(self, state: FCState, at: datetime) -> Event | None:
        return views.host_view_event(state)

    # ---- threads -----------------------------------------------------------------------------
    def threads(self, state: FCState) -> dict[str, str]:
        channels = {c: c for c in (*HABITATS, DEAD_CHANNEL)} if state.options.channels else {}
        return {"game": state.options.game_thread, **channels}

    def dead_threads(self, state: FCState) -> tuple[str, ...]:
        """The dead's channel, while the rounds run: the dead talk there, the living do not (guard_post)."""
        return (DEAD_CHANNEL,) if state.options.channels and state.phase in (ROUND, EC_VOTE) else ()

    def command_threads(self, state: FCState) -> tuple[str, ...]:
        """The location channels: their posts carry no commands but are read so that the bot can guard them."""
        return (*HABITATS, DEAD_CHANNEL) if state.options.channels else ()

    def guard_post(self, state: FCState, author: str, thread: str, post: Intent) -> list[Event]:
        """A post in a location channel by a player who may not be there (another habitat this round, the
        living in the dead's channel, the dead in a habitat's): refused, to be removed where the platform
        can. Before round 1 and after the game the channels are open to everyone."""
        if thread not in (*HABITATS, DEAD_CHANNEL) or state.phase not in (ROUND, EC_VOTE) or author == state.host:
            return []
        here = state.location.get(author, "")
        if author not in state.players:
            why = Refused(f"{author} is not playing Food Chain", "not_player", author=author)
        elif author in state.dead:
            why = None if thread == DEAD_CHANNEL else Refused("the dead may only talk in the dead's channel",
                                                              "fc_channel_dead")
        elif thread == DEAD_CHANNEL:
            why = Refused("only the dead talk in the dead's channel", "fc_channel_living")
        else:
            why = None if thread == here else Refused(
                f"{author} is in the {here.title()}, not the {thread.title()}, this round", "fc_channel_elsewhere",
                author=author, habitat=here, channel=thread)
        if why is None:
            return []
        event = refused(post, why, "fc_removed")
        return [Event(event.kind, {**event.data, "remove_post": True})]

    # ---- storage, views, the ledger ----------------------------------------------------------
    def to_json(self, state: FCState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> FCState:
        return state_from_json(data)

    def eliminated(self, state: FCState) -> tuple[str, ...]:
        """Food Chain's dead: hunted, eaten or starved."""
        return tuple(p for p in state.players if p in state.dead)

    def summary(self, state: FCState) -> dict[str, Any]:
        return views.summary(state, [e.to_json() for e in self.ledger_entries(state)])

    def ledger_entries(self, state: FCState) -> list[Entry]:
        """The awards of a finished game: Tokens of Life, garnets, the Elimination Candidate."""
        if state.phase != OVER:
            return []
        r = state.result
        out = []
        for player in state.players:
            tol, garnets = r["tol"].get(player, 0), r["garnets"].get(player, 0)
            ec = 1 if r.get("ec") == player else 0
            if tol or garnets or ec:
                out.append(Entry(player, tol=tol, garnets=garnets, ec=ec, reason="Food Chain"))
        return out


# ---- the phases ---------------------------------------------------------------------------------
def _begin(state: FCState) -> tuple[FCState, list[Event]]:
    """The selection closes: what a player left out is drawn from the seed; round 1 starts."""
    animals, location, randomized = {}, {}, {}
    for player in state.players:
        pick = dict(state.picks.get(player, {}))
        rng = state.rng(f"select:{player}")
        drawn = []
        if "animal" not in pick:
            pick["animal"] = rng.choice(ANIMALS)
            drawn.append("animal")
        if pick["animal"] in NEEDS_HABITAT and "main" not in pick:
            pick["main"] = rng.choice(HABITATS)
            drawn.append("main")
        if "start" not in pick:
            pick["start"] = rng.choice(HABITATS)
            drawn.append("start")
        animals[player] = Animal(pick["animal"], pick.get("main"))
        location[player] = pick["start"]
        if drawn:
            randomized[player] = drawn
    state = state.with_(phase=ROUND, round=1, animals=animals, location=location, randomized=randomized,
                        points={p: 0 for p in state.players},
                        ends=state.ends + timedelta(hours=state.options.round_hours))
    return state, [*(views.assigned_event(state, p) for p in state.players), views.round_start_event(state, [])]


def _end_round(state: FCState) -> tuple[FCState, list[Event]]:
    o = state.options
    alive = state.alive
    attacks = {p: [t for t in state.attacks.get(p, []) if t in alive] for p in alive}
    done = resolve_round(state.animals, state.location, alive, attacks, o.prey_divisor)
    for attacker in alive:     # attempts on players elsewhere: revealed where the attacker was, never a kill
        for target in state.attempts.get(attacker, []):
            done.attacks.append({"attacker": attacker, "target": target, "location": state.location[attacker],
                                 "succeeded": False, "why": "the target was in another location"})
    dead = {**state.dead, **{d["player"]: d["cause"] for d in done.deaths}}
    points = {p: state.points[p] + done.points.get(p, 0) for p in state.players}
    record = {"round": state.round, "locations": {p: state.location[p] for p in alive}, "attacks": done.attacks,
              "deaths": done.deaths, "points": done.points}
    last = state.round >= o.rounds
    location = dict(state.location)
    moved_at_random = []
    if not last:
        for player in alive:
            if player in dead:
                continue
            if player in state.moves:
                location[player] = state.moves[player]
            else:
                location[player] = state.rng(f"move:{state.round}:{player}").choice(HABITATS)
                moved_at_random.append(player)
    new = state.with_(dead=dead, points=points, history=(*state.history, record), location=location, moves={},
                      attacks={}, attack_post={}, attempts={})
    seen = views.attacks_seen_events(new, record)
    if not last:
        new = new.with_(round=state.round + 1, ends=state.ends + timedelta(hours=o.round_hours))
        return new, [views.round_end_event(new, record, moved_at_random), *seen]
    ended = _finish(new)
    return ended, [views.round_end_event(ended, record, []), *seen, *_after_finish(ended)]


def _finish(state: FCState) -> FCState:
    o = state.options
    penalty = crowd_penalty(state.animals, o.crowd_limit)
    final = {p: state.points[p] - penalty[p] for p in state.players}
    met = death_conditions(state.animals, state.dead, len(state.dead), o.scavenger_min_dead)
    result = outcome(state.players, final, met, sole_winner_tol=o.sole_winner_tol, winner_tol=o.winner_tol,
                     all_dead_garnets=o.all_dead_garnets, garnet_divisor=o.garnet_divisor)
    data = {"case": result.case, "winners": list(result.winners), "tol": result.tol, "garnets": result.garnets,
            "final_points": final, "penalty": penalty, "met": met, "ec_candidates": list(result.ec_candidates),
            "ec_voters": list(result.ec_voters), "ec": None, "ec_counts": {}, "ec_drawn": False}
    if len(result.ec_candidates) == 1:
        data["ec"] = result.ec_candidates[0]
        return state.with_(phase=OVER, result=data)
    return state.with_(phase=EC_VOTE, result=data, ends=state.ends + timedelta(hours=o.ec_hours))


def _after_finish(state: FCState) -> list[Event]:
    events = [views.end_event(state)]
    if state.phase == EC_VOTE:
        events += [views.ec_open_event(state, v) for v in state.result["ec_voters"]]
    return events


def _settle_ec(state: FCState) -> tuple[FCState, list[Event]]:
    """The winners' choice: the most votes; a tie (or no vote) drawn from the seed among the top."""
    candidates = state.result["ec_candidates"]
    counts = Counter(v for v in state.ec_votes.values() if v in candidates)
    best = max((counts[c] for c in candidates), default=0)
    top = [c for c in candidates if counts[c] == best]
    ec = top[0] if len(top) == 1 else state.rng("ec").choice(top)
    result = {**state.result, "ec": ec, "ec_counts": {c: counts[c] for c in candidates}, "ec_drawn": len(top) > 1}
    state = state.with_(phase=OVER, result=result)
    return state, [views.ec_result_event(state)]
