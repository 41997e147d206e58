"""Which player a player meant: the name typed at the start of a vote, resolved to a roster name.

    roster = Roster([PlayerRef("Том Хэнкс"), PlayerRef("Анна Петрова")], lang="ru")
    res = roster.resolve("Тома Хэнкса, он мафия")
    # res.name == "Том Хэнкс", res.method == "inflection"
    # res.matched == "Тома Хэнкса", res.rest == "он мафия"
    if not res.ok:
        raise res.error()          # AmbiguousName: "'Петрова' matches Пётр Петров and Анна Петрова"

The resolution chain, tried in this order; the first stage that finds anything decides:

1. exact       the folded full name (case and ё/е folded):        "том хэнкс", "ALICE"
2. alias       a host-declared alias, folded:                      "Хэнк" → Том Хэнкс
3. inflection  a Russian case form of the full name or an alias:   "Тома Хэнкса", "Анджелину Джоли"
4. partial     some words of a multi-word name, forms included:    "Хэнкса" → Том Хэнкс,
                                                                   "Alice" → Alice Cooper
5. prefix      the start (≥ 2 characters) of a name or alias word: "Анджел" → Анджелина Джоли
6. shapes      how players shorten a handle (forumbot/text/shapes.py), in this order: initials "LUV" →
               Lil Uzi Vert, a piece inside "Kitty" → DeathRowKitty, the handle less its digits at the
               start of the word "darkshadownumbers" → Darkshadow64540, letters in order "FLP" → fatlikepig
7. fuzzy       a typo (rapidfuzz ratio; one slip, a swap of two neighbouring letters or, from 5 letters, a
               key next to the right one on a QWERTY/ЙЦУКЕН keyboard, costs nothing; a long handle's first
               4-7 letters are choices too), accepted only when the best player scores
               ≥ `fuzzy_cutoff` and leads every other player by ≥ `fuzzy_margin`: "Aliec" → Alice,
               "Хэнкз" → Том Хэнкс, "Drackd" → Drakced, "Aaron" → aronagrundy
8. taught      where fuzzy finds no one player: a nickname the game's thread uses for one player and the
               host has not confirmed (forumbot/text/nicknames.py; Roster.teach), read as a "check"

A leading `u/`, `/u/` or `@` (Reddit and forum mentions) is skipped: "u/bob" is "bob".

Stretched names: when the text as typed names nobody (or only a fuzzy match), it is read again with every
run of three or more of one letter squeezed to one ("MAAAAARLOOOOO" → "MARLO", «Мааарло»), then without a
sung lead-in of one repeated syllable before a whole name ("lalalaMARLO" → "MARLO"); a stage that is not
fuzzy then decides. Two players still fitting is ambiguous, as always.

Within a stage the longest leading run of words is tried first, so the words after the name are left in
`Resolution.rest` ("Alice because she lied" → Alice, rest "because she lied"). Stages 1–3 all name a
whole player and are tried together, longest run first: "Том Хэнкса" (a run of 2, inflection) beats a
player called just "Том" (a run of 1, exact), and an alias "Bob Jr" beats a player called "Bob".

When a stage finds several different players the answer is "ambiguous" with those players and the chain
stops: a name is never guessed (so "Bob Dilan", with Bob Dylan and Bob Marley playing, is ambiguous on
"Bob" rather than a fuzzy match on two words). Nothing found is "unknown", with up to three closest
roster names (rapidfuzz score ≥ SUGGEST_FLOOR), best first.

A name is a run of words (normalize.tokens) at the start of the text; punctuation inside a name is
ignored ("Mr. Green" = "mr green"), but a comma, semicolon, colon, !, ?, bracket or dash between two
words ends the run ("Alice, Bob" never names a player "Alice Bob").

Choices made here (see also the tests):

* Russian forms are generated for every name word written in Cyrillic, whatever the game's `lang`: a
  Cyrillic name in an English game is typed by people who decline it. Latin words are never declined,
  except that in a Russian game (`lang="ru"`) the apostrophe forms players write are accepted too
  ("Alice'у", "Bob'а", "Bob-а").
* Stages 1–5 are dictionary lookups: every form of every name is computed when the Roster is built.
  Forms come FROM the roster's nominative words: the pymorphy3 lexeme of the word's nominative singular
  parses (Name/Surn/Patr preferred, then animate nouns), singular forms of the same gender only, plus a
  small table of case endings for words the dictionary does not know (foreign names). pymorphy3 is not
  asked to analyse what players type: it guesses badly there ("хэнкса" is read as an abbreviation).
* A name is "female" when one of its words is a female first name in the dictionary (Анна, Анджелина);
  then a surname ending in a consonant does not decline (Анна Шмидт). Words ending in о, е, и, у, ю, э, ы
  never decline (Джоли, Киану, Монро). When unsure an extra form is generated: it is harmless, since two
  players sharing a form make the text "ambiguous", never a wrong guess.
* Пётр Петров and Анна Петрова: "Петрова" is his genitive/accusative AND her nominative, "Петрову" his
  dative AND her accusative, so the surname alone in those forms is ambiguous. "Петровой" is only hers,
  "Петровым"/"Петрове" only his; with the first name ("Петра Петрова", "Анну Петрову") it is never
  ambiguous. Both surnames come from one pymorphy lexeme, which is why forms are kept to one gender.
* A two-word name is also accepted surname first ("Петрова Анна", "Хэнкса Тома"), as an inflection.
* One leading preposition (против, за, о, …, against, vs) is skipped unless it is itself a name word:
  "против Хэнкса" and "о Томе Хэнксе" resolve like "Хэнкса" and "Томе Хэнксе".
* A unique prefix is refused (ambiguous) when the word is also a close typo of another player's word:
  with Мэрил Стрип and Мерилин Монро, "Мерил" is a prefix of Мерилин but a spelling of Мэрил.
* Fuzzy comparison also folds э→е and drops the joiners ' . - ("Хенкс" = "Хэнкс", "MrGreen" = "Mr. Green").
* A name has at most MAX_FORMS_PER_NAME full-name forms: past that, only the forms with every word in the
  same case, or one word declined and the others nominative, are kept.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rapidfuzz import fuzz, process

from forumbot.errors import AmbiguousName, ConfigError, UnknownName
from forumbot.model import PlayerRef
from forumbot.text.normalize import fold, tokens
from forumbot.text.shapes import Shapes

if TYPE_CHECKING:  # pragma: no cover
    import pymorphy3

__all__ = [
    "Resolution", "Roster", "UnknownName", "morph_analyzer", "word_forms", "word_gender",
    "MAX_FORMS_PER_NAME", "MIN_PREFIX", "SUGGEST_FLOOR", "LEADING_PREPOSITIONS",
]

MAX_FORMS_PER_NAME = 256        # cap on the full-name forms of one name (the product of its word forms)
MIN_PREFIX = 2                  # shortest accepted prefix/abbreviation
SUGGEST_FLOOR = 60.0            # an unknown name suggests roster names scoring at least this
MAX_SUGGESTIONS = 3

# Skipped when they start the text and are not a name word themselves ("против Хэнкса", "vote against Bob").
LEADING_PREPOSITIONS = frozenset({
    "против", "за", "на", "о", "об", "обо", "про", "к", "ко", "у", "с", "со", "от", "для", "по",
    "against", "vs", "versus", "for", "on",
})

# The same word pattern as forumbot.text.normalize (letters, digits and the joiners ' ’ . - inside a word);
# used on the raw text so that `matched` and `rest` keep the player's spelling.
_WORD = re.compile(r"[\w]+(?:['’.\-][\w]+)*")
_CYRILLIC = re.compile(r"[а-яё]")
_LOOSE = str.maketrans({"э": "е", "'": None, "’": None, ".": None, "-": None})
_BREAKS = frozenset(",;:!?()[]{}<>|\n—–")   # between two words, these end a name
_REST_LEAD = " \t\r\n,.;:!?…—–-)]}»\"'”’"

STAGES = ("exact", "alias", "inflection", "partial", "prefix", "initials", "inside", "stem", "letters", "fuzzy",
          "taught")
_MENTION = re.compile(r"\s*(?:/?u/|@)(?=\w)", re.IGNORECASE)
_STRETCHED = re.compile(r"([^\W\d_])\1{2,}", re.IGNORECASE)    # three or more of one letter
_SUNG = re.compile(r"\s*(?:/?u/|@)?([^\W\d_]{1,3}?)\1+(?=[^\W\d_]{3})", re.IGNORECASE)   # "lalala" before a name
LONG_HANDLE = 8                 # a one-word handle this long also offers its first 4-7 letters to fuzzy


# ---------------------------------------------------------------------------------------------------------
# The result


class Resolution(NamedTuple):
    """How the start of a text was read as a player name."""

    query: str                          # the text that was looked at
    name: str | None                    # the roster name, or None
    method: str                         # one of STAGES, "ambiguous" or "unknown"
    matched: str = ""                   # the leading part taken as the name, in the player's spelling
    rest: str = ""                      # what follows it
    candidates: tuple[str, ...] = ()    # ambiguous: the tied roster names; unknown: ≤ 3 closest, best first
    score: float | None = None          # the fuzzy score, where one was computed

    @property
    def ok(self) -> bool:
        return self.name is not None

    def error(self) -> AmbiguousName | None:
        """The error to report when no single player was found; None when `ok`.

        For "unknown", `matched` is the leading run of words that came closest to a roster name (the
        first word when nothing came close): that is what the message quotes.
        """
        if self.ok:
            return None
        quoted = self.matched or self.query
        if self.method == "ambiguous":
            return AmbiguousName(quoted, self.candidates)
        return UnknownName(quoted, self.candidates)


# ---------------------------------------------------------------------------------------------------------
# Russian forms of one nominative word


@functools.lru_cache(maxsize=1)
def morph_analyzer() -> pymorphy3.MorphAnalyzer:
    """The pymorphy3 analyzer, loaded once, on first use (it takes a while)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


