"""A host's templates and phrases run in jinja2's sandbox: whatever a template tries, it is refused (a
ConfigError naming the template's file and line) or prints only harmless text, never Python's insides; and
`check-config` refuses a template that tries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import act, new_game

from forumbot.cli import cli
from forumbot.config.paths import data_dir
from forumbot.errors import ConfigError
from forumbot.games.mafia.game import view
from forumbot.model import Event
from forumbot.render import Renderer

SAMPLES = data_dir("samples")
INNER = "{{ ''.__class__.__mro__[1].__name__ }}"    # a template of its own, run outside the sandbox: "object"
# The environment behind a phrase's format, reached through what the renderer's old `format` answered.
ESCAPE = "{{ '{a}'.format.args[0].template_class(\"" + INNER + "\").render() }}"

ATTEMPTS = [
    ESCAPE,
    "{{ t.day.format.args[0].template_class(\"" + INNER + "\").render() }}",        # a phrase's format
    "{{ v.deadline.format.args[0].from_string(\"" + INNER + "\").render() }}",      # the data's strings
    "{{ '{a}'.format.func.__globals__ }}",
    "{{ '{0.__class__}'.format.__wrapped__(v) }}",
    "{{ '{a}'.format.__self__.__class__ }}",
    "{{ '{0.__class__}'.format(v) }}",
    "{{ '{0.__class__.__mro__[1].__name__}'.format('') }}",
    "{{ ('{0.' ~ '__class__}').format(e) }}",                                    # a field built at run time
    "{{ '{x.__class__}'.format_map({'x': v}) }}",
    "{{ '{x.__class__.__mro__}'.format_map(v) }}",
    "{{ ('{0.__class__}' | attr('format'))(v) }}",                               # str.format via |attr
    "{{ ('{0.__class__}' | attr('format_map'))({'0': v}) }}",
    "{{ t.day | attr('format') | attr('args') }}",
    "{{ t.__class__ }}",
    "{{ t.update({'day': 'owned'}) }}",
    "{{ e.__class__.__mro__[1].__subclasses__() }}",
    "{{ e.get.__self__ }}",
    "{{ v.items.__self__.__class__ }}",
    "{{ v | attr('__cla' ~ 'ss__') }}",
    "{{ v.wagons | map(attribute='__class__') | join }}",
    "{{ ''.join.__self__ }}",
    "{{ ''.join.__self__.__class__.__mro__ }}",
    "{{ ''.__class__ | attr('mro') }}",
    "{{ self.__init__ }}",
    "{{ self.__init__.__globals__ }}",
    "{{ self._TemplateReference__context }}",
    "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ cycler(1, 2).__dict__ }}",
    "{{ joiner().__call__.__func__ }}",
    "{{ namespace(a=1).__attrs }}",
    "{{ lipsum.__globals__ }}",
    "{{ lipsum.__globals__['os'].popen('touch PWNED') }}",
    "{{ range.__class__ }}",
    "{{ range(3).__class__.__mro__ }}",
    "{{ dict(a=1).__class__.__base__ }}",
    "{% for x in [1] %}{{ loop.__class__ }}{% endfor %}",
    "{% for x in [1] %}{{ loop._iterator }}{% endfor %}",
    "{% for x in [1] %}{{ loop.cycle.__func__.__globals__ }}{% endfor %}",
    "{% macro m() %}x{% endmacro %}{{ m._func.__globals__ }}",
    "{% macro m() %}x{% endmacro %}{{ m.__call__.__globals__ }}",
    "{{ voter.__self__.env }}",                      # the renderer's own globals and filters
    "{{ voter.__func__.__globals__ }}",
    "{{ reason.__globals__ }}",
    "{{ config }}",
    "{{ config.__class__.__init__.__globals__ }}",
    "{% include '../../../../../../etc/passwd' %}",
    "{% import 'vote_count.j2' as m %}{{ m.__dict__ }}",
]
# What a harmless text never holds: a type, a function or module, an object's repr, a dunder, a command's output.
INSIDES = re.compile(r"object|class|function|module|method|built-in|jinja2|Environment|Template|__|<|"
                     r"uid=|root:")


def count_event() -> Event:
    state = new_game(6)
    state, _ = act(state, "P01", "vote", "P02")
    return Event("vote_count", view(state, state.phase_started))


def refused_or_harmless(renderer: Renderer, template: Path, line: int) -> str | None:
    """The count's text when it renders (harmless: nothing of Python's insides), else None after checking
    the error names the template's file and line."""
    try:
        text = renderer.text(count_event())
    except ConfigError as err:
        assert err.path == str(template) and err.line == line, (str(err), err.path, err.line)
        assert "vote_count.j2" in str(err)
        return None
    assert not INSIDES.search(text), text
    return text


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_a_host_template_reaches_nothing_of_pythons_insides(tmp_path, monkeypatch, attempt):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "vote_count.j2").write_text(f"Votes\n{attempt}\n", encoding="utf-8")
    renderer = Renderer("markdown", "en", template_dir=folder)
    refused_or_harmless(renderer, folder / "vote_count.j2", 2)
    assert not (tmp_path / "PWNED").exists() and renderer.phrases["day"] != "owned"


