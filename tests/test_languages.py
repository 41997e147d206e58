"""Every event of every game, rendered in English and in Russian: a Russian post, PM subject or flag carries
no internal id (an ASCII word that is not a name or a player's own text), no post says "(s)", and every
phrase exists in both languages.

The events are those tests/test_templates_one.py pins: tests/template_events.json, every shipped sample's
posts and each game's tally (the host's view) at its end, each rendered in both languages whatever the
language of the game that posted it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from forumbot.config.game import load_scenario
from forumbot.config.paths import data_dir
from forumbot.engine.replay import replay
from forumbot.games import get_game
from forumbot.model import Event
from forumbot.render.renderer import Renderer, phrases

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE.parent / "forumbot" / "render" / "templates"
LANGS = ("en", "ru")
AT = datetime(2026, 3, 1, tzinfo=UTC)

# Event fields that hold a name, a player's own words or an address: what they hold may be in any script.
FREE_TEXT = {"author", "name", "names", "player", "players", "target", "to", "voter", "voters", "alive", "dead",
             "not_voting", "candidates", "winner", "winners", "loser", "account", "accounts", "mask", "masks",
             "holder", "text", "line", "query", "url", "thread", "game", "title", "by", "carrier", "assistant",
             "inspector", "challenger", "opponent", "late", "other", "tied", "waiting_for", "records", "giver",
             "host", "forum", "forums", "ledger", "character", "characters", "label", "labels", "attacker",
             "attacks", "said", "quote", "post", "seed", "seed_hash", "missing_players", "note", "notes", "ranking",
             "rankings", "options", "choices", "default", "played", "voted", "order", "ballots", "owner", "places",
             "named", "holders", "nominees", "picks", "missing", "deaths", "counts", "ec", "ec_candidates",
             "ec_voters", "role", "roles", "event", "events", "about", "turn", "awarded", "requester", "kept",
             "elsewhere", "attempts", "spectators", "near", "wrote"}
# Words that are the same in every language: the bot's and the games' own names, Infiltration's piece codes
# as the board shows them, units.
PROPER = {"forumbot", "Nisemonogatari", "CharA", "CharB", "CharC", "SHA", "UTC", "MT", "DT", "mt", "dt"}
ASCII_WORD = re.compile(r"(?<![\w@#/.:=-])[A-Za-z][A-Za-z_']*[A-Za-z](?![\w/@-])")


class _Threads(dict[str, str]):
    """Every thread purpose a game may post to."""

    def get(self, key: str, default: Any = None) -> str:
        return f"thread-{key}"


def _strings(value: Any, free: bool = False) -> Iterator[str]:
    """The texts in an event's data that are names or a player's words (free), at any depth."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if free:
                yield str(key)
            yield from _strings(inner, free or key in FREE_TEXT)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _strings(inner, free)
    elif isinstance(value, str) and free:
        yield value


@cache
def events() -> tuple[tuple[str, Event], ...]:
    """(game, event) of every post the templates test renders."""
    from test_templates_one import EVENTS, _posted

    found = [(e["game"], Event(e["kind"], e["data"])) for e in json.loads(EVENTS.read_text(encoding="utf-8"))]
    for path in sorted(data_dir("samples").glob("*.toml")):
        scenario = load_scenario(path)
        with _posted() as posted:
            result = replay(scenario)
            assert result.store is not None
            for row in result.store.games():
                rules = get_game(row.game)
                tally = rules.tally(rules.from_json(row.state), scenario.config.start)
                if tally is not None:
                    found.append((row.game, tally))
            result.close()
        found += [(game, event) for _, _, _, game, event in posted]
    return tuple(found)


def said(renderer: Renderer, game: str, event: Event) -> list[str]:
    """What a person reads of an event: each message's text and subject, and the flag a refusal or a
    moderation event raises for the host."""
    out = []
    for message in renderer.render(event, key="k", threads=_Threads(), at=AT, game=game):
        out += [message.text, message.subject]
    if event.kind in ("rejected", "moderation"):
        out.append(renderer.flag_reason(event))
    return out


def id_words(text: str, allowed: set[str]) -> list[str]:
    """ASCII words of a Russian text that are neither allowed (names, players' words) nor proper."""
    return [w for w in ASCII_WORD.findall(text) if w not in allowed and w not in PROPER]


