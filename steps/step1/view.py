"""Step 1's thin view: widgets and panes bound to the model and the session's language."""
from __future__ import annotations

from explainer.prompts import PROMPTS

from explainer.i18n import N_

from ..ui.components import (block, bound, built, legend_html, notices_html,
                             paragraphs_html, prose)
from ..ui.controls import Controls, choice, text_field
from ..ui.question import Question
from ..ui.stage import Stage, packs
from ..ui.view import (StepView, conceal_until_revealed, every_state, sync, tr_of,
                       two_columns)
from . import text

FRAMES = packs(text.frames, maxsize=512)    # built once per process, for every session
from .model import MAX_CHARS, Step1Model


def warm(lang: str) -> int:
    """Server start: the frames of every example, layer and head in `lang`, built and
    packed as a session shows them. Returns how many sets."""
    m, n = Step1Model(lang=lang), 0
    for _ in every_state(m, "example", "layer", "head"):
        FRAMES(m.run, tr_of(lang))
        n += 1
    return n


class ArcStage(Stage):
    """Tokens in a row; arcs from the newest query to every key it reads, with their weights
    written on them; the query's own key is the ring above it; the next token is dashed."""

    _draw_js = r"""
function draw(holder, fig, ctx) {
  const toks = fig.tokens || [], n = toks.length, w = fig.weights || [];
  if (!n) { holder.replaceChildren(); return; }
  const slot = 74, H = 270, base = 222, top = base - 26;
  const W = (n + 1) * slot + 20;
  const x = (k) => 10 + slot / 2 + k * slot;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "arcs-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMid meet" });
  s.style.minWidth = Math.min(W, (n + 1) * 40) + "px";
  const wmax = Math.max(...w, 1e-9), q = n - 1;
  const arcs = svg("g", { class: "arcs" }, s);
  const labels = svg("g", { class: "arc-labels" }, s);
  for (let k = 0; k < q; k++) {
    const r = w[k] / wmax, hgt = 34 + 150 * (q - k) / Math.max(1, q);
    const cx = (x(q) + x(k)) / 2, cy = top - hgt * 1.33, apex = (top + cy) / 2;
    svg("path", { d: `M ${x(q)} ${top} Q ${cx} ${cy} ${x(k)} ${top}`, class: "arc",
                  "stroke-width": (1 + 9 * r).toFixed(2), "stroke-opacity": (0.3 + 0.7 * r).toFixed(2) }, arcs);
    if (w[k] >= 0.05 || n <= 8) {
      const t = svg("text", { x: cx, y: apex - 5, class: "arc-pct", "text-anchor": "middle" }, labels);
      t.textContent = fig.pct[k];
    }
  }
  // the query's score with its own key: a ring above the newest token
  const rq = w[q] / wmax;
  svg("circle", { cx: x(q), cy: top - 14, r: (5 + 7 * rq).toFixed(1), class: "self-key",
                  "stroke-width": (1 + 3 * rq).toFixed(1) }, s);
  const own = svg("text", { x: x(q), y: top - 32 - 7 * rq, class: "arc-pct", "text-anchor": "middle" }, labels);
  own.textContent = `${fig.pct[q]} (${ctx.text.own})`;
  for (let k = 0; k < n; k++) {
    const g = svg("g", { class: "tok-svg " + (k === q ? "is-query" : "is-cached") +
                         (fig.unk[k] ? " is-unk" : "") + (k === q && ctx.index > 0 ? " enter" : "") }, s);
    svg("rect", { x: x(k) - slot / 2 + 3, y: base - 14, width: slot - 6, height: 28, rx: 5 }, g);
    const t = svg("text", { x: x(k), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
    t.textContent = toks[k];
    const sub = svg("text", { x: x(k), y: base + 32, "text-anchor": "middle", class: "tok-role" }, g);
    sub.textContent = k === q ? ctx.text.new : ctx.text.cached;
  }
  const g = svg("g", { class: "tok-svg is-next" }, s);
  svg("rect", { x: x(n) - slot / 2 + 3, y: base - 14, width: slot - 6, height: 28, rx: 5 }, g);
  const t = svg("text", { x: x(n), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
  t.textContent = "\u2192 " + fig.next;
  holder.replaceChildren(s);
}
"""


class Step1(StepView):
    number = 1
    model_class = Step1Model
    url_names = {"example": "example", "text": "text", "frame": "frame", "layer": "layer",
                 "head": "head"}

    def build(self):
        m, lang = self.model, self.param.lang
        tr = tr_of

        def pick_example(v):
            m.param.update(example=v, text="", frame=0)

        controls = Controls(m, [
            choice("example", N_("Example prompt"),
                   lambda t: {p: i for i, p in enumerate(PROMPTS[t.lang])}, size="wide",
                   on_change=pick_example, also=("text",),
                   shown=lambda m: None if m.text.strip() else m.example),
            text_field("text", N_("Or type your own prompt"),
                       placeholder=N_("Type a few words, then press Enter"),
                       max_length=MAX_CHARS, size="wide",
                       on_change=lambda v: m.param.update(text=v, frame=0)),
            choice("layer", N_("Layer"), text.layer_options, size="narrow"),
            choice("head", N_("Head"), text.head_options, size="narrow"),
        ], lang=lang)

        self.question = built(Question, {"content": (
            lambda run, l: text.question(run.prompt_len, tr(l)), m.param.run, lang)})
        self.stage = built(ArcStage, {
            "frames": (lambda run, l: FRAMES(run, tr(l)), m.param.run, lang),
            "text": (lambda l: text.stage_text(tr(l)), lang)},
            frame=m.frame, interval=900, concealed=not self.question.revealed)
        conceal_until_revealed(self.stage, self.question)
        sync(self.stage, "frame", m, "frame")

        lead = prose(
            block(lambda l: paragraphs_html([tr(l)._("Every new query reads all earlier keys")]),
                  lang, cls="step-lead"),
            block(lambda l: paragraphs_html(text.orientation(tr(l))), lang,
                  cls="narration orientation"))
        legend = bound(lambda l: legend_html(text.legend(tr(l))), lang)
        narration = bound(lambda l: paragraphs_html(text.narration(tr(l))), lang,
                          css_classes=["narration"])
        after = prose(
            block(lambda run, l: notices_html(text.notices(run, tr(l))), m.param.run, lang),
            block(lambda l: paragraphs_html([text.facts(tr(l))]), lang, cls="live-facts"))
        return two_columns([lead, self.question, narration, controls, after],
                           [self.stage, legend])
