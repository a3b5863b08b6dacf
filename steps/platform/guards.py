"""Quiet teardown when a whole class closes its tabs while the server is seconds behind, and
Panel's busy counter made safe for `--num-threads`.

Nothing is lost in the teardown cases (the page is already gone); without them the server log
fills with tracebacks that are not errors, and the real ones drown. The busy counter's race
loses a learner's move. Delete each when its library handles the case itself (check on every
Bokeh/Panel upgrade: the version gate asks).
"""
from __future__ import annotations

import functools
import logging
import threading

import panel.io.document as panel_document
from panel.io.state import _state
from bokeh.server.views.ws import WSHandler
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from . import piece

log = logging.getLogger(__name__)
_BUSY_METHODS = ("_add_busy_event", "_remove_busy_event", "_cleanup_busy_counter")
_ORIGINAL = {"on_close": WSHandler.on_close, "on_message": WSHandler.on_message,
             "dispatch_tornado": panel_document.dispatch_tornado,
             **{name: getattr(_state, name) for name in _BUSY_METHODS}}


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


_BUSY = threading.RLock()          # one thread at a time in Panel's busy counter


def _one_at_a_time(method):
    """`method` of Panel's `_state`, run while holding `_BUSY` (re-entrant: the counter's own
    watcher calls `_cleanup_busy_counter` from inside `_add_busy_event`)."""
    @functools.wraps(method)
    def held(self, *args, **kwargs):
        with _BUSY:
            return method(self, *args, **kwargs)
    return held


@piece({"panel": "1.9.*", "param": "2.*"},
       "https://github.com/holoviz/panel/issues/4099 (related: busy under threads; this race "
       "is not reported upstream, Panel main of 2026-08-21 has the same code)")
def busy_counter() -> None:
    """With `--num-threads`, Panel handles each browser event on a worker thread and counts it
    in `state._busy_counter` there (`reactive.py` `_process_bokeh_event`, `_process_events`:
    `state._add_busy_event` before, `_remove_busy_event` after). Every change of the counter
    sets the read-only `state.busy` inside `edit_readonly(state)` (`panel/util/parameters.py`),
    which clears the `readonly` flag of the shared `busy` Parameter, and on leaving puts back
    the flag it saw on entering. Two threads interleave: A enters (saw True), B enters (saw
    False), A leaves (True again), B sets `busy`: `TypeError: Read-only parameter 'busy'
    cannot be modified`. Raised from `_add_busy_event`, before Panel's `try`, it drops the
    event: the learner's move is never handled and never answered. The list itself is read,
    copied and written back unlocked too, so concurrent events lose each other's entries (busy
    stays True up to the counter's 30 s timeout). Here the three methods that change the
    counter run one thread at a time; `state.busy` is written only from inside them."""
    for name in _BUSY_METHODS:
        setattr(_state, name, _one_at_a_time(_ORIGINAL[name]))
