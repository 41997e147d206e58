"""The fake Discourse server speaks the API as Discourse's own description (openapi.json) has it: every answer
the bot's calls get is checked against its operation's response schema by a small checker written here (types,
required fields, no field a closed schema does not allow, enums), and the checker is shown to catch each kind
of mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests
from fakediscourse import SPEC, DiscourseState, FakeDiscourse, schema_of

SHARED = Path(__file__).resolve().parents[2] / "shared" / "discourse" / "openapi.json"
TYPES = {"string": str, "boolean": bool, "array": list, "object": dict}


def problems(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """What in `value` breaks `schema` (the JSON Schema keywords Discourse's description uses)."""
    found: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if not any(_is(value, kind) for kind in kinds):
            return [f"{where}: {type(value).__name__} is not {'/'.join(kinds)}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                found.append(f"{where}: {name} is missing")
        for name, item in value.items():
            if name in props:
                found += problems(item, props[name], f"{where}.{name}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{where}: {name} is not allowed")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += problems(item, schema["items"], f"{where}[{index}]")
    return found


def _is(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, TYPES[kind])


def spec() -> dict[str, Any]:
    """Discourse's whole description where the shared copy is beside the repository, else the fake's subset."""
    if SHARED.exists():
        return json.loads(SHARED.read_text(encoding="utf-8"))
    return SPEC


def test_the_checker_catches_a_wrong_type_a_missing_field_an_extra_one_and_a_bad_enum() -> None:
    schema = {"type": "object", "additionalProperties": False, "required": ["id", "raw"],
              "properties": {"id": {"type": "integer"}, "raw": {"type": "string"},
                             "level": {"type": "string", "enum": ["0", "3"]},
                             "at": {"type": ["string", "null"]},
                             "ids": {"type": "array", "items": {"type": "integer"}}}}
    assert problems({"id": 1, "raw": "x", "at": None, "ids": [1, 2], "level": "3"}, schema) == []
    assert problems({"id": "1", "raw": "x"}, schema) == ["$.id: str is not integer"]
    assert problems({"id": True, "raw": "x"}, schema) == ["$.id: bool is not integer"]
    assert problems({"raw": "x"}, schema) == ["$: id is missing"]
    assert problems({"id": 1, "raw": "x", "cooked": ""}, schema) == ["$: cooked is not allowed"]
    assert problems({"id": 1, "raw": "x", "level": "2"}, schema) == ["$.level: '2' is not one of ['0', '3']"]
    assert problems({"id": 1, "raw": "x", "ids": [1, "2"]}, schema) == ["$.ids[1]: str is not integer"]


def test_the_fakes_operations_are_discourses_own_unchanged() -> None:
    if not SHARED.exists():
        pytest.skip("Discourse's API description is not beside the repository")
    whole = json.loads(SHARED.read_text(encoding="utf-8"))
    for path, operations in SPEC["paths"].items():
        for method, operation in operations.items():
            assert whole["paths"][path][method] == operation, (method, path)


def site() -> tuple[DiscourseState, dict[str, int]]:
    state = DiscourseState(clock=lambda: 1_772_000_000.0)
    state.add_user("forumbot", admin=True, key="KEY")
    for name in ("alice", "bob"):
        state.add_user(name)
    games = state.add_category("Games")
    topic = state.add_topic("alice", "Mafia one: day one votes", "Welcome, everyone, to the game!",
                            category=games.id)
    state.topics[topic.id].watchers[state.user("forumbot").id] = 3
    vote = state.add_post(topic.id, "bob", "**vote alice** because of reasons")
    state.edit_post(vote.id, "**vote alice** because of other reasons", at=1_772_000_900.0)
    gone = state.add_post(topic.id, "alice", "**vote bob**, sorry about this")
    state.delete_post(gone.id)
    staff = state.add_post(topic.id, "alice", "a post a moderator removes")
    state.delete_post(staff.id, by_author=False)
    pm = state.add_topic("alice", "Night action", "kill bob, please", to=["forumbot"])
    return state, {"topic": topic.id, "category": games.id, "pm": pm.id, "post": vote.id, "removed": staff.id}


def test_every_answer_the_bot_gets_is_as_discourses_schemas_say() -> None:
    state, ids = site()
    whole = spec()
    headers = {"Api-Key": "KEY", "Api-Username": "forumbot"}
    calls: list[tuple[str, str, str, Any]] = [
        ("get", "/notifications.json", "/notifications.json", None),
        ("get", "/t/{id}.json", f"/t/{ids['topic']}.json", None),
        ("get", "/t/{id}.json", f"/t/{ids['pm']}.json", None),
        ("get", "/t/{id}/posts.json", f"/t/{ids['topic']}/posts.json?post_ids[]={ids['post']}&include_raw=true", None),
        ("get", "/posts/{id}.json", f"/posts/{ids['post']}.json", None),
        ("put", "/posts/{id}.json", f"/posts/{ids['post']}.json", {"post": {"raw": "**vote bob** after all, sorry"}}),
        ("post", "/posts.json", "/posts.json", {"topic_id": ids["topic"], "raw": "Vote count: alice 1, bob 0."}),
        ("post", "/posts.json", "/posts.json", {"title": "Your role", "raw": "You are the doctor.",
                                                "target_recipients": "bob", "archetype": "private_message"}),
        ("post", "/posts.json", "/posts.json", {"title": "Mafia one: day two", "raw": "Day two starts now. Vote.",
                                                "category": ids["category"]}),
        ("post", "/t/{id}/notifications.json", f"/t/{ids['topic']}/notifications.json", {"notification_level": "3"}),
        ("put", "/notifications/mark-read.json", "/notifications/mark-read.json", {}),
        ("get", "/topics/private-messages/{username}.json", "/topics/private-messages/forumbot.json", None),
        ("get", "/topics/private-messages-sent/{username}.json", "/topics/private-messages-sent/forumbot.json", None),
        ("get", "/c/{id}/show.json", f"/c/{ids['category']}/show.json", None),
        ("get", "/c/{slug}/{id}.json", f"/c/games/{ids['category']}.json", None),
        ("get", "/u/{username}.json", "/u/bob.json", None),
    ]
    assert {(m, t) for m, t, _, _ in calls} == {(m, p) for p, ops in SPEC["paths"].items() for m in ops}
    with FakeDiscourse(state) as fake:
        for method, template, path, body in calls:
            answer = requests.request(method.upper(), fake.url + path, json=body, headers=headers, timeout=10)
            assert answer.status_code == 200, (path, answer.text)
            schema = whole["paths"][template][method]["responses"]["200"]["content"]["application/json"]["schema"]
            data = answer.json()
            assert problems(data, schema) == [], (method, path)
            if template == "/t/{id}.json" and path == f"/t/{ids['topic']}.json":     # staff see deleted posts
                assert len(data["post_stream"]["stream"]) == 4
                assert [p["user_deleted"] for p in data["post_stream"]["posts"]] == [False, False, True, False]
                assert data["post_stream"]["posts"][3]["deleted_at"]
            if template == "/t/{id}/posts.json":
                (post,) = data["post_stream"]["posts"]
                assert post["raw"].startswith("**vote alice**") and post["version"] == 2
        guest = requests.get(f"{fake.url}/t/{ids['topic']}.json", timeout=10).json()
        assert ids["removed"] not in guest["post_stream"]["stream"]       # a moderator's deletion hides a post
        assert ids["post"] in guest["post_stream"]["stream"]
        assert requests.get(f"{fake.url}/t/{ids['pm']}.json", timeout=10).status_code == 404
        refused = requests.get(f"{fake.url}/notifications.json", headers={"Api-Key": "nope", "Api-Username": "bob"},
                               timeout=10)
        assert refused.status_code == 403 and refused.json()["error_type"] == "invalid_access"


def test_the_schema_for_a_topics_posts_allows_no_raw_so_the_fake_sends_none() -> None:
    """`/t/{id}.json`'s posts are a closed schema without `raw`: the bot reads raw from /t/{id}/posts.json."""
    state, ids = site()
    with FakeDiscourse(state) as fake:
        data = requests.get(f"{fake.url}/t/{ids['topic']}.json", headers={"Api-Key": "KEY", "Api-Username": "forumbot"},
                            timeout=10).json()
    assert all("raw" not in post for post in data["post_stream"]["posts"])
    assert "raw" not in schema_of("/t/{id}.json", "get")["properties"]["post_stream"]["properties"]["posts"][
        "items"]["properties"]


def test_429_and_5xx_on_demand_and_the_per_minute_limit() -> None:
    clock = [1_772_000_000.0]
    state = DiscourseState(clock=lambda: clock[0], rate_limit=3)
    state.add_user("forumbot", admin=True, key="KEY")
    headers = {"Api-Key": "KEY", "Api-Username": "forumbot"}
    with FakeDiscourse(state) as fake:
        state.fail("/notifications.json", 502)
        assert requests.get(f"{fake.url}/notifications.json", headers=headers, timeout=10).status_code == 502
        state.fail("/notifications.json", 429, headers={"Retry-After": "7"})
        limited = requests.get(f"{fake.url}/notifications.json", headers=headers, timeout=10)
        assert limited.status_code == 429 and limited.headers["Retry-After"] == "7"
        assert limited.json()["extras"]["wait_seconds"] == 7
        statuses = [requests.get(f"{fake.url}/notifications.json", headers=headers, timeout=10).status_code
                    for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        clock[0] += 61
        assert requests.get(f"{fake.url}/notifications.json", headers=headers, timeout=10).status_code == 200
