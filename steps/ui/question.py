"""The predict-then-reveal question: asked before the visual answers it.

`content` comes from a step's text layer, built from the current state in the session's
language: {"key", "prompt", "options", "correct", "explain"} (+ the translated "lead",
"right", "wrong", "show" labels). Whatever answers the question stays concealed (`revealed`
is False) until the learner picks an option or presses “Show me”. A new `key` (the state the
question is about changed) asks again.
"""
from __future__ import annotations

import panel as pn
import panel_material_ui as pmui
import param

from .components import pane, render


class Question(pn.viewable.Viewer):

    content = param.Dict(default={}, allow_refs=True)
    answer = param.Integer(default=None, allow_None=True)
    shown = param.Boolean(default=False, doc="“Show me” pressed")
    revealed = param.Boolean(default=False, doc="answered or shown")

    def __init__(self, **params):
        super().__init__(**params)
        self._key = self.content.get("key")
        self._text = pane(css_classes=["question-text"])
        self._buttons = pn.FlexBox(gap="8px", css_classes=["answers"])
        self._show = pmui.Button(label="", size="small", variant="text",
                                 css_classes=["show-me"])
        self._show.on_click(lambda e: self.param.update(shown=True))
        self._feedback = pane(css_classes=["feedback"])
        self._layout = pn.Column(self._text, self._buttons, self._show, self._feedback,
                                 css_classes=["question-box"], sizing_mode="stretch_width",
                                 stylesheets=self._text.stylesheets)
        self.param.watch(self._changed, ["content", "answer", "shown"])
        self._render()

    def _changed(self, *events):
        key = self.content.get("key")
        if key != self._key:                       # a new question: ask again
            self._key = key
            with param.parameterized.discard_events(self):
                self.answer, self.shown = None, False
        self._render()

    def choose(self, i: int):
        self.answer = i

    def _render(self):
        c = self.content
        if not c:
            return
        self.revealed = self.answer is not None or self.shown
        self._text.object = render("question.html.j2", lead=c["lead"], prompt=c["prompt"])
        opts = c["options"]
        if len(self._buttons.objects) != len(opts):
            buttons = []
            for i in range(len(opts)):
                b = pmui.Button(label="", size="small", variant="outlined",
                                css_classes=["answer", f"answer-{i}"])
                b.on_click(lambda e, i=i: self.choose(i))
                buttons.append(b)
            self._buttons.objects = buttons
        for i, (b, o) in enumerate(zip(self._buttons.objects, opts)):
            chosen = self.answer == i
            b.param.update(label=o, variant="contained" if chosen else "outlined",
                           color=("success" if i == c["correct"] else "error")
                           if chosen else "primary")
        self._show.param.update(label=c["show"], visible=not self.revealed)
        if self.answer is None and not self.shown:
            state, head = "", ""
        elif self.answer is None:
            state, head = "shown", ""
        else:
            ok = self.answer == c["correct"]
            state, head = ("right", c["right"]) if ok else ("wrong", c["wrong"])
        self._feedback.object = render("feedback.html.j2", state=state, head=head,
                                       explain=c["explain"])

    def __panel__(self):
        return self._layout


def question_labels(tr) -> dict:
    """The question's fixed words in the session's language."""
    return dict(lead=tr._("Predict first"), right=tr._("Right."), wrong=tr._("Not quite."),
                show=tr._("Show me"))
