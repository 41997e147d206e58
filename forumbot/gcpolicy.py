"""How often Python's cycle collector runs in a process that runs games (issue 16).

A step makes and drops thousands of small containers (a post's intents, a state's copy, a vote count's views
and texts); nearly all are freed by reference counting the moment they are dropped, and the bot's data holds
almost no reference cycles. CPython's default runs a young-generation collection after every 700 net new
containers: dozens of collections a second while a backlog is replayed, each walking objects that are about to
be freed anyway (~4% of a replay's CPU, measured). A larger young threshold lets them be freed first; cycles
are still collected, only later (at most YOUNG containers later, a few MB at most).
"""

from __future__ import annotations

import gc

YOUNG = 20_000   # containers allocated (less those freed) between two young collections


def tune() -> None:
    """Collect the young generation every YOUNG containers rather than every 700. A threshold set higher
    by the program (or 0: collection switched off) is left as it is; the older generations keep theirs."""
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG:
        gc.set_threshold(YOUNG, middle, old)
