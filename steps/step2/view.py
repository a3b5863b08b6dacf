"""Step 2's thin view: sliders and panes bound to the model, the live measurement and the
session's language; the two grids are drawn and played in the browser."""
from __future__ import annotations

import param

from explainer import presets

from ..live import JOBS, LiveValue
from ..ui.components import block, bound, built, paragraphs_html, prose
from ..ui.controls import Controls, slider
from ..ui.question import Question
from ..ui.stage import Stage, packs
from ..ui.view import (StepView, conceal_until_revealed, every_state, sync, tr_of,
                       two_columns)
from . import model as mdl
from . import text

FRAMES = packs(text.frames)    # built once per process, for every session
from .model import Step2Model


def warm(lang: str) -> int:
    """Server start: the frames of every prompt length in `lang` with its measurement (run
    just before by `steps.warm.precompute`), built and packed as a session shows them.
    Returns how many sets."""
    m, n = Step2Model(lang=lang), 0
    for _ in every_state(m, "prompt"):
        fut = JOBS.get(mdl.live_job(lang, m.prompt)[0])
        if fut is None or not fut.done() or fut.cancelled() or fut.exception() is not None:
            continue
        FRAMES(m.run, fut.result(), "ready", "", tr_of(lang))
        n += 1
    return n


class GridStage(Stage):
    """Two grids side by side (stacked on a narrow screen): one row per generation step, one
    cell per position whose key and value the step needs. Without a cache the earlier cells
    are recomputed (solid); with a cache they are read back (faint outline: no work), and only
    the new cells are solid. Under them: the totals (“?” until the question is answered), the
    live model's two outputs side by side."""

    _draw_js = r"""
function draw(holder, fig, ctx) {
  const rows = fig.rows || [];
  if (!rows.length) { holder.replaceChildren(); return; }
  const t = ctx.text || {}, leg = t.legend || {};
  const T = fig.T, cols = fig.P + fig.T - 1;
  const narrow = (holder.clientWidth || window.innerWidth) < 520;
  const PW = narrow ? 360 : 340, GAP = 20;
  const GX = 34, GY = 46, GW = PW - GX - 6, GH = narrow ? 220 : 320;
  const PH = GY + GH + 30;
  const W = narrow ? PW : 2 * PW + GAP, H = narrow ? 2 * PH + GAP : PH;
  const cw = Math.min(24, GW / cols), ch = Math.min(20, GH / T);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "grids-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  const label = (g, x, y, cls, str, anchor) => {
    const e = svg("text", { x, y, class: cls, "text-anchor": anchor || "start" }, g);
    e.textContent = str;
    return e;
  };
  [["u", t.uncached, "recomputed"], ["c", t.cached, "cached"]].forEach(([id, title, old], k) => {
    const ox = narrow ? 0 : k * (PW + GAP), oy = narrow ? k * (PH + GAP) : 0;
    const g = svg("g", { class: "grid grid-" + id, transform: `translate(${ox},${oy})` }, s);
    label(g, GX, 16, "grid-title", title);
    label(g, GX + GW, 16, "axis-label", t.x, "end");
    for (const [v, lab] of fig.xt || [])
      label(g, GX + (v - 0.5) * cw, GY - 8, "tick", lab, "middle");
    const yl = label(g, 0, 0, "axis-label", t.y, "middle");
    yl.setAttribute("transform", `translate(10,${GY + Math.min(GH, T * ch) / 2}) rotate(-90)`);
    for (const [v, lab] of fig.yt || [])
      label(g, GX - 4, GY + (v - 0.5) * ch + 4, "tick", lab, "end");
    const cells = svg("g", { class: "cells" }, g);
    const unit = Math.min(cw, ch);
    rows.forEach(([context, , earlier], r) => {     // [positions needed, new, earlier]
      const newest = r === rows.length - 1 && ctx.index > 0;   // the row this frame adds
      const row = newest ? svg("g", { class: "enter" }, cells) : cells;
      const y = GY + r * ch;
      for (let p = 1; p <= context; p++) {
        const kind = p <= earlier ? old : "new";
        const pad = kind === "cached" ? Math.max(0.5, unit * 0.24) : Math.min(1, unit * 0.1);
        svg("rect", { x: GX + (p - 1) * cw + pad, y: y + pad, width: Math.max(0.4, cw - 2 * pad),
                      height: Math.max(0.4, ch - 2 * pad), class: "cell " + kind }, row);
      }
    });
    let lx = GX;                                    // the legend: every colour named
    for (const kind of ["new", old]) {
      const inset = kind === "cached" ? 2 : 0;      // drawn as its cells are: smaller, faint
      svg("rect", { x: lx + inset, y: GY + GH + 12 + inset, width: 12 - 2 * inset,
                    height: 12 - 2 * inset, class: "key-chip " + kind }, g);
      label(g, lx + 17, GY + GH + 22, "legend-label", leg[kind] || "");
      lx += 30 + 7 * (leg[kind] || "").length;
    }
  });
  holder.replaceChildren(s);
}

function extra(box, f, ctx) {
  const m = f.more || {}, t = ctx.text || {};
  const pick = (pair) => (pair ? (ctx.concealed ? pair[1] : pair[0]) : "");
  box.replaceChildren();
  if (m.summary) h("p", "grid-summary", box, pick(m.summary));
  const caps = h("div", "grid-captions", box);
  (m.captions || []).forEach((pair, k) => {
    const p = h("p", "grid-caption", caps);
    h("strong", "", p, (k ? t.cached : t.uncached) + ": ");
    p.appendChild(document.createTextNode(pick(pair)));
  });
  for (const n of m.notices || []) h("p", "notice", box, n);
  const o = m.outputs;
  if (!o) return;
  const sec = h("section", "live-outputs", box);
  h("h3", "", sec, t.outputs || "");
  const pr = h("p", "", sec);
  h("strong", "", pr, (t.prompt || "") + " ");
  h("span", "mono", pr, o.prompt);
  const two = h("div", "output-pair", sec);
  [t.uncached, t.cached].forEach((title, k) => {
    const b = h("div", "output-box", two);
    h("strong", "", b, title || "");
    h("p", "mono", b, o.texts[k]);
  });
  h("p", "output-verdict", sec, o.verdict);
}
"""


