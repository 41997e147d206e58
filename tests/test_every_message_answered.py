"""Every message answered, none read in part: lists of names read whole (Food Chain's attacks are in
test_foodchain_game.py), best-player ballots, private messages nobody could read, corrections, and the host's
messages answered once. English and Russian."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

import pytest
from helpers import START
from hypothesis import given, settings
from hypothesis import strategies as st
from test_foodchain_game import CROWD, of, pm, started
from test_mafia_signup import mafia, over, refused, town

from forumbot.config.game import GameConfig, load_ruleset
from forumbot.engine.cycle import GameRun, Runner
from forumbot.engine.loading import shared_grammar
from forumbot.games.mafia import MAFIA
from forumbot.model import PlayerRef
from forumbot.platforms.local import LocalForum
from forumbot.render import Renderer
from forumbot.storage import Store
from forumbot.text.names import Roster
from forumbot.text.parse import PostParser


def read(state, author, text, lang="en", where="pm"):
    """A PM read by the real grammar of Mafia (with the host's commands) and applied: (state, events)."""
    parser = PostParser(shared_grammar("mafia", lang), Roster([PlayerRef(p) for p in state.players], lang=lang))
    parsed = parser.parse_text(text, where=where, author=author, post_id=f"{author}-{text}",
                               at=state.phase_started + timedelta(minutes=5))
    events = []
    for intent in parsed.intents:
        state, happened = MAFIA.apply(state, intent)
        events += happened
    return state, events, parsed


# ---- best-player ballots ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_with_more_names_than_places_is_refused_whole_naming_the_limit(lang, head):
    state = over()
    t, m = town(state), mafia(state)
    names = [t[1], t[2], m[0], m[1]]
    after, events, _ = read(state, t[0], f"{head} {', '.join(names)}", lang)
    assert refused(events) == ["bp_too_many"] and after.best["ballots"] == {}
    text = Renderer("markdown", lang).text(events[0])
    assert ("at most 3 players, one for each place: you named 4" if lang == "en"
            else "не больше 3 имён, по одному на место, а вы назвали 4") in text
    assert all(name in text for name in names)


@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_names_every_place_in_order(lang, head):
    state = over()
    t, m = town(state), mafia(state)
    after, events, _ = read(state, t[0], f"{head} {t[1]}, {t[2]} and {m[0]}" if lang == "en"
                            else f"{head} {t[1]}, {t[2]} и {m[0]}", lang)
    assert [e.kind for e in events] == ["ballot_ack"]
    assert after.best["ballots"][t[0]]["places"] == [t[1], t[2], m[0]]


@pytest.mark.parametrize(("lang", "head"), [("en", "best:"), ("ru", "ЛИ:")])
def test_a_ballot_naming_nobody_known_is_refused_with_the_name(lang, head):
    state = over()
    t = town(state)
    _, events, _ = read(state, t[0], f"{head} {t[1]}, Zzyzx Qwerty", lang)
    assert refused(events) == ["bp_name"] and "Zzyzx" in events[0].data["params"]["query"]


@pytest.mark.parametrize(("lang", "head", "said"), [
    ("en", "best:", "Your empty ballot is read as declining the places"),
    ("ru", "ЛИ:", "Пустой бюллетень я читаю как отказ от голосования"),
])
def test_an_empty_ballot_is_read_as_declining_and_withdraws_an_earlier_one(lang, head, said):
    state = over()
    t, m = town(state), mafia(state)
    state, _, _ = read(state, t[0], f"{head} {t[1]}, {t[2]}, {m[0]}", lang)
    assert t[0] in state.best["ballots"]
    state, events, _ = read(state, t[0], head, lang)
    assert [e.kind for e in events] == ["ballot_ack"] and t[0] not in state.best["ballots"]
    text = Renderer("markdown", lang).text(events[0])
    assert said in text and ("earlier ballot is withdrawn" if lang == "en" else "прежний бюллетень отозван") in text


def test_an_empty_ballot_is_answered_why_not_when_the_ruleset_refuses_it():
    state = over()
    state = state.with_(options=replace(state.options, best_player_empty="refuse"))
    t, m = town(state), mafia(state)
    state, _, _ = read(state, t[0], f"best: {t[1]}, {t[2]}, {m[0]}")
    state, events, _ = read(state, t[0], "best:")
    assert refused(events) == ["bp_empty"] and t[0] in state.best["ballots"]


# ---- private messages read whole and answered once, through the runner -------------------------------
LATER = START + timedelta(days=60)
CAST = {"ru": {"Вера Павлова": "policeman", "Глеб Жеглов": "Ассистент", "Мэрил Стрип": "psychologist",
               "Том Хэнкс": "Вышибала", "Брэд Питт": "Инспектор"},
        "en": {"Vera Pavlova": "policeman", "Gleb Zheglov": "assistant", "Meryl Streep": "psychologist",
               "Tom Hanks": "bouncer", "Brad Pitt": "inspector"}}
HOST = {"ru": "Ведущий", "en": "Host"}


def at(hours: float):
    return START + timedelta(hours=hours)


def night_game(lang: str, name: str = "g") -> GameConfig:
    return GameConfig(name=name, game="mafia", lang=lang, start=START, host=HOST[lang], phase="night0",
                      players=tuple(PlayerRef(n, role=r) for n, r in CAST[lang].items()),
                      options={**load_ruleset("bodysnatchers", "mafia"), "night_hours": 24})


def runner_of(*configs: GameConfig):
    forum = LocalForum(clock=lambda: LATER)
    runs = [GameRun.build(c) for c in configs]
    runner = Runner(Store(), forum, runs)
    runner.start(START)
    return forum, runs, runner


def send(forum, runner, author: str, text: str, hours: float = 1) -> list[str]:
    """A PM to the bot, one step, and the PMs the author got back."""
    before = len(forum.pms_to(author))
    forum.add_pm(author, forum.account, text, at=at(hours))
    runner.step(at(hours + 0.1))
    return [p["body"] for p in forum.pms_to(author)][before:]


@pytest.mark.parametrize(("lang", "author", "text", "said"), [
    ("ru", "Глеб Жеглов", "Лечю Веру", ["«Лечю» прочитано как «лечу»", "Вера Павлова"]),
    ("en", "Gleb Zheglov", "Heall Vera", ["\"Heall\" read as \"heal\"", "Vera Pavlova"]),
])
def test_a_typo_in_a_command_word_is_read_as_the_command_and_the_answer_says_so(lang, author, text, said):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, author, text)
    assert len(answers) == 1 and all(s in answers[0] for s in said), answers
    assert runner.state(run).orders[author]["target"] == CAST_NAME[lang]
    flagged = {"ru": "прочитано как команда", "en": "as the command word"}[lang]   # the host may check it
    assert any(flagged in f["reason"] for f in runner.store.flags("g"))


