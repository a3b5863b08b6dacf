"""Guards for a race in Bokeh's server (3.x) that a class leaving at once sets off.

When the server is seconds behind (a whole class closing its tabs while it still works on
their last moves), Bokeh's keep-alive job can find a socket the browser already closed and
detach its connection (`BokehTornado.client_lost`) before Tornado gets to run
`WSHandler.on_close`; `on_close` then reads the detached connection's session and fails an
assertion, and messages the page sent before it left, still queued, are handled on the
detached connection and fail the same way (“error handling message”). Nothing is lost in
either case: the connection is already gone. The guards skip the work a detached
connection no longer has, so the log shows real errors only.

`install()` runs once per process (app.py imports this module); it is idempotent.
"""
from __future__ import annotations

import logging

from bokeh.server.views.ws import WSHandler

log = logging.getLogger(__name__)

_ORIGINAL = {"on_close": WSHandler.on_close, "on_message": WSHandler.on_message}


def _detached(handler: WSHandler) -> bool:
    """The handler's connection exists but its session was already detached from it."""
    conn = getattr(handler, "connection", None)
    return conn is not None and getattr(conn, "_session", True) is None


def _on_close(self: WSHandler) -> None:
    if _detached(self):
        log.debug("WebSocket closed after its connection was already released")
        return
    _ORIGINAL["on_close"](self)


async def _on_message(self: WSHandler, fragment):
    if _detached(self):
        log.debug("message from a page that already left: dropped")
        return None
    return await _ORIGINAL["on_message"](self, fragment)


def install() -> None:
    WSHandler.on_close = _on_close
    WSHandler.on_message = _on_message


install()
