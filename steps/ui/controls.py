"""A step's controls, as specs: the browser draws each as a native form element (a <select>
for a choice, a range with its value beside it for a slider, a text field sent on Enter or
when left, a row of radio buttons for a segmented choice; steps/ui/js/controls.js), which
gives every learner the keyboard, the screen-reader roles and the mobile pickers.

    def controls(self):          # in a step's controller (steps/ui/step.py)
        return [choice("layer", N_("Layer"), text.layer_options),
                slider("tokens", lambda t: text.control_labels(t)["tokens"], step=1)]

The step turns them into the state's `controls` (translated labels and options) and `values`,
and checks a learner's change against them before it reaches the view-model (`Step.accept`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from explainer.i18n import Translator


@dataclass(frozen=True)
class Control:
    """One control of a step, bound to the view-model's parameter `name`.

    `label` is a msgid, or `label(tr)` gives the words, or None: the step's own
    `labels(tr)[name]` (its text layer's `control_labels`); `options(tr)` gives the text layer's
    {translated label: value} for choices;
    `start`/`end` default to the parameter's bounds; `on_change(value)` replaces the plain
    set; `shown(target)` replaces the parameter's value as the value shown (asked on every
    state, so it follows whatever it reads); `size` is a layout hint (`narrow`, `normal`,
    `wide`); `hidden`: the page does not draw it among the controls (a step's tabs
    set it); `short(tr)` gives a row of radio buttons' {value: short label}, shown instead
    of the labels on the projected page (the labels stay for screen readers)."""
    name: str
    kind: str
    label: str | Callable[[Translator], str] | None
    options: Callable[[Translator], list] | None = None
    start: float | None = None
    end: float | None = None
    step: float = 1
    placeholder: str | None = None
    max_length: int | None = None
    size: str = "normal"
    on_change: Callable[[Any], None] | None = field(default=None, compare=False)
    shown: Callable[[Any], Any] | None = field(default=None, compare=False)
    hidden: bool = False
    short: Callable[[Translator], dict] | None = None


def layer_and_head(text) -> list[Control]:
    """The two narrow drop-downs of the steps that show one layer and head of the live model:
    `text` is the step's text room (its `layer_options` and `head_options`)."""
    return [choice("layer", options=text.layer_options, size="narrow"),
            choice("head", options=text.head_options, size="narrow")]


def choice(name, label=None, options=None, **kw) -> Control:
    """A drop-down list (`options(tr)` -> {label: value})."""
    return Control(name, "select", label, options, **kw)


def segments(name, label=None, options=None, **kw) -> Control:
    """A row of radio buttons (`options(tr)` -> {label: value})."""
    return Control(name, "radio", label, options, **kw)


def slider(name, label=None, step=1, **kw) -> Control:
    """A slider over an Integer/Number parameter's bounds (or `start`/`end`)."""
    return Control(name, "range", label, step=step, **kw)


def text_field(name, label=None, placeholder=None, max_length=None, **kw) -> Control:
    """A one-line text field, sent on Enter or when the learner leaves it."""
    return Control(name, "text", label, placeholder=placeholder, max_length=max_length, **kw)
