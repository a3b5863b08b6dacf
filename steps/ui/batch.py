"""One move of a learner, one message back.

A browser-drawn component's message (a slider released, a choice, the language, a key that
moves to the next step) reaches `_handle_msg` on one of the server's `--num-threads` threads.
A change made there to a pane cannot be written at once (only the event loop writes to the
session's socket), so Panel schedules each pane's change as a callback of its own and Bokeh
writes each as a message of its own: a language switch came back as 16 messages, a slider as
4, each serialized, framed and written on its own.

`one_patch` runs the whole handler on the event loop instead, under one hold of the
session's document: whatever the move changes leaves as one PATCH-DOC. Outside a served
session (tests, a notebook) the handler runs at once, as before.
"""
from __future__ import annotations

import functools

import panel as pn


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
