"""The page around the steps: title, language switch, numbered stepper, Previous/Next and
the arrow keys, deep links (`?step=2&lang=pl&tokens=64&prompt=5`), FAQ and references.

URL parameters: `step` (1-6, or `end` for the key ideas), `lang` (en, id, pl, nl), `embed=1`
(the step alone, for course pages: it tells its parent frame its height), `present=1`
(presenter mode: larger type, no FAQ; Space, “.”/“,” and PageDown/PageUp drive the player
and the steps), and the controls of the current step (see each step's `url_names`). Unknown or
invalid values fall back to the defaults with a short translated notice.
"""
from __future__ import annotations

import importlib
from functools import lru_cache
from urllib.parse import urlencode

import panel as pn
import param

from explainer.i18n import LANGS, N_, negotiate, normalize_lang

from . import release
from .common import END, END_TITLE, STEP_TITLES, AppState, translator
from .faq import FAQ, REFERENCES
from .ui import containers, resources
from .ui.batch import OnLoop, index_in, one_patch
from .ui.controls import Controls, choice
from .ui.components import (Column, Listening, Row, bound, notices_html, pane, render,
                            shared_html, style_widgets, stylesheet)
from .ui.stage import Stage

resources.install()     # each Material class's stylesheet looked up once, not once per page
containers.install()    # Bokeh's containers hold their owners in tuples: a quarter of a session

STEP_MODULES = {i: (f"steps.step{i}", f"Step{i}") for i in range(1, 7)}
STEP_MODULES[END] = ("steps.ending", "KeyIdeas")
ALWAYS_OK = {"theme"}           # Panel's own query parameters
FLAGS = ("embed", "present")    # page modes, 1 or 0


def step_class(n: int):
    module, name = STEP_MODULES[n]
    return getattr(importlib.import_module(module), name)


class Navigator(Listening, OnLoop, pn.custom.JSComponent):
    """A browser-drawn component whose messages -1/+1 move to the previous/next step."""

    def __init__(self, on_nav, **params):
        super().__init__(**params)
        self._on_nav = on_nav

    @one_patch
    def _handle_msg(self, msg):
        if msg in (-1, 1):
            self._on_nav(msg)


# ←/→ (and PageDown/PageUp when presenting) -> -1/+1; <html lang>, the title and the address
# bar follow the model; embedded, the parent frame hears the content's height
KEYS_JS = """
    const SKIP_ROLES = ["slider", "radio", "tab", "combobox", "listbox", "option", "menuitem",
                        "spinbutton", "textbox"];
    function listen(model) {
      const onkey = (e) => {
        if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (model.present && (e.key === "PageDown" || e.key === "PageUp")) {
          e.preventDefault();              // a stage on the page handles these first
          model.send_msg(e.key === "PageUp" ? -1 : 1);
          return;
        }
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
      // embedded in a course page: tell the parent our height whenever it changes
      let ro = null, last = 0;
      if (model.embed && window.parent !== window) {
        const main = document.querySelector("main") || document.body;
        const post = () => {   // the content's height, not the frame's (html is 100% tall)
          const box = main.getBoundingClientRect();
          const hgt = Math.ceil(box.top + window.scrollY + main.scrollHeight + 16);
          if (hgt && hgt !== last) {
            last = hgt;
            window.parent.postMessage({ type: "kv-explainer:height", height: hgt }, "*");
          }
        };
        ro = new ResizeObserver(post);
        ro.observe(main);
        for (const child of main.children) ro.observe(child);
        post();
      }
      model.on("remove", () => {
        window.removeEventListener("keydown", onkey);
        if (ro) ro.disconnect();
      });
    }
    """


class KeyNav(Navigator):
    """←/→ anywhere on the page (except inside a text field, slider or menu) send -1/+1;
    keeps <html lang> and the document title in step with the session's language, and the
    address bar's query string in step with the state (replaceState: no reload, no history
    entry per slider move)."""

    lang = param.String(default="en")
    title = param.String(default="")
    query = param.String(default="", doc="the URL query string that reflects the state")
    embed = param.Boolean(default=False, doc="tell the parent frame the content height")
    present = param.Boolean(default=False, doc="PageDown/PageUp move between steps")

    _esm = KEYS_JS + """
    export function render({ model }) {
      listen(model);
      const el = document.createElement("span");
      el.hidden = true;
      return el;
    }
    """


