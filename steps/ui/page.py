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

from . import bundle

bundle.build()              # the modules of js/ joined into the file the browser loads


class Page(pn.custom.JSComponent):
    """A session's page (see the module doc and js/page.js)."""

    shell = param.Dict(default={}, doc="the page around the step (state.ShellState)")
    query = param.String(default="", doc="the address bar's query string")
    glossary = param.Dict(default={}, doc="the glossary in the session's language "
                                          "(steps.glossary.glossary_state): sent once per language")
    number = param.Integer(default=0, doc="the step on screen (0 before one is)")
    classes = param.List(default=[], doc="CSS classes of the step")
    tabs = param.Dict(default=None, allow_None=True, doc="the step's parts, when it has some")
    left = param.List(default=[], doc="the reading column's blocks")
    right = param.List(default=[], doc="the visual column's blocks")
    question = param.Dict(default=None, allow_None=True, doc="predict first (state.QuestionState)")
    controls = param.List(default=[], doc="the step's controls (state.ControlSpec)")
    values = param.Dict(default={}, doc="the value each control shows")
    acks = param.Dict(default={}, doc="per control, the last change the server handled")
    custom = param.Dict(default=None, allow_None=True, doc="a step's own widget group")
    stage = param.Dict(default=None, allow_None=True, doc="the figure's renderer and labels")
    frames = param.String(default="", doc="the stage's frames, JSON")
    frame = param.Integer(default=0, doc="where playback stands")
    concealed = param.Boolean(default=True, doc="answer-bearing numbers show “?”")

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
