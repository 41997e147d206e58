"""Player names in the bot's Russian posts, as a host writes them: declined ("Покушение на Брэда Питта",
"ходил к Киану Ривзу") and with words in the player's grammatical gender ("погиб"/"погибла").

Forms come from the same tables as name resolution (names.word_forms: the pymorphy3 lexeme, or the
ending table for foreign names). A word with no form for the case stays as it is (Киану, Джоли, a
woman's surname on a consonant: Мэрил Стрип); Latin names never change. The gender is the roster's
(`gender = "f"`) or else guessed: a first name the dictionary knows (Анна, Брэд), else a Name parse of
pymorphy3, else the ending of the first word (-а/-я: female). A name in Latin letters (Anna, Bob): its
first word in the short lists below, else its ending (-a, -ia, -ya: female; Nikita and Ilya are not).
"""

from __future__ import annotations

import functools
import re

from forumbot.text.names import ending_forms, from_dictionary, morph_analyzer, word_gender
from forumbot.text.normalize import fold

CASES = ("nomn", "gent", "datv", "accs", "ablt", "loct")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)
# First names in Latin letters whose ending misleads: men's names on -a/-ya, women's names on another letter.
LATIN_MEN = frozenset({
    "nikita", "ilya", "ilia", "sasha", "misha", "grisha", "pasha", "dima", "kolya", "vanya", "petya", "tolya",
    "yura", "lyosha", "alyosha", "sava", "foma", "luca", "luka", "andrea", "joshua", "ezra", "jonah", "elia",
    "mustafa", "musa", "isa", "kostya", "seryozha", "zhenya", "vova", "borya", "gosha", "toma", "vasya",
    "fedya", "lyova", "slava", "styopa", "senya", "yasha", "zhora", "vitya", "mitya", "roma", "tyoma", "kuzma",
    "danila", "gavrila", "nikola", "jamal"})
LATIN_WOMEN = frozenset({
    "kate", "alice", "jane", "anne", "ann", "ruth", "helen", "ellen", "karen", "grace", "rose", "claire",
    "sophie", "marie", "mary", "sarah", "elizabeth", "catherine", "katherine", "emily", "lucy", "amy", "judy",
    "nancy", "esther", "eve", "ingrid", "astrid", "carmen", "rachel", "miriam", "agnes", "isabel", "margaret",
    "meryl", "scarlett", "beth", "jennifer", "kathleen", "lily", "molly", "holly", "sally", "abigail", "hannah",
    "leah", "deborah", "chloe", "zoe", "natalie", "madeleine", "irene", "nicole", "michelle", "olive",
    "harriet", "ester", "lyubov", "nadezhda", "ksenia", "kseniya", "dasha", "masha", "natasha"})


@functools.lru_cache(maxsize=4096)
def guess_gender(name: str) -> str:
    """"f" or "m" for a name (its first Cyrillic word decides)."""
    words = [fold(w) for w in _WORD.findall(name) if _CYRILLIC.search(w)]
    for word in words:
        known = word_gender(word)
        if known:
            return "f" if known == "femn" else "m"
    for word in words[:1]:
        for parse in morph_analyzer().parse(word):
            if "Name" in parse.tag and str(parse.tag.gender) in ("femn", "masc"):
                return "f" if str(parse.tag.gender) == "femn" else "m"
        return "f" if word.endswith(("а", "я")) else "m"
    latin = [w.casefold() for w in _WORD.findall(name) if _LATIN.search(w)]
    return latin_gender(latin[0]) if latin else "m"


def latin_gender(word: str) -> str:
    """"f" or "m" for a first name in Latin letters (folded): the lists above, else its ending (-a: female)."""
    if word in LATIN_MEN:
        return "m"
    if word in LATIN_WOMEN:
        return "f"
    return "f" if word.endswith("a") and len(word) > 2 else "m"


def _capital(original: str, form: str) -> str:
    return form[:1].upper() + form[1:] if original[:1].isupper() else form


def _word_case(word: str, case: str, gender: str) -> str:
    """One Cyrillic word in a case: from the dictionary's lexeme of its name reading in that gender, else
    from the ending table (foreign names); unchanged when neither has the form."""
    folded = fold(word)
    grammar_gender = "femn" if gender == "f" else "masc"
    names = [p for p in morph_analyzer().parse(folded)
             if p.tag.POS == "NOUN" and p.tag.case == "nomn" and p.tag.number == "sing"
             and {"Name", "Surn", "Patr"} & set(p.tag.grammemes) and from_dictionary(p)
             and (str(p.tag.gender) == grammar_gender or "ms-f" in p.tag)]
    for parse in names:
        form = parse.inflect({case})
        if form is not None:
            return _capital(word, form.word)
    if names:
        return word
    endings = dict(reversed(ending_forms(folded, female=gender == "f")))   # the first form of each case
    if case == "accs" and "accs" not in endings and gender == "m":
        case = "gent"          # an animate masculine noun: the accusative is the genitive
    form = endings.get(case)
    return _capital(word, form) if form else word


@functools.lru_cache(maxsize=8192)
def decline(name: str, case: str, gender: str | None = None) -> str:
    """`name` in a Russian case (nomn, gent, datv, accs, ablt, loct); unchanged where it does not decline."""
    if case not in CASES or case == "nomn" or not _CYRILLIC.search(name):
        return name
    gender = gender or guess_gender(name)
    return _WORD.sub(lambda m: _word_case(m.group(0), case, gender) if _CYRILLIC.search(m.group(0))
                     else m.group(0), name)


def gendered(spec: str, gender: str) -> str:
    """"погиб/погибла" → the word for the gender ("m" first, "f" second)."""
    masc, _, fem = spec.partition("/")
    return fem if gender == "f" else masc


def counted(count: int, spec: str, lang: str = "en") -> str:
    """A number with the word that agrees with it: counted(3, "flag/flags") is "3 flags"."""
    return f"{count} {plural(count, spec, lang)}"


def plural(count: int, spec: str, lang: str) -> str:
    """The word for a number: "visitor/visitors" in English (one, other); "гость/гостя/гостей" in Russian
    (1, 21 …; 2-4, 22-24 …; the rest)."""
    forms = spec.split("/")
    if lang == "ru" and len(forms) >= 3:
        n = abs(count)
        if n % 10 == 1 and n % 100 != 11:
            return forms[0]
        return forms[1] if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else forms[2]
    return forms[0] if abs(count) == 1 else forms[-1]