def _is_cyrillic(word: str) -> bool:
    return _CYRILLIC.search(word) is not None


_HUSHING = "жчшщц"
_VELAR_HUSHING = "гкхжчшщ"
_VOWEL_END = "оеиуюэыё"


def ending_forms(word: str, female: bool) -> list[tuple[str, str]]:
    """Case forms by the ending table, for words the dictionary does not know: [(case, form)]."""
    last, stem = word[-1], word[:-1]
    if last in _VOWEL_END:                              # Джоли, Киану, Монро, Депардье: indeclinable
        return []
    if last == "а":
        gent = stem + ("и" if stem[-1:] in _VELAR_HUSHING else "ы")
        ablt = stem + ("ей" if stem[-1:] in _HUSHING else "ой")
        return [("gent", gent), ("datv", stem + "е"), ("accs", stem + "у"), ("ablt", ablt),
                ("loct", stem + "е")]
    if last == "я":
        loct = stem + ("и" if stem.endswith("и") else "е")
        return [("gent", stem + "и"), ("datv", loct), ("accs", stem + "ю"), ("ablt", stem + "ей"),
                ("loct", loct)]
    if female:                                          # Мэри Шмидт, Нинель: a female consonant word
        return [("gent", stem + "и"), ("ablt", stem + "ью")] if last == "ь" else []
    if last in "йь":
        out = [("gent", stem + "я"), ("datv", stem + "ю"), ("ablt", stem + "ем"), ("loct", stem + "е")]
        if word.endswith("ий"):
            out.append(("loct", stem + "и"))
        if last == "ь":
            out.append(("gent", stem + "и"))             # Нинель, when the gender is not known
        return out
    if not last.isalpha():
        return []
    ablt = word + ("ем" if last in _HUSHING else "ом")
    if word.endswith(("ов", "ев", "ёв", "ин", "ын")):
        ablt = word + "ым"
    return [("gent", word + "а"), ("datv", word + "у"), ("accs", word + "а"), ("ablt", ablt),
            ("loct", word + "е")]


