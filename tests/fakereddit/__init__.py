"""A local Reddit API server for tests and benchmarks: `FakeReddit` (server.py) over a `RedditState`."""

from .server import FakeReddit, no_retry_sleep
from .state import Comment, Fault, Message, RedditState, Submission

__all__ = ["Comment", "FakeReddit", "no_retry_sleep", "Fault", "Message", "RedditState", "Submission"]
