"""What every step shares: the session state, palette, badges, metric cards, the player,
the predict-then-reveal question, locale-aware plot helpers, and the StepView base class.

Text is never baked in: each view keeps references to its panes and widgets and rewrites them
in `refresh()`, so a language switch re-renders in place without losing any control's value.
"""
from __future__ import annotations

import html
import threading
from functools import lru_cache
from pathlib import Path

import panel as pn
import panel_material_ui as pmui
import param
from bokeh.models import FixedTicker

from explainer.i18n import LANGS, N_, Translator

# One colour-blind-safe palette (Okabe & Ito) for every step; every colour is also labelled.
PALETTE = {
    "key": "#0072B2",         # blue: keys
    "value": "#E69F00",       # orange: values
    "query": "#009E73",       # bluish green: the query / newest token
    "new": "#D55E00",         # vermillion: computed now
    "recomputed": "#CC79A7",  # reddish purple: recomputed (wasted)
    "cached": "#56B4E9",      # sky blue: read from the cache
    "muted": "#8C8C8C",       # grey: context, free memory
    "weights": "#7F7F7F",
    "text": "#1F2933",
}

BADGES = {
    "measured": (N_("measured"), N_("Measured on this server by the live model")),
    "computed": (N_("computed"), N_("Computed from a formula on the named model configuration")),
    "illustrative": (N_("illustrative"), N_("Illustrative: not measured, not exact")),
}

STEP_TITLES = (
    N_("One token at a time"),
    N_("Wasted work"),
    N_("Storing keys and values"),
    N_("Prefill vs decode"),
    N_("The memory bill"),
    N_("Shrinking the cache"),
)


@lru_cache(maxsize=None)
def translator(lang: str) -> Translator:
    """Translators are immutable: one per language, shared by the sessions that use it."""
    return Translator(lang)


END = 7                                  # the key-ideas page after step 6 (`?step=end`)
END_TITLE = N_("Key ideas")


class AppState(param.Parameterized):
    """One per session: the current step and language (both synced with the URL), and the
    page mode (embedded in a course page, or presented in a lecture hall)."""

    step = param.Integer(default=1, bounds=(1, END))
    embed = param.Boolean(default=False)
    present = param.Boolean(default=False)
    lang = param.Selector(default="en", objects=list(LANGS))

    @property
    def tr(self) -> Translator:
        return translator(self.lang)


def esc(text) -> str:
    return html.escape(str(text), quote=True)


_PENDING: dict = {}                  # id(doc) -> {update kind: newest update}
_PENDING_LOCK = threading.Lock()


def on_doc(fn):
    """Run `fn` where it may touch raw Bokeh models: on the session's event loop when served
    (callbacks may run on worker threads with --num-threads), right away otherwise.

    Updates are coalesced per kind (the function's qualified name): if a newer update of the
    same plot arrives before the loop ran the older one, only the newer runs. Bokeh does not
    promise the order of callbacks queued before a session starts, so a stale update must
    never be able to run last."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        fn()
        return
    with _PENDING_LOCK:
        pending = _PENDING.setdefault(id(doc), {})
        first = not pending
        pending[fn.__qualname__] = fn
    if first:
        doc.add_next_tick_callback(lambda: _flush(doc))


def _flush(doc):
    with _PENDING_LOCK:
        updates = list(_PENDING.pop(id(doc), {}).values())
    for fn in updates:
        fn()


# -- small HTML building blocks ----------------------------------------------------------------

def badge(kind: str, tr: Translator) -> str:
    label, tip = BADGES[kind]
    return (f'<span class="badge badge-{kind}" title="{esc(tr._(tip))}">'
            f'{esc(tr._(label))}</span>')


def metric(label: str, value: str, kind: str, tr: Translator, key: str = "") -> str:
    """One number card. Label and value are plain text (escaped here)."""
    data = f' data-metric="{esc(key)}"' if key else ""
    return (f'<div class="metric"{data}><div class="metric-label">{esc(label)}</div>'
            f'<div class="metric-value">{esc(value)}</div>{badge(kind, tr)}</div>')


def metrics_html(cards: list[str]) -> str:
    return f'<div class="metrics" role="group">{"".join(cards)}</div>'


def swatch(color_key: str, label: str) -> str:
    return (f'<span class="swatch"><span class="chip" style="background:{PALETTE[color_key]}">'
            f'</span>{esc(label)}</span>')


def legend_html(items: list[tuple[str, str]]) -> str:
    return '<div class="legend">' + "".join(swatch(c, l) for c, l in items) + "</div>"


APP_CSS = (Path(__file__).resolve().parent.parent / "assets" / "app.css").read_text(encoding="utf-8")


def html_pane(**kw) -> pn.pane.HTML:
    """An HTML pane with the app's stylesheet (panes render in their own shadow root)."""
    kw.setdefault("sizing_mode", "stretch_width")
    return pn.pane.HTML("", stylesheets=[APP_CSS], **kw)


