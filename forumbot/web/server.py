"""Serving the web forum with waitress in a thread beside the bot's scheduler."""

from __future__ import annotations

import logging
import threading
from typing import Any

from forumbot.errors import ConfigError
from forumbot.web.app import create_app
from forumbot.web.config import WebSettings

log = logging.getLogger("forumbot.web")


class WebServer:
    """`start()` binds and serves in a daemon thread; `stop()` closes the socket and ends the thread."""

    def __init__(self, settings: WebSettings, threads: int = 8) -> None:
        from waitress.server import create_server

        self.app = create_app(settings)
        web = settings.web
        try:
            self.server: Any = create_server(self.app, host=web.host, port=web.port, threads=threads,
                                             ident="forumbot", clear_untrusted_proxy_headers=True)
        except OSError as err:
            raise ConfigError(f"cannot listen on {web.host}:{web.port}: {err.strerror}",
                              fix='choose another port: [web] listen = "127.0.0.1:8081"') from None
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
