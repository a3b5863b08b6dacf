"""A step's controls, drawn by the browser as one small component.

Each control is a native form element: `<select>` (a choice), `<input type=range>` (a
slider, with its value written beside it), `<input type=text>` (typed text, sent on Enter or
when the field is left) or a row of radio buttons (a segmented choice). Native elements give
every learner the keyboard, the screen-reader roles and the mobile pickers for free; their look
is in assets/app.css (`.ctl-*`).

    Controls(model, [choice("layer", N_("Layer"), text.layer_options),
                     slider("tokens", N_("Tokens to generate"), step=1)], lang=app.param.lang)

The server side holds, per control, its translated label and options (`spec`, rebuilt when
the language changes) and the current values (`values`, language-free). The browser sends
a learner's change as one message ({name, value}): only what changed travels. The server
checks it against the control (an option that exists, a number inside the bounds on the
step, text no longer than allowed) and sets the view-model's parameter, or calls the
control's `on_change`. When the view-model changes by
itself (a URL, a reset), `values` follows. One component per step, instead of one Material
widget per control: a tenth of the models a session's page needs.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import panel as pn
import param

from explainer.i18n import Translator
from explainer.memo import memo

from ..common import translator
from .batch import OnLoop, one_patch
from .components import Listening, stylesheet

CONTROLS_JS = r"""
const el = (tag, attrs, parent) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
};

