"""Idle connections from one client against the web forum: how many it takes to delay a page (asked from
another address) by more than a second, with waitress's defaults (100 connections in all, 120 s idle) and as
forumbot serves (web/server.py: a cap per client, more in all, 20 s idle). Loopback only: the server listens
on 127.0.0.1, the flood comes from 127.0.0.2 and the page is asked from 127.0.0.1; at most --most
connections, opened --step at a time, and --seconds in all for each server.

Run:  .venv/bin/python bench/bench_web_flood.py [--most 400] [--step 10] [--seconds 60]
"""

from __future__ import annotations

import argparse
import http.client
import resource
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from forumbot.platforms.local import LocalForum
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings
from forumbot.web.server import PER_CLIENT, WebServer

GAME = WebGame("g", {"votes": "g/votes"}, "Host", ("Alice", "Bob"))


def page_seconds(port: int, limit: float = 1.0) -> float | None:
    """Seconds to fetch the votes thread from 127.0.0.1, or None when it took longer than `limit`."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)
    try:
        conn.request("GET", "/t/g/votes")
        conn.getresponse().read()
    except OSError:
        return None
    finally:
        conn.close()
    spent = time.perf_counter() - start
    return spent if spent <= limit else None


def flood(port: int, most: int, step: int, seconds: float) -> tuple[int | None, int]:
    """Open idle connections from 127.0.0.2, `step` at a time, asking for the page after each step: the
    number open when the page was first delayed (None: never), and how many were opened."""
    sockets: list[socket.socket] = []
    until = time.monotonic() + seconds
    try:
        while len(sockets) < most and time.monotonic() < until:
            for _ in range(step):
                sock = socket.socket()
                sock.bind(("127.0.0.2", 0))
                sock.settimeout(5)
                try:
                    sock.connect(("127.0.0.1", port))
                except OSError:
                    sock.close()
                    continue
                sockets.append(sock)
            if page_seconds(port) is None:
                return len(sockets), len(sockets)
        return None, len(sockets)
    finally:
        for sock in sockets:
            sock.close()


def serve(settings: WebSettings, defaults: bool) -> Any:
    """A waitress server on 127.0.0.1 in a daemon thread: with waitress's defaults, or forumbot's WebServer."""
    if defaults:
        from waitress.server import create_server

        server = create_server(create_app(settings), host="127.0.0.1", port=0, threads=8)
        threading.Thread(target=server.run, daemon=True).start()
        return server
    return WebServer(settings).start().server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--most", type=int, default=400, help="connections at most (default 400)")
    parser.add_argument("--step", type=int, default=10, help="connections opened between two page requests")
    parser.add_argument("--seconds", type=float, default=60, help="time for each server at most")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * args.most + 256)), hard))
    folder = Path(tempfile.mkdtemp(prefix="forumbot-flood-"))
    forum = LocalForum(folder / "forum.db")
    for n in range(50):
        forum.add_post("g/votes", "Alice", f"post {n}")
    settings = WebSettings(str(folder / "forum.db"), WebConfig(port=0), games=(GAME,))
    print(f"idle connections from one client (127.0.0.2), up to {args.most}, {args.step} at a time; "
          "a page from 127.0.0.1 after each step")
    for label, defaults in (("waitress defaults", True), (f"forumbot (cap {PER_CLIENT} a client)", False)):
        server = serve(settings, defaults)
        port = int(server.effective_port)
        base = page_seconds(port, 10.0)
        delayed, opened = flood(port, args.most, args.step, args.seconds)
        answer = f"delayed (> 1 s) at {delayed} connections" if delayed else f"never delayed ({opened} opened)"
        print(f"  {label:32} page alone {1000 * (base or 0):6.1f} ms; {answer}")
        server.close()


if __name__ == "__main__":
    main()
