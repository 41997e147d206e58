"""Parse throughput: posts per second through cleaning, the grammar and name resolution.

Run:  .venv/bin/python bench/bench_parse.py [--all]
Target: at least 5,000 posts/s, Russian with inflected names.
Target: a pathological post of 100 KB parses in well under 100 ms and one of 1 MB in under 1 s, in
every grammar, dialect and reading mode (`--all` runs the whole matrix; by default the worst mode, natural).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from forumbot.model import PlayerRef
from forumbot.text.clean import clean
from forumbot.text.grammar import load_grammar
from forumbot.text.names import Roster, morph_analyzer
from forumbot.text.parse import PostParser

TYPICAL_MARKDOWN = (
    "&gt; **Alice** wrote: I think ##vote Bob is right, see [this](https://example.com/a_b) post.\n"
    "&gt; &gt; nested quote here\n\nI disagree with that. Bob has been *very* quiet and his __claim__ "
    "doesn't add up. Also >!I peeked!< and user_name_1 is clearly town, ~~maybe not~~.\n\n"
    "Let me think about `the code` for a bit... ^(small note) &amp; more.\n\n##vote Carol")
TYPICAL_BBCODE = (
    '[quote="Alice" post_id=12 time=1700000000]I think [b]##vote Bob[/b] is right, see '
    "[url=https://example.com/x]this[/url] post.[quote=Bob]nested[/quote][/quote]\nI disagree. Bob has "
    "been [i:3f2a1b]very[/i:3f2a1b] quiet. Also [spoiler]I peeked[/spoiler], [s]maybe not[/s].\n\n"
    "[code]the code[/code] [color=red]red[/color] &amp; more.\n\n[vote]Carol[/vote]")
ADVERSARIAL = {"unclosed [quote] x10k": "[quote]" * 10_000, "unclosed ** x25k": "**a " * 25_000,
               "'>!' x50k": ">!" * 50_000, "'^' x100k": "^" * 100_000, "lazy quote lines": "> a\nb\n" * 17_000}


def time_clean() -> None:
    for name, raw, dialect in [("markdown", TYPICAL_MARKDOWN, "markdown"), ("bbcode", TYPICAL_BBCODE, "bbcode")]:
        number = 5000
        start = time.perf_counter()
        for _ in range(number):
            clean(raw, dialect)
        print(f"clean typical {name} post ({len(raw)} chars): "
              f"{(time.perf_counter() - start) / number * 1e6:.1f} µs")
    for name, raw in ADVERSARIAL.items():
        start = time.perf_counter()
        clean(raw, "markdown")
        clean(raw, "bbcode")
        print(f"clean adversarial {name} ({len(raw) // 1000} KB, markdown + bbcode): "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")

RU_PLAYERS = ["Том Хэнкс", "Мэрил Стрип", "Анджелина Джоли", "Джонни Депп", "Киану Ривз", "Брэд Питт",
              "Мерилин Монро", "Николь Кидман", "Хью Джекман", "Одри Хепбёрн", "Леонардо Ди Каприо",
              "Скарлетт Йоханссон"]
RU_FORMS = ["Тома Хэнкса", "Хэнкса", "Мэрил Стрип", "Анджелину Джоли", "Джоли", "Джонни Деппа", "Деппа",
            "Киану Ривза", "Брэда Питта", "Питта", "Мерилин Монро", "Николь Кидман", "Хью Джекмана",
            "Одри Хепбёрн", "Леонардо Ди Каприо", "Ди Каприо", "Скарлетт Йоханссон", "Хенкса", "Джокера"]
RU_TEMPLATES = ["Голосую против {}", "Против {}", "Голос против {}, он мафия", "Окончательно против {}",
                "> Голосую против {}\n\nСогласен, но против {}", "Передумал. Голосую против {}"]
CHAT = ["Я думаю, что он не мирный, потому что вчера молчал.", "ННВ", "Снимаю голос",
        "**Важно**: давайте обсудим газету. Записка про Вора странная.", ">!спойлер!< а вообще против никого"]

EN_PLAYERS = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory",
              "Oscar"]


def posts_ru(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        if rng.random() < 0.75:
            template = rng.choice(RU_TEMPLATES)
            out.append(template.format(*(rng.choice(RU_FORMS) for _ in range(template.count("{}")))))
        else:
            out.append(rng.choice(CHAT))
    return out


def posts_en(count: int, seed: int = 2) -> list[str]:
    rng = random.Random(seed)
    forms = ["##vote {}", "**vote {}**", "Vote: {}", "[vote]{}[/vote]", "unvote", "no lynch",
             "I think {} is scum, {} is town.\n\n##vote {}"]
    out = []
    for _ in range(count):
        form = rng.choice(forms)
        out.append(form.format(*(rng.choice(EN_PLAYERS) for _ in range(form.count("{}")))))
    return out


def measure(parser: PostParser, posts: list[str], dialect: str, rounds: int = 5) -> tuple[float, int]:
    rates = []
    intents = 0
    for _ in range(rounds):
        start = time.perf_counter()
        intents = sum(len(parser.parse_text(text, dialect).intents) for text in posts)
        rates.append(len(posts) / (time.perf_counter() - start))
    return statistics.median(rates), intents


# Inputs that once took seconds (or minutes): many sentences, each the start of a command.
PATHOLOGICAL = {"infiltration 'a. '": "a. ", "mafia 'vote Zzz. '": "vote Zzz. ",
                "mafia '[b]vote Zzz, ' in bold": "[b]vote Zzz, ", "ru 'Против Ззз. '": "Против Ззз. "}


def time_pathological(every_mode: bool) -> None:
    parsers = {
        "mafia.en": PostParser(load_grammar("mafia", "en"), Roster([PlayerRef(n) for n in EN_PLAYERS])),
        "mafia.ru": PostParser(load_grammar("mafia", "ru"), Roster([PlayerRef(n) for n in RU_PLAYERS[:4]],
                                                                 lang="ru")),
        "infiltration.en": PostParser(load_grammar("infiltration", "en"),
                                      Roster([PlayerRef("Alice"), PlayerRef("Bob")])),
    }
    modes = ("commands", "bold", "natural") if every_mode else ("natural",)
    for size, target in ((100_000, 0.1), (1_000_000, 1.0)):
        worst = (0.0, "")
        for name, unit in PATHOLOGICAL.items():
            text = unit * (size // len(unit))
            for grammar, parser in parsers.items():
                for dialect in ("plain", "markdown", "bbcode", "html"):
                    for mode in modes:
                        start = time.perf_counter()
                        parser.parse_text(text, dialect, reading=mode)
                        took = time.perf_counter() - start
                        worst = max(worst, (took, f"{name} in {grammar}, {dialect}, {mode}"))
        verdict = "OK" if worst[0] < target else "ABOVE TARGET"
        print(f"pathological posts of {size // 1000} KB ({len(PATHOLOGICAL)} inputs x {len(parsers)} grammars x "
              f"4 dialects x {len(modes)} modes): slowest {worst[0] * 1000:.0f} ms ({worst[1]}); "
              f"target {target * 1000:.0f} ms: {verdict}")


def main() -> None:
    started = time.perf_counter()
    morph_analyzer()
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    ru_roster = Roster([PlayerRef(n) for n in RU_PLAYERS], lang="ru")
    built = time.perf_counter() - started
    ru = PostParser(load_grammar("mafia", "ru"), ru_roster)
    en = PostParser(load_grammar("mafia", "en"), Roster([PlayerRef(n) for n in EN_PLAYERS], lang="en"))
    print(f"pymorphy3 load: {loaded * 1000:.0f} ms; 12-player Russian roster build: {built * 1000:.1f} ms")
    time_clean()
    time_pathological("--all" in sys.argv)
    for name, parser, posts, dialect in [("ru markdown", ru, posts_ru(20_000), "markdown"),
                                         ("ru bbcode", ru, posts_ru(20_000), "bbcode"),
                                         ("en markdown", en, posts_en(20_000), "markdown")]:
        rate, intents = measure(parser, posts, dialect)
        verdict = "OK" if rate >= 5000 else "BELOW TARGET"
        print(f"{name:12s}: {rate:8.0f} posts/s (median of 5 x {len(posts)} posts, {intents} intents) "
              f"target 5,000: {verdict}")
    for text in ["Тома Хэнкса, он мафия", "Хэнксу", "Хенкс"]:
        number = 20_000
        start = time.perf_counter()
        for _ in range(number):
            ru_roster.resolve(text)
        per = (time.perf_counter() - start) / number
        print(f"resolve {text!r}: {per * 1e6:.1f} µs ({ru_roster.resolve(text).method})")


if __name__ == "__main__":
    main()
