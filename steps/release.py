"""Give closed sessions' memory back to the system, without stalling the sessions still open.

A session's objects are freed when it closes, but CPython and glibc keep the freed memory
for reuse: after a class leaves, a server's resident memory would stay at its peak. So when
sessions close, one collection runs a few seconds later (one for a whole class leaving, not
one per session): `gc.collect()` frees the cycles that Panel's and param's watchers leave,
then glibc's `malloc_trim(0)` returns the free pages of every allocation arena to the system.
Elsewhere (no glibc) only the collection runs.

A full collection walks every object of every session still open: with a class of 100 on the
server it holds the event loop for a few hundred milliseconds, and every page waits. So it
runs only when it is worth that: when no session is left, or when the sessions that left
since the last one are at least a quarter of those still open (and at least `MIN_CLOSED`).
Panel's own collection after each closed session (five seconds later, for each one) is
replaced by this one (`install`). Between them, CPython's own collector frees what a few
leavers leave behind, as it would anyway.

CPython also runs full collections of its own, counted in allocations: by default one after
every ten collections of the middle generation. Under a class that is one every few seconds,
each as long as the walk above (measured: 0.3-0.5 s every ~5 s per process with 50 students
on it), and the moves that arrive meanwhile wait: most of the slowest round trips. What
they free is mostly the panes of steps the students left (Panel's watchers tie each pane in
a cycle) and a few callbacks per move. `install` makes them `FULL_EVERY / 10` times rarer:
that garbage waits a little longer (the next full collection, or a class leaving) and each
pause is the same, but a class meets one every half minute or so instead of every few
seconds.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading

DELAY_S = 5.0                    # after the first of several sessions closing together
MIN_CLOSED = 8                   # leavers worth a collection while others stay
OPEN_FRACTION = 0.25             # ... and at least this share of the sessions still open
FULL_EVERY = 50                  # middle-generation collections per full one (CPython: 10)

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
    gc.collect()
    if _LIBC is not None:
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


def install() -> None:
    """Replace Panel's collection after every closed session with `release_memory`'s policy
    (Panel schedules `panel.io.document._garbage_collect`, looked up when it runs), and make
    CPython's own full collections rarer (`FULL_EVERY`)."""
    import panel.io.document as document
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
    if hasattr(document, "_garbage_collect"):
        document._garbage_collect = _collect_for_panel


def _collect_for_panel() -> None:
    """What Panel's scheduled collection does now: nothing of its own (`session_closed`
    already scheduled the one collection that is worth it)."""
