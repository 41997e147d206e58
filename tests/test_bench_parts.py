"""bench/bench_parts.py measures the essential parts of a day with the bot's own code: what it renders must
be what the whole pipeline posts, and what it writes what the pipeline writes (else its sum would flatter
or wrong the pipeline)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from forumbot.replay import replay

BENCH = Path(__file__).resolve().parent.parent / "bench"


# 1,800 s on this short day: several votes a step, as --poll 60 on a 5,000-post day
@pytest.mark.parametrize("poll", [0, 1800])
def test_the_parts_make_and_log_the_counts_the_pipeline_does(monkeypatch, poll) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    from bench_parts import parts
    from bench_replay import generated_day
    found = parts(240, 12, 1, poll)
    result = replay(generated_day(240, players=12, every=1, poll=poll))
    # post numbers differ (on the forum the bot's own posts take numbers between the players')
    unnumbered = [re.sub(r"#p\d+", "", m["text"]) for m in result.messages if m["kind"] == "vote_count"]
    assert [re.sub(r"#p\d+", "", o.text) for o in found["outbox"] if o.kind == "vote_count"] == unnumbered
    assert found["counts"] == len(unnumbered) > 60
    assert (found["counts"] == found["votes"]) == (poll == 0)   # on a grid, one count a step of votes
    # the event log keeps a count's headline only (runner._for_log): the parts write the same rows
    logged = [json.loads(data) for (data,) in result.store.db.execute(
        "SELECT data FROM events WHERE kind = 'vote_count' ORDER BY seq").fetchall()]
    assert [e.data for e in found["logged"] if e.kind == "vote_count"] == logged
    assert "votes" not in logged[-1] and "alive" in logged[-1]
    assert set(found["timing"]) == {"parse", "apply + view", "render", "write rows (one transaction)"}
