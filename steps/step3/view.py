"""Step 3's thin view: widgets and panes bound to the model and the session's language."""
from __future__ import annotations

from explainer.prompts import PROMPTS

from ..ui.components import (block, bound, built, legend_html, notices_html,
                             paragraphs_html, prose)
from ..ui.controls import Controls, choice
from ..ui.question import Question
from ..ui.stage import Stage, packs
from ..ui.view import (StepView, conceal_until_revealed, every_state, sync, tr_of,
                       two_columns)
from . import text

FRAMES = packs(text.frames, maxsize=1024)    # built once per process, for every session
from .model import N_EXAMPLES, Step3Model


def warm(lang: str) -> int:
    """Server start: the frames of every example, layer and head in `lang`, before and after
    the question is answered, built and packed as a session shows them. Returns how many
    sets."""
    m, n = Step3Model(lang=lang), 0
    for _ in every_state(m, "example", "layer", "head"):
        for revealed in (False, True):
            FRAMES(m.run, tr_of(lang), revealed)
            n += 1
    return n


class CacheStage(Stage):
    """One row per cached token: its key (blue strip) and value (orange strip), each cell one
    of the head_dim numbers; the newest query's weight per row as a green bar; under the value
    strip, the attention output softmax(q·Kᵀ/√d)·V. Rows written at this step are outlined.
    The drawing is as tall as the rows in the frame: it grows with the cache."""

    _draw_js = r"""
function draw(holder, fig, ctx) {
  const rows = fig.rows || [], n = rows.length;
  if (!n) { holder.replaceChildren(); return; }
  const dims = (fig.k[0] || []).length, cw = 8, rh = 20, ch = 15;
  const LW = 124, GAP = 16, BW = 110;
  const KX = LW, VX = KX + dims * cw + GAP, BX = VX + dims * cw + GAP, W = BX + BW + 46;
  const Y0 = 32, yRow = (i) => Y0 + i * rh, OY = yRow(n) + 16, H = OY + rh + 26;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cache-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = Math.min(W, 520) + "px";
  const head = (x, label, anchor) => {
    const t = svg("text", { x, y: Y0 - 10, class: "strip-head",
                            "text-anchor": anchor || "middle" }, s);
    t.textContent = label;
  };
  head(KX + dims * cw / 2, ctx.text.k);
  head(VX + dims * cw / 2, ctx.text.v);
  head(BX, ctx.text.weights, "start");
  const nf = Math.max(0, Math.min(n, fig.new_from));
  if (fig.prompt_len < n) {
    const y = yRow(fig.prompt_len) - 2;
    svg("line", { x1: KX, x2: BX + BW, y1: y, y2: y, class: "prefill-line" }, s);
  }
  for (const [x0] of [[KX], [VX]])
    svg("rect", { x: x0 - 0.5, y: Y0 - 0.5, width: dims * cw + 1, height: n * rh - rh + ch + 1,
                  class: "strip-frame" }, s);
  // a row is a string, one character per number: chr(68 + level), level in -20..20
  const cells = (g, row, x0, y, cls) => {
    for (let d = 0; d < row.length; d++) {
      const t = (row.charCodeAt(d) - 68) / 20;
      svg("rect", { x: x0 + d * cw, y, width: cw - 0.6, height: ch,
                    class: cls + (t < 0 ? " neg" : " pos"),
                    "fill-opacity": Math.min(1, Math.abs(t)).toFixed(2) }, g);
    }
  };
  const wmax = Math.max(...fig.weights, 1e-9);
  for (let i = 0; i < n; i++) {
    const y = yRow(i);
    const g = svg("g", { class: "cache-row" + (fig.gen[i] ? " is-gen" : " is-prompt") +
                         (i >= nf ? " is-new" : "") }, s);
    const tip = svg("title", {}, g);
    tip.textContent = fig.titles[i];
    const lab = svg("text", { x: LW - 8, y: y + ch - 3, class: "row-label",
                              "text-anchor": "end" }, g);
    lab.textContent = rows[i];
    cells(g, fig.k[i], KX, y, "cell k");
    cells(g, fig.v[i], VX, y, "cell v");
    svg("rect", { x: BX, y: y + 1, width: BW, height: ch - 2, class: "attn-track" }, g);
    svg("rect", { x: BX, y: y + 1, width: (BW * fig.weights[i]).toFixed(2), height: ch - 2,
                  class: "attn-bar" + (fig.weights[i] === wmax ? " is-max" : "") }, g);
    const p = svg("text", { x: BX + BW + 4, y: y + ch - 3, class: "attn-pct" }, g);
    p.textContent = fig.pct[i];
  }
  // the rows written at this step, outlined
  svg("rect", { x: 2, y: yRow(nf) - 2, width: W - 4, height: (n - nf) * rh, rx: 4,
                class: "new-rows" + (ctx.index > 0 ? " enter" : "") }, s);
  // what V is for: the output, the value rows added up with the weights
  const o = svg("g", { class: "out-row" }, s);
  svg("path", { d: `M ${VX + dims * cw / 2} ${yRow(n) - 3} v 13 m -4 -5 l 4 5 l 4 -5`,
                class: "out-arrow" }, o);
  const ol = svg("text", { x: VX - 8, y: OY + ch - 3, class: "out-label",
                           "text-anchor": "end" }, o);
  ol.textContent = ctx.text.out;
  svg("rect", { x: VX - 1.5, y: OY - 1.5, width: dims * cw + 3, height: ch + 3, rx: 2,
                class: "out-frame" }, o);
  cells(o, fig.out, VX, OY, "out-cell");
  const dl = svg("text", { x: KX + dims * cw / 2, y: H - 6, class: "dims-label",
                           "text-anchor": "middle" }, s);
  dl.textContent = ctx.text.dims;
  holder.replaceChildren(s);
}
"""