def _allowed(event: Event) -> set[str]:
    """The ASCII words of the event's names and players' words, whole ("Ana's") and in pieces ("bob_sub")."""
    return {w for s in _strings(event.data)
            for w in re.findall(r"[A-Za-z]+(?:'[A-Za-z]+)?", s) + re.findall("[A-Za-z]+", s)}


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_renders_without_an_internal_id_or_a_plural_in_brackets(lang: str) -> None:
    renderer = Renderer("markdown", lang)
    problems: dict[tuple[str, str], set[str]] = {}
    for game, event in events():
        texts = said(renderer, game, event)
        for text in texts:
            found = set(re.findall(r"\w\((?:s|es|а|ов|и|ы)\)", text))
            if lang == "ru":
                found |= set(id_words(text, _allowed(event)))
            if found:
                problems.setdefault((game, event.kind), set()).update(found)
    assert {key: sorted(words) for key, words in problems.items()} == {}


def test_the_checks_catch_an_id_and_a_plural_in_brackets() -> None:
    """The checks above are not blind: an action id, an English fallback and "(s)" are caught, a player's
    Latin name is not."""
    event = Event("rejected", {"author": "Alice", "pm_to": "Alice", "subject": "refused", "code": "wrong_role",
                               "reason": "your role cannot do 'heal'", "params": {"verb": "heal"}})
    russian = " ".join(said(Renderer("markdown", "ru"), "mafia", event))
    assert id_words(russian, _allowed(event)) == [] and "лечение" in russian
    broken = Renderer("markdown", "ru", overrides={"refuse_wrong_role": "нельзя {verb}", "action_heal": "heal"})
    assert set(id_words(" ".join(said(broken, "mafia", event)), _allowed(event))) == {"heal"}
    unknown = Event("rejected", {**event.data, "code": "no_such_code"})
    assert "role" in id_words(" ".join(said(Renderer("markdown", "ru"), "mafia", unknown)), _allowed(unknown))
    assert re.findall(r"\w\((?:s|es)\)", "3 Character(s)") == ["r(s)"]


def test_every_phrase_is_in_both_languages() -> None:
    english, russian = set(phrases("en")), set(phrases("ru"))
    assert sorted(english - russian) == [] and sorted(russian - english) == []


def test_every_phrase_a_template_names_exists() -> None:
    named = set()
    for path in TEMPLATES.rglob("*.j2"):
        named |= set(re.findall(r"\bt\.([a-z_0-9]+)", path.read_text(encoding="utf-8")))
        named |= set(re.findall(r"\bt\[\"([a-z_0-9]+)\"\]", path.read_text(encoding="utf-8")))
    named -= {"get", "format"}
    for lang in LANGS:
        assert sorted(named - set(phrases(lang))) == [], lang


def test_every_code_and_subject_the_games_send_has_a_phrase() -> None:
    """A refusal's code, a moderation flag's code, a vote error's code and a PM's subject each name a phrase
    in both languages: nothing falls back to an English reason or an internal key."""
    missing: set[str] = set()
    for _, event in events():
        data = event.data
        wanted = []
        if data.get("pm_to"):
            wanted.append(f"subject_{data.get('subject', '')}")
        if event.kind == "rejected" and data.get("code"):
            wanted.append(f"{'error' if data.get('vote') else 'refuse'}_{data['code']}")
        if event.kind == "moderation":
            wanted.append(f"flag_{data['code']}")
        view = data.get("view") if isinstance(data.get("view"), dict) else data
        wanted += [f"error_{error['code']}" for error in view.get("errors") or () if error.get("code")]
        for lang in LANGS:
            missing |= {f"{lang}: {key}" for key in wanted if key not in phrases(lang)}
    assert sorted(missing) == []


@pytest.mark.parametrize(("lang", "count", "word"), [
    ("ru", 1, "персонаж"), ("ru", 3, "персонажа"), ("ru", 5, "персонажей"), ("ru", 11, "персонажей"),
    ("ru", 21, "персонаж"), ("ru", 22, "персонажа"), ("en", 1, "Character"), ("en", 3, "Characters"),
])
def test_counts_agree_with_their_word_by_the_languages_rules(lang: str, count: int, word: str) -> None:
    renderer = Renderer("markdown", lang)
    line = renderer.phrases["nm_confessing"].format(count=renderer.count(count))
    assert re.search(rf"\b{count} {word}(?!\w)", line), line