export function render({ model }) {
  const box = el("div", { class: "ctl-row" });
  let uid = Math.random().toString(36).slice(2, 8);
  let built = "";
  const parts = {};                      // name -> {set(value), label}
  // a value sent and not yet confirmed: the server's older values do not move the control
  // back meanwhile (a slider moved by several key presses in a row)
  const pending = {};
  let seq = 0;                           // the order of the changes, for the server

  const send = (name, value) => {
    pending[name] = [value, Date.now()];
    model.send_msg({ name, value, seq: ++seq });
  };
  const fmt = (v) => {
    try { return Number(v).toLocaleString(model.lang || "en"); } catch (e) { return String(v); }
  };

  const build = () => {
    box.replaceChildren();
    for (const k of Object.keys(parts)) delete parts[k];
    (model.spec || []).forEach((c, i) => {
      const id = `ctl-${uid}-${i}`;
      const wrap = el("div", { class: `ctl ctl-${c.kind} ctl-${c.size || "normal"} ctl-${c.name}` }, box);
      if (c.kind === "radio") {
        const group = el("div", { role: "radiogroup", class: "ctl-segments",
                                  "aria-labelledby": id + "-label" }, wrap);
        const lab = el("span", { id: id + "-label", class: "ctl-label" });
        wrap.insertBefore(lab, group);
        const inputs = (c.options || []).map(([value, text], j) => {
          const l = el("label", { class: "ctl-segment" }, group);
          const r = el("input", { type: "radio", name: id, value: String(j) }, l);
          const s = el("span", {}, l);
          s.textContent = text;
          r.addEventListener("change", () => { if (r.checked) send(c.name, value); });
          return [r, value];
        });
        parts[c.name] = { label: lab, set: (v) => {
          for (const [r, value] of inputs) {
            r.checked = value === v;
            r.parentElement.classList.toggle("checked", value === v);
          }
        } };
        return;
      }
      const lab = el("label", { for: id, class: "ctl-label" }, wrap);
      if (c.kind === "select") {
        const s = el("select", { id, class: "ctl-input" }, wrap);
        (c.options || []).forEach(([value, text], j) => {
          const o = el("option", { value: String(j) }, s);
          o.textContent = text;
        });
        s.addEventListener("change", () => {
          const o = (c.options || [])[Number(s.value)];
          if (o) send(c.name, o[0]);
        });
        parts[c.name] = { label: lab, set: (v) => {
          s.selectedIndex = (c.options || []).findIndex((o) => o[0] === v);
        } };
      } else if (c.kind === "range") {
        const line = el("div", { class: "ctl-range-line" }, wrap);
        const r = el("input", { id, type: "range", class: "ctl-input", min: c.start,
                                max: c.end, step: c.step }, line);
        const out = el("output", { for: id, class: "ctl-value", "aria-hidden": "true" }, line);
        const show = (v) => {
          out.textContent = fmt(v);
          r.setAttribute("aria-valuenow", String(v));
          r.setAttribute("aria-valuetext", fmt(v));
        };
        r.addEventListener("input", () => show(Number(r.value)));
        r.addEventListener("change", () => send(c.name, Number(r.value)));
        parts[c.name] = { label: lab, set: (v) => { r.value = String(v); show(v); } };
      } else {
        const t = el("input", { id, type: "text", class: "ctl-input", autocomplete: "off",
                                spellcheck: "false" }, wrap);
        if (c.max_length) t.maxLength = c.max_length;
        t.placeholder = c.placeholder || "";
        const commit = () => send(c.name, t.value);
        t.addEventListener("change", commit);
        t.addEventListener("keydown", (e) => { if (e.key === "Enter") commit(); });
        parts[c.name] = { label: lab, set: (v) => {
          if (document.activeElement !== t || t.value === "") t.value = v ?? "";
        } };
      }
    });
  };

  const draw = () => {
    const spec = model.spec || [];
    const shape = JSON.stringify(spec.map((c) => [c.name, c.kind, c.start, c.end, c.step,
                                                   (c.options || []).map((o) => o[0])]));
    if (shape !== built) { build(); built = shape; }
    const values = model.values || {};
    const els = box.children;
    spec.forEach((c, i) => {
      const p = parts[c.name];
      p.label.textContent = c.label;
      if (c.kind === "select" || c.kind === "radio") {
        const texts = (c.options || []).map((o) => o[1]);
        const nodes = c.kind === "select" ? els[i].querySelectorAll("option")
                                          : els[i].querySelectorAll(".ctl-segment span");
        nodes.forEach((n, j) => { if (n.textContent !== texts[j]) n.textContent = texts[j]; });
      }
      if (c.kind === "text") els[i].querySelector("input").placeholder = c.placeholder || "";
      const wait = pending[c.name];
      if (wait && (values[c.name] === wait[0] || Date.now() - wait[1] > 2000)) delete pending[c.name];
      if (!pending[c.name]) p.set(values[c.name]);
    });
  };
  draw();
  model.on(["spec", "values", "lang"], draw);
  return box;
}
"""


@dataclass(frozen=True)
class Control:
    """One control of a step, bound to the view-model's parameter `name`.

    `label` is a msgid (or `label(tr)` gives the words); `options(tr)` gives the text layer's
    {translated label: value} for choices;
    `start`/`end` default to the parameter's bounds; `on_change(value)` replaces the plain
    set; `shown(target)` replaces the parameter's value as the value shown (it is asked again
    when any of the parameters in `also` changes); `size` is a layout hint (`narrow`,
    `normal`, `wide`); `hidden`: the page does not draw it among the controls (a step's tabs
    set it)."""
    name: str
    kind: str
    label: str | Callable[[Translator], str]
    options: Callable[[Translator], list] | None = None
    start: float | None = None
    end: float | None = None
    step: float = 1
    placeholder: str | None = None
    max_length: int | None = None
    size: str = "normal"
    on_change: Callable[[Any], None] | None = field(default=None, compare=False)
    shown: Callable[[Any], Any] | None = field(default=None, compare=False)
    also: tuple[str, ...] = ()
    hidden: bool = False


def choice(name, label, options, **kw) -> Control:
    """A drop-down list (`options(tr)` -> {label: value})."""
    return Control(name, "select", label, options, **kw)


def segments(name, label, options, **kw) -> Control:
    """A row of radio buttons (`options(tr)` -> {label: value})."""
    return Control(name, "radio", label, options, **kw)


def slider(name, label, step=1, **kw) -> Control:
    """A slider over an Integer/Number parameter's bounds (or `start`/`end`)."""
    return Control(name, "range", label, step=step, **kw)


def text_field(name, label, placeholder=None, max_length=None, **kw) -> Control:
    """A one-line text field, sent on Enter or when the learner leaves it."""
    return Control(name, "text", label, placeholder=placeholder, max_length=max_length, **kw)


def _is_shared(fn) -> bool:
    """A module-level function (not a lambda or a closure made per session)."""
    return "<" not in getattr(fn, "__qualname__", "<")


@memo(maxsize=256)
def _options_of(fn, lang: str) -> list:
    return [(value, label) for label, value in fn(translator(lang)).items()]