def locale_ticks(axis, values, fmt):
    """Fixed ticks labelled by `fmt` (Babel, per locale); Bokeh's own formatters ignore
    the locale."""
    axis.ticker = FixedTicker(ticks=list(values))
    axis.major_label_overrides = {v: fmt(v) for v in values}


# -- the predict-then-reveal question ----------------------------------------------------------

class Question(pn.viewable.Viewer):
    """A short question before the visual answers it, with immediate feedback.

    One button per option (a radio group would re-select on every re-render)."""

    answer = param.Integer(default=None, allow_None=True)

    def __init__(self, prompt: str, options: list[str], correct: int, explain: str, **params):
        super().__init__(**params)
        self.prompt, self.options, self.correct, self.explain = prompt, options, correct, explain
        self._text = html_pane()
        self._buttons = [pmui.Button(label=o, size="small", variant="outlined",
                                     css_classes=["answer", f"answer-{i}"])
                         for i, o in enumerate(options)]
        for i, b in enumerate(self._buttons):
            b.on_click(lambda e, i=i: setattr(self, "answer", i))
        self._feedback = html_pane()
        self._tr = None
        self._kw = {}
        self.param.watch(lambda *e: self.render(self._tr, **self._kw), "answer")
        self._layout = pn.Column(self._text, pn.FlexBox(*self._buttons, gap="8px"),
                                 self._feedback, css_classes=["question-box"],
                                 styles={"border-left": f"4px solid {PALETTE['query']}",
                                         "padding-left": "8px"},
                                 sizing_mode="stretch_width")

    def render(self, tr: Translator, **kw):
        if tr is None:
            return
        self._tr, self._kw = tr, kw
        lead = tr._("Predict first")
        self._text.object = (f'<p class="question"><strong>{esc(lead)}:</strong> '
                             f'{esc(tr._(self.prompt, **kw))}</p>')
        for i, (b, o) in enumerate(zip(self._buttons, self.options)):
            chosen = self.answer == i
            b.param.update(label=tr._(o, **kw), variant="contained" if chosen else "outlined",
                           color=("success" if i == self.correct else "error")
                           if chosen else "primary")
        if self.answer is None:
            self._feedback.object = ""
        else:
            ok = self.answer == self.correct
            head = tr._("Right.") if ok else tr._("Not quite.")
            self._feedback.object = (
                f'<p role="status" aria-live="polite" class="{"right" if ok else "wrong"}">'
                f'<strong>{esc(head)}</strong> {esc(tr._(self.explain, **kw))}</p>')

    def __panel__(self):
        return self._layout


# -- the player ---------------------------------------------------------------------------------