class PrevNext(KeyNav):
    """Previous and Next under the step: two plain buttons drawn in the browser (one small
    model instead of two Material buttons, a row and a spacer); a click sends -1/+1. It also
    does all that KeyNav does: one model for both (a page without the buttons, embedded in a
    course page, has a KeyNav alone)."""

    prev_label = param.String(default="Previous")
    next_label = param.String(default="Next")
    at_start = param.Boolean(default=False, doc="Previous is disabled")
    at_end = param.Boolean(default=False, doc="Next is disabled")

    _esm = KEYS_JS + """
    export function render({ model }) {
      listen(model);
      const row = document.createElement("div");
      row.className = "prevnext";
      const make = (cls, arrow, d) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "player-btn nav-btn " + cls;
        const a = document.createElement("span");
        a.setAttribute("aria-hidden", "true");
        a.textContent = arrow;
        const t = document.createElement("span");
        b.append(...(d < 0 ? [a, t] : [t, a]));
        b.addEventListener("click", () => model.send_msg(d));
        row.appendChild(b);
        return [b, t];
      };
      const [prev, prevText] = make("nav-prev", "\u2190", -1);
      const [next, nextText] = make("nav-next primary", "\u2192", 1);
      const draw = () => {
        prevText.textContent = model.prev_label;
        nextText.textContent = model.next_label;
        prev.disabled = model.at_start;
        next.disabled = model.at_end;
      };
      draw();
      model.on(["prev_label", "next_label", "at_start", "at_end"], draw);
      return row;
    }
    """


class StepNav(Listening, OnLoop, pn.custom.JSComponent):
    """The numbered steps as a list of buttons: every step is in the Tab order, the current
    one is marked (`aria-current="step"`), and a click moves there (no page reload).

    A click sends the step's index as a message (not a change of `active`: Panel holds a
    browser's property change back for its debounce, and answers it pane by pane); the
    server sets `active` and the new step comes back as one message (`one_patch`)."""

    items = param.List(default=[], doc="the step titles, translated")
    active = param.Integer(default=0, doc="index of the current step")
    label = param.String(default="", doc="the navigation's accessible name")

    @one_patch
    def _handle_msg(self, msg):
        if index_in(msg, len(self.items)) is not None:
            self.active = msg

    _esm = """
    export function render({ model }) {
      const nav = document.createElement("nav");
      nav.className = "stepnav";
      const ol = document.createElement("ol");
      nav.appendChild(ol);
      const draw = () => {
        nav.setAttribute("aria-label", model.label);
        ol.replaceChildren();
        model.items.forEach((title, k) => {
          const li = document.createElement("li");
          const b = document.createElement("button");
          b.type = "button";
          if (k === model.active) b.setAttribute("aria-current", "step");
          const num = document.createElement("span");
          num.className = "stepnav-num";
          num.setAttribute("aria-hidden", "true");
          num.textContent = String(k + 1);
          const t = document.createElement("span");
          t.className = "stepnav-title";
          t.textContent = title;
          b.append(num, t);
          b.addEventListener("click", () => { if (k !== model.active) model.send_msg(k); });
          li.appendChild(b);
          ol.appendChild(li);
        });
      };
      draw();
      model.on(["items", "active", "label"], draw);
      return nav;
    }
    """


