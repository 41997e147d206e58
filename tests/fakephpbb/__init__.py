"""A local phpBB 3.3 board for tests and benchmarks: `FakePhpbb` (server.py) over a `Board` (state.py), pages in
the recorded prosilver markup (templates/), BBCode rendered as the recorded board did (bbcode.py)."""

from .server import FakePhpbb
from .state import Board, Fault, Pm, Post, Topic, User

__all__ = ["Board", "FakePhpbb", "Fault", "Pm", "Post", "Topic", "User"]
