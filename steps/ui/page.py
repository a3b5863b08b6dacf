"""The one browser component of a session's page (`Page`) and its wiring to the app.

The component has one parameter per part of the state (`steps.ui.state`): `shell`, `query`,
`glossary` and the parts of the step on screen. After every change the server sets the parts
whose JSON changed (`Changes`), and Panel sends those. The browser sends a learner's moves as
messages; each is handled on the session's event loop under one hold of the document, so
whatever it changes leaves as one message.

A part travels as its JSON text, the text `Changes` compares anyway (the frames, already JSON,
as they are: `state.JSONText`), and the page parses it once (js/page.js `read`). Handed a
nested dict or list instead, Bokeh walks every value of it twice per change in Python, looking
for models it might hold (Panel's `freeze_doc` and the property's change event), and encodes
it value by value: about a fifth of a move's server time in the class benchmark (py-spy,
docs/performance.md).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import get_type_hints

import panel as pn
import param

from . import bundle
from .state import STEP_KEYS, JSONText, StepState

bundle.build()              # the modules of js/ joined into the file the browser loads

_HINTS = get_type_hints(StepState)
# the parts whose value in the state is already JSON text
TEXT_PARTS = frozenset(name for name, kind in _HINTS.items() if kind is JSONText)


def _part(name: str) -> param.String:
    """The component's parameter for one part of the state: its JSON text ("" before the
    first state)."""
    return param.String(default="", doc=f"the step's {name} as JSON text (steps.ui.state.StepState)")


class Page(pn.custom.JSComponent):
    """A session's page (see the module doc and js/page.js). Besides `shell`, `query` and
    `glossary`, it has one parameter per part of `state.StepState` (made below from its
    annotations: the regions, the question, the controls, the stage, …); `parts` names them
    for the page, which listens to each."""

    shell = param.String(default="", doc="the page around the step (state.ShellState), as JSON")
    query = param.String(default="", doc="the address bar's query string, as JSON")
    glossary = param.String(default="", doc="the glossary in the session's language "
                            "(steps.glossary.glossary_state), as JSON: sent once per language")
    parts = param.List(default=list(STEP_KEYS), constant=True,
                       doc="the names of the step's parts (state.STEP_KEYS), for the page")
    locals().update({name: _part(name) for name in _HINTS})

    _esm = Path(bundle.OUT)
    _bundle = Path(bundle.OUT)
    _stylesheets = ["app.css"]

    def __init__(self, on_msg=None, **params):
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        self._on_msg = on_msg

    def _handle_msg(self, msg) -> None:
        if self._on_msg is None or not isinstance(msg, dict):
            return
        doc = pn.state.curdoc

        def held():
            with pn.io.hold(doc):
                self._on_msg(msg)
        # on the event loop: at once when served without --num-threads (docs/design.md, "A move
        # is one message each way"), scheduled there from a worker thread otherwise
        pn.state.execute(held, schedule="auto")


class Changes:
    """The parts of a state that differ from the last one seen (`changed`), as the JSON texts
    the page gets. A part is compared by its JSON text (the C encoder), or by identity first
    (the glossary, the frames of shared sets are the same objects move after move): param
    would compare every nested list and dict of every part in Python at each move."""

    def __init__(self):
        self._seen: dict[str, tuple[object, str]] = {}

    def changed(self, state: dict) -> dict[str, str]:
        out = {}
        for name, value in state.items():
            last = self._seen.get(name)
            if last is not None and last[0] is value:
                continue
            text = value if name in TEXT_PARTS else \
                json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            if last is None or last[1] != text:
                out[name] = text
            self._seen[name] = (value, text)
        return out


def connect(app) -> Page:
    """A Page that shows `app` (a `steps.shell.App`) and sends it the learner's moves: after
    each change, the JSON texts of the parts of the new state that changed (`Changes`)."""
    page = Page(on_msg=app.handle)
    changes = Changes()

    def show():
        changed = changes.changed(app.state())
        if changed:
            page.param.update(**changed)
    app.on_change(show)
    show()
    return page
