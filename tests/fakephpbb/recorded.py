"""The recorded board (../shared/phpbb) as a fake Board: its users, forums and setup posts, so the fake's pages
can be compared with the recordings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .state import Board

# shared/ lies beside the repository (in CI too); FORUMBOT_PHPBB_RECORDINGS points elsewhere
SHARED = Path(os.environ.get("FORUMBOT_PHPBB_RECORDINGS",
                             Path(__file__).resolve().parents[3] / "shared" / "phpbb"))
USERS = {61: ("Host", "host-pass-1234", "#00AA00"), 62: ("forumbot", "bot-pass-1234", ""), 63: ("Том Хэнкс", "", ""),
         64: ("Мэрил Стрип", "", ""), 65: ("Alice", "", ""), 66: ("Bob Stone", "", ""), 67: ("Carol_K", "", ""),
         68: ("Dave", "", "")}


def recorded_page(name: str, folder: str = "pages") -> str:
    """A recorded body by its exchange name ("bot_topic_start0"); folder "pages-2" for the second recording."""
    found = sorted((SHARED / folder).glob(f"[0-9][0-9][0-9]-{name}.*"))
    return found[0].read_text(encoding="utf-8")


def recorded_exchange(name: str, file: str = "exchanges-2.jsonl") -> dict[str, Any]:
    """One recorded exchange (method, url, form, status...) by its name."""
    for line in (SHARED / file).read_text(encoding="utf-8").splitlines():
        exchange = json.loads(line)
        if exchange["name"] == name:
            return exchange                                      # type: ignore[no-any-return]
    raise KeyError(name)


# The second recording's board (another board: other ids), before the bot's first post there.
USERS_2 = {58: ("Host", "host-pass-1234", "#00AA00"), 59: ("forumbot", "bot-pass-1234", ""),
           60: ("Том Хэнкс", "", ""), 61: ("Мэрил Стрип", "", ""), 62: ("Alice", "alice-pass", ""),
           63: ("Bob Stone", "", ""), 64: ("Carol_K", "", ""), 65: ("Dave", "", ""), 66: ("Ёжик", "yozh-pass", "")}
DAY_2 = 1796171400                                               # 2026-12-02 00:30:00 UTC


def recorded_board_2(**options: Any) -> Board:
    """The second recording's board: topic 5 "Mafia 3: Day 1" with the Host's, Alice's and Bob Stone's posts
    (81-83); the bot's posts and the rest come through the fake as they came in the recording."""
    board = Board(cookie_name="phpbb3_9nire", **options)
    for user_id, (name, password, colour) in USERS_2.items():
        board.add_user(user_id, name, password, colour)
    board.add_forum(3, "Mafia")
    board.new_topic(3, 58, "Mafia 3: Day 1", "Day 1 begins. Vote with [b]vote: Name[/b].", at=DAY_2 + 24,
                    topic_id=5, post_id=81)
    board.add_post(5, 62, "Morning all. [b]vote: Bob Stone[/b]", at=DAY_2 + 25, post_id=82)
    board.add_post(5, 63, "Hi. [b]vote: Alice[/b]", at=DAY_2 + 26, post_id=83)
    return board


def recorded_board(**options: object) -> Board:
    """The board as it stood before the capture's edits and deletes: topics 2 and 3, posts 10-42."""
    board = Board(**options)                                     # type: ignore[arg-type]
    for user_id, (name, password, colour) in USERS.items():
        board.add_user(user_id, name, password, colour)
    board.add_forum(3, "Mafia")
    setup = json.loads((SHARED / "setup_requests.json").read_text(encoding="utf-8"))
    for post in setup["posts"]:
        if "edit" in post or post.get("post_time") in (None, "None"):
            continue
        topic, author, at = int(post["topic_id"]), int(post["user_id"]), int(post["post_time"])
        if topic not in board.topics:
            board.new_topic(3, author, post["subject"], post["bbcode_source"], at=at, topic_id=topic,
                            post_id=int(post["post_id"]))
        else:
            board.add_post(topic, author, post["bbcode_source"], at=at, subject=post["subject"],
                           post_id=int(post["post_id"]))
    return board
