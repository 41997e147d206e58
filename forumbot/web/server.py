"""Serving the web forum with waitress in a thread beside the bot's scheduler, guarded against connection
floods: at most PER_CLIENT open connections from one address (a reverse proxy's addresses excepted: the proxy
limits its clients itself), CONNECTION_LIMIT in all, and a connection idle for IDLE_SECONDS closed (a browser
opens a new one when it needs it). Waitress serves idle connections without a thread; what a flood takes
from everyone is the connection limit, past which waitress stops accepting anyone."""

from __future__ import annotations

import logging
import threading
from typing import Any

from forumbot.errors import ConfigError
from forumbot.web.app import create_app
from forumbot.web.config import WebSettings

log = logging.getLogger("forumbot.web")
PER_CLIENT = 32          # a browser opens up to 6 connections to a site; a household shares its address
CONNECTION_LIMIT = 500   # in all (waitress's default is 100); polled with poll(), not select()
IDLE_SECONDS = 20        # waitress's default is 120


def capped_channel(base: type, per_client: int, exempt: frozenset[str]) -> type:
    """Waitress's channel class, closing a new connection at once when its address already has
    `per_client` open (counted over the server's open channels; `exempt` addresses are not capped)."""

    class CappedChannel(base):  # type: ignore[misc, valid-type]
        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
            super().__init__(server, sock, addr, adj, map)
            host = addr[0] if isinstance(addr, tuple) else addr
            if host in exempt:
                return
            same = sum(1 for channel in list(server.active_channels.values())
                       if isinstance(channel.addr, tuple) and channel.addr[0] == host)
            if same > per_client:
                log.debug("closed a connection from %s: %d open from that address", host, same - 1)
                self.handle_close()

    return CappedChannel


class WebServer:
    """`start()` binds and serves in a daemon thread; `stop()` closes the socket and ends the thread."""

    def __init__(self, settings: WebSettings, threads: int = 8, *, per_client: int = PER_CLIENT,
                 idle_seconds: int = IDLE_SECONDS) -> None:
        from waitress.server import create_server

        self.app = create_app(settings)
        web = settings.web
        try:
            # The app reads X-Forwarded-* itself, from the proxy's addresses only (web/proxy.py): waitress
            # passes them on when there is a proxy, and drops them when there is none.
            self.server: Any = create_server(
                self.app, host=web.host, port=web.port, threads=threads, ident="forumbot",
                clear_untrusted_proxy_headers=not web.trusted_proxies, connection_limit=CONNECTION_LIMIT,
                channel_timeout=idle_seconds, cleanup_interval=max(1, min(5, idle_seconds // 2)),
                asyncore_use_poll=True)
        except OSError as err:
            raise ConfigError(f"cannot listen on {web.host}:{web.port}: {err.strerror}",
                              fix='choose another port: [web] listen = "127.0.0.1:8081"') from None
        exempt = frozenset(web.proxy_addresses) if web.trusted_proxies else frozenset()
        self.server.channel_class = capped_channel(self.server.channel_class, per_client, exempt)
        self.thread = threading.Thread(target=self._serve, name="forumbot-web", daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def host(self) -> str:
        return str(self.server.effective_host)

    def _serve(self) -> None:
        try:
            self.server.run()
        except OSError:   # the socket closed by stop()
            pass

    def start(self) -> WebServer:
        self.thread.start()
        log.info("web forum at http://%s:%d/", self.host, self.port)
        return self

    def stop(self) -> None:
        """Close the listening socket and every open connection, then end the worker threads."""
        self.server.close()
        for channel in list(self.server._map.values()):   # keep-alive connections the loop still watches
            channel.handle_close()
        self.server.task_dispatcher.shutdown()
        self.thread.join(timeout=5)
