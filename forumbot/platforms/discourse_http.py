"""Talking to a Discourse site's JSON API: one requests.Session with the `Api-Key` and `Api-Username` headers,
requests paced to the key's per-minute limit, GETs retried with backoff and jitter, a 429's `Retry-After` obeyed.

Every answer is read within `timeout` seconds as a whole, headers and body (not per read), and up to
`max_bytes`. Redirects are followed only on the site's own host (the API key goes nowhere else). A POST or
PUT is never sent twice after a failure that may have let it through (a timeout, a 5xx): it fails retryable
and the caller's exactly-once machinery (markers, find_sent) decides. A 429 means Discourse did nothing, so
any request waits out a short `Retry-After` and goes again; a longer one fails retryable and the service
backs off.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import requests

from forumbot.errors import PlatformError
from forumbot.platforms.exchange import Exchanges

log = logging.getLogger("forumbot.discourse")
USER_AGENT = "forumbot/0.1 (play-by-post game master)"
MAX_HOPS = 5
MAX_BYTES = 32 * 1024 * 1024


@dataclass
class Answer:
    status: int
    data: Any            # the decoded JSON (None for an empty or non-JSON body)
    headers: dict[str, str]

    def errors(self) -> str:
        """Discourse's own words for a refusal (`{"errors": [...]}` or `{"error": ...}`)."""
        data = self.data if isinstance(self.data, dict) else {}
        found = data.get("errors") or data.get("error") or ""
        return "; ".join(map(str, found)) if isinstance(found, list) else str(found)


def wait_of(answer: Answer) -> float | None:
    """Seconds a 429 asks to wait: `Retry-After`, else the body's `extras.wait_seconds`."""
    value = answer.headers.get("Retry-After") or answer.headers.get("retry-after")
    if value is None and isinstance(answer.data, dict):
        value = (answer.data.get("extras") or {}).get("wait_seconds")
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


class DiscourseSession(Exchanges):
    """JSON requests to one Discourse site as one account. `api_key` is a callable read when a request is
    made (None: read as a guest, no headers)."""

    site = "Discourse"

    def __init__(self, base_url: str, account: str, api_key: Callable[[], str] | None, *,
                 requests_per_minute: float = 60.0, timeout: float = 30.0, retries: int = 3, backoff: float = 2.0,
                 max_wait: float = 15.0, sleep: Callable[[float], None] | None = None,
                 rng: random.Random | None = None, max_bytes: int = MAX_BYTES, user_agent: str = USER_AGENT) -> None:
        self.base = base_url.rstrip("/") + "/"
        self.account = account
        self._api_key = api_key
        self.http = requests.Session()
        self.http.headers.update({"User-Agent": user_agent, "Accept": "application/json"})
        super().__init__(timeout=timeout, max_bytes=max_bytes, sleep=sleep,
                         min_interval=60.0 / requests_per_minute if requests_per_minute > 0 else 0.0)
        self.retries, self.backoff, self.max_wait = retries, backoff, max_wait
        self.rng = rng or random.Random()

    def _auth(self) -> dict[str, str]:
        if self._api_key is None:
            return {}
        return {"Api-Key": self._api_key(), "Api-Username": self.account}

    def request(self, method: str, path: str, *, what: str, params: Any = None, body: Any = None) -> Answer:
        """One call: an Answer for 2xx, 404 and 422 (the caller reads them); a PlatformError otherwise."""
        attempts = self.retries if method == "GET" else 1
        waited = 0.0
        attempt = 1
        while True:
            try:
                answer = self._once(method, urljoin(self.base, path.lstrip("/")), params, body, what)
                for _ in range(MAX_HOPS):
                    location = answer.headers.get("Location", "")
                    if method != "GET" or answer.status not in (301, 302, 303, 307, 308) or not location:
                        break
                    url = self._on_site(urljoin(self.base, location), what)
                    answer = self._once("GET", url, None, None, what)
                if answer.status == 429:
                    wait = wait_of(answer)
                    if wait is not None and wait <= self.max_wait and waited + wait <= 4 * self.max_wait:
                        log.info("Discourse rate limit while %s: waiting %.0fs as it asks", what, wait)
                        waited += wait
                        self.sleep(wait)
                        continue                   # Discourse did nothing: the same request goes again
                    raise PlatformError(f"Discourse rate-limits the bot (429) while {what}"
                                        + (f"; it asks to wait {wait:.0f}s" if wait is not None else ""),
                                        retryable=True)
                return self._checked(answer, what)
            except PlatformError as err:
                if not err.retryable or attempt >= attempts or "rate-limits" in str(err):
                    raise
                delay = self.backoff * 2 ** (attempt - 1) * self.rng.uniform(0.5, 1.0)
                log.info("%s failed (%s); trying again in %.1fs", what, err, delay)
                attempt += 1
                self.sleep(delay)

    def _checked(self, answer: Answer, what: str) -> Answer:
        status = answer.status
        if status >= 500:
            raise PlatformError(f"Discourse answered {status} while {what}", retryable=True)
        if status == 401 or (status == 403 and "key is invalid" in answer.errors()):
            raise PlatformError(f"Discourse refused the bot's API key ({status}) while {what}: check the key in "
                                f"the environment variable or key file the config names, that it is for "
                                f"{self.account} (or all users) and that its scope allows this")
        if status == 403:
            raise PlatformError(f"Discourse forbids {what} (403: {answer.errors() or 'no reason given'}): check "
                                f"the category's permissions and the trust level of {self.account}")
        if status in (200, 201, 204, 404, 422):
            return answer
        if 300 <= status < 400:
            raise PlatformError(f"Discourse answered {status} with no usable redirect while {what}", retryable=True)
        raise PlatformError(f"Discourse answered {status} while {what}: {answer.errors()}", retryable=status == 408)

    def _once(self, method: str, url: str, params: Any, body: Any, what: str) -> Answer:
        self._check_stopping()
        self._pace()
        self.requests += 1
        started = time.monotonic()
        try:
            response = self._headers(lambda: self.http.request(method, url, params=params, json=body,
                                                               headers=self._auth(), timeout=self.timeout,
                                                               allow_redirects=False, stream=True), started, what)
            raw = self._body(response, started, what)
        except requests.Timeout:
            raise self._late(what) from None
        except requests.RequestException as err:
            raise PlatformError(f"cannot reach Discourse while {what}: {err}", retryable=True) from None
        data: Any = None
        if raw.strip():
            try:
                data = json.loads(raw.decode("utf-8"))
            except ValueError:
                if 200 <= response.status_code < 300:
                    raise PlatformError(f"Discourse sent a body that is not JSON while {what} (truncated, or an "
                                        "error page)", retryable=True) from None
        return Answer(response.status_code, data, dict(response.headers))

    def get(self, path: str, *, what: str, params: Any = None) -> Answer:
        return self.request("GET", path, what=what, params=params)
