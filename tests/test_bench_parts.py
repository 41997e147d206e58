"""bench/bench_parts.py measures the essential parts of a day with the bot's own code: what it renders must
be what the whole pipeline posts (else its sum would flatter or wrong the pipeline)."""

from __future__ import annotations

import re
from pathlib import Path

from forumbot.replay import replay

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_parts_make_the_counts_the_pipeline_posts(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    from bench_parts import parts
    from bench_replay import generated_day
    found = parts(120, 12, 1)
    posted = replay(generated_day(120, players=12, every=1)).messages
    # post numbers differ (on the forum the bot's own posts take numbers between the players')
    unnumbered = [re.sub(r"#p\d+", "", m["text"]) for m in posted if m["kind"] == "vote_count"]
    assert [re.sub(r"#p\d+", "", o.text) for o in found["outbox"] if o.kind == "vote_count"] == unnumbered
    assert found["counts"] == found["votes"] == len(unnumbered) > 80
    assert set(found["timing"]) == {"parse", "apply + view", "render", "write rows (one transaction)"}
