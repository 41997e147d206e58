"""Who each account is in each game: names that cannot be taken (a mask, a substitute, a new account),
host powers by account only. The sign-up game has a co-host, Cohost, whose name is as protected as the host's."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.config.game import load_scenario
from forumbot.engine.host import HostState, apply_host
from forumbot.engine.loading import GameRun, setup_of
from forumbot.engine.replay import replay
from forumbot.engine.timeline import play
from forumbot.model import Intent, Post
from forumbot.seating import name_taken, same_name

SIGNUP = """
[game]
name = "mafia"
ruleset = "bodysnatchers"
lang = "{lang}"
start = "2026-03-01T10:00:00Z"
phase = "signup"
host = "Host"
cohosts = ["Cohost"]

[game.options]
signup_hours = 72

[game.options.role_table]
"1" = "detective"
"2" = "maniac"

[[posts]]
at = "2026-03-01T10:10:00Z"
author = "bob"
pm = true
text = "hello"
{posts}
[run]
until = "{until}"
"""


def scenario(tmp_path: Path, posts: list[tuple[str, str, str]], lang: str = "en",
             until: str = "2026-03-01T12:00:00Z") -> Path:
    text = "".join(f'\n[[posts]]\nat = "{at}"\nauthor = "{author}"\npm = true\ntext = "{body}"\n'
                   for at, author, body in posts)
    path = tmp_path / "signup.toml"
    path.write_text(SIGNUP.format(lang=lang, posts=text, until=until), encoding="utf-8")
    return path



def pms(result):
    """The bot's private messages of a replay (the game thread's sign-up announcement left out)."""
    return [m for m in result.messages if m.get("pm")]


@pytest.mark.parametrize(("a", "b"), [
    ("Host", "host"), ("Host", "Hоst"), ("Host", "H o s t"), ("Host", "ho_st"), ("Host", "Ｈｏｓｔ"),
    ("Алёна", "Алена"), ("forumbot", "Forum Bot"), ("bob", "BОB"), ("Tom Hanks", "tomhanks"),
])
def test_lookalike_names_are_one_name(a, b):
    assert same_name(a, b)


@pytest.mark.parametrize(("a", "b"), [("Host", "Hosts"), ("bob", "bob2"), ("", ""), ("Tom Hanks", "Tom Hank")])
def test_different_names_are_not_one(a, b):
    assert not same_name(a, b)


def test_a_claimants_own_account_is_not_held_against_them():
    assert name_taken("bob", "bob", accounts=("bob",)) is None
    assert name_taken("Bob", "eve", accounts=("bob",)).code == "name_account"
    assert name_taken("Host", "eve", hosts=("Host",), accounts=("Host",)).code == "name_host"


@pytest.mark.parametrize(("mask", "code", "phrase"), [
    ("Hоst", "name_host", "the host's name"),            # a Cyrillic о
    ("BOB", "name_account", "the account bob"),           # bob wrote to the bot before
    ("forum bot", "name_bot", "the bot's name"),
])
def test_a_mask_held_by_someone_else_is_refused_with_a_reason(tmp_path, mask, code, phrase):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", f"sign up: 1, {mask}")]))
    to_eve = [m for m in result.messages if m.get("pm") == "eve"]
    assert len(to_eve) == 1 and phrase in to_eve[0]["text"]
    assert [m["pm"] for m in result.messages if m.get("pm") not in (None, "eve")] == ["bob"]   # bob's "hello"
    assert not result.state.get("signup")


def test_the_refusal_speaks_the_games_language(tmp_path):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", "Записываюсь: 1, Хост")], lang="ru"))
    # "Хост" (Cyrillic Х, о, с, т) is not "Host" to a reader of Russian; "Нost" with a Cyrillic Н is
    assert result.state["signup"]["eve"]["mask"] == "Хост"
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", "Записываюсь: 1, Нost")], lang="ru"))
    assert "имя ведущего" in next(m["text"] for m in result.messages if m.get("pm") == "eve")


def test_a_mask_that_looks_like_another_seated_account_is_refused(tmp_path):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "carol", "sign up: 1, Tom Hanks"),
                                        ("2026-03-01T10:31:00Z", "eve", "sign up: 2, Саrol")]))
    assert list(result.state["signup"]) == ["carol"]
    assert "looks like the account carol" in pms(result)[-1]["text"]


def test_an_account_that_wrote_only_after_the_signup_does_not_block_it(tmp_path):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", "sign up: 1, Dave"),
                                        ("2026-03-01T10:40:00Z", "dave", "hello")]))
    assert result.state["signup"]["eve"]["mask"] == "Dave"




def test_a_player_whose_mask_is_the_hosts_name_gets_no_host_power(tmp_path):
    config = load_scenario(scenario(tmp_path, [])).config
    run = GameRun.build(config)
    state = run.game.new(setup_of(config))
    start = state.phase_started
    state = state.with_(phase="night0", players=("Host", "Tom"), alive=("Host", "Tom"),
                        roles={"Host": "detective", "Tom": "maniac"}, masks={"Host": "eve", "Tom": "tom"},
                        phase_started=start, phase_ends=start + timedelta(hours=24))
    at = start + timedelta(hours=1)
    step = play(run, state, [Post("pm:1", "", "eve", at, "extend 48", pm=True)], at, "forumbot")
    assert step.state.phase_ends == state.phase_ends
    assert not [e for e, _ in step.events if e.kind == "host_notice"]
    assert any("host's name" in f.reason for f in step.flags)
    step = play(run, state, [Post("pm:2", "", "Host", at, "extend 48", pm=True)], at, "forumbot")
    assert step.state.phase_ends == state.phase_ends + timedelta(hours=48)


@pytest.mark.parametrize(("account", "why"), [
    ("Hоst", "host"), ("h_o_s_t", "host"), ("ANN", "seated"), ("B o b", "seated"),
])
def test_a_substitute_that_is_or_looks_like_the_host_or_a_seat_is_refused(tmp_path, account, why):
    config = replace(load_scenario(scenario(tmp_path, [])).config)
    run = GameRun.build(config)
    state = run.game.new(setup_of(config))
    intent = Intent("host_replace", {"target": "Bob", "account": account}, author="Host", at=state.phase_started)
    _, host, events = apply_host(run.game, state, HostState(), intent, "Host", ("Ann", "Bob"))
    assert host == HostState()
    assert events[0].data["code"] == "host_replace_taken" and events[0].data["params"]["taken"] == why


def test_a_new_account_name_that_looks_like_the_bot_or_another_account_is_refused(tmp_path):
    from forumbot.errors import ConfigError
    from forumbot.web.accounts import Accounts

    accounts = Accounts(tmp_path / "forum.db")
    accounts.add_user("bob", password="first password")
    for name, reserved in (("BОB", ()), ("b_o_b", ()), ("Forum Bot", ("forumbot",)), ("hоst", ("forumbot", "Host"))):
        with pytest.raises(ConfigError):
            accounts.add_user(name, reserved=reserved)
    assert accounts.names() == ["bob"]
    accounts.add_user("bob", password="second password")   # the same account: a new password
    assert accounts.verify("bob", "second password")


def test_an_account_named_like_a_mask_taken_before_it_wrote_is_refused_and_no_pm_goes_astray(tmp_path):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", "sign up: 1, Dan"),
                                        ("2026-03-01T10:40:00Z", "dan", "sign up: 2, Tom Hanks")]))
    assert list(result.state["signup"]) == ["eve"]
    assert "looks like the mask Dan" in [m for m in pms(result) if m["pm"] == "dan"][0]["text"]


# ---- a co-host's name is as protected as the host's ------------------------------------------------------
@pytest.mark.parametrize(("lang", "signing", "words"), [("en", "sign up", "the host's name"),
                                                        ("ru", "Записываюсь", "имя ведущего")])
@pytest.mark.parametrize("mask", ["Cohost", "COHOST", "Со host", "co_host", "Ｃｏｈｏｓｔ"])
def test_a_mask_that_is_or_looks_like_a_cohost_is_refused(tmp_path, lang, signing, words, mask):
    result = replay(scenario(tmp_path, [("2026-03-01T10:30:00Z", "eve", f"{signing}: 1, {mask}")], lang=lang))
    to_eve = [m for m in result.messages if m.get("pm") == "eve"]
    assert len(to_eve) == 1 and words in to_eve[0]["text"], to_eve
    assert not result.state.get("signup")


@pytest.mark.parametrize(("lang", "words"), [("en", "a co-host of the game"), ("ru", "соведущий игры")])
@pytest.mark.parametrize("account", ["Cohost", "cо-host", "C O H O S T"])
def test_a_substitute_or_spectator_that_is_or_looks_like_a_cohost_is_refused(tmp_path, lang, words, account):
    config = load_scenario(scenario(tmp_path, [], lang=lang)).config
    run = GameRun.build(config)
    state = run.game.new(setup_of(config))
    intent = Intent("host_replace", {"target": "Bob", "account": account}, author="Host", at=state.phase_started)
    _, host, events = apply_host(run.game, state, HostState(), intent, "Host", ("Ann", "Bob"), ("Cohost",))
    assert host == HostState() and events[0].data["params"]["taken"] == "cohost"
    assert words in run.renderer.text(events[0], run.name)
    intent = Intent("host_spectate", {"account": account}, author="Host", at=state.phase_started)
    _, host, events = apply_host(run.game, state, HostState(), intent, "Host", ("Ann", "Bob"), ("Cohost",))
    assert host == HostState() and events[0].data["code"] == "host_spectate_taken"


@pytest.mark.parametrize(("author", "moves"), [("Cohost", True), ("Cоhost", False), ("co_host", False)])
def test_host_powers_come_from_the_cohosts_account_only(tmp_path, author, moves):
    config = load_scenario(scenario(tmp_path, [])).config
    run = GameRun.build(config)
    state = run.game.new(setup_of(config))
    at = state.phase_started + timedelta(hours=1)
    step = play(run, state, [Post("pm:1", "", author, at, "extend 48", pm=True)], at, "forumbot")
    assert (step.state.phase_ends == state.phase_ends + timedelta(hours=48)) is moves, author
    if not moves:
        assert step.state.phase_ends == state.phase_ends


def test_a_new_web_account_named_like_a_cohost_is_refused(tmp_path):
    from click.testing import CliRunner

    from forumbot.cli import cli
    (tmp_path / "g.toml").write_text(
        '[game]\nname = "mafia"\nruleset = "classic"\nstart = "2026-03-01T20:00:00Z"\nhost = "Host"\n'
        'cohosts = ["Cohost"]\n' + "".join(f'[[players]]\nname = "{p}"\nrole = "{r}"\n' for p, r in
                                          (("Ann", "mafia"), ("Bob", "townsfolk"), ("Cid", "townsfolk"))),
        encoding="utf-8")
    bot = tmp_path / "bot.toml"
    bot.write_text('[bot]\nstore = "bot.db"\n[platforms.local]\nkind = "local"\npath = "forum.db"\n'
                   '[[games]]\nconfig = "g.toml"\n[web]\nlisten = "127.0.0.1:8098"\n', encoding="utf-8")
    for name in ("Cоhost", "co host"):
        refused = CliRunner().invoke(cli, ["forum", "add-user", "--config", str(bot), name])
        assert refused.exit_code != 0 and "a host's" in refused.output + refused.stderr, name
    made = CliRunner().invoke(cli, ["forum", "add-user", "--config", str(bot), "Cohost"])
    assert made.exit_code == 0, made.output   # the co-host's own account


@pytest.mark.parametrize(("lang", "account", "words"), [
    ("en", "Forum Bot", "that is the bot"), ("ru", "forumbоt", "это бот"),
    ("en", "B0B", None), ("en", "BОB", "looks like another account"), ("ru", "b_o_b", "похоже на другой аккаунт"),
    ("en", "bob", None),                                   # bob himself may take the seat
])
def test_a_substitute_named_like_the_bot_or_another_account_is_refused(tmp_path, lang, account, words):
    """bob wrote on the platform before the host's `replace`; a substitute named like bob (not bob himself) or
    like the bot is refused, in the game's language, and the seat stays as it was."""
    from datetime import UTC, datetime

    from forumbot.config.game import GameConfig
    from forumbot.model import PlayerRef
    config = GameConfig(name="g", game="mafia", lang=lang, start=datetime(2026, 3, 1, 10, tzinfo=UTC), host="Host",
                        phase="day1", players=tuple(PlayerRef(n) for n in ("Ann", "Tom", "Cid")),
                        options={"day_hours": 24})
    run = GameRun.build(config)
    state = run.game.new(setup_of(config))
    at = state.phase_started + timedelta(hours=1)
    step = play(run, state, [Post("pm:1", "", "Host", at, f"replace Tom with {account}", pm=True)], at, "forumbot",
                accounts_before=lambda _at: ["bob", "Ann", "Host"])
    told = [run.renderer.text(e, run.name) for e, _ in step.events if e.data.get("pm_to") == "Host"]
    if words is None:
        assert dict(step.host.accounts) == {account: "Tom"}, told
    else:
        assert any(words in t for t in told), told
        assert step.host.accounts == {}