class Shown(param.Parameterized):
    """What the stage shows, changed once per change of state (one send of the frames)."""
    state = param.Tuple(default=None, allow_None=True, length=5,
                        doc="(run, measurement or None, live status, error, lang)")


class Step2(StepView):
    number = 2
    model_class = Step2Model
    url_names = {"tokens": "tokens", "prompt": "prompt"}

    def build(self):
        m, lang = self.model, self.param.lang
        tr = tr_of

        controls = Controls(m, [
            slider(name, lambda t, name=name: text.slider_labels(t)[name])
            for name in ("tokens", "prompt")], lang=lang)

        # the live measurement of (lang, P): queued, never waited for in a served session
        self.live = LiveValue()
        self.shown = Shown()
        self._asked = None
        m.param.watch(self._refresh, ["run", "live_args"])
        self.live.param.watch(self._refresh, ["status", "value", "error"])
        self._refresh()

        # the question: about the state on screen until answered, then kept as answered
        asked = self._saved.get("question") or {}
        answered_before = asked.get("answer") is not None or bool(asked.get("shown"))
        self._q_state = tuple(self._saved.get("asked_about", (m.prompt, m.tokens)))
        self.question = None

        def content(P, T, l):
            revealed = answered_before if self.question is None else self.question.revealed
            if not revealed:
                self._q_state = (P, T)
            return text.question(*self._q_state, tr(l))
        self.question = built(Question, {"content": (content, m.param.prompt, m.param.tokens,
                                                     lang)})

        self.stage = built(GridStage, {
            "frames": (lambda s: FRAMES(s[0], s[1], s[2], s[3], tr(s[4])),
                       self.shown.param.state),
            "text": (lambda l: text.stage_text(tr(l)), lang)},
            frame=m.frame, interval=700, concealed=not self.question.revealed)
        conceal_until_revealed(self.stage, self.question)
        sync(self.stage, "frame", m, "frame")

        lead = bound(lambda l: paragraphs_html([text.lead(tr(l))]), lang,
                     css_classes=["step-lead"])
        # what to look at and what to press, then the controls, then why
        howto = bound(lambda l: paragraphs_html(text.narration(tr(l))[:1]), lang,
                      css_classes=["narration"])
        why = prose(
            block(lambda l: paragraphs_html(text.narration(tr(l))[1:]), lang, cls="narration"),
            block(lambda l: paragraphs_html(text.facts(tr(l))), lang, cls="live-facts"))
        return two_columns([lead, self.question, howto, controls, why], [self.stage])

    def saved(self) -> dict:
        state = super().saved()
        if hasattr(self, "_q_state"):           # built: what the question was asked about
            state["asked_about"] = self._q_state
        return state

    def _refresh(self, *events):
        """Ask for the live measurement of the state on screen and publish what the stage
        shows; nested calls (a measurement that is ready at once) publish only once."""
        m = self.model
        if m.live_args != (m.lang, m.prompt) or m.run is None or m.run.P != m.prompt:
            return                  # the model is mid-update: its last output calls again
        if self._asked != m.live_args:
            self._asked = lang_P = m.live_args
            self.live.request(*mdl.live_job(*lang_P))
        value = self.live.value
        ready = (self.live.status == "ready" and value is not None
                 and (value.lang, value.P) == tuple(m.live_args))
        state = (m.run, value if ready else None, self.live.status, self.live.error, m.lang)
        old = self.shown.state
        if old is None or any(a is not b and a != b for a, b in zip(old, state)):
            self.shown.state = state
