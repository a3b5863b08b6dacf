"""Quiet teardown when a whole class closes its tabs while the server is seconds behind.

Nothing is lost in either case below (the page is already gone); without them the server log
fills with tracebacks that are not errors, and the real ones drown. Delete each when its
library handles the case itself (check on every Bokeh/Panel upgrade: the version gate asks).
"""
from __future__ import annotations

import logging

import panel.io.document as panel_document
from bokeh.server.views.ws import WSHandler
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from . import piece

log = logging.getLogger(__name__)
_ORIGINAL = {"on_close": WSHandler.on_close, "on_message": WSHandler.on_message,
             "dispatch_tornado": panel_document.dispatch_tornado}


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


@piece({"bokeh": "3.9.*"}, "https://github.com/bokeh/bokeh/issues/13654 (related)")
def ws_teardown() -> None:
    """Bokeh's keep-alive job can detach a closed socket's connection (`client_lost`) before
    Tornado runs `WSHandler.on_close`, which then fails an assertion, as do messages the page
    queued before it left: a detached connection's close and messages are skipped."""
    WSHandler.on_close, WSHandler.on_message = _on_close, _on_message


def _retrieve(future) -> None:
    """A write's outcome, taken so that a closed socket is not reported as an error."""
    if not future.cancelled():
        exc = future.exception()
        if exc is not None and not isinstance(exc, (WebSocketClosedError, StreamClosedError)):
            log.warning("Failed sending message: %r", exc)


class _Noting:
    """A connection, its socket or the socket's Tornado connection as Panel's writer sees it:
    the real one's attributes, except that each write's future is noted in `futures`."""
    def __init__(self, real, futures: list):
        self._real, self._futures = real, futures

    def __getattr__(self, name):
        value = getattr(self._real, name)
        noted = name in ("_socket", "ws_connection") and value is not None
        return _Noting(value, self._futures) if noted else value

    def write_message(self, message, binary=False):
        self._futures.append(self._real.write_message(message, binary=binary))
        return self._futures[-1]


def _dispatch_tornado(conn, events=None, msg=None):
    """Panel's own writer; when the page leaves between two frames of a message, the message
    ends quietly and the outcome of each write it started is taken."""
    futures: list = []
    try:
        return _ORIGINAL["dispatch_tornado"](_Noting(conn, futures), events, msg)
    except WebSocketClosedError:
        for future in futures:
            future.add_done_callback(_retrieve)
        log.debug("page left while a message was written: dropped")
        return []


@piece({"panel": "1.9.*", "tornado": "6.*"},
       "https://github.com/holoviz/panel/issues/3113 (related)")
def panel_writer() -> None:
    """Panel's `dispatch_tornado` checks the socket is open, then writes a message as 3+
    frames: if the page leaves in between, the next write raises out of the dispatch task and
    the earlier writes' futures are dropped unawaited ("Task exception was never retrieved")."""
    panel_document.dispatch_tornado = _dispatch_tornado
