"""Every flag the bot raises for the host is a phrase (flag_<id>) with its parameters, rendered in the game's
language: what the console, `forumbot status` and `forumbot flags` show. A Russian flag carries no English
word or internal id; a flag whose phrase is missing is caught."""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_languages import PROPER, id_words

from forumbot.model import Flag
from forumbot.render.renderer import Renderer, phrases

PACKAGE = Path(__file__).resolve().parents[1] / "forumbot"
# Phrases that are parts of a flag, not a flag: a step's name, a confidence, a settled fact.
PARTS = ("flag_step_", "flag_confidence_", "flag_settled_")
NUMBERS = {"limit", "posts", "needed", "day"}
SAMPLE = {"failed": "read", "confidence": "low", "rule": "8.2.8", "platform": "discourse"}
ENGLISH_FALLBACK = "an English reason nobody should read"


def raised_codes() -> set[str]:
    """Every flag phrase the package names when it raises a flag (code="flag_..."; "flag_..." if ... else),
    the Mafia watch's (_flag(post, "<code>", ...)) and its checks' (parsers/mafia.<lang>.toml `what`)."""
    from forumbot.games.mafia.moderation import load_checks

    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"""["'](flag_[a-z_]+)["']""", text))
        found |= {f"flag_{code}" for code in re.findall(r'_flag\(post, "([a-z_]+)"', text)}
    found |= {f"flag_{check.what}" for lang in ("en", "ru") for check in load_checks(lang).checks}
    return {code for code in found if not code.startswith(PARTS) and code != "flag_reason"}


def flag_phrases() -> list[str]:
    return sorted(key for key in phrases("en") if key.startswith("flag_") and not key.startswith(PARTS))


def sample_flag(code: str) -> Flag:
    """A flag of phrase `code` with a value for each of its fields: a number, a step, a Cyrillic name."""
    fields = {name for _, name, _, _ in string.Formatter().parse(phrases("ru")[code]) if name}
    params = tuple((f, 3 if f in NUMBERS else SAMPLE.get(f, "Вера")) for f in sorted(fields))
    return Flag(reason=ENGLISH_FALLBACK, author="Вера", code=code, params=params)


def test_every_flag_the_bot_raises_has_a_phrase_in_both_languages() -> None:
    codes = raised_codes()
    assert {"flag_edited_first_seen", "flag_deleted_first_seen", "flag_unreadable", "flag_host_name",
            "flag_real_account", "flag_dead_post", "flag_slang", "flag_pm_unread"} <= codes
    for lang in ("en", "ru"):
        assert sorted(codes - set(phrases(lang))) == [], lang


def test_a_flag_a_game_event_carries_has_its_phrase() -> None:
    """A deadline's event that flags the host (Mafia's post minimum) names phrase flag_<event kind>."""
    for path in (PACKAGE / "games").rglob("*.py"):
        for kind in re.findall(r'Event\("([a-z_]+)", \{[^}]*?"flag": f?"', path.read_text(encoding="utf-8"), re.S):
            assert f"flag_{kind}" in phrases("en") and f"flag_{kind}" in phrases("ru"), (path.name, kind)


@pytest.mark.parametrize("code", flag_phrases())
def test_every_flag_reads_in_russian_without_an_english_word(code: str) -> None:
    russian = Renderer("markdown", "ru").flag(sample_flag(code)).reason
    assert russian != ENGLISH_FALLBACK and "{" not in russian and "(s)" not in russian
    assert id_words(russian, {"discourse"}) == [], russian
    english = Renderer("markdown", "en").flag(sample_flag(code)).reason
    assert english != ENGLISH_FALLBACK and "{" not in english and "(s)" not in english


def test_the_flag_checks_catch_a_missing_phrase_and_an_english_word() -> None:
    missing = Renderer("markdown", "ru").flag(Flag(reason="the post could not be read", code="flag_no_such"))
    assert id_words(missing.reason, set()) == ["the", "post", "could", "not", "be", "read"]
    broken = Renderer("markdown", "ru", overrides={"flag_dead_post": "{author} is dead"})
    assert id_words(broken.flag(sample_flag("flag_dead_post")).reason, set()) == ["is", "dead"]
    assert "Вера" not in PROPER


@pytest.mark.parametrize(("lang", "author", "said"), [
    ("ru", "Вера", "Вера выбыла, но написала в игровой теме"),
    ("ru", "Глеб", "Глеб выбыл, но написал в игровой теме"),
    ("en", "Vera", "Vera is dead and posted in the game thread"),
])
def test_a_mafia_moderation_flag_is_in_the_games_language(lang: str, author: str, said: str) -> None:
    flag = Flag(reason="English", code="flag_dead_post", params=(("author", author),))
    assert Renderer("markdown", lang).flag(flag).reason == said


# ---- end to end: a flag a platform raises reaches the host in the game's language ------------------
START = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(("lang", "votes", "said"), [
    ("ru", ("Голосую: Борис", "Голосую: Дина"),
     ["сообщение с командой отредактировано; считается текст, каким его увидел бот впервые",
      "сообщение с командой удалено; текст, каким его увидел бот впервые, по-прежнему считается"]),
    ("en", ("vote Борис", "vote Дина"),
     ["a post that carried a command was edited; the first-seen text counts",
      "a post that carried a command was deleted; its first-seen text still counts"]),
])
def test_an_edited_and_a_deleted_command_post_are_flagged_in_the_games_language(lang, votes, said, tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli
    from forumbot.config.game import GameConfig
    from forumbot.engine.cycle import Runner
    from forumbot.engine.loading import GameRun
    from forumbot.model import PlayerRef
    from forumbot.platforms.local import LocalForum
    from forumbot.storage import Store

    def at(minutes: int) -> datetime:
        return START + timedelta(minutes=minutes)

    store = Store(tmp_path / "bot.db")
    forum = LocalForum(clock=lambda: at(24 * 60), edit_policy="flag")
    cast = ("Алиса", "Борис", "Вика", "Дина")
    run = GameRun.build(GameConfig(name="g", game="mafia", lang=lang, start=START, host="Host", phase="day1",
                                   players=tuple(PlayerRef(p) for p in cast), options={"day_hours": 10}))
    runner = Runner(store, forum, [run])
    runner.start(START)
    first = forum.add_post("g/votes", "Алиса", votes[0], at=at(10))
    doomed = forum.add_post("g/votes", "Вика", votes[1], at=at(20))
    runner.step(at(30))
    forum.edit_post(first, votes[1], at=at(60))
    forum.delete_post(doomed)
    runner.step(at(11 * 60))
    reasons = [f["reason"] for f in store.flags("g")]
    assert sorted(reasons) == sorted(said), reasons
    store.close()
    shown = CliRunner().invoke(cli, ["flags", "--db", str(tmp_path / "bot.db")])
    assert all(s in shown.output for s in said), shown.output
    assert "(s)" not in shown.output
