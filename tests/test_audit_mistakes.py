"""`forumbot audit` tells the host's own mistakes once each: unvotes missed, switches missed, a voter on two
wagons, a missed vote, each grouped with the counts it touches ("a missed unvote carried through 3 counts").
Only sure differences are mistakes. English and Russian reports."""

from __future__ import annotations

from test_audit import EN, thread

from forumbot.audit.audit import audit_posts
from forumbot.audit.mistakes import host_mistakes
from forumbot.audit.report import render_report

CARRIED = [
    ("Hostess", "[b]Day 1 begins![/b]"),
    ("Alice", "[b]vote Bob[/b]"),
    ("Carol", "[b]vote Bob[/b]"),
    ("Hostess", "Vote Count 1.1\nBob (2): Alice, Carol"),             # right
    ("Carol", "[b]unvote[/b]"),
    ("Hostess", "Vote Count 1.2\nBob (2): Alice, Carol"),             # Carol's unvote missed ...
    ("Dave", "[b]vote Alice[/b]"),
    ("Hostess", "Vote Count 1.3\nBob (2): Alice, Carol\nAlice (1): Dave"),   # ... still
    ("Alice", "[b]vote Dave[/b]"),
    ("Hostess", "Vote Count 1.4\nBob (2): Alice, Carol\nAlice (1): Dave"),   # ... and a switch missed
    ("Carol", "[b]vote Bob[/b]"),
    ("Hostess", "Vote Count 1.5\nBob (2): Alice, Carol\nAlice (1): Dave"),   # Carol right again; Alice not
]


def test_a_missed_unvote_carried_through_counts_is_one_mistake() -> None:
    mistakes = host_mistakes(audit_posts(thread(CARRIED), reading="bold"))
    assert [(m.kind, m.voter, m.host, m.forumbot, [c.post.platform_id for c in m.counts]) for m in mistakes] == [
        ("unvote_missed", "Carol", ("Bob",), None, ["p6", "p8", "p10"]),
        ("switch_missed", "Alice", ("Bob",), "Dave", ["p10", "p12"]),
    ]


def test_every_kind_of_host_mistake_is_named() -> None:
    mistakes = host_mistakes(audit_posts(thread(EN), reading="bold"))
    assert [(m.kind, m.voter, len(m.counts)) for m in mistakes] == [
        ("unvote_missed", "Carol", 1), ("two_wagons", "Bob", 1), ("vote_missed", "Alice", 1)]
    # an unsure difference (Frank's prefix "Caro") is nobody's mistake


def test_the_report_tells_the_mistakes_first_in_english_and_russian() -> None:
    report = render_report(audit_posts(thread(CARRIED), reading="bold"), "bbcode")
    assert "[b]The host's own mistakes: 2 distinct, touching 5 voter entries[/b]" in report
    assert ("Day 1, Carol: an unvote missed (the count keeps Carol on Bob), carried through 3 counts: "
            "[url=https://board.example/viewtopic.php?p=6#p6]p6[/url]") in report
    assert "Day 1, Alice: a vote switch missed (moved from Bob to Dave), carried through 2 counts" in report
    assert report.index("mistakes") < report.index("Day 1, vote count")
    markdown = render_report(audit_posts(thread(CARRIED), reading="bold"), "markdown", "ru")
    assert "**Ошибки ведущего: 2, затронуто записей о голосах: 5**" in markdown
    assert "пропущено снятие голоса" in markdown and "ошибка тянется через подсчётов: 3" in markdown


def test_no_mistakes_no_section() -> None:
    report = render_report(audit_posts(thread(CARRIED[:4]), reading="bold"), "bbcode")
    assert "mistakes" not in report and "forumbot agrees with every vote count." in report
