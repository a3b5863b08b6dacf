"""One move of a learner, one message back, handled where it arrives.

A browser-drawn component's message (a slider released, a choice, the language, a key or a
step button that moves to another step) arrives on the server's event loop. With
`--num-threads`, Panel hands it to a pool thread; a change made there to a pane cannot be
written at once (only the event loop writes to the session's socket), so Panel schedules each
pane's change as a callback of its own and Bokeh writes each as a message of its own: a
language switch came back as 16 messages, a slider as 4, each serialized, framed and written
on its own.

`one_patch` runs the whole handler on the event loop instead, under one hold of the
session's document: whatever the move changes leaves as one PATCH-DOC. Outside a served
session (tests, a notebook) the handler runs at once, as before.

`OnLoop` keeps such a component's messages on the event loop from the start: the pool thread
would only schedule the handler back onto the loop, and each hop waits for the GIL (CPython
hands it over every 5 ms) while other sessions' work runs. The pool stays for whatever else
uses it (Panel's own widgets, onload callbacks).
"""
from __future__ import annotations

import functools

import panel as pn
from panel.io.state import set_curdoc, state


def one_patch(handler):
    """Decorate a component's `_handle_msg(self, msg)` (see the module doc)."""
    @functools.wraps(handler)
    def wrapper(self, msg):
        doc = pn.state.curdoc

        def held():
            with pn.io.hold(doc):
                handler(self, msg)
        # 'auto': at once on the event loop; from another thread, scheduled on the loop
        pn.state.execute(held, schedule="auto")
    return wrapper


def index_in(msg, n: int) -> int | None:
    """A message that names one of `n` items (an int in 0..n-1, not a bool), else None."""
    if isinstance(msg, int) and not isinstance(msg, bool) and 0 <= msg < n:
        return msg
    return None


class OnLoop:
    """Mixin (before `pn.custom.JSComponent` in the bases) for a component whose messages
    are handled by a `one_patch` handler: a message from the browser is processed where it
    arrives, on the event loop, never handed to Panel's thread pool (see the module doc).
    A message that arrives before the page is ready still waits for it (Panel's
    `_event_coroutine`, which ends here).

    Panel raises and lowers its process-wide `busy` flag around every event, for a
    template's busy indicator; this page has none, and the flag's bookkeeping (a list
    rebuilt and three watched parameters set, twice) took 0.8 ms of every move, so these
    messages leave it down."""

    browser_sets: tuple = ()     # properties the browser's code changes (the rest: messages)

    @property
    def _linked_properties(self) -> tuple[str, ...]:
        """Panel listens for a browser change of every property (one Bokeh `on_change` each,
        with its callback's signature inspected: a tenth of building a step); these
        components change only `browser_sets` in the browser, and send messages otherwise."""
        return tuple(p for p in super()._linked_properties if p in self.browser_sets)

    def _comm_event(self, doc, event) -> None:
        try:
            with set_curdoc(doc):
                self._process_event(event)
        except Exception as e:  # noqa: BLE001 - reported as Panel reports a callback's error
            state._handle_exception(e)

    async def _event_coroutine(self, doc, event) -> None:
        for cb in list(state._change_callbacks.get(doc, {}).values()):
            await cb()
        self._comm_event(doc, event)
