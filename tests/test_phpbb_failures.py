"""Failures on a phpBB board are failures: a disabled board, a locked game topic, a refused sign-in (a wrong
password, the CAPTCHA phpBB wants after too many) fail the poll, so no deadline fires and the last good poll
stays; a sign-in refused for good is not tried again; answers are read within a whole-answer timeout and a
size cap; redirects and forms go only to the board's own host."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fakephpbb import FakePhpbb
from fakephpbb.recorded import SHARED, recorded_board
from test_phpbb_e2e import IDS, START, board_on, game_run

from forumbot.engine.cycle import Runner
from forumbot.engine.replay import VirtualClock
from forumbot.errors import PlatformError
from forumbot.platforms.phpbb import PhpbbPlatform
from forumbot.platforms.phpbb_http import PhpbbSession
from forumbot.storage import Store

pytestmark = pytest.mark.skipif(not SHARED.exists(), reason="the phpBB recordings are not here")


@pytest.fixture()
def fake():
    with FakePhpbb(recorded_board(form_min_age=0)) as server:
        yield server


def bot(fake: FakePhpbb, password: str = "bot-pass-1234", **kw: object) -> PhpbbPlatform:
    options = {"min_interval": 0, "form_wait": 0, "sleep": lambda _s: None, "forum": 3, **kw}
    return PhpbbPlatform(fake.url, "forumbot", lambda: password, **options)  # type: ignore[arg-type]


def posts_to_login(fake: FakePhpbb) -> int:
    return sum(1 for method, path in fake.board.requests if method == "POST" and "mode=login" in path)


# ---- the adapter ----------------------------------------------------------------------------------------
def test_a_disabled_board_is_a_retryable_failure(fake):
    platform = bot(fake)
    _, cursor = platform.fetch_posts(["3"], None)
    fake.board.disabled = True
    with pytest.raises(PlatformError, match="board is disabled.*no deadline fires") as err:
        platform.fetch_posts(["3"], cursor)
    assert err.value.retryable
    with pytest.raises(PlatformError, match="disabled"):
        platform.fetch_pms()
    fake.board.disabled = False
    assert platform.fetch_posts(["3"], cursor)[0] == []


def test_a_locked_game_topic_fails_the_read(fake):
    platform = bot(fake)
    _, cursor = platform.fetch_posts(["3"], None)
    fake.board.topics[3].locked = True
    with pytest.raises(PlatformError, match="topic 3 is locked.*moderator must unlock") as err:
        platform.fetch_posts(["3"], cursor)                 # the forum's list says so
    assert not err.value.retryable                          # the bot cannot fix it: the host is flagged
    with pytest.raises(PlatformError, match="topic 3 is locked"):
        bot(fake).fetch_posts(["3"], None)                  # and so does the topic's page
    fake.board.topics[3].locked = False
    assert platform.fetch_posts(["3"], cursor)[0] == []


def test_a_wrong_password_is_tried_once_until_a_restart(fake):
    platform = bot(fake, password="wrong")
    for _ in range(3):
        with pytest.raises(PlatformError, match="incorrect password.*restart") as err:
            platform.fetch_posts(["3"], None)
        assert not err.value.retryable
    assert posts_to_login(fake) == 1 and fake.board.users[62].login_attempts == 1


def test_the_captcha_after_too_many_failures_names_what_the_admin_must_do(fake):
    fake.board.users[62].login_attempts = 3                  # three failures before: phpBB wants a CAPTCHA
    platform = bot(fake)                                      # even with the right password
    with pytest.raises(PlatformError, match="CAPTCHA.*board admin must reset") as err:
        platform.fetch_posts(["3"], None)
    assert not err.value.retryable
    with pytest.raises(PlatformError, match="CAPTCHA"):
        platform.send_pm("Alice", "", "hello")
    assert posts_to_login(fake) == 1
    fake.board.users[62].login_attempts = 0                  # the admin reset them; the bot is restarted
    assert bot(fake).fetch_posts(["3"], None)[0]


def test_a_redirect_to_another_host_is_not_followed_and_gets_no_password(fake):
    platform = bot(fake)
    fake.board.fail("GET /ucp.php?mode=login", "redirect_away")
    with pytest.raises(PlatformError, match="another address"):
        platform.fetch_posts(["3"], None)
    assert posts_to_login(fake) == 0


# ---- whole answers ----------------------------------------------------------------------------------------
@pytest.fixture()
def slow_server() -> Iterator[tuple[str, dict[str, object]]]:
    """A server on 127.0.0.1 whose answer is `body` sent `step` bytes every `pause` seconds (its headers too,
    a byte at a time, when `slow_head` is set)."""
    plan: dict[str, object] = {"body": b"", "step": 1, "pause": 0.3, "slow_head": False}
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                body = plan["body"]
                assert isinstance(body, bytes)
                head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n"
                        + f"Content-Length: {len(body)}\r\n\r\n".encode())
                step, pause = int(plan["step"]), float(plan["pause"])     # type: ignore[arg-type]
                try:
                    if plan["slow_head"]:
                        body, head = head + body, b""
                    conn.sendall(head)
                    for at in range(0, len(body), step):
                        if done.is_set():
                            break
                        conn.sendall(body[at:at + step])
                        time.sleep(pause)
                except OSError:
                    pass
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/", plan
    done.set()
    thread.join()
    listener.close()


def test_a_board_that_trickles_its_answer_fails_within_the_timeout(slow_server):
    url, plan = slow_server
    plan["body"] = b"<html>" + b"x" * 200 + b"</html>"       # 60 s at one byte every 0.3 s
    session = PhpbbSession(url, "forumbot", lambda: "pw", timeout=1, retries=1, min_interval=0)
    with pytest.raises(PlatformError, match="did not answer in 1s") as err:
        session.get("viewtopic.php?t=1", what="reading topic 1", login=False)
    assert err.value.retryable


def test_a_board_that_trickles_its_headers_fails_within_the_timeout(slow_server):
    """requests' own timeout is per read: headers sent a byte every 0.3 s would hold the bot for ever."""
    url, plan = slow_server
    plan.update(body=b"<html></html>", slow_head=True)        # headers alone: 25 s at one byte every 0.3 s
    session = PhpbbSession(url, "forumbot", lambda: "pw", timeout=1, retries=1, min_interval=0)
    started = time.monotonic()
    with pytest.raises(PlatformError, match="did not answer in 1s") as err:
        session.get("viewtopic.php?t=1", what="reading topic 1", login=False)
    assert err.value.retryable and time.monotonic() - started < 10   # (not the 25 s of the headers)


