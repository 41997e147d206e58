"""`forumbot --help` lists every command without loading any; a command's module is loaded when it runs or
its help is shown, and brings only what that command uses."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from forumbot.cli import COMMANDS, cli

HEAVY = ("jinja2", "flask", "praw", "sqlite_utils", "markdown_it", "bs4", "pymorphy3", "apscheduler", "requests",
         "forumbot.games", "forumbot.engine.replay", "forumbot.engine.cycle", "forumbot.render", "forumbot.config.game",
         "forumbot.text.grammar", "forumbot.text.parse", "forumbot.web")


def _loaded(*args: str) -> tuple[str, set[str]]:
    """What `forumbot ARGS` prints, and the modules it imported, in a process of its own."""
    code = ("import json, sys\nfrom forumbot.cli import cli\n"
            "try:\n    cli(sys.argv[1:], prog_name='forumbot')\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return done.stdout, set(json.loads(done.stderr.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_help_lists_every_command_and_loads_none_of_them():
    out, modules = _loaded("--help")
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS) == ["archive", "audit", "check-config", "demo", "flags", "forum", "host",
                                          "host-link", "open-thread", "parse", "passwd", "replay", "run", "status",
                                          "tally", "tournament"]
    assert _heavy(modules) == []
    assert not [m for m in modules if m.startswith("forumbot.cli.")]


def test_a_light_commands_help_loads_its_own_module_only():
    out, modules = _loaded("passwd", "--help")
    assert "Usage: forumbot passwd" in out
    assert "forumbot.cli.host" in modules and "forumbot.cli.play" not in modules
    assert _heavy(modules) == []


def test_a_commands_help_loads_what_it_runs():
    out, modules = _loaded("replay", "--help")
    assert "Usage: forumbot replay [OPTIONS] SCENARIO_PATH" in out and "--check" in out
    assert "forumbot.engine.replay" in modules


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_listed_command_loads_under_its_name(name):
    command = cli.get_command(click.Context(cli), name)
    assert isinstance(command, click.Command) and command.name == name


def test_an_unknown_command_is_refused_with_the_usage():
    out = subprocess.run([sys.executable, "-m", "forumbot", "nosuch"], capture_output=True, text=True)
    assert out.returncode == 2 and "No such command 'nosuch'" in out.stderr
