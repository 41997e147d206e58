"""Named points where the crash tests kill the bot (SIGKILL, no clean-up), to prove nothing is lost or
doubled. Inert unless FORUMBOT_CRASH="point:n" is set: then the n-th time `point` is passed, the
process kills itself."""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("FORUMBOT_CRASH", "")
_POINT, _, _COUNT = _SPEC.partition(":")
_LEFT = int(_COUNT) if _COUNT.isdigit() else 1
# "pms_fetched": right after a fetch that brought private messages (where marking them read too early loses them).
POINTS = ("fetched", "stored", "advanced", "committed", "before_send", "after_send", "delivered", "pm_read",
          "pms_fetched")


def _armed(name: str) -> None:
    global _LEFT
    if name != _POINT:
        return
    _LEFT -= 1
    if _LEFT <= 0:
        os.kill(os.getpid(), signal.SIGKILL)


def inert(name: str) -> None:
    """A crash point where FORUMBOT_CRASH is not set: nothing happens (not even the name's comparison)."""


crashpoint = _armed if _POINT else inert