def test_stop_ends_a_board_trickling_its_headers(slow_server):
    url, plan = slow_server
    plan.update(body=b"<html></html>", slow_head=True)
    session = PhpbbSession(url, "forumbot", lambda: "pw", timeout=60, retries=1, min_interval=0)
    threading.Timer(0.5, session.stop).start()            # SIGTERM, as the service passes it on
    started = time.monotonic()
    with pytest.raises(PlatformError, match="stopping"):
        session.get("viewtopic.php?t=1", what="reading topic 1", login=False)
    assert time.monotonic() - started < 5                  # a run ends within 5 s of SIGTERM, not in 25 s


def test_an_answer_over_the_size_cap_is_refused(slow_server):
    url, plan = slow_server
    plan.update(body=b"<html>" + b"x" * 300_000 + b"</html>", step=65536, pause=0)
    session = PhpbbSession(url, "forumbot", lambda: "pw", retries=1, min_interval=0, max_bytes=100_000)
    with pytest.raises(PlatformError, match="more than 100000 bytes"):
        session.get("viewtopic.php?t=1", what="reading topic 1", login=False)


# ---- the runner: no deadline fires on a failure -------------------------------------------------------------
@pytest.mark.parametrize("failure", ["disabled", "locked"])
def test_no_deadline_fires_while_the_board_fails(tmp_path: Path, failure: str) -> None:
    clock = VirtualClock(START)
    board, votes, game = board_on(clock)
    with FakePhpbb(board) as server:
        run = game_run(tmp_path, votes, game)
        platform = bot(server, password="pw", clock=clock)
        runner = Runner(Store(tmp_path / "bot.db"), platform, [run])
        runner.start(START)
        clock.now = START + timedelta(minutes=10)
        board.add_post(votes.id, IDS["Alice"], "[b]vote Dave[/b]", at=clock.now.timestamp())
        assert not runner.step(clock.now).errors
        if failure == "disabled":
            board.disabled = True
        else:
            board.topics[votes.id].locked = True
        clock.now = START + timedelta(hours=2, minutes=5)        # past the day's deadline
        result = runner.step(clock.now)
        assert result.errors and failure in str(result.errors[0])
        assert run.game.summary(runner.state(run))["phase"] == "day1"
        flags = [f["reason"] for f in runner.store.flags("g")]
        if failure == "locked":                                  # the host is told, once
            runner.step(clock.now + timedelta(minutes=1))
            assert [f["reason"] for f in runner.store.flags("g") if "locked" in f["reason"]] == \
                [r for r in flags if "locked" in r] and len([r for r in flags if "locked" in r]) == 1
        board.disabled = False
        board.topics[votes.id].locked = False
        clock.now += timedelta(minutes=5)
        assert not runner.step(clock.now).errors
        assert run.game.summary(runner.state(run))["phase"] == "night1"


def test_stop_ends_a_trickling_answer_and_the_waits(slow_server):
    url, plan = slow_server
    plan["body"] = b"<html>" + b"x" * 200 + b"</html>"       # 60 s at one byte every 0.3 s
    platform = PhpbbPlatform(url, "forumbot", lambda: "pw", min_interval=0, guest=True)
    threading.Timer(0.5, platform.stop).start()            # SIGTERM, as the service passes it on
    with pytest.raises(PlatformError, match="stopping") as err:
        platform.fetch_posts(["1"], None)
    assert err.value.retryable
    with pytest.raises(PlatformError, match="stopping"):
        platform.http.sleep(60)                           # a backoff or a form's wait ends too


def test_a_refused_sign_in_is_flagged_to_the_host_once(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    board, votes, game = board_on(clock)
    board.users[62].login_attempts = 3                           # phpBB wants a CAPTCHA now
    with FakePhpbb(board) as server:
        run = game_run(tmp_path, votes, game)
        runner = Runner(Store(tmp_path / "bot.db"), bot(server, password="pw", clock=clock), [run])
        runner.start(START)
        for minutes in (5, 10):
            clock.now = START + timedelta(minutes=minutes)
            assert runner.step(clock.now).errors
        flags = [f["reason"] for f in runner.store.flags("g")]
        assert len(flags) == 1 and "CAPTCHA" in flags[0] and "board admin must reset" in flags[0], flags
        assert posts_to_login(server) == 1