CAST_NAME = {"ru": "Вера Павлова", "en": "Vera Pavlova"}


@pytest.mark.parametrize(("lang", "author", "text", "said"), [
    ("ru", "Вера Павлова", "Защищаю Тома Хэнкса. Хотя нет, зашищаю Глеба",
     ["«Защищаю Тома Хэнкса» заменено вашей поправкой", "Глеб Жеглов"]),
    ("ru", "Вера Павлова", "Защищаю Тома Хэнкса.\nВернее, Глеба", ["заменено вашей поправкой", "Глеб Жеглов"]),
    ("en", "Vera Pavlova", "Protect Tom Hanks. Actually, protect Gleb",
     ["\"Protect Tom Hanks\" replaced by your correction", "Gleb Zheglov"]),
    ("en", "Vera Pavlova", "protect Tom Hanks. scratch that, Gleb", ["replaced by your correction", "Gleb Zheglov"]),
])
def test_a_correction_replaces_what_it_corrects_and_the_answer_says_what_was_taken(lang, author, text, said):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, author, text)
    assert len(answers) == 1 and all(s in answers[0] for s in said), answers
    assert runner.state(run).orders[author]["target"] == ("Глеб Жеглов" if lang == "ru" else "Gleb Zheglov")


@pytest.mark.parametrize(("lang", "author", "text", "said"), [
    ("ru", "Мэрил Стрип", "ну и что мне теперь делать",
     ["Не понято:", "Вы написали:", "проверяю ИМЯ", "убиваю ИМЯ", "записка: ТЕКСТ", "Ведущему сообщено"]),
    ("en", "Meryl Streep", "what do I do now",
     ["Not understood:", "You wrote:", "check NAME", "kill NAME", "note: TEXT", "The host has been told"]),
])
def test_a_pm_with_no_command_is_answered_with_the_accepted_forms_and_the_host_flagged(lang, author, text, said):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, author, text)
    assert len(answers) == 1 and all(s in answers[0] for s in said), answers
    flagged = {"ru": "без команды, которую бот смог бы прочитать", "en": "no command the bot could read"}[lang]
    assert any(flagged in f["reason"] for f in runner.store.flags("g"))
    assert not runner.state(run).orders


