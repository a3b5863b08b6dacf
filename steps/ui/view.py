"""The base of every step's thin view, and the few helpers views share."""
from __future__ import annotations

import panel as pn
import param

from explainer.i18n import LANGS

from ..common import AppState, translator
from .components import Column, Row, style_widgets, stylesheet


class StepView(pn.viewable.Viewer):
    """A step while it is on screen: `model` holds its controls as params (synced with the URL
    under `url_names`); the view binds widgets and panes to the model and to its own `lang`,
    which the shell sets while the step is shown. Nothing here re-renders as a whole: every
    pane depends on what it shows.

    A view lives only while its step is on screen: leaving the step keeps `saved()` (numbers
    only: the view-model's inputs and the question's answer) and drops the view with
    everything it built, so a session holds one step's panes and a language switch works on
    the step that is shown, never on steps visited earlier. Coming back builds the view again
    from what was saved."""

    lang = param.Selector(default="en", objects=list(LANGS),
                          doc="the language shown; set by the shell while the step is shown")

    number: int = 0
    url_names: dict = {}          # model param -> query parameter name
    kept: tuple = ()              # more model params a later visit restores (not in the URL)
    model_class: type = None

    def __init__(self, app: AppState, saved: dict | None = None, **params):
        params.setdefault("lang", app.lang)
        super().__init__(**params)
        self.app = app
        self._saved = saved or {}
        inputs = dict(self._saved.get("model", {}))
        if "lang" in self.model_class.param:
            inputs["lang"] = self.lang
            self.param.watch(self._lang_to_model, "lang")
        self.model = self.model_class(**inputs)
        self._layout = None

    def _lang_to_model(self, event):
        self.model.lang = event.new

    @property
    def tr(self):
        return translator(self.lang)

    def saved(self) -> dict:
        """What a later visit restores: the view-model's inputs and the question's state."""
        m = self.model
        state = {"model": {n: getattr(m, n) for n in (*self.url_names, *self.kept)}}
        q = getattr(self, "question", None)
        if q is not None:
            state["question"] = {"answer": q.answer, "shown": q.shown}
        return state

    def url_state(self) -> dict:
        return {q: getattr(self.model, p) for p, q in self.url_names.items()}

    def __panel__(self):
        if self._layout is None:          # built when first shown, not before
            self._layout = self.build()
            asked = self._saved.get("question")
            if asked and getattr(self, "question", None) is not None:
                self.question.param.update(**asked)
            style_widgets(self._layout)
            self.adopt_stages()
        return self._layout

    def adopt_stages(self) -> None:
        """Presenter keys on the step's stages reach the stepper (again after a part of the
        step is built late)."""
        from .stage import Stage
        for part in vars(self).values():
            if isinstance(part, Stage):
                part.present = getattr(self.app, "present", False)
                if part._on_nav is None:
                    part._on_nav = getattr(self.app, "navigate", None)

    def build(self) -> pn.viewable.Viewable:
        raise NotImplementedError


def every_state(model: param.Parameterized, *names: str):
    """Set `model` to every combination of the named Integer params' values (their bounds),
    yielding after each: what a server warms at start, one state at a time."""
    import itertools
    ranges = [range(model.param[n].bounds[0], model.param[n].bounds[1] + 1) for n in names]
    for values in itertools.product(*ranges):
        model.param.update(**dict(zip(names, values)))
        yield values


def tr_of(lang: str):
    return translator(lang)


def conceal_until_revealed(stage, question) -> None:
    """The stage's answer-bearing numbers show “?” until the question is answered or shown."""
    stage.concealed = not question.revealed
    question.param.watch(lambda e: setattr(stage, "concealed", not e.new), "revealed")


def sync(a: param.Parameterized, a_name: str, b: param.Parameterized, b_name: str):
    """Keep two params equal, both ways."""
    def ab(e):
        if getattr(b, b_name) != e.new:
            setattr(b, b_name, e.new)

    def ba(e):
        if getattr(a, a_name) != e.new:
            setattr(a, a_name, e.new)
    a.param.watch(ab, a_name)
    b.param.watch(ba, b_name)


def two_columns(explain: list, visual: list) -> Row:
    """The reading layout: the explanation, question and controls on one side, the visual
    (sticky) on the other; one column on narrow screens (the columns wrap)."""
    css = [stylesheet()]
    left = Column(*explain, css_classes=["step-text"], sizing_mode="stretch_width",
                  styles={"flex": "1 1 340px", "min-width": "0", "max-width": "44rem"},
                  stylesheets=css)
    right = Column(*visual, css_classes=["step-visual"], sizing_mode="stretch_width",
                   styles={"flex": "1.3 1 420px", "min-width": "0", "position": "sticky",
                           "top": "4px", "align-self": "flex-start"}, stylesheets=css)
    return Row(left, right, sizing_mode="stretch_width", css_classes=["step-grid"],
               stylesheets=css)      # a row that wraps (assets/app.css, .step-grid)