def test_the_escape_through_a_phrases_format_is_refused(tmp_path):
    (tmp_path / "vote_count.j2").write_text(f"Votes\n{ESCAPE}\n", encoding="utf-8")
    renderer = Renderer("markdown", "en", template_dir=tmp_path)
    assert refused_or_harmless(renderer, tmp_path / "vote_count.j2", 2) is None


def test_a_phrase_formatted_in_a_template_is_formatted_in_the_sandbox():
    env = Renderer("markdown", "en").env
    hostile = "{alive.__class__.__mro__} {0.__globals__}"      # a player's text is printed, never read
    assert env.from_string("{{ '{x} of {alive}'.format(x=h, alive=3) }}").render(h=hostile) == f"{hostile} of 3"
    assert env.from_string("{{ '{0:>3}|{n}'.format(7, n='a') }}").render() == "  7|a"


@pytest.mark.parametrize("phrase", ["{alive.__class__}", "{alive.__class__.__mro__}", "{0.__globals__}",
                                    "{alive[__class__]}", "{needed:{alive.__class__}}", "{alive.real.__class__}"])
def test_a_hosts_phrase_reaches_nothing_of_pythons_insides(phrase):
    view_data = {"day": 1, "count": 1, "wagons": [], "not_voting": [], "rule": "absolute", "alive": 5,
                 "needed": 3, "no_lynch_used": 0, "no_lynch_limit": 1, "errors": [], "error_total": 0,
                 "deadline": "2026-03-04T20:00:00Z"}
    renderer = Renderer("markdown", "en", overrides={"absolute": phrase, "result_saved": phrase,
                                                       "error_not_player": phrase})
    try:
        text = renderer.text(Event("vote_count", view_data), "mafia")
    except ConfigError as err:        # refused by the sandbox, or no such argument
        assert err.path and err.path.endswith("vote_count.j2") and err.line
    else:
        assert not INSIDES.search(text), text
    assert renderer._result({"code": "saved", "params": {"alive": 5, "needed": 3}}) == "saved"
    state = new_game(6)
    state, _ = act(state, "Stranger", "vote", "P02")
    assert not INSIDES.search(Renderer("markdown", "en", overrides={"error_not_player": phrase}).text(
        Event("vote_count", view(state, state.phase_started))))


def test_a_template_that_does_not_parse_is_refused_naming_its_line(tmp_path):
    (tmp_path / "vote_count.j2").write_text("Votes\n{% if %}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        Renderer("markdown", "en", template_dir=tmp_path).text(count_event())
    assert err.value.path == str(tmp_path / "vote_count.j2") and err.value.line == 2


def test_a_running_renderer_keeps_the_template_it_loaded_and_a_new_one_reads_the_file(tmp_path):
    template = tmp_path / "vote_count.j2"
    template.write_text("FIRST {{ v.alive }}\n", encoding="utf-8")
    old = Renderer("markdown", "en", template_dir=tmp_path)
    assert old.text(count_event()) == "FIRST 6\n"
    template.write_text("SECOND {{ v.alive }}\n", encoding="utf-8")
    assert Renderer("markdown", "en", template_dir=tmp_path).text(count_event()) == "SECOND 6\n"
    assert old.text(count_event()) == "FIRST 6\n"


def host_game(tmp_path: Path, templates: dict[str, str]) -> Path:
    """The Russian sample day, with a folder of the host's markdown templates."""
    host = tmp_path / "tpl"
    (host / "markdown").mkdir(parents=True)
    for name, text in templates.items():
        (host / "markdown" / name).write_text(text, encoding="utf-8")
    game = tmp_path / "game.toml"
    sample = (SAMPLES / "mafia-day-ru.toml").read_text(encoding="utf-8")
    game.write_text(sample.replace("[game]\n", f'[game]\ntemplates = "{host}"\n', 1), encoding="utf-8")
    return game


@pytest.mark.parametrize("kind", ["vote_count", "modkill"])     # a kind the samples post, and one they never do
def test_check_config_refuses_the_escape(tmp_path, kind):
    game = host_game(tmp_path, {f"{kind}.j2": f"Votes\n{{{{ v.alive }}}}\n{ESCAPE}\n"})
    out = CliRunner().invoke(cli, ["check-config", str(game)])
    assert out.exit_code == 2, out.output
    assert f"{tmp_path / 'tpl' / 'markdown' / f'{kind}.j2'}:3: template {kind}.j2" in out.output, out.output
    assert "object" not in out.output.replace("'function object'", "")


def test_check_config_refuses_a_phrase_format_that_reads_an_attribute(tmp_path):
    game = host_game(tmp_path, {"day_end.j2": "Day over\n{{ '{0.__class__}'.format(e) }}\n"})
    out = CliRunner().invoke(cli, ["check-config", str(game)])
    assert out.exit_code == 2, out.output
    assert f"{tmp_path / 'tpl' / 'markdown' / 'day_end.j2'}:2: template day_end.j2 breaks out of the sandbox" \
        in out.output, out.output
