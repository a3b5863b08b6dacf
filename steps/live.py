"""One background queue per process for work on the live model that a slider must not wait
for (step 2's runs with and without the cache, step 4's speed, step 6's variants and paged
demo).

A served process does this work once, at start (`panel serve app.py --setup warmup.py` runs
`precompute`): every value a control can reach is measured before the first visitor, so no
session ever waits for the live model or shares the server's CPU with it. Without that setup
(tests, a plain `panel serve app.py`), a view asks for the value on screen and the queue runs
it then.

Jobs run one at a time on a daemon thread (torch already uses every core for one forward pass,
and the runtime serialises runs anyway). A job is keyed: asking twice for the same key shares
one Future, so every session reuses the result; `front=True` moves a waiting job to the head
of the queue (the setting a learner is looking at jumps ahead of older requests). A job asked
for by views (`owner=`) runs only while one of them still wants it: a view that moved on, or
whose session closed, no longer counts, and a waiting job nobody wants is dropped, so a class
dragging sliders never leaves a backlog running after it.
"""
from __future__ import annotations

import atexit
import threading
import weakref
from collections import deque
from concurrent.futures import Future

import param


class LiveJobs:
    def __init__(self, name: str = "live-jobs"):
        self.name = name
        self._cv = threading.Condition()
        self._queue: deque = deque()
        self._futures: dict = {}
        self._owners: dict = {}             # key -> WeakSet of owners (only keys with owners)
        self._kept: set = set()             # keys submitted without an owner: always run
        self._thread = None
        self._stopping = False

    def submit(self, key, fn, front: bool = False, owner=None) -> Future:
        """The job's shared future. `owner`: a view that wants the result (held weakly; it
        gives the claim back with `release` or by being collected); without one the job is
        always run."""
        with self._cv:
            if self._stopping:              # interpreter exit: nothing new runs
                fut = Future()
                fut.cancel()
                return fut
            fut = self._futures.get(key)
            if fut is None:
                fut = Future()
                self._futures[key] = fut
                item = (key, fn, fut)
                self._queue.appendleft(item) if front else self._queue.append(item)
            elif front and not fut.done():
                for item in list(self._queue):
                    if item[0] == key:
                        self._queue.remove(item)
                        self._queue.appendleft(item)
                        break
            if any(item[0] == key for item in self._queue):     # claims count while waiting
                if owner is None:
                    self._kept.add(key)
                else:
                    self._owners.setdefault(key, weakref.WeakSet()).add(owner)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cv.notify()
        return fut

    def release(self, key, owner) -> None:
        """`owner` no longer wants `key` (a waiting job nobody wants is then dropped)."""
        with self._cv:
            owners = self._owners.get(key)
            if owners is not None:
                owners.discard(owner)

    def waiting(self) -> int:
        """Jobs in the queue, not counting the running one."""
        with self._cv:
            return len(self._queue)

    def _wanted(self, key) -> bool:
        owners = self._owners.get(key)
        return key in self._kept or owners is None or len(owners) > 0

    def _forget_claims(self, key) -> None:
        self._owners.pop(key, None)
        self._kept.discard(key)

    def get(self, key) -> Future | None:
        """The job's future if it was ever submitted (finished or not), else None."""
        with self._cv:
            return self._futures.get(key)

    def unfinished(self) -> int:
        """Jobs submitted that have not finished (waiting or running)."""
        with self._cv:
            return sum(not f.done() for f in self._futures.values())

    def finished(self) -> list:
        """(key, result) of every job that has finished with a result."""
        with self._cv:
            futures = list(self._futures.items())
        return [(key, fut.result()) for key, fut in futures
                if fut.done() and not fut.cancelled() and fut.exception() is None]

    def put(self, key, value) -> Future:
        """A job's result known already (the warm-up cache, `steps.warmcache`): its future,
        done, unless the job was submitted before."""
        with self._cv:
            fut = self._futures.get(key)
            if fut is None:
                fut = Future()
                fut.set_result(value)
                self._futures[key] = fut
            return fut

    def stop(self, timeout: float = 60.0):
        """Drop the waiting jobs and let the running one finish (at interpreter exit: torch
        must not be torn down under a running forward pass)."""
        with self._cv:
            self._stopping = True
            while self._queue:
                self._queue.popleft()[2].cancel()
            self._cv.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self):
        while True:
            with self._cv:
                while not self._queue and not self._stopping:
                    self._cv.wait()
                if self._stopping:
                    return
                key, fn, fut = self._queue.popleft()
                wanted = self._wanted(key)
                self._forget_claims(key)        # claims matter only while a job waits
                if not wanted:
                    # nobody waits for it any more: forget it (asking again queues it anew)
                    del self._futures[key]
                    fut.cancel()
                    continue
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except BaseException as exc:    # keep the worker alive; the view shows the error
                fut.set_exception(exc)


JOBS = LiveJobs()
atexit.register(JOBS.stop)


def served_doc():
    """The session's document when running in a server, else None (tests, scripts)."""
    import panel as pn                  # only a served session has one
    doc = pn.state.curdoc
    return doc if doc is not None and doc.session_context is not None else None


def refresh_when_done(fut: Future, doc, fn):
    """Call `fn` on the session's event loop once `fut` finishes (nothing if it closed).
    The document is held weakly: a closed session is not kept alive by a job it asked for."""
    import panel as pn
    from panel.io.state import set_curdoc
    doc_ref = weakref.ref(doc)

    def ready(_):
        doc = doc_ref()
        if doc is None:
            return                          # the session has closed and is gone

        def again():
            # not before the page has loaded: an update made between building the session
            # and the browser's first render would never reach the page
            with set_curdoc(doc):
                pn.state.onload(fn)
        try:
            doc.add_next_tick_callback(again)
        except Exception:
            pass                            # the session has closed

    fut.add_done_callback(ready)


class LiveValue(param.Parameterized):
    """One live-model result a view shows: “pending”, “failed” or “ready”, the one helper for
    every step that waits for the background queue.

    `request(key, fn)` asks JOBS for the job: a finished job is ready at once; outside a server
    (tests, scripts) it waits; in a served session it shows `pending` (keeping the previous
    value, so the view can show it with a notice) and settles on the session's event loop when
    the job finishes. Only the newest request settles: a learner who moved on never sees an
    older result arrive last."""

    status = param.Selector(default="idle", objects=["idle", "pending", "failed", "ready"])
    value = param.Parameter(default=None)
    error = param.String(default="")

    def __init__(self, **params):
        super().__init__(**params)
        self._key = None

    def request(self, key, fn, front: bool = True):
        if self._key is not None and self._key != key:
            JOBS.release(self._key, self)   # moved on: the old job may be dropped
        self._key = key
        fut = JOBS.submit(key, fn, front, owner=self)
        doc = served_doc()
        if fut.done() or doc is None:
            self._settle(key, fut)
            return
        self.status = "pending"
        me = weakref.ref(self)              # a closed session's value is not kept alive

        def settle():
            value = me()
            if value is not None:
                value._settle(key, fut)
        refresh_when_done(fut, doc, settle)

    def release(self) -> None:
        """The view left the page: its waiting job may be dropped (nobody else wants it)."""
        if self._key is not None:
            JOBS.release(self._key, self)

    def _settle(self, key, fut: Future):
        if key != self._key or fut.cancelled():
            return
        try:
            value = fut.result()
        except Exception as exc:          # the view says so and keeps the formulas
            self.param.update(status="failed", error=str(exc) or type(exc).__name__)
            return
        self.param.update(value=value, error="", status="ready")