def _nominative_parses(word: str) -> list[Any]:
    """pymorphy3 parses that read `word` as a nominative singular noun/adjective in its own gender."""
    out = []
    for parse in morph_analyzer().parse(word):
        tag = parse.tag
        if tag.POS not in ("NOUN", "ADJF") or tag.case != "nomn" or tag.number != "sing":
            continue
        # The word must be the nominative of its lexeme in the parse's gender: "петрова" is the female
        # nominative of Петров; "джоли" read as the plural of Джоля is not.
        if any(fold(form.word) == word and form.tag.case == "nomn" and form.tag.number == "sing"
               and _same_gender(form.tag.gender, tag.gender) for form in parse.lexeme):
            out.append(parse)
    return out


def _same_gender(form_gender: Any, parse_gender: Any) -> bool:
    return form_gender is None or parse_gender is None or str(form_gender) == str(parse_gender)


def from_dictionary(parse: Any) -> bool:
    from pymorphy3.units import DictionaryAnalyzer

    return isinstance(parse.methods_stack[0][0], DictionaryAnalyzer)


@functools.lru_cache(maxsize=8192)
def word_gender(word: str) -> str | None:
    """ "femn"/"masc" when the folded Cyrillic `word` is a first name of that gender in the dictionary."""
    genders = {str(p.tag.gender) for p in _nominative_parses(word) if "Name" in p.tag and from_dictionary(p)}
    return genders.pop() if len(genders) == 1 and genders & {"femn", "masc"} else None


