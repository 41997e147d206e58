"""Probing the host console with forged forms: a correction on a post of another host's game or one the
game never read, undo numbers out of range, a `back` target off the console, host commands with huge,
bidi or brace-filled values. Each gets a 4xx or a clear refusal; nothing reaches the store it should not."""

from __future__ import annotations

from test_console import Bed, bed, csrf, host_client, post  # noqa: F401 (bed is a fixture)

from forumbot.engine import corrections


def test_another_hosts_game_takes_no_correction_and_is_not_disclosed(bed):  # noqa: F811
    other = host_client(bed, "Other")
    token = csrf(other, "/console/")
    for url in ("/console/g/g/correct", "/console/g/g/vote", "/console/g/g/command", "/console/g/g/undo/1",
                "/console/g/g/flags/resolve"):
        assert other.post(url, data={"csrf": token, "post": bed.post_of("Carol"), "kind": "not_a_vote",
                                     "player": "Alice", "target": "Bob", "reason": "x", "command": "pause",
                                     "flag": "1"}).status_code == 404, url
    assert corrections.listing(bed.runner.store, "g") == []


def test_a_post_the_game_did_not_read_takes_no_correction(bed):  # noqa: F811
    client = host_client(bed)
    bed.forum.add_post("elsewhere/thread", "Alice", "vote Bob")
    for post_id in ("local:999", "", "local:" + "9" * 5000, "console:x", "\x00", bed.post_of("Carol") + " "):
        assert post(client, "/console/g/g/correct", post=post_id, kind="not_a_vote").status_code == 400, post_id
    assert corrections.listing(bed.runner.store, "g") == []


def test_undo_numbers_out_of_range_are_404_not_500(bed):  # noqa: F811
    client = host_client(bed)
    for number in ("99999999999999999999", "9" * 5000):
        assert post(client, f"/console/g/g/undo/{number}").status_code == 404, number
    assert post(client, "/console/g/g/undo/12345").status_code == 400


def test_back_never_leaves_the_console(bed):  # noqa: F811
    client = host_client(bed)
    for back in ("//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"):
        response = post(client, "/console/g/g/correct", post=bed.post_of("Carol"), kind="not_a_vote", back=back)
        assert response.headers["Location"] == "/console/g/g", back


def test_host_commands_with_odd_values_are_stored_as_written(bed):  # noqa: F811
    client = host_client(bed)
    for value in ("{0}{hours!r}", "\u202e48", "x" * 10_000, "１２"):
        assert post(client, "/console/g/g/command", command="extend", hours=value).status_code == 302
    texts = [c.data["text"] for c in corrections.listing(bed.runner.store, "g")]
    assert texts == [f"extend {v}" for v in ("{0}{hours!r}", "\u202e48", "x" * 10_000, "１２")]
    bed.step(4)      # the runner reads them as host commands: refused with a flag, never a traceback
    refused = [f for f in bed.runner.store.flag_list("g") if f["post"].startswith("console:")]
    assert len(refused) == 4 and all("say by how many hours" in f["reason"] for f in refused)
