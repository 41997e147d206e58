"""Folders the bot makes for itself (the demo's, a simulation's): it deletes only what it made.

A folder becomes the bot's when it is new or empty: a marker file then says what it is for. A folder
holding anything else without that marker is refused, never emptied; in a marked folder only the files
the bot writes there (stores and forums, with their -wal/-shm/-journal/.lock companions) are ever removed.
"""

from __future__ import annotations

from pathlib import Path

from forumbot.errors import ConfigError

MARKER = ".forumbot-workdir"


def claim(folder: str | Path, purpose: str) -> bool:
    """Make `folder` the bot's folder for `purpose` ("demo", "simulation"). Returns True when it already
    was (from an earlier run), False when it was new or empty. Raises ConfigError for a folder with other
    content, a file, or a folder marked for another purpose."""
    path = Path(folder)
    marker = path / MARKER
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{path} is a file, not a folder", fix=f"pick a folder for the {purpose}")
    if marker.is_file():
        found = marker.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
        if found != f"forumbot {purpose}":
            raise ConfigError(f"{path} is a forumbot folder for something else ({found})",
                              fix=f"pick another folder for the {purpose}")
        return True
    if path.is_dir() and any(path.iterdir()):
        raise ConfigError(f"{path} is not empty and the {purpose} did not create it; nothing was deleted",
                          fix=f"pick a new or empty folder for the {purpose}")
    path.mkdir(parents=True, exist_ok=True)
    marker.write_text(f"forumbot {purpose}\nMade by forumbot: it removes only its own databases here.\n",
                      encoding="utf-8")
    return False


def remove_databases(folder: str | Path, names: tuple[str, ...]) -> None:
    """Delete the databases `names` in a folder `claim` marked, with their companion files."""
    path = Path(folder)
    if not (path / MARKER).is_file():
        raise ConfigError(f"{path} is not a forumbot folder; nothing was deleted")
    for name in names:
        for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
            target = path / f"{name}{suffix}"
            if target.is_file() or target.is_symlink():
                target.unlink()
