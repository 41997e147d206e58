"""One bot per store: an OS lock (flock) on a file beside the store, held for the life of the process.

Two bots on one store would each read, decide and post: votes lost, messages doubled. The lock is taken by
`forumbot run` before the store is opened and never released by hand: the kernel drops it when the process
ends, however it ends (SIGKILL included), so a crashed bot never blocks its restart. Within one process the
lock is taken once per store and shared (a test or a tool may build several services over one store).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from forumbot.errors import StoreError

_HELD: dict[str, IO[str]] = {}


def lock_path(store: str | Path) -> Path:
    return Path(f"{store}.lock")


def hold(store: str | Path) -> None:
    """Take the store's lock for the rest of this process's life. Raises StoreError, naming the process that
    holds it, when another process runs a bot on this store."""
    if str(store) == ":memory:":
        return
    path = lock_path(Path(store).resolve())
    if str(path) in _HELD:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = open(path, "a+", encoding="utf-8")   # noqa: SIM115 - kept open for the process's life
    except OSError as err:
        raise StoreError(f"cannot create the lock file {path}: {err}") from None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        pid = handle.read().strip()
        handle.close()
        holder = f"pid {pid}" if pid else "another process"
        raise StoreError(f"another forumbot ({holder}) is already running on the store {store}; "
                         f"stop it first (two bots on one store would lose votes and post twice). "
                         f"The lock is {path}; it is released when that process ends.") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    _HELD[str(path)] = handle