class Controls(Listening, OnLoop, pn.custom.JSComponent):
    """A step's controls (see the module doc)."""

    spec = param.List(default=[], doc="per control: name, kind, translated label, options")
    values = param.Dict(default={}, doc="per control: the value shown")
    lang = param.String(default="en", doc="numbers beside sliders are written this way")

    _esm = CONTROLS_JS

    def __init__(self, target: param.Parameterized, controls: list[Control],
                 lang: param.Parameter | None = None, **params):
        params.setdefault("stylesheets", [stylesheet()])
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("css_classes", ["controls"])
        self._target = target
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}
        self._controls = {c.name: c for c in controls}
        super().__init__(**params)
        if lang is not None:            # a reference to the session's language parameter
            self.lang = getattr(lang.owner, lang.name)
            lang.owner.param.watch(lambda e: self._relabel(e.new), lang.name)
        self._relabel(self.lang)
        self.values = {c.name: self._browser_value(c) for c in controls}
        watched = {n for c in controls for n in (c.name, *c.also)}
        target.param.watch(self._model_changed, sorted(watched))

    # -- server -> browser ------------------------------------------------------------------------
    def _relabel(self, lang: str) -> None:
        tr = translator(lang)
        spec = []
        for c in self._controls.values():
            label = c.label(tr) if callable(c.label) else tr._(c.label)
            entry = {"name": c.name, "kind": c.kind, "label": label, "size": c.size}
            if c.options is not None:
                entry["options"] = [[v, str(text)] for v, text in self._options(c, tr)]
            if c.kind == "range":
                entry.update(start=self._bound(c, 0), end=self._bound(c, 1), step=c.step)
            if c.kind == "text":
                entry.update(placeholder=tr._(c.placeholder) if c.placeholder else "",
                             max_length=c.max_length)
            spec.append(entry)
        with param.parameterized.batch_call_watchers(self):
            self.lang = lang
            self.spec = spec

    @staticmethod
    def _options(c: Control, tr: Translator) -> list:
        """[(value, label)] from the text layer's {label: value}; a text-layer function's
        answer is worked out once per language and process (a language switch relabels
        every session's controls)."""
        return _options_of(c.options, tr.lang) if _is_shared(c.options) else \
            [(value, label) for label, value in c.options(tr).items()]

    def _bound(self, c: Control, i: int):
        given = (c.start, c.end)[i]
        if given is not None:
            return given
        return self._target.param[c.name].bounds[i]

    def _browser_value(self, c: Control):
        v = c.shown(self._target) if c.shown else getattr(self._target, c.name)
        return "" if c.kind == "text" and v is None else v

    def _model_changed(self, *events) -> None:
        values = {n: self._browser_value(c) for n, c in self._controls.items()}
        if values != self.values:
            self.values = values

    # -- browser -> server ------------------------------------------------------------------------
    def accept(self, name, value) -> tuple[bool, Any]:
        """(whether `value` is one the control `name` can take, the value to set)."""
        c = self._controls.get(name) if isinstance(name, str) else None
        if c is None:
            return False, None
        if c.kind in ("select", "radio"):
            allowed = [v for v, _ in self._options(c, translator(self.lang))]
            return (value in allowed and not isinstance(value, bool)), value
        if c.kind == "range":
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                return False, None
            lo, hi = self._bound(c, 0), self._bound(c, 1)
            snapped = lo + round((value - lo) / c.step) * c.step
            snapped = min(hi, max(lo, snapped))
            if isinstance(self._target.param[name], param.Integer):
                snapped = int(round(snapped))
            return True, snapped
        if not isinstance(value, str):
            return False, None
        return True, value[: c.max_length] if c.max_length else value

    @one_patch
    def _handle_msg(self, msg) -> None:
        """A learner's change: {"name": control, "value": new value, "seq": its number}.

        Messages are handled on the event loop in the order they arrive (`OnLoop`); should
        one ever be handled late (Panel defers a message that arrives while the page is
        still loading), a change older than one already applied to the same control (a
        smaller `seq`) is dropped, and the changes of one component are applied one at a
        time."""
        if not isinstance(msg, dict):
            return
        name, seq = msg.get("name"), msg.get("seq")
        with self._lock:
            if isinstance(seq, int) and not isinstance(seq, bool) and isinstance(name, str):
                if seq <= self._seq.get(name, 0):
                    return
                self._seq[name] = seq
            self.move(name, msg.get("value"))

    def move(self, name, value) -> None:
        """Apply a learner's change to the control `name`, if it is one the control can
        take; the values then show what the view-model made of it."""
        ok, value = self.accept(name, value)
        if ok and value != self._browser_value(self._controls[name]):
            c = self._controls[name]
            if c.on_change is not None:
                c.on_change(value)
            else:
                setattr(self._target, name, value)
        self._model_changed()
