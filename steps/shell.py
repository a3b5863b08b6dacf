"""The page around the steps: title, language switch, numbered stepper, Previous/Next and
the arrow keys, deep links (`?step=2&lang=pl&tokens=64&prompt=5`), FAQ and references.

URL parameters: `step` (1-6), `lang` (en, id, pl, nl), and the controls of the current step
(see each step's `url_names`). Unknown or invalid values fall back to the defaults with a
short translated notice.
"""
from __future__ import annotations

import importlib
from urllib.parse import urlencode

import panel as pn
import panel_material_ui as pmui
import param

from explainer.i18n import LANGS, N_, negotiate, normalize_lang

from .common import STEP_TITLES, AppState, esc, html_pane
from .faq import FAQ, REFERENCES

STEP_MODULES = {i: f"steps.step{i}" for i in range(1, 7)}
ALWAYS_OK = {"theme"}           # Panel's own query parameters


def step_class(n: int):
    return getattr(importlib.import_module(STEP_MODULES[n]), f"Step{n}")


class KeyNav(pn.custom.JSComponent):
    """←/→ anywhere on the page (except inside a text field, slider or menu) send -1/+1;
    keeps <html lang> and the document title in step with the session's language, and the
    address bar's query string in step with the state (replaceState: no reload, no history
    entry per slider move)."""

    lang = param.String(default="en")
    title = param.String(default="")
    query = param.String(default="", doc="the URL query string that reflects the state")

    _esm = """
    const SKIP_ROLES = ["slider", "radio", "tab", "combobox", "listbox", "option", "menuitem",
                        "spinbutton", "textbox"];
    export function render({ model }) {
      const onkey = (e) => {
        if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
        const t = e.composedPath()[0];
        if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName) ||
            (t.getAttribute && SKIP_ROLES.includes(t.getAttribute("role"))))) return;
        model.send_msg(e.key === "ArrowLeft" ? -1 : 1);
      };
      window.addEventListener("keydown", onkey);
      const sync = () => {
        document.documentElement.lang = model.lang;
        if (model.title) document.title = model.title;
      };
      const url = () => {
        if (model.query && model.query !== window.location.search)
          window.history.replaceState(null, "", window.location.pathname + model.query +
                                      window.location.hash);
      };
      sync();
      url();
      model.on(["lang", "title"], sync);
      model.on("query", url);
      model.on("remove", () => window.removeEventListener("keydown", onkey));
      const el = document.createElement("span");
      el.hidden = true;
      return el;
    }
    """

    def __init__(self, on_nav, **params):
        super().__init__(**params)
        self._on_nav = on_nav

    def _handle_msg(self, msg):
        if msg in (-1, 1):
            self._on_nav(msg)


def controls_of(view):
    """The Parameterized that holds a step's URL controls: its view-model."""
    return getattr(view, "model", view)


def parse_value(p: param.Parameter, raw: str):
    """A URL string -> a value of the parameter's type (validation is the parameter's)."""
    if isinstance(p, param.Integer):
        return int(raw)
    if isinstance(p, param.Number):
        return float(raw)
    if isinstance(p, param.Selector):
        for obj in p.objects:
            if str(obj) == raw:
                return obj
        raise ValueError(raw)
    if isinstance(p, param.Boolean):
        if raw.lower() not in ("true", "false", "1", "0"):
            raise ValueError(raw)
        return raw.lower() in ("true", "1")
    return raw


def _first(values):
    v = values[0] if isinstance(values, (list, tuple)) and values else values
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


