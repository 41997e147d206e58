"""Name resolution: what a player typed → a roster name (forumbot.text.names), in English and Russian."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.errors import AmbiguousName, ConfigError, UnknownName
from forumbot.model import PlayerRef
from forumbot.text.names import STAGES, Resolution, Roster, word_forms
from forumbot.text.normalize import tokens

RU_PLAYERS = [
    PlayerRef("Том Хэнкс", ("Хэнк",)), PlayerRef("Мэрил Стрип"), PlayerRef("Анджелина Джоли"),
    PlayerRef("Джонни Депп", ("Капитан Воробей",)), PlayerRef("Киану Ривз"), PlayerRef("Брэд Питт"),
    PlayerRef("Пётр Петров"), PlayerRef("Анна Петрова"), PlayerRef("Мерилин Монро"),
]
EN_PLAYERS = [
    PlayerRef("Alice"), PlayerRef("Bob", ("Bob Jr",)), PlayerRef("Joanna"), PlayerRef("Joe"),
    PlayerRef("Mr. Green", ("Greenie",)), PlayerRef("Mr. White"),
]
# Alice alone is one word of Alice Cooper here; two players share the first name Bob.
BANDS_PLAYERS = [PlayerRef("Alice Cooper"), PlayerRef("Bob Dylan"), PlayerRef("Bob Marley")]

PETROVS = ("Пётр Петров", "Анна Петрова")


@pytest.fixture(scope="module")
def ru() -> Roster:
    return Roster(RU_PLAYERS, lang="ru")


@pytest.fixture(scope="module")
def en() -> Roster:
    return Roster(EN_PLAYERS, lang="en")


@pytest.fixture(scope="module")
def bands() -> Roster:
    return Roster(BANDS_PLAYERS, lang="en")


def case(text: str, name: str | None, method: str, matched: str | None = None, rest: str = "",
         candidates: tuple[str, ...] = ()) -> object:
    """One table row; `matched` defaults to the whole text."""
    return pytest.param(text, name, method, text if matched is None else matched, rest, candidates, id=text)


def check(roster: Roster, text: str, name: str | None, method: str, matched: str, rest: str,
          candidates: tuple[str, ...]) -> Resolution:
    res = roster.resolve(text)
    got = (res.name, res.method, res.matched, res.rest)
    assert got == (name, method, matched, rest), roster.explain(text)
    if candidates:
        assert res.candidates == candidates
    assert res.ok == (name is not None)
    return res


# ---------------------------------------------------------------------------------------------------------
# Russian

RU_CASES = [
    # 1. exact: case and ё/е folded
    case("Том Хэнкс", "Том Хэнкс", "exact"),
    case("том хэнкс", "Том Хэнкс", "exact"),
    case("ТОМ  ХЭНКС", "Том Хэнкс", "exact"),
    case("Петр Петров", "Пётр Петров", "exact"),
    case("Пётр Петров", "Пётр Петров", "exact"),
    case("Мэрил Стрип", "Мэрил Стрип", "exact"),
    case("Мерилин Монро", "Мерилин Монро", "exact"),
    # every case of Том Хэнкс
    case("Тома Хэнкса", "Том Хэнкс", "inflection"),
    case("Тому Хэнксу", "Том Хэнкс", "inflection"),
    case("Томом Хэнксом", "Том Хэнкс", "inflection"),
    case("о Томе Хэнксе", "Том Хэнкс", "inflection", "Томе Хэнксе"),
    case("Том Хэнкса", "Том Хэнкс", "inflection"),                 # first name left in the nominative
    case("Хэнкса Тома", "Том Хэнкс", "inflection"),                # surname first
    # trailing text is left in rest
    case("Тома Хэнкса, он мафия", "Том Хэнкс", "inflection", "Тома Хэнкса", "он мафия"),
    case("Тома Хэнкса он мафия", "Том Хэнкс", "inflection", "Тома Хэнкса", "он мафия"),
    case("Хэнкса — он врёт", "Том Хэнкс", "partial", "Хэнкса", "он врёт"),
    # 3. other inflected names, indeclinable words included
    case("Анджелину Джоли", "Анджелина Джоли", "inflection"),
    case("Анджелиной Джоли", "Анджелина Джоли", "inflection"),
    case("о Мэрил Стрип", "Мэрил Стрип", "exact", "Мэрил Стрип"),   # indeclinable: the nominative again
    case("Киану Ривза", "Киану Ривз", "inflection"),
    case("Киану Ривзу", "Киану Ривз", "inflection"),
    case("Джонни Деппа", "Джонни Депп", "inflection"),
    case("Брэда Питта", "Брэд Питт", "inflection"),
    case("Петра Петрова", "Пётр Петров", "inflection"),
    case("Анну Петрову", "Анна Петрова", "inflection"),
    case("Анной Петровой", "Анна Петрова", "inflection"),
    case("Петрова Анна", "Анна Петрова", "inflection"),
    # 2. aliases, and their forms
    case("Хэнк", "Том Хэнкс", "alias"),
    case("Хэнку", "Том Хэнкс", "inflection"),
    case("Капитан Воробей", "Джонни Депп", "alias"),
    case("капитана воробья, точно", "Джонни Депп", "inflection", "капитана воробья", "точно"),
    case("Воробья", "Джонни Депп", "partial"),
    # 4. partial: the surname (or first name) alone, in any case
    case("Хэнкс", "Том Хэнкс", "partial"),
    case("Хэнкса", "Том Хэнкс", "partial"),
    case("Хэнксу", "Том Хэнкс", "partial"),
    case("Хэнксом", "Том Хэнкс", "partial"),
    case("против Хэнкса", "Том Хэнкс", "partial", "Хэнкса"),
    case("за Деппа", "Джонни Депп", "partial", "Деппа"),
    case("Джоли", "Анджелина Джоли", "partial"),
    case("Стрип", "Мэрил Стрип", "partial"),
    case("Монро", "Мерилин Монро", "partial"),
    case("Ривза", "Киану Ривз", "partial"),
    case("Тома", "Том Хэнкс", "partial"),
    case("Анджелины", "Анджелина Джоли", "partial"),
    # Петров / Петрова: forms only one of them has are certain, shared forms are ambiguous
    case("Петровой", "Анна Петрова", "partial"),
    case("Петровым", "Пётр Петров", "partial"),
    case("Петрове", "Пётр Петров", "partial"),
    case("Петров", "Пётр Петров", "partial"),
    case("Петрова", None, "ambiguous", candidates=PETROVS),
    case("Петрову", None, "ambiguous", candidates=PETROVS),
    # 5. prefix
    case("Анджел", "Анджелина Джоли", "prefix"),
    case("Ривз?", "Киану Ривз", "partial", "Ривз"),
    case("Петро", None, "ambiguous", candidates=PETROVS),
    # a prefix of Мерилин that is also a spelling of Мэрил is not a guess
    case("Мерил", None, "ambiguous", candidates=("Мэрил Стрип", "Мерилин Монро")),
    # 6. fuzzy
    case("Хенкс", "Том Хэнкс", "fuzzy"),
    case("Хэнкз", "Том Хэнкс", "fuzzy"),
    case("Хэнкза", "Том Хэнкс", "fuzzy"),
    case("Бред Пит", "Брэд Питт", "fuzzy"),
    # unknown
    case("Сталин", None, "unknown"),
]


@pytest.mark.parametrize("text,name,method,matched,rest,candidates", RU_CASES)
def test_russian(ru: Roster, text: str, name: str | None, method: str, matched: str, rest: str,
                 candidates: tuple[str, ...]) -> None:
    check(ru, text, name, method, matched, rest, candidates)


@pytest.mark.parametrize("word,forms", [
    pytest.param("хэнкс", {"хэнкс", "хэнкса", "хэнксу", "хэнксом", "хэнксе"}, id="хэнкс-foreign"),
    pytest.param("петров", {"петров", "петрова", "петрову", "петровым", "петрове"}, id="петров-masc-only"),
    pytest.param("петрова", {"петрова", "петровой", "петрову"}, id="петрова-femn-only"),
    pytest.param("анна", {"анна", "анны", "анне", "анну", "анной", "анною"}, id="анна"),
    pytest.param("джоли", {"джоли"}, id="джоли-indeclinable"),
    pytest.param("киану", {"киану"}, id="киану-indeclinable"),
    pytest.param("монро", {"монро"}, id="монро-indeclinable"),
    pytest.param("питт", {"питт", "питта", "питту", "питтом", "питте"}, id="питт-ending-table"),
])
def test_word_forms(word: str, forms: set[str]) -> None:
    assert {form for _, form in word_forms(word)} == forms


def test_female_surname_in_consonant_does_not_decline() -> None:
    assert {form for _, form in word_forms("шмидт", "femn")} == {"шмидт"}
    assert "шмидта" in {form for _, form in word_forms("шмидт", "masc")}
    roster = Roster([PlayerRef("Анна Шмидт"), PlayerRef("Иван Шмидт")], lang="ru")
    assert roster.resolve("Шмидта").name == "Иван Шмидт"          # only his surname declines
    assert roster.resolve("Шмидт").method == "ambiguous"


def test_longer_whole_name_beats_shorter_exact_name() -> None:
    """Stages 1–3 are tried together, longest run first: "Том Хэнкса" is not the player "Том"."""
    roster = Roster([PlayerRef("Том"), PlayerRef("Том Хэнкс")], lang="ru")
    res = roster.resolve("Том Хэнкса")
    assert (res.name, res.method) == ("Том Хэнкс", "inflection")
    assert (roster.resolve("Том").name, roster.resolve("Том").method) == ("Том", "exact")
    assert (roster.resolve("Тома").name, roster.resolve("Тома").method) == ("Том", "inflection")
    assert roster.resolve("Хэнкса").name == "Том Хэнкс"


def test_cyrillic_names_decline_in_an_english_game() -> None:
    roster = Roster([PlayerRef("Том Хэнкс"), PlayerRef("Alice")], lang="en")
    res = roster.resolve("Тома Хэнкса")
    assert (res.name, res.method) == ("Том Хэнкс", "inflection")


def test_latin_names_take_apostrophe_endings_in_a_russian_game() -> None:
    ru_game = Roster([PlayerRef("Bob"), PlayerRef("Alice")], lang="ru")
    en_game = Roster([PlayerRef("Bob"), PlayerRef("Alice")], lang="en")
    assert (ru_game.resolve("Bob'а").name, ru_game.resolve("Bob'а").method) == ("Bob", "inflection")
    assert (ru_game.resolve("Alice’у").name, ru_game.resolve("Alice’у").method) == ("Alice", "inflection")
    assert en_game.resolve("Bob'а").method != "inflection"


def test_every_generated_form_names_its_player_or_is_ambiguous(ru: Roster) -> None:
    """Never a wrong guess: each form of each player resolves to that player, or to an ambiguity
    that includes them."""
    checked = 0
    for name in ru.names:
        for form in ru.forms(name):
            res = ru.resolve(form)
            assert res.name == name or (res.method == "ambiguous" and name in res.candidates), (form, res)
            checked += 1
    assert checked > 9 * 20


def test_forms_rejects_unknown_name(ru: Roster) -> None:
    assert "тома хэнкса" in ru.forms("Том Хэнкс")
    with pytest.raises(KeyError):
        ru.forms("Сталин")


# ---------------------------------------------------------------------------------------------------------
# English

EN_CASES = [
    case("Alice", "Alice", "exact"),
    case("ALICE", "Alice", "exact"),
    case("alice because she lied", "Alice", "exact", "alice", "because she lied"),
    case("@Alice: scum", "Alice", "exact", "Alice", "scum"),
    case("Mr. Green", "Mr. Green", "exact"),
    case("mr green is town", "Mr. Green", "exact", "mr green", "is town"),
    case("Greenie", "Mr. Green", "alias"),
    case("Bob Jr", "Bob", "alias"),
    case("against Bob", "Bob", "exact", "Bob"),
    case("Green", "Mr. Green", "partial"),
    case("Mr", None, "ambiguous", candidates=("Mr. Green", "Mr. White")),
    case("Jo", None, "ambiguous", candidates=("Joanna", "Joe")),
    case("Joan", "Joanna", "prefix"),
    case("Al", "Alice", "prefix"),
    case("Whi", "Mr. White", "prefix"),
    case("Aliec", "Alice", "fuzzy"),
    case("Aliec, really", "Alice", "fuzzy", "Aliec", "really"),
    case("MrGreen", "Mr. Green", "initials"),   # CamelCase humps: the parts of the name
    case("Bobby", None, "unknown", candidates=("Bob",)),
    case("Zed", None, "unknown"),
    case("Alice, Bob", "Alice", "exact", "Alice", "Bob"),
]


@pytest.mark.parametrize("text,name,method,matched,rest,candidates", EN_CASES)
def test_english(en: Roster, text: str, name: str | None, method: str, matched: str, rest: str,
                 candidates: tuple[str, ...]) -> None:
    check(en, text, name, method, matched, rest, candidates)


BANDS_CASES = [
    case("Alice", "Alice Cooper", "partial"),
    case("Cooper", "Alice Cooper", "partial"),
    case("Alice Cooper", "Alice Cooper", "exact"),
    case("Dylan", "Bob Dylan", "partial"),
    case("Bob Marley", "Bob Marley", "exact"),
    case("Bob", None, "ambiguous", candidates=("Bob Dylan", "Bob Marley")),
    # the shared first name stops the chain before fuzzy could try two words: never a guess
    case("Bob Dilan", None, "ambiguous", "Bob", "Dilan", ("Bob Dylan", "Bob Marley")),
    case("Marly", "Bob Marley", "fuzzy"),
]


# Handles as forum players write them, and how people shorten them. Our own invented handles.
HANDLES = [PlayerRef("Quiet-fox-in-snow"), PlayerRef("NightOwlHoots"), PlayerRef("bluemoonrising"),
           PlayerRef("Stargazer2049"), PlayerRef("Paper_Tiger"), PlayerRef("Xander"), PlayerRef("Kim of the Hills"),
           PlayerRef("Pinewood"), PlayerRef("Penwood"), PlayerRef("Skyline", ("sky",))]
SHAPE_CASES = [
    case("QFIS", "Quiet-fox-in-snow", "initials"),       # the first letter of every part
    case("NOH", "NightOwlHoots", "initials"),            # CamelCase humps
    case("PT", "Paper_Tiger", "initials"),
    case("KimHills", "Kim of the Hills", "initials"),    # parts may be skipped, the first may not
    case("X", "Xander", "initials"),                     # a single letter: the handle's first letter
    case("Owl", "NightOwlHoots", "inside"),              # a piece inside the handle
    case("moonrising", "bluemoonrising", "inside"),
    case("stargazernumbers", "Stargazer2049", "stem"),   # the handle less its digits, then more letters
    case("BMR", "bluemoonrising", "letters"),            # letters of one lower-case word, in order
    case("u/Xander", "Xander", "exact", "Xander"),       # Reddit's u/ and /u/, a forum's @
    case("/u/paper_tiger", "Paper_Tiger", "exact", "paper_tiger"),
    case("@NightOwlHoots", "NightOwlHoots", "exact", "NightOwlHoots"),
    case("NgihtOwlHoots", "NightOwlHoots", "fuzzy"),     # two letters swapped: one slip
    case("Stragazer", "Stargazer2049", "fuzzy"),         # a long handle's start, misspelt
    case("Pinrwood", "Pinewood", "fuzzy"),               # r is next to e on the keyboard: one slip
    case("Pinrwoid", None, "ambiguous", candidates=("Pinewood", "Penwood")),   # two slips: close to both
    case("P", None, "ambiguous", candidates=("Paper_Tiger", "Pinewood", "Penwood")),
    case("wood", None, "ambiguous", candidates=("Pinewood", "Penwood")),
    case("Pnewood", None, "ambiguous", candidates=("Pinewood", "Penwood")),   # a typo of two: never a guess
    case("sky", "Skyline", "alias"),                      # the host's nicknames stay the first resort
]


@pytest.mark.parametrize("text,name,method,matched,rest,candidates", SHAPE_CASES)
def test_shortened_handles(text: str, name: str | None, method: str, matched: str, rest: str,
                           candidates: tuple[str, ...]) -> None:
    res = check(Roster(HANDLES, lang="en"), text, name, method, matched, rest, ())
    if candidates:
        assert set(res.candidates) == set(candidates)


def test_initials_of_cyrillic_names() -> None:
    roster = Roster([PlayerRef("Том Хэнкс"), PlayerRef("Мэрил Стрип")], lang="ru")
    assert (roster.resolve("ТХ").name, roster.resolve("ТХ").method) == ("Том Хэнкс", "initials")
    assert roster.resolve("МС").name == "Мэрил Стрип"


@pytest.mark.parametrize("text,name,method,matched,rest,candidates", BANDS_CASES)
def test_partial_names(bands: Roster, text: str, name: str | None, method: str, matched: str, rest: str,
                       candidates: tuple[str, ...]) -> None:
    check(bands, text, name, method, matched, rest, candidates)


def test_shared_surname_is_ambiguous() -> None:
    roster = Roster([PlayerRef("John Smith"), PlayerRef("Jane Smith"), PlayerRef("Ann Lee")])
    res = roster.resolve("Smith")
    assert (res.method, res.candidates) == ("ambiguous", ("John Smith", "Jane Smith"))
    assert roster.resolve("Jane Smith").name == "Jane Smith"


# ---------------------------------------------------------------------------------------------------------
# Errors and messages


def test_ambiguous_prefix_message(en: Roster) -> None:
    error = en.resolve("Jo").error()
    assert isinstance(error, AmbiguousName)
    assert str(error) == "'Jo' matches Joanna and Joe"
    assert error.candidates == ("Joanna", "Joe")


def test_unknown_suggests_closest(en: Roster) -> None:
    res = en.resolve("Bobby is lying")
    assert (res.method, res.candidates, res.matched, res.rest) == ("unknown", ("Bob",), "Bobby", "is lying")
    assert str(res.error()) == "'Bobby' is not a player; did you mean Bob?"


def test_unknown_with_several_suggestions_says_did_you_mean() -> None:
    roster = Roster([PlayerRef("Mark"), PlayerRef("Marta"), PlayerRef("Zoe")])
    res = roster.resolve("Marc")
    assert res.candidates == ("Mark", "Marta")                         # best first (75, then 66.7)
    error = res.error()
    assert isinstance(error, UnknownName) and isinstance(error, AmbiguousName)
    assert str(error) == "'Marc' is not a player; did you mean Mark or Marta?"


def test_unknown_without_suggestions(ru: Roster) -> None:
    res = ru.resolve("Сталин мафия")
    assert (res.method, res.candidates, res.name) == ("unknown", (), None)
    assert str(res.error()) == "'Сталин' matches no player"


def test_ok_resolution_has_no_error(ru: Roster) -> None:
    res = ru.resolve("Тома Хэнкса")
    assert res.ok and res.error() is None


@pytest.mark.parametrize("text", ["", "   ", "!!!", "—"])
def test_no_words_is_unknown(en: Roster, text: str) -> None:
    res = en.resolve(text)
    assert (res.name, res.method, res.candidates, res.matched) == (None, "unknown", (), "")
    assert isinstance(res.error(), AmbiguousName)


# ---------------------------------------------------------------------------------------------------------
# Fuzzy cutoff and margin


@pytest.mark.parametrize("players,text,cutoff,margin,name,method,candidates", [
    pytest.param(["Jonathan", "Jonathon"], "Jonathen", 80, 10, None, "ambiguous", ("Jonathan", "Jonathon"),
                 id="tie-refused"),
    pytest.param(["Jonathan", "Jonathon"], "Jonathen", 80, 0, None, "ambiguous", ("Jonathan", "Jonathon"),
                 id="tie-refused-even-without-margin"),
    pytest.param(["Marian", "Marion"], "Mariam", 80, 10, "Marian", "fuzzy", (), id="margin-16.7-accepted"),
    pytest.param(["Marian", "Marion"], "Mariam", 80, 20, None, "ambiguous", ("Marian", "Marion"),
                 id="margin-16.7-refused-at-20"),
    pytest.param(["Bob", "Alice"], "Bobby", 80, 10, None, "unknown", ("Bob",), id="below-cutoff"),
    pytest.param(["Bob", "Alice"], "Bobby", 70, 10, "Bob", "fuzzy", (), id="lower-cutoff-accepts"),
])
def test_fuzzy_cutoff_and_margin(players: list[str], text: str, cutoff: float, margin: float,
                                 name: str | None, method: str, candidates: tuple[str, ...]) -> None:
    roster = Roster([PlayerRef(p) for p in players], fuzzy_cutoff=cutoff, fuzzy_margin=margin)
    res = roster.resolve(text)
    assert (res.name, res.method, res.candidates) == (name, method, candidates)
    assert res.score is not None


def test_prefix_that_is_a_typo_of_another_player_is_ambiguous() -> None:
    roster = Roster([PlayerRef("Danielle"), PlayerRef("Dan")])
    assert roster.resolve("Dani").candidates == ("Danielle", "Dan")
    assert roster.resolve("Danie").name == "Danielle"


# ---------------------------------------------------------------------------------------------------------
# The roster itself


@pytest.mark.parametrize("players,fragment", [
    pytest.param([PlayerRef("Alice"), PlayerRef("alice")], "'Alice' and 'alice'", id="case"),
    pytest.param([PlayerRef("Пётр"), PlayerRef("Петр")], "'Пётр' and 'Петр'", id="yo"),
    pytest.param([PlayerRef("Mr. Green"), PlayerRef("mr green")], "'Mr. Green' and 'mr green'",
                 id="punctuation"),
    pytest.param([PlayerRef("Alice"), PlayerRef("Bob", ("ALICE",))], "'ALICE' of Bob is the name",
                 id="alias-name"),
    pytest.param([PlayerRef("Alice", ("Al",)), PlayerRef("Alan", ("al",))], "'al' of Alan is an alias",
                 id="alias-alias"),
    pytest.param([PlayerRef("???")], "'???' has no letters", id="empty-name"),
])
def test_clashing_roster_raises(players: list[PlayerRef], fragment: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Roster(players)
    assert fragment in str(raised.value)


def test_alias_equal_to_own_name_is_fine() -> None:
    roster = Roster([PlayerRef("Alice", ("alice", "Ally"))])
    assert roster.resolve("Ally").method == "alias"
    assert roster.resolve("ALICE").method == "exact"


@pytest.mark.parametrize("roster_name", ["ru", "en", "bands"])
def test_every_name_resolves_to_itself_exactly(roster_name: str, request: pytest.FixtureRequest) -> None:
    roster: Roster = request.getfixturevalue(roster_name)
    assert roster.names == tuple(p.name for p in {"ru": RU_PLAYERS, "en": EN_PLAYERS,
                                                  "bands": BANDS_PLAYERS}[roster_name])
    for name in roster.names:
        res = roster.resolve(name)
        assert (res.name, res.method, res.matched, res.rest) == (name, "exact", name, "")


def test_explain(ru: Roster, en: Roster) -> None:
    assert ru.explain("Тома Хэнкса, он мафия") == "'Тома Хэнкса' → Том Хэнкс (inflection); rest 'он мафия'"
    assert en.explain("Aliec") == "'Aliec' → Alice (fuzzy, score 100)"   # a swap of two letters is one slip
    assert en.explain("Jo") == "ambiguous: 'Jo' matches Joanna and Joe"
    assert en.explain("Bobby") == "unknown: 'Bobby' is not a player; did you mean Bob? (best score 75)"


# ---------------------------------------------------------------------------------------------------------
# Properties

ROSTERS = {"ru": RU_PLAYERS, "en": EN_PLAYERS, "bands": BANDS_PLAYERS}
METHODS = {*STAGES, "ambiguous", "unknown"}


@pytest.mark.parametrize("roster_name", sorted(ROSTERS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60) | st.builds(
    lambda a, b, c: f"{a}{b}{c}", st.text(max_size=5), st.sampled_from(
        [p.name for players in ROSTERS.values() for p in players] + ["Тома Хэнкса", "Jo", "Петрова"]),
    st.text(max_size=10)))
def test_resolve_never_raises(roster_name: str, text: str, request: pytest.FixtureRequest) -> None:
    roster: Roster = request.getfixturevalue(roster_name)
    res = roster.resolve(text)
    assert res.method in METHODS
    if res.ok:
        assert res.name in roster.names and res.candidates == ()
        assert res.matched and res.matched in unicodedata.normalize("NFC", text)
    elif res.method == "ambiguous":
        assert len(res.candidates) >= 2 and set(res.candidates) <= set(roster.names)
    else:
        assert len(res.candidates) <= 3 and set(res.candidates) <= set(roster.names)
    roster.explain(text)


LETTERS = "abcdeghiklmnoprstuvwxyzабвгдеёжзиклмнопрстуфхцчшщыэюя"
word = st.text(alphabet=LETTERS, min_size=1, max_size=8)
player_name = st.lists(word, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(player_name, min_size=1, max_size=8, unique_by=lambda n: tuple(tokens(n))),
       st.sampled_from(["en", "ru"]))
def test_random_roster_names_resolve_to_themselves(names: list[str], lang: str) -> None:
    roster = Roster([PlayerRef(n) for n in names], lang=lang)
    for name in roster.names:
        for text, rest in ((name, ""), (f"{name}, он мафия", "он мафия"), (name.upper(), "")):
            res = roster.resolve(text)
            assert (res.name, res.method, res.rest) == (name, "exact", rest), roster.explain(text)