def language_options(tr) -> dict:
    """Each language by its own name (the same in every language)."""
    return {name: code for code, name in LANGS.items()}


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
    """One per session: the page around the current step (built only when shown)."""

    def __init__(self, query: dict | None = None, accept_language: str | None = None, **params):
        super().__init__(**params)
        self.state = AppState()
        self.state.navigate = self.go          # presenter keys on a stage reach the stepper
        self.steps: dict[int, object] = {}     # the step on screen -> its view (one entry)
        self._saved: dict[int, dict] = {}      # steps visited before -> what they restore
        self.notices: list[tuple[str, dict]] = []
        query = {k: _first(v) for k, v in (query or {}).items()}
        self._apply_query(query, accept_language)
        st, lang = self.state, self.state.param.lang
        # -- widgets
        self._heading = pane(css_classes=["step-heading"])     # notices about the URL, heading
        self._body = Column(sizing_mode="stretch_width", css_classes=["step-body"])
        keys = dict(lang=st.lang, embed=st.embed, present=st.present)
        if st.embed:
            self._keys = KeyNav(self.go, **keys)
            self._bar = pane(css_classes=["embed-bar"])
            parts = [self._bar, self._heading, self._body, self._keys]
        else:
            self._title = bound(lambda l: render("title.html.j2",
                                                 title=self.tr_(l, "KV Cache Explainer")), lang, css_classes=["app-title"],
                                styles={"flex": "1 1 240px", "min-width": "0"})
            self._lang = Controls(st, [choice("lang", N_("Language"), language_options,
                                              size="narrow")],
                                  lang=lang, css_classes=["controls", "lang-choice"],
                sizing_mode=None, width=210)
            self._stepper = StepNav(active=st.step - 1, sizing_mode="stretch_width",
                                    stylesheets=[stylesheet()])
            self._stepper.param.watch(self._stepper_moved, "active")
            css = dict(css_classes=["no-print"], stylesheets=[stylesheet()])
            self._stepper.param.update(**css)
            self._keys = self._prevnext = PrevNext(self.go, sizing_mode="stretch_width",
                                                   **keys, **css)
            parts = [Row(self._title, self._lang, sizing_mode="stretch_width",
                         css_classes=["no-print", "title-bar"], stylesheets=[stylesheet()]),
                     self._stepper, self._heading, self._body, self._prevnext]
            if not st.present:
                parts.append(bound(self._faq_html, lang, css_classes=["faq", "no-print"]))
        classes = ["kv-root"] + (["embed"] if st.embed else []) + \
                  (["present"] if st.present else [])
        self._layout = Column(*parts, sizing_mode="stretch_width", css_classes=classes,
                              max_width=None if st.present else 1200, margin=(0, 8))
        style_widgets(self._layout)
        st.param.watch(self._step_changed, "step")
        st.param.watch(self._lang_changed, "lang")
        self._show_step()
        self.render()
        self._push_url()

    @staticmethod
    def tr_(lang: str, msg: str, **kw) -> str:
        return translator(lang)._(msg, **kw)

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
        for flag in FLAGS:
            if flag in query:
                if query[flag] in ("1", "0", "true", "false"):
                    setattr(self.state, flag, query[flag] in ("1", "true"))
                else:
                    self.notices.append((N_("The value “{value}” of “{name}” is not valid "
                                            "here: using {default}."),
                                         {"value": query[flag], "name": flag, "default": 0}))
        if "step" in query:
            try:
                raw = query["step"].strip().lower()
                n = END if raw == "end" else int(raw)
                if not 1 <= n <= END:
                    raise ValueError
                self.state.step = n
            except ValueError:
                self.notices.append((N_("There is no step “{value}”: showing step 1."),
                                     {"value": query["step"]}))
        view = self._view(self.state.step)
        target = controls_of(view)
        known = {"step", "lang", *FLAGS, *ALWAYS_OK, *view.url_names.values()}
        for name in query:
            if name not in known:
                self.notices.append((N_("The link parameter “{name}” is not used by this step "
                                        "and was ignored."), {"name": name}))
        values = {}
        for p, q in view.url_names.items():
            if q not in query:
                continue
            raw = query[q]
            try:
                value = parse_value(target.param[p], raw)
                target.param[p]._validate(value)
                values[p] = value
            except Exception:
                self.notices.append((N_("The value “{value}” of “{name}” is not valid here: "
                                        "using {default}."),
                                     {"value": raw, "name": q, "default": getattr(target, p)}))
        target.param.update(**values)           # one batch: no watcher sees half a link

    def url_query(self, **override) -> str:
        """?step=..&lang=..&<every control of the current step>, in a stable order."""
        n = self.state.step
        view = self.steps[n]
        q = {"step": "end" if n == END else n, "lang": self.state.lang}
        for p, name in view.url_names.items():
            v = getattr(controls_of(view), p)
            if isinstance(v, str) and not v.strip():
                continue
            q[name] = v
        for flag in FLAGS:
            if getattr(self.state, flag):
                q[flag] = 1
        q.update(override)
        return "?" + urlencode({k: v for k, v in q.items() if v is not None})

    def _push_url(self, *events):
        if hasattr(self, "_keys"):          # not before the page exists (URL being applied)
            self._keys.query = self.url_query()
            if self.state.embed:
                self._bar.object = shared_html(self._embed_bar())

    # -- navigation ------------------------------------------------------------------------
    def _view(self, n: int):
        """The view of step `n`, built from what an earlier visit saved."""
        if n not in self.steps:
            view = step_class(n)(self.state, saved=self._saved.get(n))
            if view.url_names:
                controls_of(view).param.watch(self._push_url, list(view.url_names))
            self.steps[n] = view
        return self.steps[n]

    def go(self, d: int):
        self.state.step = min(END, max(1, self.state.step + d))

    def _stepper_moved(self, event):
        if event.new is not None and event.new + 1 != self.state.step:
            self.state.step = event.new + 1

    def _step_changed(self, event):
        self.notices = []
        self._show_step()
        self.render()
        self._push_url()

    def _show_step(self):
        """Show the current step; the step left keeps only what it saves (numbers)."""
        n = self.state.step
        gone = []
        for k in [k for k in self.steps if k != n]:
            view = self.steps.pop(k)
            self._saved[k] = view.saved()
            gone.append(release.island_of(view))     # read while it is on the page
        self._body.objects = [self._view(n)]
        for island in gone:
            release.dispose_later(*island)

    def _lang_changed(self, event):
        for view in self.steps.values():
            view.lang = event.new
        self.render()
        self._push_url()

    # -- text ------------------------------------------------------------------------------
    def step_title(self, t, n: int) -> str:
        return t._(END_TITLE) if n == END else t._(STEP_TITLES[n - 1])

    def render(self):
        """The words of the frame around the step (the step's own panes follow by binding)."""
        t = self.state.tr
        n = self.state.step
        title = t._("KV Cache Explainer")
        self._keys.param.update(lang=self.state.lang, title=f"{title} · {self.step_title(t, n)}")
        if not self.state.embed:
            self._stepper.param.update(items=[t._(s) for s in STEP_TITLES] + [t._(END_TITLE)],
                                       active=n - 1, label=t._("Steps"))
            self._prevnext.param.update(prev_label=t._("Previous"), next_label=t._("Next"),
                                        at_start=n == 1, at_end=n == END)
        self._heading.object = shared_html(notices_html(self.notice_texts(t)) +
                                           heading_html(self.state.lang, n))

    def _embed_bar(self) -> str:
        t = self.state.tr
        n = self.state.step
        if n == END:
            line = t._("KV cache explainer · {title}", title=self.step_title(t, n))
        else:
            line = t._("KV cache explainer · Step {n}: {title}", n=t.int(n),
                       title=self.step_title(t, n))
        return render("embed_bar.html.j2", line=line, href=self.url_query(embed=None),
                      open=t._("Open the full explainer"))

    def _faq_html(self, lang: str) -> str:
        t = translator(lang)
        return render("faq.html.j2", faq=t._("Frequently asked questions"),
                      refs=t._("References"),
                      items=[(t._(q), t._(a)) for q, a in FAQ],
                      references=[(ref, t._(note)) for ref, note in REFERENCES])

    def notice_texts(self, t) -> list[str]:
        """The URL notices in the session's language (numbers in its format)."""
        fmt = lambda v: t.int(v) if isinstance(v, int) and not isinstance(v, bool) else v  # noqa: E731
        return [t._(m, **{k: fmt(v) for k, v in kw.items()}) for m, kw in self.notices]

    def view_model(self) -> dict:
        return {"step": self.state.step, "lang": self.state.lang,
                "notices": self.notice_texts(self.state.tr)}

    def __panel__(self):
        return self._layout


@lru_cache(maxsize=len(LANGS) * END)
def heading_html(lang: str, n: int) -> str:
    """Step `n`'s heading in `lang`: where it is, its title and the attention schematic with
    the step's part highlighted. The same for every session, so made once each (a template
    and an SVG, remade on every step change and language switch before)."""
    t = translator(lang)
    if n == END:
        return render("step_heading.html.j2", where="", title=t._(END_TITLE), schematic="")
    label = t._("One attention layer: the new token x is projected into a query q, a key k "
                "and a value v; k and v join the K and V cache; the layer's output is "
                "softmax(q·Kᵀ/√d)·V. Highlighted: what step {n} is about.", n=t.int(n))
    schematic = render("schematic.svg.j2", highlight=n, label=label, k_cache=t._("K cache"),
                       v_cache=t._("V cache"), output=t._("output"))
    return render("step_heading.html.j2",
                  where=t._("Step {n} of {total}", n=t.int(n), total=t.int(len(STEP_TITLES))),
                  title=t._(STEP_TITLES[n - 1]), schematic=schematic)
