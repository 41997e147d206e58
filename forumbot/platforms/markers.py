"""The invisible marker a bot's message carries, by which a restarted bot finds a message it sent just before
it died (`find_sent`, `find_thread`).

A marker is an empty link to a fragment `#fbx<hex>`: `fbx` and the key's UTF-8 bytes in hexadecimal, letters
and digits only, which no forum rewrites (phpBB stores `#fb:mafia-1:20`, the older form, as
`#fb:mafia-1%3A20`). `keys_in` reads both forms, the older one percent-decoded, so a message sent before the
change is still found.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

PREFIX = "fbx"
_FOUND = re.compile(r"#fbx([0-9a-f]+)|#fb:([^\s)\]\"'<>]+)", re.IGNORECASE)
# a marker link in a message's text, to take it off or keep it across an edit
BBCODE = re.compile(r"\n?\[url=#fb[^\]\s]*\]\[/url\]")
MARKDOWN = re.compile(r"\n?\[\]\(#fb[^)\s]*\)")


def token(key: str) -> str:
    """The fragment (without `#`) of `key`'s marker."""
    return PREFIX + key.encode("utf-8").hex()


def keys_in(text: str) -> list[str]:
    """The keys of the markers in `text`, in either form, however the forum encoded them."""
    found = []
    for match in _FOUND.finditer(text):
        if match.group(1):
            try:
                found.append(bytes.fromhex(match.group(1)).decode("utf-8"))
            except ValueError:
                continue
        else:
            found.append(unquote(match.group(2).replace("\\", "")))
    return found


def carries(text: str, key: str) -> bool:
    return key in keys_in(text)


def like_patterns(key: str) -> list[str]:
    """SQL LIKE patterns matching a text carrying `key`'s marker in either form, as sent (the local forum keeps
    texts as sent)."""
    return [f"%#{token(key)}%", f"%(#fb:{key})%", f"%[url=#fb:{key}]%"]
