"""Where an audited thread's posts come from: a local export (a scenario TOML), a local forum's thread, a
phpBB topic read as a guest, a Discourse topic (as a guest, or with the bot's API key), or a Reddit submission
read with the bot's credentials. Threads read from a
forum are cached (the posts and the platform's cursor, as JSON), so a second audit of the same thread reads
only the new pages."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forumbot.config.game import load_scenario
from forumbot.errors import ConfigError
from forumbot.model import PlayerRef, Post, format_time, parse_time
from forumbot.platforms.base import Platform


@dataclass
class Thread:
    posts: list[Post]
    dialect: str
    host: str | None = None
    players: list[PlayerRef] | None = None
    lang: str = "en"
    reading: str | None = None
    phase: str = "day1"
    dead: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)


def from_scenario(path: str) -> Thread:
    """A scenario's thread posts (PMs left out) with its roster, host, language and reading. Posts are
    numbered in file order (`post 1`, ...)."""
    scenario = load_scenario(path)
    config = scenario.config
    posts = [Post(platform_id=f"post {n}", thread=p.thread or "votes", author=p.author, created=p.at, body=p.text,
                  dialect=config.dialect) for n, p in enumerate(scenario.posts, 1) if not p.pm]
    return Thread(posts, config.dialect, config.host, list(config.players), config.lang, config.reading,
                  config.phase or "day1", config.dead)


def _post_json(post: Post) -> dict[str, Any]:
    return {"id": post.platform_id, "author": post.author, "at": format_time(post.created), "body": post.body,
            "url": post.url}


def _post_from(item: dict[str, Any], dialect: str) -> Post:
    return Post(platform_id=item["id"], thread="votes", author=item["author"], created=parse_time(item["at"]),
                body=item["body"], dialect=dialect, url=item.get("url", ""))


def read_cached(platform: Platform, thread: str, cache_dir: Path | None, key: str) -> list[Post]:
    """Every post of `thread`: those cached under `key` and the ones the platform has since."""
    file = cache_dir / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json") if cache_dir else None
    kept: dict[str, Any] = {"cursor": None, "posts": []}
    posts: dict[str, Post] = {}
    if file is not None and file.exists():
        try:     # a cache that is no longer the bot's shape (truncated, edited by hand) is read again from scratch
            kept = json.loads(file.read_text(encoding="utf-8"))
            posts = {p["id"]: _post_from(p, platform.dialect) for p in kept.get("posts", [])}
            if not isinstance(kept.get("cursor"), str | None):
                raise TypeError("a cursor is text")
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            kept, posts = {"cursor": None, "posts": []}, {}
    fresh, cursor = platform.fetch_posts([thread], kept.get("cursor"))
    for post in fresh:
        posts[post.platform_id] = post
    ordered = sorted(posts.values(), key=lambda p: p.created)
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps({"key": key, "cursor": cursor, "posts": [_post_json(p) for p in ordered]}),
                        encoding="utf-8")
    return ordered


def _check_local_forum(path: Path) -> None:
    """Raises ConfigError unless `path` is a forumbot local forum, looked at read-only: opening another SQLite
    file as a forum would switch it to WAL and add the forum's tables to it."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise ConfigError(f"{path} is not a SQLite file ({err})", fix="give FORUM.db#THREAD of a forumbot local "
                                                                      "forum") from None
    if not {"forum_posts", "forum_threads"} <= tables:
        raise ConfigError(f"{path} is not a forumbot local forum (it has no forum_posts table); it was left as it "
                          "is", fix="give FORUM.db#THREAD of a forumbot local forum")


def from_url(url: str, *, cache_dir: Path | None = None, reddit: Platform | None = None,
             min_interval: float = 1.0, local_dialect: str = "markdown", discourse: Platform | None = None) -> Thread:
    """A thread on a forum: a phpBB topic URL (read as a guest), a Reddit submission (read through
    `reddit`, a platform built with the bot's credentials), a Discourse topic URL (`/t/slug/123`, read with
    `discourse`'s key when given, else as a guest), a local forum's thread (`forum.db#THREAD`, its
    posts marked up in `local_dialect`) or a local export (a scenario .toml)."""
    if "viewtopic.php" in url:
        from forumbot.platforms.phpbb import guest_reader

        board, topic = guest_reader(url, min_interval=min_interval)
        return Thread(read_cached(board, topic, cache_dir, url), board.dialect)
    if "reddit.com" in url or "redd.it" in url or url.startswith("t3_"):
        if reddit is None:
            raise ConfigError("reading Reddit needs the bot's credentials",
                              fix="give --config BOT.toml with a [platforms.NAME] of kind = \"reddit\"")
        return Thread(read_cached(reddit, url, cache_dir, url), reddit.dialect)
    if url.startswith(("http://", "https://")) and "/t/" in url:
        from forumbot.platforms.discourse import reader, topic_id

        if discourse is not None:
            discourse.notifications = False     # type: ignore[attr-defined]  # (read the topic itself, every time)
            return Thread(read_cached(discourse, str(topic_id(url)), cache_dir, url), discourse.dialect)
        site, topic = reader(url, requests_per_minute=60 / min_interval if min_interval > 0 else 0)
        return Thread(read_cached(site, topic, cache_dir, url), site.dialect)
    if url.endswith(".toml"):
        return from_scenario(url)
    path, hash_, thread = url.partition("#")
    if hash_ and thread and Path(path).is_file():
        from forumbot.platforms.local import LocalForum

        _check_local_forum(Path(path))
        forum = LocalForum(path, dialect=local_dialect)
        return Thread(read_cached(forum, thread, None, url), forum.dialect)
    raise ConfigError(f"'{url}' is no thread audit can read",
                      fix="give a phpBB viewtopic URL, a Reddit submission URL, a Discourse topic URL, "
                          "FORUM.db#THREAD or a scenario "
                          ".toml export")