class Player(pn.viewable.Viewer):
    """Play / Pause / Step back / Step forward / Reset over frames start..end.

    Built from Material buttons so that every caption and accessible name is translated
    (the stock players have fixed English titles). Ticks come from one server-side periodic
    callback per session: a tick that is still running makes the next one skip, so ticks never
    pile up, and playback stops by itself at the last frame.
    """

    value = param.Integer(default=0)
    start = param.Integer(default=0)
    end = param.Integer(default=10)
    playing = param.Boolean(default=False)
    interval = param.Integer(default=900, doc="milliseconds between frames")

    def __init__(self, **params):
        super().__init__(**params)
        kw = dict(size="small", variant="outlined")
        self._reset = pmui.Button(icon="first_page", css_classes=["player-reset"], **kw)
        self._back = pmui.Button(icon="skip_previous", css_classes=["player-back"], **kw)
        self._play = pmui.Button(icon="play_arrow", css_classes=["player-play"],
                                 color="primary", size="small", variant="contained")
        self._fwd = pmui.Button(icon="skip_next", css_classes=["player-next"], **kw)
        self._pos = html_pane(css_classes=["player-pos"], sizing_mode="stretch_width",
                              min_width=160)
        self._reset.on_click(lambda e: self.reset())
        self._back.on_click(lambda e: self.step(-1))
        self._fwd.on_click(lambda e: self.step(1))
        self._play.on_click(lambda e: self.toggle())
        self._cb = None
        self._busy = False
        self._tr = translator("en")
        self._label = N_("Frame {i} of {n}")
        self.param.watch(self._sync, ["value", "start", "end", "playing"])
        self._layout = pn.FlexBox(self._reset, self._back, self._play, self._fwd, self._pos,
                                  gap="6px", align_items="center", css_classes=["player"],
                                  sizing_mode="stretch_width")

    # actions
    def step(self, d: int):
        self.playing = False
        self.value = min(self.end, max(self.start, self.value + d))

    def reset(self):
        self.playing = False
        self.value = self.start

    def toggle(self):
        if not self.playing and self.value >= self.end:
            self.value = self.start           # Play at the end starts over
        self.playing = not self.playing

    def _tick(self):
        if self._busy or not self.playing:
            return
        self._busy = True
        try:
            if self.value >= self.end:
                self.playing = False
            else:
                self.value += 1
                if self.value >= self.end:
                    self.playing = False
        finally:
            self._busy = False

    def _sync(self, *events):
        if self.playing and self._cb is None and pn.state.curdoc is not None:
            self._cb = pn.state.add_periodic_callback(self._tick, period=self.interval)
        elif not self.playing and self._cb is not None:
            self._cb.stop()
            self._cb = None
        self.render(self._tr)

    def render(self, tr: Translator, label: str | None = None):
        self._tr = tr
        if label:
            self._label = label
        self._reset.label = tr._("Reset")
        self._back.label = tr._("Step back")
        self._fwd.label = tr._("Step forward")
        self._play.param.update(label=tr._("Pause") if self.playing else tr._("Play"),
                                icon="pause" if self.playing else "play_arrow")
        self._back.disabled = self.value <= self.start
        self._fwd.disabled = self.value >= self.end
        self._pos.object = (f'<span aria-live="polite">'
                            f'{esc(tr._(self._label, i=tr.int(self.value), n=tr.int(self.end)))}'
                            f'</span>')

    def __panel__(self):
        return self._layout


# -- the base class of a step -------------------------------------------------------------------

class StepView(pn.viewable.Viewer):
    """A step: its controls are params (synced with the URL under `url_names`), `refresh()`
    rewrites every text, number and plot from the engine for the current language."""

    number: int = 0
    url_names: dict = {}           # param -> query parameter name

    def __init__(self, app: AppState, **params):
        super().__init__(**params)
        self.app = app
        self._built = False
        controls = list(self.url_names)
        if controls:
            self.param.watch(lambda *e: self.refresh(), controls)
        app.param.watch(lambda *e: self.refresh(), "lang")

    @property
    def tr(self) -> Translator:
        return self.app.tr

    def refresh(self):
        raise NotImplementedError

    def view_model(self) -> dict:
        """The numbers and texts the step shows, as strings (tests read these)."""
        raise NotImplementedError

    def url_state(self) -> dict:
        return {q: getattr(self, p) for p, q in self.url_names.items()}
