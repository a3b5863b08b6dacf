"""Step 5's thin view: widgets and panes bound to the model and the session's language."""
from __future__ import annotations

import time

import panel as pn
import panel_material_ui as pmui

from explainer.i18n import N_

from ..ui.components import (Column, block, bound, built, follow, legend_html,
                             notices_html, paragraphs_html, prose, style_widgets)
from ..ui.controls import Controls, choice, slider
from ..ui.question import Question
from ..ui.stage import Stage, packs
from ..ui.view import StepView, conceal_until_revealed, tr_of, two_columns
from . import text
from explainer.hfconfig import MAX_CONFIG_CHARS

from .model import CUSTOM, GPU_KEYS, Step5Model


def one_frame(spec, curve, bill, live, tr) -> list:
    """The stage's one frame (cards, both charts, their words and their table)."""
    return [text.frame(spec, curve, bill, live, tr)]


FRAMES = packs(one_frame)    # built and packed once per process, for every session

LATE_TEXT_S = 2.0    # text reaching the server this soon after Read was clicked was typed before


class BillStage(Stage):
    """Two still charts, drawn in the browser: the bill as one stacked bar against the GPUs'
    memory, and the batch's cache over the context against the weights. The point where the
    cache reaches the weights, and the sentence that says where, wait for the answer."""

    _draw_js = r"""
function width(holder) {
  // the drawing's own width follows the holder's, so that its text stays legible on a phone
  const w = holder.clientWidth || 640;
  return Math.max(340, Math.min(680, Math.round(w)));
}
function refit(holder, again) {
  holder._kvAgain = again;
  if (holder._kvObs || !window.ResizeObserver) return;
  holder._kvW = 0;
  holder._kvObs = new ResizeObserver(() => {
    const w = holder.clientWidth;
    if (w && Math.abs(w - holder._kvW) > 32) {
      holder._kvW = w;
      requestAnimationFrame(() => holder._kvAgain());
    }
  });
  holder._kvObs.observe(holder);
}
function axisX(s, ticks, sx, y, end) {
  const g = svg("g", { class: "axis" }, s);
  const stop = Math.max(ticks[ticks.length - 1][0], end || 0);
  svg("line", { x1: sx(ticks[0][0]), x2: sx(stop), y1: y, y2: y }, g);
  let last = -1e9;
  for (const [v, label] of ticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: y, y2: y + 4 }, g);
    if (sx(v) - last < 7.5 * label.length + 8) continue;        // no overlapping labels
    last = sx(v);
    const t = svg("text", { x: sx(v), y: y + 17, "text-anchor": "middle", class: "tick-label" }, g);
    t.textContent = label;
  }
}
function anchorAt(x, half, L, R) {
  return x - half < L ? ["start", L] : x + half > R ? ["end", R] : ["middle", x];
}
function drawBar(fig, ctx, W) {
  const H = 176, L = 14, R = W - 14, y0 = 66, bh = 34, axisY = 132;
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bill-svg", "aria-hidden": "true",
                         focusable: "false" });
  const chosen = fig.gpus.find((g) => g.chosen);
  for (const g of fig.gpus) {
    svg("line", { x1: sx(g.x), x2: sx(g.x), y1: g.chosen ? 20 : 36, y2: axisY,
                  class: "gpu-line" + (g.chosen ? " chosen" : "") }, s);
  }
  for (const p of fig.parts) {
    const r = svg("rect", { x: sx(p.x0), y: y0, width: Math.max(0.5, sx(p.x1) - sx(p.x0)),
                            height: bh, class: "seg seg-" + p.cls }, s);
    svg("title", {}, r).textContent = p.name + ": " + p.size;
  }
  const end = fig.parts[fig.parts.length - 1].x1, w = fig.parts[0].x1;
  const right = sx(end) > (L + R) / 2;
  const cl = svg("text", { x: right ? sx(end) : sx(w), y: y0 - 7, class: "bar-label",
                           "text-anchor": right ? "end" : "start" }, s);
  cl.textContent = fig.cache_label;
  const wl = svg("text", { x: L, y: y0 + bh + 16, class: "bar-label", "text-anchor": "start" }, s);
  wl.textContent = fig.weights_label;
  if (chosen) {                      // the chosen GPU on the top row, its name in full
    const text = `${chosen.label} (${chosen.names})`;
    const [anchor, x] = anchorAt(sx(chosen.x), 3.6 * text.length, L, R);
    const t = svg("text", { x, y: 14, "text-anchor": anchor, class: "gpu-label chosen" }, s);
    t.textContent = text;
  }
  let last = -1e9;                   // the others below it, where there is room
  for (const g of fig.gpus) {
    if (g.chosen || sx(g.x) - last < 52 || (chosen && Math.abs(sx(g.x) - sx(chosen.x)) < 40)) continue;
    last = sx(g.x);
    const [anchor, x] = anchorAt(sx(g.x), 22, L, R);
    const t = svg("text", { x, y: 31, "text-anchor": anchor, class: "gpu-label" }, s);
    t.textContent = g.label;
  }
  axisX(s, fig.ticks, sx, axisY, fig.xmax);        // to the end: GPU lines may pass the last tick
  const a = svg("text", { x: (L + R) / 2, y: H - 4, "text-anchor": "middle", class: "axis-title" }, s);
  a.textContent = fig.axis;
  return s;
}
function drawCurve(fig, ctx, W) {
  const H = 300, L = 56, R = W - 24, T = 14, B = 250;
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const sy = (v) => B - (B - T) * v / fig.ymax;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bill-svg", "aria-hidden": "true",
                         focusable: "false" });
  const grid = svg("g", { class: "axis" }, s);
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    const t = svg("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end", class: "tick-label" }, grid);
    t.textContent = label;
  }
  const n = fig.ctx.length;
  const band = (lo, hi, cls) => {
    let d = "";
    for (let k = 0; k < n; k++) d += (k ? " L " : "M ") + sx(fig.ctx[k]).toFixed(1) + " " + sy(hi(k)).toFixed(1);
    for (let k = n - 1; k >= 0; k--) d += " L " + sx(fig.ctx[k]).toFixed(1) + " " + sy(lo(k)).toFixed(1);
    svg("path", { d: d + " Z", class: "area " + cls }, s);
  };
  if (fig.mla) band(() => 0, (k) => fig.kv[k], "area-latent");
  else {
    band(() => 0, (k) => fig.kv[k] / 2, "area-key");
    band((k) => fig.kv[k] / 2, (k) => fig.kv[k], "area-value");
  }
  let line = "";
  for (let k = 0; k < n; k++) line += (k ? " L " : "M ") + sx(fig.ctx[k]).toFixed(1) + " " + sy(fig.kv[k]).toFixed(1);
  svg("path", { d: line, class: "kv-line" }, s);
  const wy = sy(fig.weights);
  svg("line", { x1: L, x2: R, y1: wy, y2: wy, class: "weights-line" }, s);
  const crossLeft = fig.cross && fig.cross.x < fig.xmax / 2;   // the weights' label avoids it
  const wl = svg("text", { x: crossLeft ? R - 4 : L + 6, y: wy - 6, class: "bar-label",
                           "text-anchor": crossLeft ? "end" : "start" }, s);
  wl.textContent = fig.weights_label;
  const nx = sx(fig.now.x), ny = sy(fig.now.y);
  svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "now-line" }, s);
  svg("circle", { cx: nx, cy: ny, r: 5, class: "now-dot" }, s);
  const nl = svg("text", { x: nx + (nx > R - 90 ? -8 : 8), y: ny - 8, class: "bar-label",
                           "text-anchor": nx > R - 90 ? "end" : "start" }, s);
  nl.textContent = fig.now.label;
  if (fig.cross && !ctx.concealed) {
    const cx = sx(fig.cross.x);
    svg("path", { d: `M ${cx} ${wy - 7} L ${cx + 7} ${wy} L ${cx} ${wy + 7} L ${cx - 7} ${wy} Z`,
                  class: "cross-mark" }, s);
    // below the weights' line, on the side away from this context's dot
    const anchor = cx < L + 120 ? "start" : cx > R - 120 ? "end" : nx > cx ? "end" : "start";
    const dx = anchor === "start" ? 10 : -10;
    const t1 = svg("text", { x: cx + dx, y: wy + 20, "text-anchor": anchor, class: "bar-label cross-label" }, s);
    t1.textContent = fig.cross.label;
    const t2 = svg("text", { x: cx + dx, y: wy + 35, "text-anchor": anchor, class: "bar-label" }, s);
    t2.textContent = fig.cross.tokens;
  }
  if (fig.limit) {                   // the model's maximum context: past it, hypothetical
    const lx = sx(fig.limit.x), right = lx > R - 170;
    svg("line", { x1: lx, x2: lx, y1: T, y2: B, class: "limit-line" }, s);
    const t = svg("text", { x: lx + (right ? -5 : 5), y: T + 12, class: "bar-label limit-label",
                            "text-anchor": right ? "end" : "start" }, s);
    t.textContent = fig.limit.label;
  }
  axisX(s, fig.xticks, sx, B);
  const xa = svg("text", { x: (L + R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" }, s);
  xa.textContent = fig.xaxis;
  const ya = svg("text", { x: 0, y: 0, "text-anchor": "middle", class: "axis-title",
                           transform: `translate(14 ${(T + B) / 2}) rotate(-90)` }, s);
  ya.textContent = fig.yaxis;
  return s;
}
function draw(holder, fig, ctx) {
  refit(holder, () => draw(holder, fig, ctx));
  if (!fig.bar) { holder.replaceChildren(); return; }
  const W = width(holder);
  holder.replaceChildren(h("p", "chart-title", null, fig.bar.title), drawBar(fig.bar, ctx, W),
                         h("p", "chart-title", null, fig.curve.title), drawCurve(fig.curve, ctx, W));
}
function extra(box, frame, ctx) {
  const kids = [];
  for (const line of frame.lines || []) kids.push(h("p", "", null, line));
  if (frame.said && !ctx.concealed) kids.push(h("p", "stage-said", null, frame.said));
  box.replaceChildren(...kids);
}
"""


