"""Behind a reverse proxy: the client's address, scheme and host come in X-Forwarded-* headers, read only
from a request whose connection comes from one of the proxy's addresses ([web] proxy_addresses), through
werkzeug's ProxyFix for `trusted_proxies` proxies. From anyone else those headers are dropped: a client
that reaches the server directly cannot choose the address its sign-ins are counted against."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

FORWARDED = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT",
             "HTTP_X_FORWARDED_PREFIX", "HTTP_FORWARDED")


class FromProxies:
    """The app, with the forwarded headers read from `addresses` only (none at all when `count` is 0)."""

    def __init__(self, app: Any, count: int, addresses: Iterable[str]) -> None:
        self.app = app
        self.addresses = frozenset(addresses) if count else frozenset()
        self.fixed = ProxyFix(app, x_for=count, x_proto=count, x_host=count, x_prefix=count)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("REMOTE_ADDR") in self.addresses:
            return self.fixed(environ, start_response)
        for key in FORWARDED:
            environ.pop(key, None)
        return self.app(environ, start_response)