class Step3(StepView):
    number = 3
    model_class = Step3Model
    url_names = {"example": "example", "frame": "frame", "layer": "layer", "head": "head"}

    def build(self):
        m, lang = self.model, self.param.lang
        tr = tr_of

        controls = Controls(m, [
            choice("example", lambda t: text.labels(t)["example"],
                   lambda t: {p: i for i, p in enumerate(PROMPTS[t.lang][:N_EXAMPLES])},
                   size="wide", on_change=lambda v: m.param.update(example=v, frame=0)),
            choice("layer", lambda t: text.labels(t)["layer"], text.layer_options,
                   size="narrow"),
            choice("head", lambda t: text.labels(t)["head"], text.head_options, size="narrow"),
        ], lang=lang)

        self.question = built(Question, {"content": (
            lambda run, l: text.question(run.prompt_len, tr(l)), m.param.run, lang)})
        revealed = self.question.param.revealed
        self.stage = built(CacheStage, {
            "frames": (lambda run, l, r: FRAMES(run, tr(l), r), m.param.run, lang, revealed),
            "text": (lambda l: text.stage_text(tr(l)), lang)},
            frame=m.frame, interval=1100, concealed=not self.question.revealed)
        conceal_until_revealed(self.stage, self.question)
        sync(self.stage, "frame", m, "frame")

        lead = bound(lambda l: paragraphs_html([text.lead(tr(l))]), lang,
                     css_classes=["step-lead"])
        narration = bound(lambda l: paragraphs_html(text.narration(tr(l))), lang,
                          css_classes=["narration"])
        details = prose(
            block(lambda run, l: paragraphs_html(text.details(run, tr(l))), m.param.run, lang,
                  cls="narration"),
            block(lambda run, l: notices_html(text.notices(run, tr(l))), m.param.run, lang),
            block(lambda l: paragraphs_html([text.facts(tr(l))]), lang, cls="live-facts"))
        legend = prose(
            block(lambda l: legend_html(text.legend(tr(l))), lang),
            block(lambda run, l: paragraphs_html(text.figure_note(run, tr(l))), m.param.run,
                  lang, cls="live-facts"))
        return two_columns([lead, self.question, narration, controls, details],
                           [self.stage, legend])
