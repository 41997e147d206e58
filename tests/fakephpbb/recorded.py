"""The recorded board (../shared/phpbb) as a fake Board: its users, forums and setup posts, so the fake's pages
can be compared with the recordings."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .state import Board

# shared/ lies beside the repository (in CI too); FORUMBOT_PHPBB_RECORDINGS points elsewhere
SHARED = Path(os.environ.get("FORUMBOT_PHPBB_RECORDINGS",
                             Path(__file__).resolve().parents[3] / "shared" / "phpbb"))
USERS = {61: ("Host", "host-pass-1234", "#00AA00"), 62: ("forumbot", "bot-pass-1234", ""), 63: ("Том Хэнкс", "", ""),
         64: ("Мэрил Стрип", "", ""), 65: ("Alice", "", ""), 66: ("Bob Stone", "", ""), 67: ("Carol_K", "", ""),
         68: ("Dave", "", "")}


def recorded_page(name: str) -> str:
    """A recorded body by its exchange name ("bot_topic_start0")."""
    found = sorted((SHARED / "pages").glob(f"[0-9][0-9][0-9]-{name}.*"))
    return found[0].read_text(encoding="utf-8")


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