def test_a_word_close_to_several_commands_is_not_guessed_and_the_answer_names_them():
    forum, (run,), runner = runner_of(night_game("en"))
    answers = send(forum, runner, "Meryl Streep", "kil Vera")   # kill? kick? nothing else fits one way
    assert len(answers) == 1 and "Not understood" in answers[0]
    assert not runner.state(run).orders


@pytest.mark.parametrize(("lang", "text", "mask"), [
    ("ru", "записываюсь 3 Мисс Марпл", "Мисс Марпл"), ("ru", "записываюсь: 3 Мисс Марпл", "Мисс Марпл"),
    ("en", "sign up 3 Miss Marple", "Miss Marple"), ("en", "signup: 3 Miss Marple", "Miss Marple"),
])
def test_a_sign_up_without_the_colon_or_comma_is_read(lang, text, mask):
    config = GameConfig(name="g", game="mafia", lang=lang, start=START, host=HOST[lang], phase="signup", players=(),
                        options={**load_ruleset("bodysnatchers", "mafia"),
                                 "role_table": {str(n): "detective" for n in range(1, 13)}})
    forum, (run,), runner = runner_of(config)
    answers = send(forum, runner, "newcomer", text)
    assert len(answers) == 1
    assert runner.state(run).signup["newcomer"]["mask"] == mask


@pytest.mark.parametrize(("lang", "text"), [
    ("ru", "игра su\nпродлить на 1"), ("en", "game su\nextend 1"), ("en", "игра su\nextend 1"),
])
def test_the_hosts_message_naming_a_game_gets_one_answer_done(lang, text):
    su = replace(night_game("ru", "su"), host="Host")
    other = replace(night_game("en", "aa-other"), host="Host")     # sorts first, reads English
    forum, runs, runner = runner_of(su, other)
    answers = send(forum, runner, "Host", text)
    assert len(answers) == 1, answers
    assert "no command" not in answers[0] and "нет команды" not in answers[0]
    assert runner.state(runs[0]).phase_ends == START + timedelta(hours=25)
    assert runner.state(runs[1]).phase_ends == START + timedelta(hours=24)


@pytest.mark.parametrize(("lang", "text", "said"), [
    ("ru", "продлить на 2\nзакончить день", ["продлить на 2", "закончить день", "Ваше сообщение, команда за командой"]),
    ("en", "extend 2\nend day", ["extend 2", "end day", "Your message, command by command"]),
])
def test_one_answer_per_host_message_lists_each_command_and_its_result(lang, text, said):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, HOST[lang], text)
    assert len(answers) == 1 and all(s in answers[0] for s in said), answers
    assert runner.state(run).phase_ends == START + timedelta(hours=26)      # extended; "end day" refused at night
    assert ("Не принято" if lang == "ru" else "Not accepted") in answers[0]


# ---- invariants ----------------------------------------------------------------------------------------
ROSTER = ("Pia", "Pat", "Pip", "Hal", "Sid", "Pred")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([*ROSTER, "Zed", "Qux"]), min_size=1, max_size=5),
       st.sampled_from([", ", " and ", ", and ", " & "]), st.sampled_from(["en", "ru"]))
