"""What the bot's HTTP clients of other sites (phpBB, Discourse) share: polite pacing, a stop that ends every
wait at once (SIGTERM), whole answers within `timeout` seconds headers included (requests' own timeout is per
read: a site sending a byte at a time would hold the bot for ever) and up to `max_bytes`, redirects followed
only on the site's own address, and long messages split at line ends."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3

from forumbot.errors import ConfigError, PlatformError

CHUNK = 64 * 1024


class Exchanges:
    """The pacing, stopping and whole-answer reading of one site's client. `site` names the site in errors
    ("phpBB"), `min_interval` is the least time between two requests."""

    site = "the site"
    base = ""            # the site's address, ending in "/"

    def __init__(self, *, timeout: float, max_bytes: int, min_interval: float,
                 sleep: Callable[[float], None] | None) -> None:
        self.timeout, self.max_bytes, self.min_interval = timeout, max_bytes, min_interval
        self.stopping = threading.Event()                 # stop(): the bot is stopping, no more waits or reads
        self._sleep = sleep or self.stopping.wait
        self.requests = 0                                 # how many requests were sent (benchmarks)
        self._last = 0.0

    def stop(self) -> None:
        """End the running exchange at its next chunk and every wait now (SIGTERM): it fails retryably."""
        self.stopping.set()

    def sleep(self, seconds: float) -> None:
        self._sleep(seconds)
        self._check_stopping()

    def _check_stopping(self) -> None:
        if self.stopping.is_set():
            raise PlatformError("the bot is stopping", retryable=True)

    def _pace(self) -> None:
        wait = self._last + self.min_interval - time.monotonic()
        if wait > 0:
            self.sleep(wait)
        self._last = time.monotonic()

    def _on_site(self, url: str, what: str) -> str:
        """`url` if it is on the site's own address (http → https allowed); a site that sends the bot
        elsewhere is refused: its cookies, password or key go nowhere else."""
        if not same_site(self.base, url):
            here, there = urlsplit(self.base), urlsplit(url)
            raise PlatformError(f"{self.site} sent the bot to another address ({there.scheme}://{there.netloc}) "
                                f"while {what}; it follows only its own ({here.scheme}://{here.netloc}), so its "
                                "credentials go nowhere else: check the url in the config (is the site at another "
                                "address now?)")
        return url

    def _late(self, what: str) -> PlatformError:
        return PlatformError(f"{self.site} did not answer in {self.timeout:g}s while {what}", retryable=True)

    def _headers(self, send: Callable[[], requests.Response], started: float, what: str) -> requests.Response:
        """The answer of `send()` (a streamed request) up to its headers, by `timeout` seconds from `started`.
        The exchange runs in a thread of its own; past the time (or on stop) it is left to end by itself, and
        what it got is closed."""
        got: dict[str, Any] = {}
        done = threading.Event()

        def exchange() -> None:
            try:
                got["response"] = send()
            except BaseException as err:   # (handed to the caller's thread)
                got["error"] = err
            done.set()
            if got.pop("abandoned", False) and "response" in got:
                got["response"].close()

        threading.Thread(target=exchange, name=f"{self.site}-request", daemon=True).start()
        while not done.wait(0.2):
            if self.stopping.is_set() or time.monotonic() - started > self.timeout:
                got["abandoned"] = True
                if done.is_set() and "response" in got:   # (it ended just now)
                    got["response"].close()
                self._check_stopping()
                raise self._late(what)
        if "error" in got:
            raise got["error"]
        response: requests.Response = got["response"]
        return response

    def _body(self, response: requests.Response, started: float, what: str) -> bytes:
        """The whole answer, read in chunks: by `timeout` seconds from `started`, at most `max_bytes`."""
        parts: list[bytes] = []
        size = 0
        try:
            while chunk := response.raw.read1(CHUNK, decode_content=True):
                size += len(chunk)
                if size > self.max_bytes:
                    raise PlatformError(f"{self.site} sent more than {self.max_bytes} bytes while {what}",
                                        retryable=True)
                self._check_stopping()
                if time.monotonic() - started > self.timeout:
                    raise self._late(what)
                parts.append(chunk)
        except (OSError, urllib3.exceptions.HTTPError) as err:
            raise PlatformError(f"{self.site} broke off its answer while {what}: {err}", retryable=True) from None
        finally:
            response.close()
        return b"".join(parts)


def same_site(base: str, url: str) -> bool:
    """Whether `url` is on the site at `base`: the same host, port and scheme (https never down to http)."""
    here, there = urlsplit(base), urlsplit(url)
    return not (there.hostname != here.hostname or (here.scheme == "https" and there.scheme != "https")
                or (there.scheme == here.scheme and there.port != here.port))


def split_text(text: str, limit: int) -> list[str]:
    """`text` in parts of at most `limit` characters, cut at line ends where possible, in order."""
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit)
        if cut <= 0:
            cut = limit
        parts.append(rest[:cut].rstrip("\n"))
        rest = rest[cut:].lstrip("\n")
    parts.append(rest)
    return [p for p in parts if p.strip()] or [text[:limit]]


def secret_from(options: dict[str, Any], name: str, what: str, option: str, env: str) -> Callable[[], str]:
    """A credential of the bot (`what`: "the phpBB password"), never in the config: the environment variable
    `<option>_env` names (default `env`) or a file outside the repository (`<option>_file`). Read when used."""
    def read() -> str:
        if options.get(f"{option}_file"):
            path = Path(str(options[f"{option}_file"])).expanduser()
            try:
                return path.read_text(encoding="utf-8").strip()
            except OSError as err:
                raise ConfigError(f"cannot read {what} file {path}: {err}",
                                  fix=f"[platforms.{name}] {option}_file = a readable file holding it") from None
        variable = str(options.get(f"{option}_env", env))
        value = os.environ.get(variable)
        if not value:
            raise ConfigError(f"{what} is not set: {variable} is empty",
                              fix=f"export {variable}=... or set {option}_file in [platforms.{name}]")
        return value
    return read