@functools.lru_cache(maxsize=8192)
def word_forms(word: str, gender: str | None = None) -> tuple[tuple[str, str], ...]:
    """The singular case forms of one folded Cyrillic nominative word: ((case, form), ...), itself first.

    `gender` is the gender of the whole name when known ("femn" for Анна Шмидт), which picks the
    declension of surnames that have both ("шмидт": masc declines, femn does not).
    """
    parses = _nominative_parses(word)
    for grammemes in ({"Name", "Surn", "Patr"}, {"anim"}):
        preferred = [p for p in parses if grammemes & set(p.tag.grammemes)]
        if preferred:
            parses = preferred
            break
    if gender is not None:
        gendered = [p for p in parses if p.tag.gender == gender or "ms-f" in p.tag]
        if gendered or gender == "femn":
            parses = gendered
    forms: dict[str, str] = {word: "nomn"}
    for parse in parses:
        for form in parse.lexeme:
            if form.tag.number == "sing" and _same_gender(form.tag.gender, parse.tag.gender):
                forms.setdefault(fold(form.word), str(form.tag.case))
    if not any(from_dictionary(p) for p in parses):      # a foreign or unknown word: the ending table
        for case, form in ending_forms(word, female=gender == "femn"):
            forms.setdefault(form, case)
    return tuple((case, form) for form, case in forms.items())


_LATIN_ENDINGS = ("а", "у", "ом", "е", "ой", "ы", "и", "ю", "ем", "ей")


def _latin_forms(word: str) -> tuple[tuple[str, str], ...]:
    """In a Russian game, "alice'у", "bob'а", "bob-а": a Latin name with a Cyrillic case ending."""
    out = [("nomn", word)]
    for joiner in ("'", "’", "-"):
        out.extend(("other", word + joiner + ending) for ending in _LATIN_ENDINGS)
    return tuple(out)


def _combine(per_word: Sequence[Sequence[tuple[str, str]]], cap: int = MAX_FORMS_PER_NAME) -> set[str]:
    """The forms of a run of words: every combination of the word forms, or past `cap` only the aligned
    ones (every word in one case, or one word declined and the others nominative)."""
    total = 1
    for forms in per_word:
        total *= len(forms)
    if total <= cap:
        words = [[form for _, form in forms] for forms in per_word]
        return {" ".join(combo) for combo in itertools.product(*words)}
    return _aligned(per_word)


def _aligned(per_word: Sequence[Sequence[tuple[str, str]]]) -> set[str]:
    nominative = [forms[0][1] for forms in per_word]
    out = {" ".join(nominative)}
    for case in {case for forms in per_word for case, _ in forms}:
        choices = [[f for c, f in forms if c == case] or [forms[0][1]] for forms in per_word]
        out.update(" ".join(combo) for combo in itertools.product(*choices))
    for i, forms in enumerate(per_word):
        for _, form in forms:
            out.add(" ".join(nominative[:i] + [form] + nominative[i + 1:]))
    return out


# ---------------------------------------------------------------------------------------------------------
# The roster


_Word = tuple[str, int, int]     # a word of the text: (folded key as in normalize.tokens, start, end)