class Step5(StepView):
    number = 5
    model_class = Step5Model
    url_names = {"context": "context", "batch": "batch", "model": "model", "gpu": "gpu",
                 "custom": "custom"}
    kept = ("config", "params_b")     # a pasted config is never in the link

    def build(self):
        m, lang = self.model, self.param.lang
        tr = tr_of

        controls = Controls(m, [
            slider("context", N_("Context length (tokens per sequence)"), step=256),
            slider("batch", N_("Batch size (sequences)")),
            choice("model", N_("Model"), text.model_options),
            choice("gpu", N_("GPU for “how many fit”"),
                   lambda t: text.gpu_options(GPU_KEYS, t)),
        ], lang=lang)

        # your model: a pasted config.json, read on request; its widgets are made the first
        # time the model list is on “your model” (most pages never need them)
        custom_box = Column(sizing_mode="stretch_width", css_classes=["your-model"])
        follow(custom_box, visible=(lambda mdl: mdl == CUSTOM, m.param.model))

        def fill(*_):
            if m.model == CUSTOM and not custom_box.objects:
                custom_box.objects = self._your_model()
                style_widgets(custom_box)
        m.param.watch(fill, "model")
        fill()

        self.question = built(Question, {"content": (
            lambda spec, l: text.question(spec, tr(l)), m.param.spec, lang)})
        self.stage = built(BillStage, {
            "frames": (lambda spec, curve, bill, live, l: FRAMES(spec, curve, bill, live, tr(l)),
                       m.param.spec, m.param.curve, m.param.bill, m.param.live, lang),
            "text": (lambda l: text.stage_text(tr(l)), lang)},
            concealed=not self.question.revealed, player=False)
        conceal_until_revealed(self.stage, self.question)

        lead = bound(lambda l: paragraphs_html([text.lead(tr(l))]), lang,
                     css_classes=["step-lead"])
        words = prose(
            block(lambda spec, l: paragraphs_html([text.model_info(spec, tr(l))]),
                  m.param.spec, lang, cls="live-facts"),
            block(lambda spec, bill, mdl, link, l: notices_html(text.notices(
                spec, bill, tr(l), waiting=mdl == CUSTOM and link.preset is None)),
                m.param.spec, m.param.bill, m.param.model, m.param.custom_model, lang),
            block(lambda spec, bill, l: paragraphs_html(text.narration(spec, bill, tr(l))),
                  m.param.spec, m.param.bill, lang, cls="narration"),
            block(lambda lv, l: paragraphs_html(text.live_lines(lv, tr(l)),
                                                heading=tr(l)._("The live model on this server")),
                  m.param.live, lang, cls="live-facts live-cache"))
        formula = prose(
            block(lambda spec, bill, l: paragraphs_html(
                list(text.bill_formula(spec, bill, tr(l))), heading=tr(l)._("Cache formula")),
                m.param.spec, m.param.bill, lang, cls="formula-headline"),
            block(lambda spec, l: legend_html(text.legend(spec, tr(l))), m.param.spec, lang))
        return two_columns([lead, self.question, controls, custom_box, words],
                           [formula, self.stage])

    def _your_model(self) -> list:
        """The “your model” box: a config.json to paste, a parameter count, a button."""
        m, lang = self.model, self.param.lang
        tr = tr_of
        area = pmui.TextAreaInput(
            value=m.config, rows=7, max_length=MAX_CONFIG_CHARS + 1, sizing_mode="stretch_width",
            placeholder='{"num_hidden_layers": 32, "num_attention_heads": 32, '
                        '"num_key_value_heads": 8, "head_dim": 128, ...}',
            label=pn.bind(lambda l: tr(l)._("config.json of your model"), lang),
            css_classes=["config-text"])
        params = pmui.FloatInput(
            value=m.params_b, start=0, sizing_mode="stretch_width", min_width=200,
            label=pn.bind(lambda l: text.params_label(tr(l)), lang),
            css_classes=["config-params"])
        read = pmui.Button(label=pn.bind(lambda l: tr(l)._("Read this config"), lang),
                           variant="contained", css_classes=["config-read"])

        clicked_at = -LATE_TEXT_S

        def read_config(again: bool = True):
            text = area.value_input if area.value_input is not None else area.value
            # an empty (or zero) parameter count means “count them from the config”
            text, pb = text or "", (params.value or None)
            if (text, pb) != (m.config, m.params_b):
                m.param.update(config=text, params_b=pb)
            elif again:
                m.param.trigger("config")         # read again: show it again

        def clicked(_event):
            nonlocal clicked_at
            clicked_at = time.monotonic()
            read_config()

        def late_text(_event):
            # the text box and the button are two models: with --num-threads the server may
            # handle the click before the text typed just before it; that text is read too
            if time.monotonic() - clicked_at < LATE_TEXT_S:
                read_config(again=False)
        read.on_click(clicked)
        area.param.watch(late_text, "value_input")

        def yours(parsed, link, spec, bill, l, part):
            paras, notes = text.custom_lines(parsed, link, spec, bill, tr(l))
            return notices_html(notes) if part == "notes" else paragraphs_html(paras)
        refs = (m.param.parsed, m.param.custom_model, m.param.spec, m.param.bill, lang)
        return [area,
                pn.FlexBox(params, read, gap="8px", align_items="center",
                           sizing_mode="stretch_width"),
                bound(yours, *refs, "notes", css_classes=["config-problems"]),
                bound(yours, *refs, "paras", css_classes=["live-facts", "config-fields"])]