class ExplainerApp(pn.viewable.Viewer):
    """One per session."""

    def __init__(self, query: dict | None = None, accept_language: str | None = None, **params):
        super().__init__(**params)
        self.state = AppState()
        self.state.navigate = self.go          # presenter keys on a stage reach the stepper
        self.steps: dict[int, object] = {}
        self.notices: list[tuple[str, dict]] = []
        query = {k: _first(v) for k, v in (query or {}).items()}
        self._apply_query(query, accept_language)
        # -- widgets
        self._title = html_pane(css_classes=["app-title"], min_width=220,
                                styles={"flex": "1 1 240px"})
        self._lang = pmui.Select(options={name: code for code, name in LANGS.items()},
                                 value=self.state.lang, width=200)
        self._lang.param.watch(lambda e: setattr(self.state, "lang", e.new), "value")
        self._stepper = pmui.StepperMenu(items=[], active=self.state.step - 1, non_linear=True,
                                         sizing_mode="stretch_width",
                                         styles={"overflow-x": "auto", "max-width": "100%"})
        self._stepper.param.watch(self._stepper_moved, "active")
        self._prev = pmui.Button(icon="arrow_back", variant="outlined")
        self._next = pmui.Button(icon="arrow_forward", color="primary", variant="contained")
        self._prev.on_click(lambda e: self.go(-1))
        self._next.on_click(lambda e: self.go(1))
        self._notice = html_pane()
        self._heading = html_pane(css_classes=["step-heading"])
        self._body = pn.Column(sizing_mode="stretch_width", css_classes=["step-body"])
        self._faq = html_pane(css_classes=["faq"])
        self._keys = KeyNav(self.go, lang=self.state.lang)
        self._layout = pn.Column(
            pn.FlexBox(self._title, self._lang, justify_content="space-between",
                       align_items="center", sizing_mode="stretch_width"),
            self._stepper, self._notice, self._heading, self._body,
            pn.Row(self._prev, pn.Spacer(sizing_mode="stretch_width"), self._next,
                   sizing_mode="stretch_width"),
            self._faq, self._keys, sizing_mode="stretch_width", css_classes=["kv-root"],
            max_width=1200, margin=(0, 8))
        self.state.param.watch(self._step_changed, "step")
        self.state.param.watch(self._lang_changed, "lang")
        self._show_step()
        self.render()
        self._push_url()

    # -- URL -------------------------------------------------------------------------------
    def _apply_query(self, query: dict, accept_language: str | None):
        """Validate the URL once, before anything renders: bad values -> defaults + notice."""
        lang = query.get("lang")
        if lang is not None:
            code = normalize_lang(lang)
            if code:
                self.state.lang = code
            else:
                self.notices.append((N_("Unknown language “{value}”: showing {lang}."),
                                     {"value": lang, "lang": LANGS["en"]}))
        else:
            self.state.lang = negotiate(accept_language)
        if "step" in query:
            try:
                n = int(query["step"])
                if not 1 <= n <= 6:
                    raise ValueError
                self.state.step = n
            except ValueError:
                self.notices.append((N_("There is no step “{value}”: showing step 1."),
                                     {"value": query["step"]}))
        view = self._view(self.state.step)
        target = controls_of(view)
        known = {"step", "lang", *ALWAYS_OK, *view.url_names.values()}
        for name in query:
            if name not in known:
                self.notices.append((N_("The link parameter “{name}” is not used by this step "
                                        "and was ignored."), {"name": name}))
        by_query = {q: p for p, q in view.url_names.items()}
        for q, p in by_query.items():
            if q not in query:
                continue
            raw = query[q]
            try:
                target.param.update(**{p: parse_value(target.param[p], raw)})
            except Exception:
                self.notices.append((N_("The value “{value}” of “{name}” is not valid here: "
                                        "using {default}."),
                                     {"value": raw, "name": q, "default": getattr(target, p)}))

    def url_query(self) -> str:
        """?step=..&lang=..&<every control of the current step>, in a stable order."""
        view = self.steps[self.state.step]
        q = {"step": self.state.step, "lang": self.state.lang}
        for p, name in view.url_names.items():
            v = getattr(controls_of(view), p)
            if isinstance(v, str) and not v.strip():
                continue
            q[name] = v
        return "?" + urlencode(q)

    def _push_url(self, *events):
        if hasattr(self, "_keys"):          # not before the page exists (URL being applied)
            self._keys.query = self.url_query()

    # -- navigation ------------------------------------------------------------------------
    def _view(self, n: int):
        if n not in self.steps:
            view = step_class(n)(self.state)
            if view.url_names:
                controls_of(view).param.watch(self._push_url, list(view.url_names))
            self.steps[n] = view
        return self.steps[n]

    def go(self, d: int):
        self.state.step = min(6, max(1, self.state.step + d))

    def _stepper_moved(self, event):
        if event.new is not None and event.new + 1 != self.state.step:
            self.state.step = event.new + 1

    def _step_changed(self, event):
        self.notices = []
        self._show_step()
        self.render()
        self._push_url()

    def _show_step(self):
        self._body.objects = [self._view(self.state.step)]

    def _lang_changed(self, event):
        self._lang.value = event.new
        self.render()
        self._push_url()

    # -- text ------------------------------------------------------------------------------
    def render(self):
        t = self.state.tr
        n = self.state.step
        title = t._("KV Cache Explainer")
        self._title.object = f"<h1>{esc(title)}</h1>"
        self._keys.param.update(lang=self.state.lang,
                                title=f"{title} · {t._(STEP_TITLES[n - 1])}")
        self._lang.label = t._("Language")
        self._stepper.param.update(items=[t._(s) for s in STEP_TITLES], active=n - 1)
        self._prev.param.update(label=t._("Previous"), disabled=n == 1)
        self._next.param.update(label=t._("Next"), disabled=n == 6)
        where = t._("Step {n} of {total}", n=t.int(n), total=t.int(6))
        self._heading.object = f"<h2>{esc(where)}: {esc(t._(STEP_TITLES[n - 1]))}</h2>"
        self._notice.object = "".join(
            f'<p class="notice" role="status">{esc(n)}</p>' for n in self.notice_texts(t))
        self._faq.object = self._faq_html(t)

    def _faq_html(self, t) -> str:
        faq, refs = t._("Frequently asked questions"), t._("References")
        parts = [f"<h2>{esc(faq)}</h2>"]
        for q, a in FAQ:
            parts.append(f"<details><summary>{esc(t._(q))}</summary><p>{esc(t._(a))}</p></details>")
        parts.append(f"<h2>{esc(refs)}</h2><ol>")
        for ref, note in REFERENCES:
            parts.append(f"<li>{esc(ref)} — {esc(t._(note))}</li>")
        parts.append("</ol>")
        return "".join(parts)

    def notice_texts(self, t) -> list[str]:
        """The URL notices in the session's language (numbers in its format)."""
        fmt = lambda v: t.int(v) if isinstance(v, int) and not isinstance(v, bool) else v  # noqa: E731
        return [t._(m, **{k: fmt(v) for k, v in kw.items()}) for m, kw in self.notices]

    def view_model(self) -> dict:
        return {"step": self.state.step, "lang": self.state.lang,
                "notices": self.notice_texts(self.state.tr)}

    def __panel__(self):
        return self._layout