class Roster:
    """The players of a game and every way of writing their names. Build once per game; resolve often."""

    def __init__(self, players: Iterable[PlayerRef], *, lang: str = "en",
                 fuzzy_cutoff: float = 80.0, fuzzy_margin: float = 10.0) -> None:
        self.players: tuple[PlayerRef, ...] = tuple(players)
        self.names: tuple[str, ...] = tuple(p.name for p in self.players)
        self.lang = lang
        if not 0.0 <= fuzzy_cutoff <= 100.0 or fuzzy_margin < 0.0:
            raise ConfigError(f"fuzzy_cutoff must be within 0..100 and fuzzy_margin ≥ 0, "
                              f"not {fuzzy_cutoff} and {fuzzy_margin}")
        self.fuzzy_cutoff = float(fuzzy_cutoff)
        self.fuzzy_margin = float(fuzzy_margin)

        # Lookup tables: a folded run of words → the indexes (in roster order) of the players it names.
        self._exact: dict[str, frozenset[int]] = {}
        self._alias: dict[str, frozenset[int]] = {}
        self._inflected: dict[str, frozenset[int]] = {}
        self._partial: dict[str, frozenset[int]] = {}
        self._prefix: dict[str, frozenset[int]] = {}
        self._fuzzy: dict[int, tuple[list[str], list[tuple[int, ...]]]] = {}   # words → (choices, players)
        self._name_words: set[str] = set()          # every single word any table knows (preposition check)
        self._taught: dict[str, int] = {}           # a thread's nickname not confirmed → the player's index

        spellings = self._check(self.players)
        fuzzy: dict[int, dict[str, set[int]]] = {}
        for index, words_of in enumerate(spellings):
            for number, words in enumerate(words_of):
                self._add_spelling(index, words, is_alias=number > 0, fuzzy=fuzzy)
        for n, choices in fuzzy.items():
            keys = list(choices)
            self._fuzzy[n] = (keys, [tuple(sorted(choices[k])) for k in keys])
        self.max_words = max((len(w) for words_of in spellings for w in words_of), default=1)
        self._shapes = Shapes((index, spelling) for index, player in enumerate(self.players)
                              for spelling in (player.name, *player.aliases))
        # Stages 1-3 as one table, each key with the method of the first stage that has it.
        self._whole: dict[str, tuple[str, frozenset[int]]] = {}
        for method, table in (("exact", self._exact), ("alias", self._alias), ("inflection", self._inflected)):
            for key, indexes in table.items():
                self._whole.setdefault(key, (method, indexes))

    # -- building -------------------------------------------------------------------------------------------

    @staticmethod
    def _check(players: Sequence[PlayerRef]) -> list[list[tuple[str, ...]]]:
        """Each player's folded words: name first, then aliases. Raises ConfigError on a clash."""
        owner: dict[tuple[str, ...], tuple[int, str]] = {}
        out: list[list[tuple[str, ...]]] = []
        for index, player in enumerate(players):
            name_words = tuple(tokens(player.name))
            if not name_words:
                raise ConfigError(f"player name {player.name!r} has no letters or digits")
            if name_words in owner:
                other = players[owner[name_words][0]].name
                raise ConfigError(f"duplicate player name: {other!r} and {player.name!r} are the same name "
                                  f"once case and ё/е are folded", fix="give each player a different name")
            owner[name_words] = (index, player.name)
            out.append([name_words])
        for index, player in enumerate(players):
            for alias in player.aliases:
                alias_words = tuple(tokens(alias))
                if not alias_words:
                    raise ConfigError(f"alias {alias!r} of {player.name} has no letters or digits")
                if alias_words in out[index]:
                    continue                                    # the player's own name, or a repeat
                if alias_words in owner and owner[alias_words][0] != index:
                    other_index, other = owner[alias_words]
                    what = "the name" if (alias_words == out[other_index][0]) else "an alias"
                    raise ConfigError(f"alias {alias!r} of {player.name} is {what} of another player, "
                                      f"{players[other_index].name} ({other!r})",
                                      fix="remove the alias or make it unique")
                owner[alias_words] = (index, alias)
                out[index].append(alias_words)
        return out

    def _word_forms(self, word: str, gender: str | None) -> tuple[tuple[str, str], ...]:
        if _is_cyrillic(word):
            return word_forms(word, gender)
        if self.lang == "ru" and word.isascii() and word.isalpha():
            return _latin_forms(word)
        return (("nomn", word),)

    def _add_spelling(self, index: int, words: tuple[str, ...], *, is_alias: bool,
                      fuzzy: dict[int, dict[str, set[int]]]) -> None:
        """Enter one name or alias of player `index` in every table."""
        n = len(words)
        joined = " ".join(words)
        _put(self._alias if is_alias else self._exact, joined, index)

        cyrillic = any(_is_cyrillic(w) for w in words)
        gender = None
        if cyrillic:
            genders = {g for g in (word_gender(w) for w in words if _is_cyrillic(w)) if g}
            gender = genders.pop() if len(genders) == 1 else None
        per_word = [self._word_forms(w, gender) for w in words]

        # 3. inflection: every combination of the word forms (and surname-first for two words)
        full_forms = _combine(per_word)
        if cyrillic and n == 2:
            full_forms |= _combine(per_word[::-1])
        for form in full_forms:
            _put(self._inflected, form, index)

        # 4. partial: every shorter run of consecutive words, forms included
        for length in range(1, n):
            for start in range(0, n - length + 1):
                for form in _combine(per_word[start:start + length]):
                    _put(self._partial, form, index)

        # 5. prefix: the starts of each word, at least MIN_PREFIX characters
        for word in words:
            for end in range(MIN_PREFIX, len(word) + 1):
                _put(self._prefix, word[:end], index)

        # 6. fuzzy choices, grouped by word count: the name, its aligned forms, each word with its forms,
        #    and the name with its joiners and spaces squashed ("mrgreen")
        for form in _aligned(per_word) if n > 1 else ():
            fuzzy.setdefault(n, {}).setdefault(form.translate(_LOOSE), set()).add(index)
        fuzzy.setdefault(n, {}).setdefault(joined.translate(_LOOSE), set()).add(index)
        for forms in per_word:
            for _, form in forms:
                fuzzy.setdefault(1, {}).setdefault(form.translate(_LOOSE), set()).add(index)
        squashed = joined.replace(" ", "").translate(_LOOSE)
        if n > 1:
            fuzzy.setdefault(1, {}).setdefault(squashed, set()).add(index)
        if len(squashed) >= LONG_HANDLE:
            for end in range(4, 8):
                fuzzy.setdefault(1, {}).setdefault(squashed[:end], set()).add(index)

        for forms in per_word:
            self._name_words.update(form for _, form in forms)
        self._name_words.update(joined.split(" "))

    # -- resolving ------------------------------------------------------------------------------------------

    def resolve(self, text: str) -> Resolution:
        """The player named at the START of `text`; words after the name are returned in `rest`.

        Never raises: whatever the text, the answer is a Resolution."""
        found = self._resolve(text)
        if found.method not in ("fuzzy", "unknown"):
            return found
        squeezed = _STRETCHED.sub(r"\1", text)
        if squeezed != text:                                   # "MAAAAARLOOOOO"
            again = self._resolve(squeezed)
            if again.ok and again.method != "fuzzy":
                return again
            text = squeezed
        sung = _SUNG.match(text)
        if sung is not None:                                   # "lalalaMARLO"
            again = self._resolve(text[sung.end():])
            if again.ok and again.method in ("exact", "alias", "inflection", "partial"):
                return again
        return found

    def _resolve(self, text: str) -> Resolution:
        text = unicodedata.normalize("NFC", text)
        mention = _MENTION.match(text)
        if mention is not None:
            text = text[mention.end():]
        words = self._leading_words(text)
        if not words:
            return Resolution(query=text.strip(), name=None, method="unknown", rest=text.strip())
        return (self._whole_name(text, words)             # 1. exact, 2. alias, 3. inflection
                or self._partial_name(text, words)        # 4. partial
                or self._prefix_name(text, words)         # 5. prefix
                or self._shape_name(text, words)          # 6. initials, inside, stem, letters
                or self._fuzzy_or_taught(text, words))    # 7. fuzzy, 8. a nickname the thread uses

    def _fuzzy_or_taught(self, text: str, words: list[_Word]) -> Resolution:
        found = self._fuzzy_name(text, words)
        return found if found.ok else self._taught_name(text, words) or found

    def teach(self, taught: dict[str, str]) -> None:
        """Nicknames the game's thread uses and the host has not confirmed: folded word → player name. Read
        only where no other stage finds one player; replaces what was taught before."""
        self._taught = {word: self.names.index(name) for word, name in taught.items() if name in self.names}

    def suggest(self, word: str) -> tuple[str, ...]:
        """The one player a word that names nobody whole comes close to (a fuzzy match, or the only "did you
        mean X?"), or ()."""
        found = self._resolve(word)
        if found.method == "fuzzy" and found.name is not None:
            return (found.name,)
        return found.candidates[:1] if found.method == "unknown" and len(found.candidates) == 1 else ()

    def names_whole(self) -> frozenset[str]:
        """Every folded word or run that names a player whole (names, aliases, Russian forms, name words)."""
        return frozenset(self._whole) | frozenset(self._partial)

    def _taught_name(self, text: str, words: list[_Word]) -> Resolution | None:
        index = self._taught.get(words[0][0]) if self._taught else None
        return None if index is None else self._found(text, words, 1, "taught", (index,))

    def _leading_words(self, text: str) -> list[_Word]:
        """The first words of `text`, folded, at most as many as the longest name; one leading
        preposition that is not a name word is skipped."""
        spans: list[tuple[int, int]] = []
        for match in itertools.islice(_WORD.finditer(text), self.max_words + 1):
            if spans and not _BREAKS.isdisjoint(text[spans[-1][1]:match.start()]):
                break                                       # "Alice, Bob": a comma ends a name
            spans.append(match.span())
        words = [(key, start, end) for start, end in spans for key in tokens(text[start:end])]
        if len(words) > 1 and words[0][0] in LEADING_PREPOSITIONS and words[0][0] not in self._name_words:
            del words[0]
        return words[:self.max_words]

    def _found(self, text: str, words: list[_Word], n: int, method: str, players: Iterable[int],
               score: float | None = None) -> Resolution:
        """The Resolution for the first `n` words naming `players`: one player, or ambiguous."""
        chosen = sorted(players)
        start, end = words[0][1], words[n - 1][2]
        matched, rest = text[start:end], text[end:].lstrip(_REST_LEAD).rstrip()
        if len(chosen) == 1:
            return Resolution(text.strip(), self.names[chosen[0]], method, matched, rest, (), score)
        return Resolution(text.strip(), None, "ambiguous", matched, rest,
                          tuple(self.names[i] for i in chosen), score)

    def _whole_name(self, text: str, words: list[_Word]) -> Resolution | None:
        # The longest run first; at one length exact, then alias, then inflected forms.
        for n in range(len(words), 0, -1):
            found = self._whole.get(" ".join(key for key, _, _ in words[:n]))
            if found is not None:
                return self._found(text, words, n, *found)
        return None

    def _partial_name(self, text: str, words: list[_Word]) -> Resolution | None:
        for n in range(min(len(words), self.max_words - 1), 0, -1):
            players = self._partial.get(" ".join(key for key, _, _ in words[:n]))
            if players:
                return self._found(text, words, n, "partial", players)
        return None

    def _prefix_name(self, text: str, words: list[_Word]) -> Resolution | None:
        word = words[0][0]
        players = self._prefix.get(word) if len(word) >= MIN_PREFIX else None
        if not players:
            return None
        if len(players) == 1:
            # A unique prefix that is also a near spelling of another player's word is not taken:
            # "Мерил" starts Мерилин but spells Мэрил.
            scores = self._scores(word, 1, self.fuzzy_cutoff)
            players = players | {i for i, s in scores.items() if s >= self.fuzzy_cutoff}
        return self._found(text, words, 1, "prefix", players)

    def _shape_name(self, text: str, words: list[_Word]) -> Resolution | None:
        query = words[0][0].translate(_LOOSE)
        for stage, players in self._shapes.stages(query):
            if players:
                return self._found(text, words, 1, stage, players)
        return None

    def _scores(self, query: str, n: int, floor: float, swaps: bool = False) -> dict[int, float]:
        """The best fuzzy score of each player against the `n`-word choices, for those ≥ floor."""
        group = self._fuzzy.get(n)
        if group is None:
            return {}
        choices, owners = group
        best: dict[int, float] = {}
        query = query.translate(_LOOSE)
        variants = _slips(query) if swaps and n == 1 else []
        for variant in (query, *variants):
            for _, score, at in process.extract(variant, choices, scorer=fuzz.ratio,
                                                processor=None, limit=None, score_cutoff=floor):
                for index in owners[at]:
                    if score > best.get(index, -1.0):
                        best[index] = score
        return best

    def _fuzzy_name(self, text: str, words: list[_Word]) -> Resolution:
        """Stage 6, longest run first; when it finds nothing, "unknown" with the closest names."""
        floor = max(0.0, min(SUGGEST_FLOOR, self.fuzzy_cutoff - self.fuzzy_margin))
        scored: list[tuple[int, dict[int, float]]] = []      # (word count, player → best score)
        for n in range(len(words), 0, -1):
            query = " ".join(w[0] for w in words[:n])
            scored.append((n, self._scores(query, n, floor)))     # suggestions: the plain scores
            scores = self._scores(query, n, floor, swaps=True)
            top = max(scores.values(), default=0.0)
            if top < self.fuzzy_cutoff:
                continue
            # Accepted only with a lead of fuzzy_margin over every other player; else ambiguous.
            # A tie is never accepted, whatever the margin.
            close = [i for i, s in scores.items() if s >= top or s > top - self.fuzzy_margin]
            return self._found(text, words, n, "fuzzy", close, score=round(top, 1))
        return self._unknown(text, words, scored)

    def _unknown(self, text: str, words: list[_Word],
                 scored: list[tuple[int, dict[int, float]]]) -> Resolution:
        best: dict[int, tuple[float, int]] = {}          # player → (score, word count it was reached at)
        for n, scores in scored:
            for index, score in scores.items():
                if score >= SUGGEST_FLOOR and score > best.get(index, (-1.0, 0))[0]:
                    best[index] = (score, n)
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:MAX_SUGGESTIONS]
        n = ranked[0][1][1] if ranked else 1
        end = words[n - 1][2]
        return Resolution(query=text.strip(), name=None, method="unknown",
                          matched=text[words[0][1]:end], rest=text[end:].lstrip(_REST_LEAD).rstrip(),
                          candidates=tuple(self.names[i] for i, _ in ranked),
                          score=round(ranked[0][1][0], 1) if ranked else None)

    # -- reporting ------------------------------------------------------------------------------------------

    def explain(self, text: str) -> str:
        """One line saying how `text` was resolved, for `forumbot parse`."""
        return self.describe(self.resolve(text))

    @staticmethod
    def describe(res: Resolution) -> str:
        """One line saying how a name was resolved."""
        if res.ok:
            how = res.method if res.score is None else f"{res.method}, score {res.score:g}"
            line = f"{res.matched!r} → {res.name} ({how})"
            return line + (f"; rest {res.rest!r}" if res.rest else "")
        error = res.error()
        return f"{res.method}: {error}" + (f" (best score {res.score:g})" if res.score is not None else "")

    def forms(self, name: str) -> frozenset[str]:
        """Every folded spelling that names player `name` as a whole (name, aliases and their forms),
        including spellings shared with another player. Raises KeyError for a name not in the roster."""
        index = self.names.index(name) if name in self.names else None
        if index is None:
            raise KeyError(name)
        return frozenset(key for table in (self._exact, self._alias, self._inflected)
                         for key, players in table.items() if index in players)

    def __len__(self) -> int:
        return len(self.players)

    def __repr__(self) -> str:
        return f"Roster({list(self.names)!r}, lang={self.lang!r})"


