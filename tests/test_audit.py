"""`forumbot audit`: reading a host's vote counts, the roster from a thread, and the replay that finds the
host's mistakes, in English and Russian. The threads are our own (no corpus posts)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.audit.audit import Auditor, audit_posts, day_started
from forumbot.audit.hostcount import read_count
from forumbot.audit.report import render_report
from forumbot.audit.roster import build_roster, replacements, resolve
from forumbot.cli import cli
from forumbot.model import PlayerRef, Post
from forumbot.text.clean import clean
from forumbot.text.names import Roster

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def thread(script: list[tuple[str, str]], dialect: str = "bbcode") -> list[Post]:
    return [Post(platform_id=f"p{n}", thread="votes", author=author, created=START + timedelta(minutes=n),
                 body=text, dialect=dialect, url=f"https://board.example/viewtopic.php?p={n}#p{n}")
            for n, (author, text) in enumerate(script, 1)]


# ---- reading a count: (text, dialect, wagons, not voting) ----------------------------------------------
COUNTS = [
    ("[b]Vote Count 1.2[/b]\nAlice (2): Bob, Carol\nBob (1): Alice", "bbcode",
     {"Alice": ("Bob", "Carol"), "Bob": ("Alice",)}, ()),
    ("Alice (L-2) - Bob, Carol\nDave (L-4) — Erin\nNot Voting - Dave, Frank", "bbcode",
     {"Alice": ("Bob", "Carol"), "Dave": ("Erin",)}, ("Dave", "Frank")),
    ("1. Alice [2] Bob, Carol (17)\n2. >>> Bob (1) Alice (23) <<<", "bbcode",
     {"Alice": ("Bob", "Carol"), "Bob": ("Alice",)}, ()),
    ("Votecount\nAlice (LYNCH): Bob, Carol, Dave. LYNCHED\nNo Lynch (1): Erin", "bbcode",
     {"Alice": ("Bob", "Carol", "Dave"), "no_lynch": ("Erin",)}, ()),
    ("[area=Vote Count 3.1][b]Alice (2)[/b]: Bob, [s]Erin[/s] Carol[/area]\n[i]Not voting[/i] (1): Dave", "bbcode",
     {"Alice": ("Bob", "Carol")}, ("Dave",)),
    ('[quote="Bob"]Alice (9): Z, Y\nCarol (2): X, W[/quote]Vote count:\nCarol (1): [url=https://b/p=5]Dave (5)[/url]',
     "bbcode", {"Carol": ("Dave",)}, ()),
    ("**Vote count**\n\n* Alice (2): Bob, ~~Erin~~, Carol\n* Bob (0):\n\nNot voting: nobody", "markdown",
     {"Alice": ("Bob", "Carol"), "Bob": ()}, ()),
    ("[b]Итоги голосования[/b]\nТом Хэнкс (2): Мэрил Стрип, Брэд Питт\nБрэд Питт (1) — Анджелина Джоли\n"
     "Не голосуют: Том Хэнкс", "bbcode",
     {"Том Хэнкс": ("Мэрил Стрип", "Брэд Питт"), "Брэд Питт": ("Анджелина Джоли",)}, ("Том Хэнкс",)),
    ("Подсчёт голосов:\nННВ (1): Хэнкс\nХэнкс (2): Стрип и Питт", "bbcode",
     {"no_lynch": ("Хэнкс",), "Хэнкс": ("Стрип", "Питт")}, ()),
]


@pytest.mark.parametrize(("text", "dialect", "wagons", "not_voting"), COUNTS)
def test_a_count_is_read_in_every_layout(text: str, dialect: str, wagons: dict[str, tuple[str, ...]],
                                         not_voting: tuple[str, ...]) -> None:
    count = read_count(text, dialect)
    assert count is not None
    assert {w.target: w.voters for w in count.wagons} == wagons
    assert count.not_voting == not_voting


@pytest.mark.parametrize("text", [
    "Good morning! Day 1 begins. With 7 alive it takes 4 to lynch.",
    "I think Alice (the quiet one) is scum.",                 # one parenthesis, no count
    "Голосую против Хэнкса (2 дня молчит)",
    '[quote="Hostess"]Alice (2): Bob, Carol\nBob (1): Alice[/quote]Thanks for the count!',
])
def test_other_posts_are_no_count(text: str) -> None:
    assert read_count(text, "bbcode") is None


def test_a_lynch_line_marks_its_wagon() -> None:
    count = read_count("Dave (L-0): Frank, Bob, Carol [LYNCH!]\nBob (1): Alice", "bbcode")
    assert count is not None and count.lynched == "Dave"
    assert read_count("Dave (3): Frank, Bob, Carol\nBob (1): Alice", "bbcode").lynched is None  # type: ignore[union-attr]


def test_a_lynch_is_read_from_the_hosts_words() -> None:
    auditor = Auditor(thread(RU), lang="ru")
    assert auditor.lynched_in("Итак, Том Хэнкс был казнён. Он был мирным.") == "Том Хэнкс"
    assert auditor.lynched_in("Brad said nobody was lynched yesterday") is None


@pytest.mark.parametrize(("text", "day"), [
    ("Day 2 begins! Seven remain.", 2), ("It is now day one.", 1), ("[b]Day 3 has started[/b]", 3),
    ("Начинается день 2.", 2), ("День 4 начался!", 4), ("The day is long.", None), ("Vote count 2.1", None),
])
def test_day_starts_are_read_from_the_hosts_posts(text: str, day: int | None) -> None:
    assert day_started(text) == day


# ---- the roster ---------------------------------------------------------------------------------------
def test_replacements_are_read_in_english_and_russian() -> None:
    known = Roster([PlayerRef(n) for n in ["chamber", "Mitzef", "Frank", "Erin", "Том Хэнкс", "Брэд Питт"]],
                   lang="ru")
    texts = ["Aaaaand chamber replaces Miztef! Thanks a ton!", "Erin has been replaced by Frank.",
             "Брэд Питт заменяет Том Хэнкс."]
    assert replacements(texts, lambda t: resolve(known, t)) == [("chamber", "Mitzef"), ("Frank", "Erin"),
                                                                ("Брэд Питт", "Том Хэнкс")]


def test_the_host_spelling_maps_to_a_poster_but_a_far_name_does_not() -> None:
    roster = Roster([PlayerRef(n) for n in ["DarthYoshi", "Zoronos", "Cyberbob", "Fishythefish"]])
    assert [resolve(roster, n) for n in ["Darth Yoshi", "Zornos", "Fishy", "chamber"]] == \
        ["DarthYoshi", "Zoronos", "Fishythefish", None]


def test_a_roster_is_built_from_posters_counts_and_replacements() -> None:
    counts = [read_count("Vote count\nBob (1): Alice\nDarth Yoshi (1): Frank\nNot voting: Lurker", "bbcode")]
    players = build_roster(["Hostess", "Alice", "Bob", "DarthYoshi", "Erin", "Frank"], counts,  # type: ignore[arg-type]
                           ["Frank replaces Erin."], host="Hostess")
    assert players == [PlayerRef("Alice"), PlayerRef("Bob"), PlayerRef("DarthYoshi"), PlayerRef("Erin", ("Frank",)),
                       PlayerRef("Lurker")]


# ---- the audit -----------------------------------------------------------------------------------------
EN = [
    ("Hostess", "[b]Day 1 begins![/b] Players: Alice, Bob, Carol, Dave, Erin."),
    ("Alice", "Hello. [b]vote Bob[/b]"),                                               # p2
    ("Bob", "[vote]Alice[/vote]"),                                                     # p3
    ("Carol", "[b]Vote: Bob[/b]"),                                                     # p4
    ("Erin", "hi all"),
    ("Hostess", "[b]Vote Count 1.1[/b]\nBob (2): Alice, Carol\nAlice (1): Bob\nNot voting: Dave, Erin"),  # p6 right
    ("Carol", "On second thought [b]unvote[/b]"),                                      # p7
    ("Dave", "I'll go with [b]vote: Carol[/b]"),                                       # p8
    ("Hostess", "Frank replaces Erin. Welcome!"),
    ("Frank", '[quote="Dave"][b]vote Carol[/b][/quote] [vote]Dave[/vote]'),            # p10 (Erin's slot)
    ("Hostess", "Vote Count 1.2\nBob (L-1) - Alice, Carol\nCarol (L-2) - Dave\nAlice (L-2) - Bob\n"
                "Dave (L-2) - Frank"),                                                 # p11: missed Carol's unvote
    ("Bob", "[b]vote Dave[/b]"),                                                       # p12
    ("Hostess", "Vote Count 1.3\nAlice (1): Bob\nDave (2): Frank, Bob\nCarol (1): [s]Frank[/s] Dave"),  # p13
    ("Carol", "[b]vote Dave[/b]"),                                                     # p14: the hammer
    ("Alice", "[b]vote Carol[/b]"),                                                    # p15: after it
    ("Hostess", "Final count\nDave (3): Frank, Bob, Carol\nBob (1): Alice\nCarol (1): Dave\n\n"
                "[b]Dave, a [color=green]Vanilla Townie[/color], was lynched![/b]"),     # p16
    ("Hostess", "Day 2 begins!"),
    ("Bob", "[b]vote Alice[/b]"),                                                      # p18
    ("Frank", "[b]vote Caro[/b]"),                                                     # p19: a prefix
    ("Hostess", "Vote Count 2.1\nAlice (1): Bob\nNot voting: Alice, Carol, Frank"),    # p20
]


def differences(result) -> dict[str, list[tuple[str, tuple[str, ...], str | None, bool]]]:  # type: ignore[no-untyped-def]
    return {c.post.platform_id: [(d.voter, d.host, d.forumbot, d.sure) for d in c.differences]
            for c in result.checks}


def test_the_host_mistakes_are_found_and_nothing_else() -> None:
    result = audit_posts(thread(EN), reading="bold")
    assert result.host == "Hostess"
    assert [p.name for p in result.players] == ["Alice", "Bob", "Carol", "Erin", "Dave"]
    assert result.players[3].aliases == ("Frank",)
    assert differences(result) == {
        "p6": [],
        "p11": [("Carol", ("Bob",), None, True)],                          # a missed unvote
        "p13": [("Bob", ("Alice", "Dave"), "Dave", True),                  # left on the old wagon
                ("Alice", (), "Bob", True)],                               # a wagon the host forgot
        "p16": [],                                                         # at the hammer, p15 not counted
        "p20": [("Erin", (), "Carol", False)],                             # a prefix: unsure
    }
    lynch = next(c for c in result.checks if c.post.platform_id == "p16")
    assert lynch.compared_at == "p14" and lynch.day == 1 and lynch.lynch == "Dave"
    assert [c.day for c in result.checks] == [1, 1, 1, 1, 2]
    carol = result.checks[1].differences[0]
    assert [e.post for e in carol.evidence] == ["p4", "p7"] and carol.evidence[-1].read == "unvote"
    assert carol.evidence[-1].url.endswith("p=7#p7")
    unsure = result.checks[4].differences[0]
    assert "prefix" in unsure.why


def test_a_given_roster_and_host_are_used() -> None:
    players = [PlayerRef(n) for n in ["Alice", "Bob", "Carol", "Dave"]] + [PlayerRef("Erin", ("Frank",))]
    result = audit_posts(thread(EN), host="Hostess", players=players, reading="bold")
    assert sum(len(c.differences) for c in result.checks) == 4


def test_an_unbolded_vote_in_a_bold_game_makes_the_difference_unsure() -> None:
    posts = thread([("Hostess", "Day 1 begins"), ("Alice", "[b]vote Bob[/b]"), ("Bob", "hmm"), ("Carol", "x"),
                    ("Alice", "vote Carol"),
                    ("Hostess", "Vote count\nCarol (1): Alice\nNot voting: Bob, Carol")])
    (check,) = audit_posts(posts, reading="bold").checks
    assert [(d.voter, d.host, d.forumbot, d.sure) for d in check.differences] == [("Alice", ("Carol",), "Bob", False)]
    assert "not bold" in check.differences[0].why


def test_a_voter_who_never_posted_in_place_of_one_left_out_is_unsure() -> None:
    posts = thread([("Hostess", "Day 1 begins"), ("Alice", "[b]vote Bob[/b]"), ("Bob", "hi"), ("Carol", "hello"),
                    ("Hostess", "Vote count\nBob (1): Zed\nNot voting: Alice, Carol")])
    (check,) = audit_posts(posts, reading="bold").checks
    assert [(d.voter, d.host, d.forumbot, d.sure) for d in check.differences] == \
        [("Zed", ("Bob",), None, False), ("Alice", (), "Bob", False)]
    assert "one player under two accounts" in check.differences[0].why


RU = [
    ("Ведущий", "День 1 начинается!"),
    ("Том Хэнкс", "Голосую против Мэрил Стрип"),                       # p2
    ("Мэрил Стрип", "Голосую против Хэнкса"),                          # p3
    ("Брэд Питт", "Доброе утро.\nПротив Джоли"),                       # p4
    ("Анджелина Джоли", "Всем привет"),
    ("Ведущий", "[b]Итоги голосования[/b]\nМэрил Стрип (1): Том Хэнкс\nТом Хэнкс (1): Мэрил Стрип\n"
                "Анджелина Джоли (1): Брэд Питт\nНе голосуют: Анджелина Джоли"),     # p6 right
    ("Том Хэнкс", "Снимаю голос"),                                     # p7
    ("Ведущий", "Итоги голосования\nМэрил Стрип (1): Том Хэнкс\nТом Хэнкс (1): Мэрил Стрип\n"
                "Анджелина Джоли (1): Брэд Питт"),                     # p8: missed the unvote
]


def test_a_russian_thread_is_audited() -> None:
    result = audit_posts(thread(RU), lang="ru")
    assert result.host == "Ведущий"
    assert differences(result) == {"p6": [], "p8": [("Том Хэнкс", ("Мэрил Стрип",), None, True)]}


def test_the_report_lists_only_differences_in_the_forums_markup() -> None:
    result = audit_posts(thread(EN), reading="bold")
    bbcode = render_report(result, "bbcode")
    assert "5 vote counts checked" in bbcode and "differences: 4 (3 sure, 1 unsure)" in bbcode
    assert "[url=https://board.example/viewtopic.php?p=11#p11]p11[/url]" in bbcode
    assert "Carol: the count has Bob, forumbot reads no vote — sure" in bbcode
    assert "p6#p6" not in bbcode                                       # a count without differences
    markdown = render_report(result, "markdown")
    assert "[p7](https://board.example/viewtopic.php?p=7#p7) (unvote)" in markdown and "[url=" not in markdown
    ru = render_report(audit_posts(thread(RU), lang="ru"), "bbcode", "ru")
    assert "Том Хэнкс: в подсчёте Мэрил Стрип, forumbot читает нет голоса — уверенно" in ru


def scenario_text(script: list[tuple[str, str]]) -> str:
    text = ('[game]\nname = "mafia"\nlang = "en"\nhost = "Hostess"\nstart = "2026-03-01T12:00:00Z"\n'
            'dialect = "bbcode"\nreading = "bold"\n'
            + "".join(f'[[players]]\nname = "{n}"\n' for n in ["Alice", "Bob", "Carol", "Dave"])
            + '[[players]]\nname = "Erin"\naliases = ["Frank"]\n')
    for n, (author, body) in enumerate(script, 1):
        text += (f'[[posts]]\nat = "2026-03-01T12:{n:02d}:00Z"\nauthor = "{author}"\nthread = "votes"\n'
                 f'text = """{body}"""\n')
    return text


def test_the_cli_audits_a_local_export(tmp_path: Path) -> None:
    path = tmp_path / "day.toml"
    path.write_text(scenario_text(EN), encoding="utf-8")
    runner = CliRunner()
    got = runner.invoke(cli, ["audit", str(path)])
    assert got.exit_code == 1, got.output
    assert "differences: 4 (3 sure, 1 unsure)" in got.output
    data = json.loads(runner.invoke(cli, ["audit", str(path), "--json"]).output)
    assert data["counts"] == 5 and data["differences"] == 4 and data["sure"] == 3
    right = tmp_path / "right.toml"
    right.write_text(scenario_text(EN[:6]), encoding="utf-8")
    assert runner.invoke(cli, ["audit", str(right)]).exit_code == 0
    assert runner.invoke(cli, ["audit", str(tmp_path / "missing.toml")]).exit_code == 2
    nobody = runner.invoke(cli, ["audit", str(right), "--host", "Alice"])
    assert nobody.exit_code == 1 and "--host" in nobody.output


def test_a_local_forum_thread_is_audited_from_the_cli(tmp_path: Path) -> None:
    from forumbot.platforms.local import LocalForum

    forum = LocalForum(tmp_path / "forum.db")
    for n, (author, text) in enumerate(EN[:11], 1):
        forum.add_post("mafia/votes", author, text.replace("[b]", "**").replace("[/b]", "**"),
                       at=START + timedelta(minutes=n))
    got = CliRunner().invoke(cli, ["audit", f"{tmp_path / 'forum.db'}#mafia/votes", "--mode", "bold", "--json"])
    assert got.exit_code == 1, got.output
    data = json.loads(got.output)
    assert [[(d["voter"], d["host"], d["forumbot"]) for d in c["differences"]] for c in data["checks"]] == \
        [[], [("Carol", ["Bob"], None)]]


def test_words_about_a_lynch_that_name_nobody_do_not_end_the_day() -> None:
    posts = thread([("Hostess", "Day 1 begins"), ("Alice", "[b]vote Bob[/b]"), ("Carol", "hi"),
                    ("Hostess", "Remember: nobody was lynched yesterday, and Carol is not hanged."),
                    ("Bob", "[b]vote Alice[/b]"), ("Hostess", "Vote count\nAlice (1): Bob\nBob (1): Alice")])
    (check,) = audit_posts(posts, reading="bold").checks
    assert check.differences == [] and check.voters == 2


def test_a_day_start_given_by_the_user_clears_the_votes() -> None:
    posts = thread([("Hostess", "Welcome"), ("Alice", "[b]vote Bob[/b]"), ("Bob", "[b]vote Alice[/b]"),
                    ("Carol", "New day, everyone!"), ("Bob", "[b]vote Carol[/b]"),
                    ("Hostess", "Vote count\nCarol (1): Bob\nNot voting: Alice, Carol")])
    assert audit_posts(posts, reading="bold").checks[0].differences[0].voter == "Alice"
    (check,) = audit_posts(posts, reading="bold", day_starts=["p4"]).checks
    assert check.differences == [] and check.day == 2


def test_the_auditor_refuses_an_empty_thread() -> None:
    with pytest.raises(ValueError):
        Auditor([])


# ---- invariants ------------------------------------------------------------------------------------------
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin"]
LAYOUTS = [
    lambda target, voters: f"{target} ({len(voters)}): {', '.join(voters)}",
    lambda target, voters: f"[b]{target}[/b] (L-{5 - len(voters)}) - {', '.join(voters)}",
    lambda target, voters: f">>> {target} [{len(voters)}] — " + ", ".join(f"{v} ({n + 7})"
                                                                       for n, v in enumerate(voters)),
    lambda target, voters: f"{target} ({len(voters)}) {', '.join(voters)}",
]


@settings(max_examples=40, deadline=None)
@given(actions=st.lists(st.tuples(st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(NAMES))),
                        min_size=1, max_size=12),
       layout=st.sampled_from(range(len(LAYOUTS))), drop=st.integers(min_value=0, max_value=10))
def test_a_count_written_from_the_true_tally_agrees_and_a_dropped_voter_is_one_sure_difference(
        actions: list[tuple[str, str | None]], layout: int, drop: int) -> None:
    votes: dict[str, str] = {}
    script = [("Hostess", "Day 1 begins")]
    for voter, target in actions:
        script.append((voter, f"[b]vote {target}[/b]" if target else "[b]unvote[/b]"))
        if target:
            votes[voter] = target
        else:
            votes.pop(voter, None)
    wagons: dict[str, list[str]] = {}
    for voter, target in votes.items():
        wagons.setdefault(target, []).append(voter)

    def count(without: str | None) -> str:
        lines = [LAYOUTS[layout](t, [v for v in vs if v != without]) for t, vs in wagons.items()]
        silent = [n for n in NAMES if n not in votes]
        return "Vote count\n" + "\n".join(lines) + f"\nNot voting: {', '.join(silent) or 'nobody'}"

    players = [PlayerRef(n) for n in NAMES]
    right = audit_posts(thread([*script, ("Hostess", count(None))]), players=players, reading="bold")
    assert [c.differences for c in right.checks] == [[]]
    if votes:
        dropped = sorted(votes)[drop % len(votes)]
        wrong = audit_posts(thread([*script, ("Hostess", count(dropped))]), players=players, reading="bold")
        assert [(d.voter, d.host, d.forumbot, d.sure) for d in wrong.checks[0].differences] == \
            [(dropped, (), votes[dropped], True)]


# ---- the dead: a new day starts without the players the host said died -----------------------------------
@pytest.mark.parametrize(("lang", "text", "dead"), [
    ("en", "[b]Dave, a [color=green]Vanilla Townie[/color], was lynched![/b]", ["Dave"]),
    ("en", "Day 2 begins! This morning, Erin was found dead. She was a Cop.", ["Erin"]),
    ("en", "Night falls... Alice and Bob have been killed.", ["Alice", "Bob"]),
    ("en", "Carol has died.\nDave is dead.", ["Carol", "Dave"]),
    ("en", "[area]Erin, Vanilla Townie, died night 1.[/area]", ["Erin"]),
    ("en", "Nobody was killed last night. Day 3 begins.", []),
    ("en", "Alice thinks Bob is dead wrong", []),
    ("ru", "Том Хэнкс повешен. Он был мирным.", ["Том Хэнкс"]),
    ("ru", "Этой ночью убит Брэд Питт.", ["Брэд Питт"]),
    ("ru", "Утром Мэрил Стрип найдена мёртвой.", ["Мэрил Стрип"]),
    ("ru", "Анджелина Джоли была убита, Хэнкс казнён.", ["Анджелина Джоли", "Том Хэнкс"]),
    ("ru", "Никто не был убит этой ночью.", []),
])
def test_deaths_are_read_from_the_hosts_words(lang: str, text: str, dead: list[str]) -> None:
    auditor = Auditor(thread(EN if lang == "en" else RU), lang=lang)
    assert auditor.died_in(clean(text, "bbcode")) == dead


DEAD_EN = [
    ("Hostess", "Day 1 begins!"),
    ("Alice", "[b]vote Dave[/b]"),
    ("Bob", "[b]vote Dave[/b]"),
    ("Carol", "[b]vote Dave[/b]"),
    ("Hostess", "Dave was lynched. He was a Goon.\nNight 1 begins."),
    ("Hostess", "Day 2 begins! Erin has been killed by the mafia."),
    ("Alice", "[b]vote Erin[/b]"),                                     # p7: on a dead player: refused
    ("Erin", "[b]vote Bob[/b]"),                                       # p8: a dead player: refused
    ("Dave", "[b]vote Carol[/b]"),                                     # p9: lynched yesterday: refused
    ("Bob", "[b]vote Alice[/b]"),                                      # p10
    ("Hostess", "Vote Count 2.1\nAlice (1): Bob\nNot voting: Alice, Carol"),               # p11: right
    ("Hostess", "Vote Count 2.2\nAlice (1): Bob\nBob (1): Erin\nErin (1): Alice"),         # p12: counts the dead
]


def test_a_new_day_starts_without_the_dead() -> None:
    result = audit_posts(thread(DEAD_EN), reading="bold")
    assert differences(result) == {
        "p11": [],
        "p12": [("Erin", ("Bob",), None, False), ("Alice", ("Erin",), None, False)],
    }
    erin, alice = result.checks[1].differences
    assert erin.evidence[-1].post == "p8" and erin.why == "Erin is dead and cannot vote"
    assert alice.evidence[-1].post == "p7" and alice.why == "Erin is dead and cannot be voted for"
    # the same thread without the host's words of the deaths: their votes count
    alive = [(a, "Day 2 begins!" if n == 5 else "Night 1 begins." if n == 4 else t)
             for n, (a, t) in enumerate(DEAD_EN)]
    assert differences(audit_posts(thread(alive), reading="bold"))["p11"] == [
        ("Alice", (), "Erin", True), ("Erin", (), "Bob", True), ("Dave", (), "Carol", True)]


DEAD_RU = [
    ("Ведущий", "День 1 начинается!"),
    ("Том Хэнкс", "Голосую против Мэрил Стрип"),
    ("Брэд Питт", "Голосую против Мэрил Стрип"),
    ("Анджелина Джоли", "Голосую против Мэрил Стрип"),
    ("Ведущий", "Мэрил Стрип повешена. Наступает ночь."),
    ("Ведущий", "Начинается день 2. Этой ночью убит Брэд Питт."),
    ("Мэрил Стрип", "Голосую против Хэнкса"),                          # p7: dead
    ("Брэд Питт", "Голосую против Джоли"),                             # p8: dead
    ("Том Хэнкс", "Голосую против Брэда Питта"),                       # p9: on a dead player
    ("Анджелина Джоли", "Голосую против Хэнкса"),                      # p10
    ("Ведущий", "Итоги голосования\nТом Хэнкс (1): Анджелина Джоли\nНе голосуют: Том Хэнкс"),  # p11
]


def test_a_russian_new_day_starts_without_the_dead() -> None:
    result = audit_posts(thread(DEAD_RU), lang="ru")
    assert [c.day for c in result.checks] == [2]
    assert differences(result) == {"p11": []}
    assert {p.name for p in result.players} == {"Том Хэнкс", "Мэрил Стрип", "Брэд Питт", "Анджелина Джоли"}
    alive = [(a, t.split(".")[0] + ".") for a, t in DEAD_RU]          # the night kill left out: Питт votes
    assert differences(audit_posts(thread(alive), lang="ru")) == {"p11": [
        ("Брэд Питт", (), "Анджелина Джоли", True), ("Том Хэнкс", (), "Брэд Питт", True)]}
