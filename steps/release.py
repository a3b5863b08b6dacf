"""Give closed sessions' memory back to the system, without stalling the sessions still open.

A session's objects are freed when it closes, but CPython and glibc keep the freed memory
for reuse: after a class leaves, a server's resident memory would stay at its peak. So when
sessions close, one collection runs a few seconds later (one for a whole class leaving, not
one per session): `gc.collect()` frees the cycles that Panel's and param's watchers leave,
then glibc's `malloc_trim(0)` returns the free pages of every allocation arena to the system.
Elsewhere (no glibc) only the collection runs. When no session is left, the results the class
computed (traces, runs and frames of every input someone tried, shared by the sessions of the
process) go first (`explainer.memo.release_all`); what the warm-up computed stays. Without
that, those caches held about 50 MiB per process after a class of 50 had left (measured:
27.8 MiB of traces, 25 MiB of frames and runs): in one process with a class of 50, the
resident memory stayed 15 % above its level before the class; with them released, 12 %
(the rest is CPython's arenas that a few surviving objects each keep).

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

Most of that garbage came from the steps the students left: a step's panes, their Bokeh
models and Panel's and param's watchers tie each other in cycles, about 3,300 objects a step
change, that only a full collection could free; with a class changing steps, each pause
found hundreds of thousands of them (0.6-0.9 s, measured). So a step that left the page is
taken apart a moment later (`dispose`): its watchers, links and the models that left the
document let go of each other, and reference counting frees it at once (measured: 14 objects
a step change left for the collector). The pauses then walk what is alive, not garbage.
A closed session is taken apart the same way, once Bokeh and Panel have cleaned up after it
(`dispose_when_closed`): about 1,500 objects left for the collector instead of 4,900.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading

from bokeh.model.util import collect_models

from explainer import memo

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
        idle = _open <= 0
    if idle:              # the class has left: what it computed goes too (`explainer.memo`)
        memo.release_all()
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


# -- a step left behind, a session closed ------------------------------------------------------

DISPOSE_DELAY_S = 2.0            # after the step's removal went out to the page


def _gather(objs: dict, parts, leave_out=None) -> None:
    """Add the Parameterized among `parts` (and a pane's own Row around it) to `objs`."""
    import param
    for o in parts:
        if isinstance(o, param.Parameterized) and o is not leave_out:
            objs[id(o)] = o
            wrapper = o.__dict__.get("layout")      # a pane's own Row around it
            if isinstance(wrapper, param.Parameterized):
                objs[id(wrapper)] = wrapper


def _models_of(o) -> list:
    """The Bokeh models a Panel component has on the page now (its `_models` entries)."""
    return [e[0] if isinstance(e, tuple) else e for e in list(getattr(o, "_models", {}).values())]


def island_of(view, with_models: bool = True) -> tuple[list, list]:
    """A step view about to leave the page: (its param objects: the view, its view-model, its
    Panel components and whatever Parameterized it keeps; the Bokeh models they have on the
    page now, if `with_models`). Read before the view leaves: removing it clears its
    components' models. The session's state, which the view names, is left out."""
    objs = {id(view): view}
    layout = getattr(view, "_layout", None)
    _gather(objs, [*vars(view).values(), *(layout.select() if layout is not None else ())],
            leave_out=getattr(view, "app", None))
    if not with_models:
        return list(objs.values()), []
    # one walk from all of them: each model's own `references()` walked its whole subtree
    # again (a tenth of a step change, measured)
    return list(objs.values()), collect_models(*(m for o in objs.values() for m in _models_of(o)))


def dispose(objs: list, models: list) -> int:
    """Break the reference cycles inside a step view that has left the page (`island_of`), or
    a closed session's page (`session_island`), so that reference counting frees it at once
    instead of the garbage collector later (see the module: the collector's pauses grow with
    the garbage it finds). Only edges a gone view never needs again: its watchers and links
    (a late change to a gone view then changes a number and nothing else), the plain
    attributes of what `Attributes` names, and the Bokeh models that left the document (their
    callbacks and property values). Models still in the document (a style sheet the page
    shares) are left alone. Returns how many models it cleared."""
    for o in objs:
        if isinstance(o, Attributes):
            kept = o.obj.__dict__.get("_param__private")
            o.obj.__dict__.clear()
            if kept is not None:
                o.obj.__dict__["_param__private"] = kept
            continue
        priv = o.__dict__.get("_param__private")
        if priv is not None:
            for value in [*priv.values.values(), *priv.refs.values()]:
                if callable(value) and "_dinfo" in getattr(value, "__dict__", ()):
                    value.__dict__.clear()       # pn.bind's functions keep themselves there
            priv.watchers = {}
            priv.dynamic_watchers.clear()
            priv.ref_watchers = []
            priv.refs = {}
            priv.async_refs = {}
            priv.params = {}             # per-instance parameter copies (each names its owner)
            priv.values = {}             # bound functions, children, closures over the view
        for name in ("_models", "_callbacks", "_internal_callbacks", "_links"):
            value = o.__dict__.get(name)
            if isinstance(value, (dict, list)):
                value.clear()
    cleared = 0
    for m in models:
        if m.document is not None:
            continue
        for name in ("_callbacks", "_event_callbacks", "_property_values",
                     "_unstable_default_values", "_unstable_themed_values"):
            value = m.__dict__.get(name)
            if isinstance(value, dict):
                value.clear()
        cleared += 1
    return cleared


def session_island(app) -> tuple[list, list]:
    """A closed session's (param objects, Bokeh models): the page around the step
    (`steps.shell`), its state, the step on screen, and their models, which Bokeh has emptied
    by then (their callbacks and defaults still tie them to the components)."""
    objs = {}
    for view in app.steps.values():
        objs.update((id(o), o) for o in island_of(view, with_models=False)[0])
    _gather(objs, [app, app.state, *vars(app).values(), *app.__panel__().select()])
    models = {id(m): m for o in objs.values() for m in _models_of(o)}
    return list(objs.values()) + [Attributes(app), Attributes(app.state)], \
        list(models.values())


class Attributes:
    """An object whose plain attributes `dispose` drops too (the page and its state name each
    other: the state's `navigate` is the page's `go`)."""
    def __init__(self, obj):
        self.obj = obj


def dispose_when_closed(app) -> None:
    """Take `app` apart DISPOSE_DELAY_S after its session closed, once Bokeh and Panel have
    cleaned up after it (`pn.state.on_session_destroyed`)."""
    def closed(session_context) -> None:
        _later(*session_island(app))
    import panel as pn
    pn.state.on_session_destroyed(closed)


def dispose_later(objs: list, models: list) -> None:
    """`dispose` a view's island DISPOSE_DELAY_S from now on the server's loop. Only in a
    served session, on its loop's thread; elsewhere (tests, a notebook, a pool thread) the
    garbage collector frees it as before."""
    import panel as pn
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        _later(objs, models)


def _later(objs: list, models: list) -> None:
    """`dispose` DISPOSE_DELAY_S from now on the loop running in this thread, if any."""
    import asyncio
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    from tornado.ioloop import IOLoop
    IOLoop.current().call_later(DISPOSE_DELAY_S, dispose, objs, models)