def test_a_russian_refusal_names_the_action_and_the_phase_in_russian() -> None:
    renderer = Renderer("markdown", "ru")
    wrong = Event("rejected", {"author": "Вера", "pm_to": "Вера", "subject": "refused", "code": "wrong_role",
                               "reason": "", "params": {"verb": "heal"}})
    assert renderer.text(wrong) == "Не принято: у вашей роли нет действия «лечение»\n"
    early = Event("rejected", {"author": "Вера", "pm_to": "Вера", "subject": "refused", "code": "not_night",
                               "reason": "", "params": {"phase": "signup"}})
    assert renderer.text(early) == "Не принято: НД принимаются только ночью, сейчас запись\n"
    out = renderer.render(early, key="k", threads={}, at=AT)
    assert out[0].subject == "Не принято"
    ballot = Event("rejected", {"author": "Вера", "pm_to": "Вера", "subject": "refused", "code": "bp_count",
                                "reason": "", "params": {"want": "losers"}})
    assert "одного или двух игроков проигравших сторон" in renderer.text(ballot)


def test_a_flag_for_the_host_is_in_the_games_language() -> None:
    event = Event("moderation", {"author": "Вера", "code": "dead_post", "reason": "Вера is dead and posted",
                                 "params": {"author": "Вера"}})
    assert Renderer("markdown", "ru").flag_reason(event) == "Вера выбыла, но написала в игровой теме"
    assert Renderer("markdown", "en").flag_reason(event) == "Вера is dead and posted in the game thread"


# ---- the web forum and the host console ------------------------------------------------------------
WEB_TEMPLATES = HERE.parent / "forumbot" / "web" / "templates"


