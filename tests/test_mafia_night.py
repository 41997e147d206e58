"""Night actions by PM: confirmations, refusals, the last valid action, the mafia's shared kill, notes,
the newspaper, private results and the end of the game (Body Snatchers set, seed 002)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from helpers import START

from forumbot.config.game import load_ruleset
from forumbot.engine.chart import chart_of
from forumbot.engine.host import HostState
from forumbot.games.base import GameSetup
from forumbot.games.mafia import MAFIA
from forumbot.games.mafia.state import MafiaState
from forumbot.model import Event, Intent, PlayerRef

# One player per role; the names say the role.
CAST = {"Det": "detective", "Psy": "psychologist", "Bou": "bouncer", "Man": "maniac", "Ins": "inspector",
        "Ast": "assistant", "Wri": "writer", "Mas": "masseur", "Pol": "policeman", "Thi": "thief",
        "Tax": "taxi", "Pli": "politician"}
BS = load_ruleset("bodysnatchers", "mafia")


def game(phase: str = "night0", *, dead: tuple[str, ...] = (), cast: dict[str, str] | None = None,
         ruleset: dict[str, Any] | None = None, **options: Any) -> MafiaState:
    cast = cast or CAST
    setup = GameSetup("mafia", tuple(PlayerRef(n, role=r) for n, r in cast.items()), START,
                      options={**(ruleset or BS), **options}, phase=phase, host="Host", lang="en", dead=dead)
    return MAFIA.new(setup)


def send(state: MafiaState, author: str, action: str, target: str | None = None, to: str | None = None,
         kind: str = "action", **data: Any) -> tuple[MafiaState, list[Event]]:
    payload: dict[str, Any] = {"action": action, **data} if kind == "action" else dict(data)
    if kind == "action":
        payload["target"] = target
        if to is not None:
            payload["to"] = to
    at = state.phase_started + timedelta(minutes=len(state.orders) + len(state.notes) + 1)
    return MAFIA.apply(state, Intent(kind, payload, post_id=f"pm-{author}", author=author, at=at))


def night(state: MafiaState, *orders: tuple[str, ...]) -> tuple[MafiaState, list[Event]]:
    """Send each (actor, action, target[, to]) and end the night; every order must be accepted."""
    for order in orders:
        state, events = send(state, *order)
        assert [e.kind for e in events] == ["action_ack"], (order, events)
    return MAFIA.on_deadline(state, state.phase_ends)


def lines(events: list[Event], name: str) -> list[tuple[str, dict[str, Any]]]:
    return [(line["code"], line["params"]) for e in events if e.kind == "night_result"
            and e.data["pm_to"] == name for line in e.data["lines"]]


def codes(events: list[Event], name: str) -> list[str]:
    return [code for code, _ in lines(events, name)]


def last_night(state: MafiaState) -> dict[str, Any]:
    return state.nights[-1]


def act_of(state: MafiaState, actor: str, action: str | None = None) -> dict[str, Any]:
    return next(a for a in last_night(state)["actions"] if a["actor"] == actor
                and (action is None or a["action"] == action))


def refusal(events: list[Event]) -> str:
    assert [e.kind for e in events] == ["rejected"], events
    assert events[0].data["pm_to"]
    return str(events[0].data["code"])


def day_passes(state: MafiaState) -> MafiaState:
    """End the day with no votes (nobody hangs) and return the next night."""
    assert state.is_day, state.phase
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    return state


# ---- actions by PM ---------------------------------------------------------------------------------
def test_accepted_action_is_confirmed_by_pm():
    state, events = send(game(), "Mas", "block", "Det")
    assert [e.kind for e in events] == ["action_ack"] and events[0].data["pm_to"] == "Mas"
    assert state.orders["Mas"]["target"] == "Det"


def test_last_valid_action_before_deadline_counts():
    state, _ = send(game(), "Mas", "block", "Det")
    state, events = send(state, "Mas", "block", "Psy")
    assert events[0].data["replaced"] is True
    state, events = send(state, "Mas", "block", None, unresolved={"target": "Nobody"})
    assert refusal(events) == "name_unknown" and state.orders["Mas"]["target"] == "Psy"
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    assert act_of(state, "Mas")["final_target"] == "Psy"


def test_action_after_deadline_is_refused():
    state = game()
    intent = Intent("action", {"action": "block", "target": "Det"}, author="Mas",
                    at=state.phase_ends + timedelta(seconds=1))
    state, events = MAFIA.apply(state, intent)
    assert refusal(events) == "after_deadline" and not state.orders


def test_action_by_day_is_refused():
    state = day_passes_to_day(game())
    assert refusal(send(state, "Mas", "block", "Det")[1]) == "not_night"


def day_passes_to_day(state: MafiaState) -> MafiaState:
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    return state


def test_wrong_role_dead_target_and_dead_actor_are_refused():
    state = game(dead=("Wri",))
    assert refusal(send(state, "Mas", "heal", "Det")[1]) == "wrong_role"
    assert refusal(send(state, "Mas", "block", "Wri")[1]) == "dead_target"
    assert refusal(send(state, "Wri", "weapon", "Det")[1]) == "dead_actor"
    assert refusal(send(state, "Stranger", "block", "Det")[1]) == "not_player"


def test_generic_action_means_the_roles_own_action():
    state, events = send(game(), "Wri", "own", "Det", what="что-нибудь")
    assert events[0].data["action"] == "weapon"


def test_refusal_reaches_the_runner_as_a_flag_and_a_pm():
    _, events = send(game(), "Mas", "heal", "Det")
    assert events[0].data["reason"] and events[0].data["pm_to"] == "Mas"


# ---- the mafia's shared kill -----------------------------------------------------------------------
def test_any_mafia_member_carries_the_kill_instead_of_own_action():
    state, _ = send(game(), "Psy", "check", "Ins")
    state, _ = send(state, "Psy", "kill", "Ins")
    assert "Psy" not in state.orders and state.orders["@kill"]["actor"] == "Psy"
    state, _ = send(state, "Psy", "check", "Wri")            # the own action again: the kill is released
    assert "@kill" not in state.orders and state.orders["Psy"]["target"] == "Wri"


def test_mafia_share_one_kill_another_member_is_refused():
    state, _ = send(game(), "Det", "kill", "Ins")
    state, events = send(state, "Bou", "kill", "Wri")
    assert refusal(events) == "kill_taken" and events[0].data["params"]["carrier"] == "Det"
    state, events = send(state, "Det", "kill", "Wri")         # the carrier may change the target
    assert events[0].kind == "action_ack" and state.orders["@kill"]["target"] == "Wri"


def test_sole_surviving_mafioso_may_kill_and_act():
    state = game(dead=("Det", "Psy"))
    state, _ = send(state, "Bou", "kill", "Ins")
    state, _ = send(state, "Bou", "block", "Ast")
    assert state.orders["@kill"]["target"] == "Ins" and state.orders["Bou"]["target"] == "Ast"
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    assert "Ins" in last_night(state)["deaths"] and act_of(state, "Bou", "block")["succeeded"]


def test_sole_mafioso_own_action_after_the_kill_is_not_called_a_replacement():
    # Found by the full sample: the ack told a sole survivor that his block replaced his kill.
    state = game(dead=("Det", "Psy"))
    state, first = send(state, "Bou", "kill", "Ins")
    state, second = send(state, "Bou", "block", "Ast")
    assert first[0].data["replaced"] is False and second[0].data["replaced"] is False
    state, third = send(state, "Bou", "block", "Wri")
    state, fourth = send(state, "Bou", "kill", "Mas")
    assert third[0].data["replaced"] is True and fourth[0].data["replaced"] is True


def test_mafia_night_without_kill_is_told_to_the_host():
    _, events = night(game())
    assert "mafia_no_kill" in codes(events, "Host")


# ---- notes -----------------------------------------------------------------------------------------
def note(state: MafiaState, author: str, text: str) -> tuple[MafiaState, list[Event]]:
    return send(state, author, "", kind="note", text=text)


def test_notes_limit_two_per_night_and_published_without_signature():
    state, _ = note(game(), "Wri", "Первая")
    state, _ = note(state, "Wri", "Вторая")
    state, events = note(state, "Wri", "Третья")
    assert refusal(events) == "notes_limit"
    state, events = MAFIA.on_deadline(state, state.phase_ends)
    paper = next(e for e in events if e.kind == "night_end")
    assert sorted(paper.data["notes"]) == ["Вторая", "Первая"]
    assert "Wri" not in str(paper.data)
    state = day_passes(state)
    state, events = note(state, "Wri", "Новая ночь")          # the limit is per night by default
    assert events[0].kind == "note_ack"


def test_notes_limit_per_game_when_the_ruleset_says_so():
    state, _ = note(game(notes_scope="game"), "Wri", "1")
    state, _ = note(state, "Wri", "2")
    state = day_passes(MAFIA.on_deadline(state, state.phase_ends)[0])
    assert refusal(note(state, "Wri", "3")[1]) == "notes_limit"


def test_host_rejects_a_note_with_a_reason():
    state, _ = note(game(), "Wri", "Я Писатель")
    state, events = MAFIA.apply(state, Intent("reject_note", {"number": "1", "reason": "роль"}, author="Host"))
    assert events[0].kind == "note_rejected" and events[0].data["pm_to"] == "Wri"
    assert events[0].data["reason"] == "роль"
    _, events = MAFIA.on_deadline(state, state.phase_ends)
    assert next(e for e in events if e.kind == "night_end").data["notes"] == []
    _, events = MAFIA.apply(state, Intent("reject_note", {"number": "1", "reason": "x"}, author="Wri"))
    assert refusal(events) == "not_host"


def test_host_pms_are_read():
    assert "Host" in chart_of("g", MAFIA, game(), HostState(), "Host").readers()


# ---- newspaper, results, end of the game ---------------------------------------------------------------
def test_newspaper_lists_deaths_without_hidden_roles():
    state, events = night(game(), ("Man", "kill", "Wri"))
    paper = next(e for e in events if e.kind == "night_end")
    assert paper.data["deaths"] == [{"name": "Wri"}]
    assert state.dead[-1].cause == "night" and "Wri" not in state.alive


def test_newspaper_reveals_roles_when_the_host_wants():
    _, events = night(game(reveal_roles=True), ("Man", "kill", "Wri"))
    assert next(e for e in events if e.kind == "night_end").data["deaths"] == [{"name": "Wri", "role": "Writer"}]


def test_every_actor_gets_a_private_result():
    _, events = night(game(), ("Wri", "weapon", "Det"), ("Mas", "block", "Psy"))
    assert lines(events, "Wri") == [("weapon", {"target": "Det", "weapon": "pistol"})]
    assert "block_done" in codes(events, "Mas")


def test_mafia_wins_at_parity_and_final_post_reveals_roles():
    cast = {"A": "bouncer", "B": "psychologist", "C": "writer", "D": "masseur", "E": "inspector"}
    state = game(cast=cast)
    state, events = night(state, ("A", "kill", "C"))
    assert state.phase == "over" and state.winner == "mafia"
    final = events[-1]
    assert final.kind == "game_over" and {r["name"]: r["role"] for r in final.data["roles"]}["A"] == "Bouncer"
    assert MAFIA.next_deadline(state) is None


def test_maniac_wins_when_one_other_is_left():
    state = game(cast={"M": "maniac", "W": "writer", "I": "inspector"})
    state, events = night(state, ("M", "kill", "W"))
    assert state.winner == "maniac" and events[-1].kind == "game_over"


def test_town_wins_by_hanging_the_last_evil_player():
    state = game("day1", cast={"M": "maniac", "W": "writer", "I": "inspector", "P": "masseur"})
    for voter in ("W", "I", "P"):
        state, _ = MAFIA.apply(state, Intent("vote", {"target": "M", "final": False}, author=voter,
                                             at=state.phase_started + timedelta(minutes=1)))
    # the maniac's one protection saves him from this hanging
    assert state.is_day is False and "M" in state.alive and state.winner is None
    state = day_passes_to_day(state)
    for voter in ("W", "I", "P"):
        state, _ = MAFIA.apply(state, Intent("vote", {"target": "M", "final": False}, author=voter,
                                             at=state.phase_started + timedelta(minutes=1)))
    assert state.winner == "town" and state.phase == "over"


def test_state_round_trips_through_json_mid_night():
    state, _ = send(game(), "Mas", "block", "Det")
    state, _ = note(state, "Wri", "текст")
    state = MAFIA.from_json(MAFIA.to_json(state))
    state, _ = MAFIA.on_deadline(state, state.phase_ends)
    again = MAFIA.from_json(MAFIA.to_json(state))
    assert again == state and MAFIA.summary(again)["nights"][0]["actions"][0]["actor"] == "Mas"


def test_summary_has_roles_nights_and_winner():
    state, _ = night(game(), ("Man", "kill", "Wri"))
    summary = MAFIA.summary(state)
    assert summary["roles"]["Man"] == "maniac" and summary["winner"] is None
    assert summary["nights"][0]["deaths"] == ["Wri"]
    assert set(summary["nights"][0]["actions"][0]) >= {"actor", "action", "target", "final_target", "succeeded"}


def test_roles_may_be_given_by_russian_name():
    state = game(cast={"A": "Частный детектив", "B": "Малахольный", "C": "Писатель"})
    assert state.roles == {"A": "detective", "B": "maniac", "C": "writer"}


def test_classic_ruleset_uses_the_same_machinery():
    classic = load_ruleset("classic", "mafia")
    cast = {"M1": "mafia", "M2": "mafia", "Doc": "doctor", "Cop": "detective", "T1": "townsfolk",
            "T2": "townsfolk", "T3": "townsfolk"}
    state = game(cast=cast, ruleset=classic)
    state, events = night(state, ("M1", "kill", "T1"), ("Doc", "heal", "T1"), ("Cop", "check", "M2"))
    assert last_night(state)["deaths"] == []
    assert lines(events, "Cop") == [("check_team", {"target": "M2", "status": "mafia"})]   # mafia, not "negative"
    assert refusal(send(state := day_passes(state), "Doc", "heal", "T1")[1]) == "streak"
    assert refusal(send(state, "T2", "kill", "M1")[1]) == "no_role"


# ---- posts and PMs in both dialects and languages ------------------------------------------------------
def test_every_night_event_renders_in_both_dialects_and_languages():
    from forumbot.render import Renderer
    state, first = send(game(), "Mas", "block", "Det")
    state, noted = note(state, "Wri", "*текст* [b]x[/b]")
    _, refused = send(state, "Mas", "heal", "Det")
    state, ended = night(state, ("Man", "kill", "Wri"), ("Det", "trace", "Man"), ("Bou", "block", "Ins"),
                         ("Thi", "steal", "Ast"), ("Ast", "heal", "Ins"), ("Pli", "status", "Psy"))
    over = game(cast={"M": "maniac", "W": "writer", "I": "inspector"})
    _, final = night(over, ("M", "kill", "W"))
    events = first + noted + refused + ended + final
    assert {e.kind for e in events} >= {"action_ack", "note_ack", "rejected", "night_end", "night_result",
                                         "phase_start", "game_over"}
    for dialect in ("markdown", "bbcode"):
        for lang in ("en", "ru"):
            renderer = Renderer(dialect, lang)
            for event in events:
                out = renderer.render(event, key="k", threads={"game": "g", "votes": "v"}, at=START)
                assert out and out[0].text.strip(), event.kind
                assert "result_" not in out[0].text and "refuse_" not in out[0].text
                if event.kind == "night_end" and event in ended:      # the note is escaped, unsigned
                    escaped = "\\*текст\\*" if dialect == "markdown" else "[\u200bb\u200b]"
                    assert escaped in out[0].text and "Mas" not in out[0].text


def test_english_and_russian_grammars_read_night_actions_only_in_pms():
    from forumbot.text.grammar import load_grammar
    from forumbot.text.names import Roster
    from forumbot.text.parse import PostParser
    roster = (PlayerRef("Alice"), PlayerRef("Bob"), PlayerRef("Том Хэнкс"), PlayerRef("Мэрил Стрип"))
    en = PostParser(load_grammar("mafia", "en"), Roster(roster, lang="en"))
    ru = PostParser(load_grammar("mafia", "ru"), Roster(roster, lang="ru"))
    cases = [
        (en, "redirect Alice to Bob", {"action": "redirect", "target": "Alice", "to": "Bob"}),
        (en, "steal from Bob", {"action": "steal", "target": "Bob"}),
        (en, "use stolen on Bob", {"action": "stolen", "target": "Bob"}),
        (en, "shoot Alice", {"action": "kill", "target": "Alice"}),
        (ru, "Перевожу Тома Хэнкса на Мэрил Стрип", {"action": "redirect", "target": "Том Хэнкс",
                                                    "to": "Мэрил Стрип"}),
        (ru, "Стреляю в Хэнкса", {"action": "kill", "target": "Том Хэнкс"}),
        (ru, "Ворую у Мэрил Стрип", {"action": "steal", "target": "Мэрил Стрип"}),
        (ru, "Меняю статус Хэнкса", {"action": "status", "target": "Том Хэнкс"}),
        (ru, "Защищаю Хэнкса", {"action": "protect", "target": "Том Хэнкс"}),
        (ru, "Лечу Стрип", {"action": "heal", "target": "Мэрил Стрип"}),
        (ru, "Блокирую Хэнкса", {"action": "block", "target": "Том Хэнкс"}),
        (ru, "Проверяю Хэнкса", {"action": "check", "target": "Том Хэнкс"}),
        (ru, "Делаю слежку на Хэнкса", {"action": "own", "target": "Том Хэнкс"}),
        (ru, "Узнаю оружие Хэнкса", {"action": "weapon", "target": "Том Хэнкс"}),
    ]
    for parser, text, want in cases:
        intents = parser.parse_text(text, where="pm").intents
        assert len(intents) == 1 and intents[0].kind == "action", text
        assert {k: intents[0].data.get(k) for k in want} == want, text
        assert parser.parse_text(text, where="thread").intents == [], text
    noted = ru.parse_text("Записка: Хэнкс врёт", where="pm").intents[0]
    assert noted.kind == "note" and noted.data["text"] == "Хэнкс врёт"
    rejected = ru.parse_text("Отклоняю записку 2: раскрытие роли", where="pm").intents[0]
    assert rejected.kind == "reject_note" and rejected.data["number"] == "2"
