"""A page of 50 worst-case posts (20 KB of `[` each, posted through the web forum) against a page of 50
ordinary posts: the time of the posts (each rendered once, when written), of the page's first view and of
its next views. Printed, not asserted. Through Flask's test client: no network.

Run:  .venv/bin/python bench/bench_web_render.py [--views 20]
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from forumbot.platforms.local import LocalForum
from forumbot.web.accounts import Accounts
from forumbot.web.app import create_app
from forumbot.web.config import WebConfig, WebGame, WebSettings

GAME = WebGame("g", {"hostile": "g/hostile", "ordinary": "g/ordinary"}, "Host", ("Alice",))
WORST = "[" * 20_000
ORDINARY = ("Vote: **Bob**. He was *far* too quiet yesterday, and his claim does not add up; "
            "see [my post](/p/1) and the count.\n\n> quoted line\n\nUnvote later if he explains.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", type=int, default=20, help="views of each page after the first")
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="forumbot-render-")) / "forum.db"
    forum = LocalForum(path)
    for key in GAME.threads.values():
        forum.ensure_thread(key)
    password = Accounts(path).add_user("Alice")
    app = create_app(WebSettings(str(path), WebConfig(per_page=50, posts_per_minute=0), games=(GAME,)))
    client = app.test_client()
    form = client.get("/signin").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)
    client.post("/signin", data={"name": "Alice", "password": password, "csrf": csrf})
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/t/g/hostile").get_data(as_text=True)).group(1)
    print("50 posts a page, each body distinct; times in ms")
    for label, thread, body in (("ordinary", "g/ordinary", ORDINARY), ("worst (20 KB of [)", "g/hostile", WORST)):
        start = time.perf_counter()
        for n in range(50):
            client.post("/reply", data={"thread": thread, "body": f"{body[:-len(str(n))]}{n}", "csrf": csrf})
        posting = (time.perf_counter() - start) * 1000 / 50
        reader = app.test_client()
        start = time.perf_counter()
        assert reader.get(f"/t/{thread}").status_code == 200
        first = (time.perf_counter() - start) * 1000
        views = []
        for _ in range(args.views):
            start = time.perf_counter()
            reader.get(f"/t/{thread}")
            views.append((time.perf_counter() - start) * 1000)
        print(f"  {label:20} a post {posting:7.1f}   first view {first:6.1f}   next views median "
              f"{statistics.median(views):6.1f}  max {max(views):6.1f}")


if __name__ == "__main__":
    main()
