"""Give a closed session's memory back to the system.

A session's objects are freed when it closes, but CPython and glibc keep the freed memory
for reuse: after a class leaves, a server's resident memory would stay at its peak. So when
sessions close, one collection runs a few seconds later (one for a whole class leaving, not
one per session): `gc.collect()` frees the cycles that Panel's and param's watchers leave,
then glibc's `malloc_trim(0)` returns the free pages of every allocation arena to the system.
Elsewhere (no glibc) only the collection runs.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading

DELAY_S = 5.0                    # after the first of several sessions closing together

_lock = threading.Lock()
_scheduled = False


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _load_libc()


def release_memory() -> None:
    """Collect garbage now and hand free heap pages back to the system."""
    global _scheduled
    with _lock:
        _scheduled = False
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def session_closed(session_context) -> None:
    """`pn.state.on_session_destroyed` callback (runs on the server's event loop): release
    memory once, DELAY_S after the first of the sessions closing now."""
    global _scheduled
    with _lock:
        if _scheduled:
            return
        _scheduled = True
    from tornado.ioloop import IOLoop
    IOLoop.current().call_later(DELAY_S, release_memory)
