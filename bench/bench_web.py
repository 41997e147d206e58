"""The web forum under `forumbot run` (bot and web server in one process, as deployed): page times of a
2,000-post thread (paged) and of the inbox, then players posting votes at once: posts/s accepted, p95
latency, and whether the bot's polls kept up (missed polls, post → vote count delay).

Run:  .venv/bin/python bench/bench_web.py [--players 12] [--seconds 8] [--posts 2000]
"""

from __future__ import annotations

import argparse
import http.cookiejar
import random
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

from forumbot.model import format_time
from forumbot.platforms.local import LocalForum
from forumbot.text.decline import counted
from forumbot.web.accounts import Accounts

PLAYERS = [f"Player{i:02d}" for i in range(1, 13)]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):   # type: ignore[no-untyped-def]
        return None


def client(base: str, name: str, password: str) -> tuple[urllib.request.OpenerDirector, str]:
    """A signed-in opener (its own cookies) and its CSRF token."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                         NoRedirect())
    token = re.search(r'name="csrf" value="([^"]+)"', opener.open(base + "/signin").read().decode()).group(1)
    data = urllib.parse.urlencode({"name": name, "password": password, "csrf": token}).encode()
    try:
        opener.open(base + "/signin", data)
    except urllib.error.HTTPError as err:
        assert err.code == 302, err.code
    page = opener.open(base + "/t/bench/votes").read().decode()
    return opener, re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def timed(opener: urllib.request.OpenerDirector, url: str, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        opener.open(url).read()
        times.append(time.perf_counter() - begin)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--posts", type=int, default=2000)
    parser.add_argument("--think", type=float, default=0.0, help="seconds each player waits between posts")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="forumbot-bench-web-"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = datetime.now(UTC) - timedelta(minutes=1)
    (folder / "bench.toml").write_text(f'[game]\nname = "mafia"\nlang = "en"\nstart = "{format_time(start)}"\n'
                                       '[game.options]\nvotes_only = true\n'
                                       + "".join(f'[[players]]\nname = "{p}"\n' for p in PLAYERS))
    (folder / "bot.toml").write_text(f'[bot]\nstore = "bot.db"\nlog_level = "warning"\n[platforms.local]\n'
                                     f'kind = "local"\npath = "forum.db"\npoll_seconds = 1\n'
                                     f'[[games]]\nconfig = "bench.toml"\n[web]\nlisten = "127.0.0.1:{port}"\n'
                                     'posts_per_minute = 0\n')   # players post as fast as they can
    forum = LocalForum(folder / "forum.db")
    with forum.db.atomic():
        for n in range(args.posts):
            forum.db.execute("INSERT OR IGNORE INTO forum_threads VALUES ('bench/game', 'bench: game', ?)",
                             [format_time(start)])
            forum.db.execute("INSERT INTO forum_posts (thread, author, body, created) VALUES (?, ?, ?, ?)",
                             ["bench/game", PLAYERS[n % 12], f"**Post {n}**: some talk, [a link](https://example.org)"
                              " and a quote\n\n> earlier words", format_time(start)])
        for n in range(300):
            forum.db.execute("INSERT INTO forum_pms (sender, recipient, subject, body, created, read) "
                             "VALUES (?, ?, '', ?, ?, 1)", ["forumbot" if n % 2 else PLAYERS[0],
                                                            PLAYERS[0] if n % 2 else "forumbot", f"PM {n}",
                                                            format_time(start)])
    passwords = {p: Accounts(folder / "forum.db").add_user(p, password=f"pw-{p}") for p in PLAYERS}
    log_file = (folder / "bot.log").open("w")   # a file, not a pipe: a full pipe would block the bot's logging
    bot = subprocess.Popen([sys.executable, "-m", "forumbot", "run", "--config", str(folder / "bot.toml")],
                           stdout=subprocess.DEVNULL, stderr=log_file)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        reader, _ = client(base, PLAYERS[0], passwords[PLAYERS[0]])
        pages = -(-args.posts // 50)
        for label, url in [("thread page 1", "/t/bench/game"), (f"thread page {pages}",
                                                                f"/t/bench/game?page={pages}"),
                           ("inbox", "/pm/"), ("conversation of 300 PMs", "/pm/forumbot")]:
            median, p95 = timed(reader, base + url, 40)
            print(f"{label:28s} median {median:6.1f} ms   p95 {p95:6.1f} ms   ({args.posts} posts in the thread)")

        latencies: list[float] = []
        accepted = [0]
        lock = threading.Lock()
        signed = [client(base, PLAYERS[i % 12], passwords[PLAYERS[i % 12]]) for i in range(args.players)]
        stop_at = time.perf_counter() + args.seconds

        def player(number: int) -> None:
            opener, token = signed[number]
            rng = random.Random(number)
            while time.perf_counter() < stop_at:
                data = urllib.parse.urlencode({"thread": "bench/votes", "csrf": token,
                                               "body": f"vote {rng.choice(PLAYERS)}"}).encode()
                begin, ok = time.perf_counter(), False
                try:
                    opener.open(base + "/reply", data)
                except urllib.error.HTTPError as err:
                    ok = err.code == 302
                with lock:
                    latencies.append(time.perf_counter() - begin)
                    accepted[0] += ok
                time.sleep(args.think)

        threads = [threading.Thread(target=player, args=(i,)) for i in range(args.players)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - began
        last_post = forum.db.execute("SELECT max(id) FROM forum_posts WHERE author != 'forumbot'").fetchone()[0]
        posted_at = time.perf_counter()
        delay = None
        store = sqlite3.connect(folder / "bot.db", timeout=30)
        while time.perf_counter() - posted_at < 20:
            # the bot has read every vote once it has processed the last one (a post with an intent is
            # marked read by its intents, one without by a row in `processed`: storage/steps.py)
            if store.execute("SELECT 1 FROM processed WHERE post = ?1 UNION ALL SELECT 1 FROM intents WHERE post = ?1",
                             [f"local:{last_post}"]).fetchone():
                delay = time.perf_counter() - posted_at
                break
            time.sleep(0.05)
        latencies.sort()
        print(f"{args.players} players posting (think time {args.think:g} s) for {elapsed:.1f} s: "
              f"{accepted[0] / elapsed:.0f} posts/s accepted, "
              f"latency median {statistics.median(latencies) * 1000:.0f} ms, "
              f"p95 {latencies[int(len(latencies) * 0.95) - 1] * 1000:.0f} ms")
        print(f"bot: every vote read {delay:.2f} s after the last one (poll every 1 s)" if delay is not None
              else "bot: the last vote not read within 20 s (still reading the backlog)")
    finally:
        bot.terminate()
        try:
            bot.wait(timeout=10)
        except subprocess.TimeoutExpired:
            bot.kill()
            bot.wait()
        log_file.close()
    log = (folder / "bot.log").read_text()
    shutil.rmtree(folder)
    missed = log.count("skipped: maximum number of running instances")
    print(f"bot: {counted(missed, 'poll/polls')} skipped because the previous one was still running")


if __name__ == "__main__":
    main()
