"""A local Discourse API server for tests and benchmarks: `FakeDiscourse` (server.py) over a `DiscourseState`."""

from .server import SPEC, FakeDiscourse, schema_of, shaped
from .state import DiscourseState, Post, Topic, User

__all__ = ["SPEC", "DiscourseState", "FakeDiscourse", "Post", "Topic", "User", "schema_of", "shaped"]
