"""Where the data folders (parsers/, config/, samples/) are, in a checkout or an installed copy."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent   # forumbot/
_SOURCE_ROOT = _PACKAGE.parent


def data_dir(name: str) -> Path:
    """The folder `name` ("parsers", "config" or "samples").

    A checkout (or an editable install) reads the top-level folder, so a host's edits apply at once;
    a wheel install reads the copy installed inside the package as forumbot.data.<name>.
    """
    source = _SOURCE_ROOT / name
    if source.is_dir():
        return source
    return _PACKAGE / "data" / name
