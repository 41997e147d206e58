"""What the fake sites (tests/fakephpbb, tests/fakereddit, tests/fakediscourse) share: an HTTP/1.1 request
handler that logs nothing and hands each GET and POST to its site's `_handle(method)`."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True      # headers and body go out in two writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:   # noqa: A002 - quiet
        pass

    def do_GET(self) -> None:   # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:   # noqa: N802
        self._handle("POST")

    def _handle(self, method: str) -> None:
        raise NotImplementedError
