"""Give closed sessions' memory back to the system, without stalling the sessions still open.

A session's objects are freed when it closes, but CPython and glibc keep the freed memory for
reuse: after a class leaves, a server's resident memory would stay at its peak. So when
sessions close, one collection runs a few seconds later (one for a whole class leaving, not
one per session): `gc.collect()` frees the cycles a session leaves, then glibc's
`malloc_trim(0)` returns the free pages of every allocation arena to the system (elsewhere
only the collection runs). When no session is left, the results the class computed (traces,
runs and frames of every input someone tried, shared by the sessions of the process) go too
(`explainer.memo.release_all`); what the warm-up computed stays.

`trim` is the same collection and trim, unconditionally, for the server's own moments: once
after the warm-up (`steps.warm.freeze_shared`) and once when the speed measurements a cached
start runs in the background are done (`steps.warm.say_when_done`). Without it the memory that
work used and freed stays with the process until the first class leaves, and a resident size
read before a class is taken at a height that depends on when it was read.

A full collection walks every object of every session still open and holds the event loop
meanwhile, so it runs only when it is worth that: when no session is left, or when the
sessions that left since the last one are at least a quarter of those still open (and at
least `MIN_CLOSED`. (CPython's own full collections are made rarer by
`steps.platform.collector.tune_gc`.) Measurements: docs/performance.md.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading

from explainer import memo

DELAY_S = 5.0                    # after the first of several sessions closing together
MIN_CLOSED = 8                   # leavers worth a collection while others stay
OPEN_FRACTION = 0.25             # ... and at least this share of the sessions still open

_lock = threading.Lock()
_scheduled = False
_open = 0                        # sessions open now (built by app.py, not yet closed)
_closed = 0                      # sessions closed since the last collection


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _load_libc()


def worth_collecting(open_sessions: int, closed_since: int) -> bool:
    """A full collection now: nobody is left to stall, or enough have left to be worth it."""
    return closed_since > 0 and (
        open_sessions <= 0 or closed_since >= max(MIN_CLOSED, OPEN_FRACTION * open_sessions))


def release_memory() -> bool:
    """Collect garbage and hand free heap pages back to the system, when `worth_collecting`;
    returns whether it did."""
    global _scheduled, _closed
    with _lock:
        _scheduled = False
        if not worth_collecting(_open, _closed):
            return False
        _closed = 0
        idle = _open <= 0
    if idle:              # the class has left: what it computed goes too (`explainer.memo`)
        memo.release_all()
    trim()
    return True


def trim() -> bool:
    """Collect garbage and hand every arena's free pages back to the system (glibc's
    `malloc_trim(0)`; elsewhere only the collection); whether the trim ran."""
    gc.collect()
    if _LIBC is None:
        return False
    _LIBC.malloc_trim(0)
    return True


def session_opened() -> None:
    global _open
    with _lock:
        _open += 1


def session_closed(session_context) -> None:
    """`pn.state.on_session_destroyed` callback (runs on the server's event loop): count the
    leaver; release memory once, DELAY_S after the first of the sessions closing now."""
    global _scheduled, _open, _closed
    with _lock:
        _open = max(0, _open - 1)
        _closed += 1
        if _scheduled:
            return
        _scheduled = True
    from tornado.ioloop import IOLoop
    IOLoop.current().call_later(DELAY_S, release_memory)