def test_no_name_of_an_attack_list_is_dropped_in_silence(names, separator, lang):
    """Whatever the list, the order is refused whole, or every name it holds is attacked, attempted or said
    to be left out."""
    verb = "attack" if lang == "en" else "атакую"
    joined = separator.join(names) if lang == "en" else separator.replace("and", "и").join(names)
    state, events = pm(started(CROWD), "Hal", f"{verb} {joined}", lang)
    distinct = list(dict.fromkeys(names))
    if of(events, "rejected"):
        assert state.attacks.get("Hal", []) == [] and state.attempts.get("Hal", []) == []
        return
    notes = of(events, "fc_attack_note")
    told = {d["name"] for n in notes for d in n.data["dropped"]}
    assert set(distinct) == set(state.attacks["Hal"]) | set(state.attempts["Hal"]) | told
    assert len(distinct) <= 2


@pytest.mark.parametrize(("lang", "roster", "text", "wrote"), [
    ("ru", "Вера Павлова\nГлеб Жеглов\n", "Защищаю Веру. Хотя нет, зашищаю Глеба", "зашищаю"),
    ("en", "Vera Pavlova\nGleb Zheglov\n", "Protect Vera. No wait, protetc Gleb", "protetc"),
])
def test_parse_explains_how_a_pm_was_mended(tmp_path, lang, roster, text, wrote):
    from click.testing import CliRunner

    from forumbot.cli import cli

    path = tmp_path / "roster.txt"
    path.write_text(roster, encoding="utf-8")
    out = CliRunner().invoke(cli, ["parse", "--game", "mafia", "--lang", lang, "--roster", str(path), "--pm",
                                   "--explain"], input=text)
    data = json.loads(out.output)
    assert [i["target"] for i in data["intents"]] == [roster.split("\n")[1]]
    assert data["mended"][0] == {"wrote": wrote, "read": "защищаю" if lang == "ru" else "protect"}
    assert data["mended"][1]["replaced"] in ("Защищаю Веру", "Protect Vera")


@pytest.mark.parametrize(("lang", "text"), [("ru", "продлит на 2"), ("en", "extnd 2")])
def test_a_typo_in_the_hosts_command_is_read_and_the_answer_says_so(lang, text):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, HOST[lang], text)
    assert len(answers) == 1 and ("прочитано как" if lang == "ru" else "read as") in answers[0], answers
    assert runner.state(run).phase_ends == START + timedelta(hours=26)


@pytest.mark.parametrize(("lang", "author", "text", "said"), [
    ("en", "Meryl Streep", "что мне делать?", ["Не понято:", "Напишите так:", "kill ИМЯ"]),
    ("ru", "Мэрил Стрип", "what should I do?", ["Not understood:", "Write it as:", "убиваю NAME"]),
])
def test_a_pm_nobody_could_read_is_answered_in_the_language_it_was_written_in(lang, author, text, said):
    forum, (run,), runner = runner_of(night_game(lang))
    answers = send(forum, runner, author, text)
    assert len(answers) == 1 and all(s in answers[0] for s in said), answers


@pytest.mark.parametrize(("lang", "text", "note"), [
    ("ru", "Записка: Я думаю, что Вера мафия. Хотя нет, не знаю", "Я думаю, что Вера мафия. Хотя нет, не знаю"),
    ("ru", "Записка: Вера мафия.\nХотя нет, не уверен.", "Вера мафия.\nХотя нет, не уверен."),
    ("en", "Note: Vera is scum. Actually, no idea", "Vera is scum. Actually, no idea"),
])
def test_a_correction_inside_a_note_is_the_notes_own_text(lang, text, note):
    parser = PostParser(shared_grammar("mafia", lang), Roster([PlayerRef(p) for p in CAST[lang]], lang=lang))
    parsed = parser.parse_text(text, where="pm", author="X")
    assert [(i.kind, i.data.get("text")) for i in parsed.intents] == [("note", note)] and not parsed.mended