_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "йцукенгшщзхъ", "фывапролджэ", "ячсмитьбю")


def _key_neighbours() -> dict[str, str]:
    """The keys next to each letter on a QWERTY and a ЙЦУКЕН keyboard (rows are staggered)."""
    where = {ch: (r, c) for r, row in enumerate(_KEY_ROWS) for c, ch in enumerate(row)}
    out: dict[str, str] = {}
    for ch, (r, c) in where.items():
        near = [(r, c - 1), (r, c + 1)]
        if r % 3:
            near += [(r - 1, c), (r - 1, c + 1)]
        if r % 3 != 2:
            near += [(r + 1, c - 1), (r + 1, c)]
        out[ch] = "".join(_KEY_ROWS[i][j] for i, j in near if 0 <= j < len(_KEY_ROWS[i]))
    return out


_NEIGHBOURS = _key_neighbours()


def _slips(query: str) -> list[str]:
    """What `query` was meant to be if one slip made it: two neighbouring letters swapped ("Drackd" for
    Drakced; 4 letters or more) or one key hit next to the right one ("Kazw" for Kaze is too short; 5 letters
    or more: "Pistschion" for pistachi0n)."""
    if not 4 <= len(query) <= 24:
        return []
    out = [query[:i] + query[i + 1] + query[i] + query[i + 2:] for i in range(len(query) - 1)]
    if len(query) >= 5:
        out += [query[:i] + key + query[i + 1:] for i, ch in enumerate(query) for key in _NEIGHBOURS.get(ch, "")]
    return out


def _put(table: dict[str, frozenset[int]], key: str, index: int) -> None:
    players = table.get(key)
    if players is None:
        table[key] = frozenset((index,))
    elif index not in players:
        table[key] = players | {index}
