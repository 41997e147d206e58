"""Grammar files: template compilation, matching rules, and errors that name the file and the fix."""

from __future__ import annotations

import pytest

from forumbot.errors import ConfigError
from forumbot.text.grammar import Command, Grammar, load_grammar


def grammar(*commands: Command) -> Grammar:
    return Grammar("g", "en", commands)


@pytest.mark.parametrize("line,kind,slots", [
    ("vote: Alice", "colon", {"player": "Alice"}),          # longest literal wins over "vote {player}"
    ("vote Alice", "plain", {"player": "Alice"}),
    ("VOTE    Alice", "plain", {"player": "Alice"}),        # case and spaces
    ("vote:Alice", "colon", {"player": "Alice"}),           # space may be missing next to punctuation
    ("[vote]Bob[/vote] and more", "tag", {"player": "Bob"}),
    ("unvote", "unvote", {}),
    ("unvote!", "unvote", {}),
])
def test_matching(line, kind, slots):
    g = grammar(Command("plain", ("vote {player}",)), Command("colon", ("vote: {player}",)),
                Command("tag", ("[vote]{player}[/vote]",)), Command("unvote", ("unvote",)))
    found = g.match(line)
    assert found is not None and found.command.kind == kind and found.slots == slots


@pytest.mark.parametrize("line", ["unvoted", "voteAlice", "I vote Alice", "", "   "])
def test_not_matching(line):
    g = grammar(Command("plain", ("vote {player}",)), Command("unvote", ("unvote",)))
    assert g.match(line) is None


def test_yo_and_ye_are_one_letter():
    g = grammar(Command("v", ("твёрдо против {player}",)))
    assert g.match("Твердо против Пети") is not None and g.match("ТВЁРДО против Пети") is not None


def test_sentences_inside_a_line():
    g = load_grammar("mafia", "ru")
    found = g.match_all("Подумал. Против Хэнкса! Снимаю голос")
    assert [m.command.kind for m in found] == ["vote", "unvote"]


def test_where_keeps_pm_commands_out_of_threads():
    g = grammar(Command("kill", ("убиваю {player}",), where="pm"), Command("vote", ("vote {player}",)))
    assert g.match("убиваю Тома", where="thread") is None
    assert g.match("убиваю Тома", where="pm").command.kind == "kill"
    assert g.match("vote Tom", where="pm") is None


def test_typed_slots():
    g = grammar(Command("move", ("{src:square}->{dst:square}",)))
    found = g.match("A1->B1")
    assert found.slots == {"src": "A1", "dst": "B1"} and found.slot_types == {"src": "square", "dst": "square"}


@pytest.mark.parametrize("template,needle", [
    ("vote {player:person}", "unknown type 'person'"),
    ("{player}", "needs some literal text"),
])
def test_bad_templates_are_config_errors(template, needle):
    with pytest.raises(ConfigError) as err:
        Grammar("g", "en", [Command("vote", (template,))], source="parsers/g.en.toml")
    assert needle in str(err.value) and "parsers/g.en.toml" in str(err.value) and "fix:" in str(err.value)


@pytest.mark.parametrize("body,needle,line", [
    ('[[commands]]\nkind = "vote"\ntemplate = ["vote {player}"]\n', "unknown key 'template'", 3),
    ('[[commands]]\nkind = "vote"\n', "needs templates", 2),
    ('[[commands]]\nkind = "vote"\nwhere = "chat"\ntemplates = ["vote {player}"]\n', "not one of", 3),
    ('[[commands]\n', "not valid TOML", 1),
    ('[[commands]]\nkind = "vote"\ntemplates = ["vote {player}"]\nexplicit = ["vote: {player}"]\n',
     "lists some of its templates", 4),
])
def test_bad_grammar_files_name_the_line(tmp_path, body, needle, line):
    path = tmp_path / "mafia.xx.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_grammar("mafia", "xx", tmp_path)
    assert needle in str(err.value) and f"{path}:{line}:" in str(err.value)


def test_shipped_grammars_load_and_cover_the_issue_phrases():
    en, ru = load_grammar("mafia", "en"), load_grammar("mafia", "ru")
    for line in ["##vote X", "Vote: X", "[vote]X[/vote]", "vote X", "unvote", "no lynch"]:
        assert en.match(line) is not None, line
    for line in ["Голосую против X", "Голос против X", "Против X", "Окончательно против X", "ННВ",
                 "Никого не вешать", "Снимаю голос"]:
        assert ru.match(line) is not None, line
