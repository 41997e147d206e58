"""What a game day's parser and rules answer for one post: how names were read, the roster, the deadline."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from helpers import START, names, new_game

from forumbot.config.game import GameConfig
from forumbot.engine.loading import GameRun
from forumbot.games.mafia import MAFIA
from forumbot.model import PlayerRef

NAMED = ["Том Хэнкс", "Мэрил Стрип", "Анджелина Джоли", "Джонни Депп", "Киану Ривз", "Брэд Питт",
         "Мерилин Монро", "Николь Кидман", "Хью Джекман", "Одри Хепбёрн", "Леонардо Ди Каприо",
         "Скарлетт Йоханссон"]


def _run() -> GameRun:
    config = GameConfig(name="g", game="mafia", lang="ru", start=START, players=tuple(PlayerRef(n) for n in NAMED),
                        options={"day_hours": 48, "vote_count_every": 0}, phase="day1")
    return GameRun.build(config)


def test_a_signed_up_roster_has_the_genders_and_masks_play_under():
    state = new_game(5).with_(masks={"M1": "acc1", "M2": "acc2", "M3": "acc1"}, genders={"P01": "f"})
    roster = MAFIA.roster(state)
    assert roster == MAFIA.roster(state.with_(seq=3))
    assert [(p.name, p.gender) for p in roster] == [("P01", "f")] + [(n, None) for n in names(5)[1:]]
    # a mask's real account writes as its (first) mask; any other account as itself
    assert [MAFIA.account_player(state, a) for a in ["acc1", "acc2", "acc9", "M1"]] == ["M1", "M2", "acc9", "M1"]


def test_parse_explain_still_says_how_each_name_was_read():
    run = _run()
    parsed = run.parser.parse_text("Голосую против Брэда Питта\nПротив Деппа", "markdown")
    assert [i.data["target"] for i in parsed.intents] == ["Брэд Питт", "Джонни Депп"]
    assert parsed.names == ["'Брэда Питта': 'Брэда Питта' → Брэд Питт (inflection)",
                            "'Деппа': 'Деппа' → Джонни Депп (partial)"]


def test_the_next_deadline_is_a_reminder_before_the_phase_s_end_else_the_end():
    plain = new_game(5)
    reminded = plain.with_(options=replace(plain.options, remind_hours=(24.0, 1.0)))
    assert MAFIA.next_deadline(plain) == plain.phase_ends
    assert MAFIA.next_deadline(reminded) == reminded.phase_ends - timedelta(hours=24)
    assert MAFIA.next_deadline(reminded.with_(reminded=("day1:24",))) == reminded.phase_ends - timedelta(hours=1)
    assert MAFIA.next_deadline(plain.with_(phase="over")) is None
    assert MAFIA.threads(plain) == {"game": plain.options.game_thread, "votes": plain.options.vote_threads[0],
                                    **{t: t for t in plain.options.vote_threads}}