def test_every_word_of_the_web_pages_is_in_russian() -> None:
    """Each text a web template or the web forum's code looks up (w("...")) has its Russian, and a text
    with a count has the three Russian forms."""
    from forumbot.web.words import table

    russian = table("ru")
    asked = set()
    for path in [*WEB_TEMPLATES.glob("*.html"), *WEB_TEMPLATES.parent.glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":   # a Python string split over lines: its pieces joined
            text = re.sub(r'"\s*\n\s*"', "", text)
        asked |= set(re.findall(r"""\bw\((?:"((?:[^"\\]|\\.)+)"|'([^']+)')""", text))
    texts = {(a or b).replace('\\"', '"') for a, b in asked}
    assert texts and sorted(t for t in texts if t not in russian) == []
    assert [t for t in texts if "/" in t and len(russian[t].split("/")) != 3] == []


def test_the_consoles_words_for_readings_and_kinds_are_in_russian() -> None:
    """The console's tables of words (how a name was read, what a post was read as) have their Russian, and
    every intent kind of the shipped grammars reads as words, not as an id."""
    from forumbot.config.paths import data_dir
    from forumbot.web import console
    from forumbot.web.words import table

    russian = table("ru")
    from forumbot.web import words

    tables = [console._HOW, console.KIND_WORDS, words.SIDES, words.FATES, words.DAY_ENDS]
    assert sorted(t for table_ in tables for t in table_.values() if t not in russian) == []
    kinds = {line.split('"')[1] for path in data_dir("parsers").glob("*.toml")
             for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("kind = ")}
    said = {kind: console.KIND_WORDS.get(kind, kind.replace("_", " ")) for kind in kinds | {"not_counted"}}
    assert all("_" not in words for words in said.values())
    mafia = {"action", "vote", "unvote", "no_lynch", "not_counted", "note", "signup", "confirm_role", "warn"}
    assert sorted(said[k] for k in mafia if said[k] not in russian) == []


def test_a_russian_forum_and_a_russian_games_console_speak_russian(tmp_path: Path) -> None:
    from forumbot.web.app import create_app
    from forumbot.web.config import WebConfig, WebGame, WebSettings

    game = WebGame("g", {"votes": "g/votes"}, "Host", ("Алиса", "Боб"), lang="ru")
    english = create_app(WebSettings(str(tmp_path / "en.db"), WebConfig(), games=(game,))).test_client()
    russian = create_app(WebSettings(str(tmp_path / "ru.db"), WebConfig(lang="ru"), games=(game,))).test_client()
    page = russian.get("/").get_data(as_text=True)
    assert '<html lang="ru">' in page and "Игры" in page and "Войти" in page and "2 игрока" in page
    assert not re.search(r">\s*(Games|Sign in|players)\b", page)
    signin = russian.get("/signin").get_data(as_text=True)
    assert "Пароль" in signin and "Password" not in signin
    missing = russian.get("/no/such/page")
    assert missing.status_code == 404 and "Не найдено" in missing.get_data(as_text=True)
    page = english.get("/").get_data(as_text=True)
    assert '<html lang="en">' in page and "Games" in page and "2 players" in page


def test_the_web_language_is_checked_in_the_bot_config(tmp_path: Path) -> None:
    from forumbot.config.tomlfile import load_toml
    from forumbot.errors import ConfigError
    from forumbot.web.config import web_config

    path = tmp_path / "bot.toml"
    path.write_text('[web]\nlang = "ru"\n', encoding="utf-8")
    assert web_config(load_toml(path), ["local"]).lang == "ru"
    path.write_text('[web]\nlang = "de"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="lang must be one of en, ru"):
        web_config(load_toml(path), ["local"])


def test_a_flag_of_the_reading_is_in_the_games_language() -> None:
    """What the reader flags (a name that is no player, a vote-like line that is not counted) reaches the
    host in the game's language."""
    from forumbot.model import PlayerRef
    from forumbot.text.grammar import load_grammar
    from forumbot.text.names import Roster
    from forumbot.text.parse import PostParser

    roster = [PlayerRef("Анна Каренина"), PlayerRef("Борис Годунов"), PlayerRef("Вера Павлова")]
    parser = PostParser(load_grammar("mafia", "ru"), Roster(roster, lang="ru"))
    flags = [f for text in ("голосую против Зинаиды", "Голосую за Вотана?")
             for f in parser.parse_text(text, "plain", author="Анна Каренина", post_id="p1").flags]
    said = [Renderer("markdown", "ru").flag(f).reason for f in flags]
    assert said == ["«Зинаиды» — нет такого игрока", "не засчитано: «Голосую за Вотана?» (это вопрос)"], said
    assert Renderer("markdown", "en").flag(flags[0]).reason == "'Зинаиды' matches no player"


@pytest.mark.parametrize(("lang", "label", "said"), [
    ("en", "Ana's CharA", "Ana's CharA"),
    ("en", "Hitagi (Ana's CharB)", "Hitagi (Ana's CharB)"),
    ("ru", "Анна's CharA", "CharA игрока Анна"),
    ("ru", "Хитаги (Анна Каренина's CharC)", "Хитаги (CharC игрока Анна Каренина)"),
    ("ru", "Хитаги", "Хитаги"),
])
def test_a_nisemonogatari_characters_owner_reads_right_in_each_language(lang: str, label: str, said: str) -> None:
    assert Renderer("markdown", lang).character(label) == said
    orders = Event("nm_orders", {"pm_to": "Анна", "subject": "nm", "round": 1, "orders": [
        {"character": label, "location": "Rooftop", "event": "Lunch", "initiative": 2, "confess": False,
         "target": None}], "idle": [], "initiative_left": 0, "bonus": {}, "hide": None, "boost": None,
        "garnets": 0, "names": [], "deadline": "2026-03-02T12:00:00Z"})
    text = Renderer("markdown", lang).text(orders, game="nisemonogatari")
    assert said in text and ("'s" not in text if lang == "ru" else True), text


def test_no_plural_in_brackets_anywhere_in_the_package() -> None:
    """No "word(s)" in the package's code, templates or words: counts agree with their word."""
    package = HERE.parent / "forumbot"
    found = [f"{path.relative_to(package)}:{n}" for path in package.rglob("*")
             if path.suffix in (".py", ".j2", ".html", ".toml")
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if set(re.findall(r"(\w+)\((?:s|es)\)", line)) - {"http", "get"}]   # (a URL's scheme, a call)
    assert found == []


@pytest.mark.parametrize(("text", "want"), [
    ("CharB игрока Борис", "Борис:B"), ("charb игрока борис", "Борис:B"), ("Борис's CharB", "Борис:B"),
    ("CharA", "Анна:A"), ("CharA игрока Зоя", None),
])
def test_a_nisemonogatari_character_is_read_as_the_russian_posts_name_it(text: str, want: str | None) -> None:
    """What a Russian post shows («CharB игрока Борис») is read back when a player copies it into an order."""
    from forumbot.games.nisemonogatari.words import resolve_char

    assert resolve_char(text, "Анна", ["Анна", "Борис"], {}) == want
