"""The one browser component of a session's page (`Page`) and its wiring to the app.

The component has one parameter per part of the state (`steps.ui.state`): `shell` and the
parts of the step on screen. The server sets them all after every change; param sends only
the parts whose value changed. The browser sends a learner's moves as messages; each is
handled on the session's event loop under one hold of the document, so whatever it changes
leaves as one message.
"""
from __future__ import annotations

from pathlib import Path

import panel as pn
import param

from typing import get_type_hints

from . import bundle
from .state import STEP_KEYS, StepState

bundle.build()              # the modules of js/ joined into the file the browser loads


def _part(name: str, kind) -> param.Parameter:
    """The component's parameter for one part of the state, from its annotation in
    `state.StepState` (a list, a dict, a dict or None, a string, an int, a bool)."""
    doc = f"the step's {name} (steps.ui.state.StepState)"
    text = str(kind)
    if text.startswith("list"):
        return param.List(default=[], doc=doc)
    if "None" in text:                       # dict | None, a TypedDict | None
        return param.Dict(default=None, allow_None=True, doc=doc)
    if text.startswith("dict"):
        return param.Dict(default={}, doc=doc)
    return {str: param.String(default="", doc=doc), int: param.Integer(default=0, doc=doc),
            bool: param.Boolean(default=True, doc=doc)}[kind]


class Page(pn.custom.JSComponent):
    """A session's page (see the module doc and js/page.js). Besides `shell`, `query` and
    `glossary`, it has one parameter per part of `state.StepState` (made below from its
    annotations: the regions, the question, the controls, the stage, …); `parts` names them
    for the page, which listens to each."""

    shell = param.Dict(default={}, doc="the page around the step (state.ShellState)")
    query = param.String(default="", doc="the address bar's query string")
    glossary = param.Dict(default={}, doc="the glossary in the session's language "
                                          "(steps.glossary.glossary_state): sent once per language")
    parts = param.List(default=list(STEP_KEYS), constant=True,
                       doc="the names of the step's parts (state.STEP_KEYS), for the page")
    locals().update({name: _part(name, kind) for name, kind in get_type_hints(StepState).items()})

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
        pn.state.execute(held, schedule="auto")     # on the event loop, at once if there


def connect(app) -> Page:
    """A Page that shows `app` (a `steps.shell.App`) and sends it the learner's moves."""
    page = Page(on_msg=app.handle)
    app.on_change(lambda: page.param.update(**app.state()))
    page.param.update(**app.state())
    return page
