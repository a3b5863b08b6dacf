"""Guards for a race in Bokeh's server (3.x) that a class leaving at once sets off.

When the server is seconds behind (a whole class closing its tabs while it still works on
their last moves), Bokeh's keep-alive job can find a socket the browser already closed and
detach its connection (`BokehTornado.client_lost`) before Tornado gets to run
`WSHandler.on_close`; `on_close` then reads the detached connection's session and fails an
assertion, and messages the page sent before it left, still queued, are handled on the
detached connection and fail the same way (“error handling message”). Nothing is lost in
either case: the connection is already gone. The guards skip the work a detached
connection no longer has, so the log shows real errors only.

The same moment trips Panel's writer (`panel.io.document.dispatch_tornado`): it checks that
the socket is open, then writes a message as three frames; when the page leaves between two
of them, the second write raises `WebSocketClosedError` out of the dispatch task and the
first write's future is dropped unawaited (“Task exception was never retrieved”). The guard
ends such a message quietly and takes the outcome of every write it started.

`install()` runs once per process (app.py imports this module); it is idempotent.
"""
from __future__ import annotations

import json
import logging

import panel.io.document as panel_document
from bokeh.server.views.ws import WSHandler
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, WebSocketHandler

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


def _retrieve(future) -> None:
    """A write's outcome, taken so that a closed socket is not reported as an error."""
    if not future.cancelled():
        exc = future.exception()
        if exc is not None and not isinstance(exc, (WebSocketClosedError, StreamClosedError)):
            log.warning("Failed sending message: %r", exc)


def _dispatch_tornado(conn, events=None, msg=None):
    """Panel's writer for a Tornado socket: a message (or a PATCH-DOC of `events`) as its
    frames, the write futures returned for Panel to await. A socket that closes between two
    frames ends the message quietly, its writes' outcomes taken."""
    socket = conn._socket
    ws = getattr(socket, "ws_connection", None)
    if not ws or ws.is_closing():
        return []
    if msg is None:
        if not events:
            return []
        msg = conn.protocol.create("PATCH-DOC", events)
    frames = [(msg.header_json, False), (msg.metadata_json, False), (msg.content_json, False)]
    for buffer in msg._buffers:
        frames += [(json.dumps(buffer.ref), False), (buffer.to_bytes(), True)]
    futures = []
    for frame, binary in frames:
        try:
            futures.append(WebSocketHandler.write_message(socket, frame, binary=binary))
        except WebSocketClosedError:
            for future in futures:
                future.add_done_callback(_retrieve)
            log.debug("page left while a message was written: dropped")
            return []
    return futures


def install() -> None:
    WSHandler.on_close = _on_close
    WSHandler.on_message = _on_message
    panel_document.dispatch_tornado = _dispatch_tornado


install()
