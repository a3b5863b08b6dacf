"""Step 6's thin view: three parts in tabs (`?part=a|b|c`), each laid out in two columns, bound
to the model and the session's language. Only the visible tab is rendered in the page."""
from __future__ import annotations

from pathlib import Path

import jinja2
import panel as pn
import panel_material_ui as pmui
import param
from panel.custom import Child

from ..live import served_doc
from ..ui import components
from ..ui.components import (block, bound, built, legend_html, metrics_html, notices_html,
                             paragraphs_html, prose, stylesheet)
from ..ui.controls import Controls, segments
from ..ui.question import Question
from ..ui.stage import Stage, packs
from ..ui.view import StepView, sync, tr_of, two_columns
from . import text

FRAMES = packs(text.paged_frames)    # built once per process, for every session
from .model import PARTS, Step6Model

# the step's own templates (an SVG bar chart, the head groups, the two continuations); they
# may include the kit's
TEMPLATES = jinja2.Environment(
    loader=jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
        components.TEMPLATES.loader]),
    autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render(template: str, **context) -> str:
    return TEMPLATES.get_template(template).render(**context)


NO_CAPS = {"& .MuiToggleButton-root": {"textTransform": "none"},
           "& .MuiTab-root": {"textTransform": "none"}}


class AllNumbers(components.Listening, pn.custom.JSComponent):
    """“All numbers”: a native <details> around a pane that re-renders inside it, so the
    learner's open or closed choice survives every change of the numbers."""

    title = param.String(default="")
    content = Child()

    _esm = r"""
export function render({ model }) {
  const d = document.createElement("details");
  d.className = "all-numbers";
  const s = document.createElement("summary");
  d.appendChild(s);
  const sync = () => { s.textContent = model.title; };
  sync();
  model.on("title", sync);
  const child = model.get_child("content");
  d.appendChild(child);
  // the child is a component of its own: hide it explicitly while the details are closed
  const toggle = () => { child.style.display = d.open ? "" : "none"; };
  d.addEventListener("toggle", toggle);
  toggle();
  return d;
}
"""

    def __init__(self, **params):
        params.setdefault("stylesheets", [stylesheet()])
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)


class PoolStage(Stage):
    """The live model's block pool, one frame per event: a cell per physical block with its
    token slots (filled or still empty), coloured and lettered by the sequences that hold
    it; shared blocks hatched with their reference count; the blocks this event changed
    outlined; under the pool, each sequence's block table."""

    _draw_js = r"""
function draw(holder, fig, ctx) {
  const blocks = fig.blocks || [];
  if (!blocks.length) { holder.replaceChildren(); return; }
  const cols = fig.cols || 8, bs = fig.bs || 4, tables = fig.tables || [];
  const cw = 76, ch = 60, gap = 8, pad = 4, rowH = 30, nameW = 220, chipW = 34;
  const rows = Math.ceil(blocks.length / cols);
  const longest = Math.max(0, ...tables.map((t) => t.blocks.length));
  const W = Math.max(pad * 2 + cols * (cw + gap) - gap, nameW + longest * chipW + pad);
  const top = pad + rows * (ch + gap) + 24;
  const H = top + Math.max(1, tables.length) * rowH + 6;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "pool-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = Math.min(W, 480) + "px";
  const defs = svg("defs", {}, s);
  const pat = svg("pattern", { id: "pool-hatch", patternUnits: "userSpaceOnUse", width: 7,
                               height: 7, patternTransform: "rotate(45)" }, defs);
  svg("rect", { x: 0, y: 0, width: 3, height: 7, class: "hatch" }, pat);
  blocks.forEach((b, k) => {
    const x = pad + (k % cols) * (cw + gap), y = pad + Math.floor(k / cols) * (ch + gap);
    const changed = b.changed && ctx.index > 0;
    const g = svg("g", { class: "blk " + b.cls + (changed ? " changed" : "") }, s);
    const tip = svg("title", {}, g);
    tip.textContent = `${ctx.text.block} ${b.id}: ${b.owners.length ? b.who : ctx.text.free}`;
    svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-bg" }, g);
    if (b.ref > 1) svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-hatch",
                                 fill: "url(#pool-hatch)" }, g);
    const id = svg("text", { x: x + 6, y: y + 14, class: "blk-id" }, g);
    id.textContent = b.id;
    if (b.mark) {
      const m = svg("text", { x: x + cw - 6, y: y + 14, class: "blk-mark",
                              "text-anchor": "end" }, g);
      m.textContent = b.mark;
    }
    const sw = (cw - 12 - (bs - 1) * 3) / bs;
    for (let j = 0; j < bs; j++)
      svg("rect", { x: x + 6 + j * (sw + 3), y: y + 21, width: sw.toFixed(2), height: 15, rx: 2,
                    class: "slot" + (j < b.fill ? " filled" : "") }, g);
    const who = svg("text", { x: x + cw / 2, y: y + ch - 8, class: "blk-who",
                              "text-anchor": "middle" }, g);
    who.textContent = b.owners.length ? b.who : ctx.text.free;
    if (changed)
      svg("rect", { x: x - 2, y: y - 2, width: cw + 4, height: ch + 4, rx: 7,
                    class: "blk-changed" + (ctx.reduced ? "" : " enter") }, g);
  });
  const head = svg("text", { x: pad, y: top - 8, class: "tables-head" }, s);
  head.textContent = ctx.text.tables;
  tables.forEach((t, r) => {
    const y = top + r * rowH;
    const g = svg("g", { class: "tbl " + t.cls }, s);
    svg("rect", { x: pad, y: y + 6, width: 12, height: 12, rx: 2, class: "tbl-chip" }, g);
    const name = svg("text", { x: pad + 18, y: y + 17, class: "tbl-name" }, g);
    name.textContent = `${t.name} · ${t.tokens}`;
    t.blocks.forEach((b, j) => {
      const x = nameW + j * chipW;
      svg("rect", { x, y: y + 2, width: chipW - 4, height: 21, rx: 3,
                    class: "tbl-blk" + (b.shared ? " shared" : "") }, g);
      if (b.shared) svg("rect", { x, y: y + 2, width: chipW - 4, height: 21, rx: 3,
                                  class: "blk-hatch", fill: "url(#pool-hatch)" }, g);
      const tx = svg("text", { x: x + (chipW - 4) / 2, y: y + 17, class: "tbl-id",
                               "text-anchor": "middle" }, g);
      tx.textContent = b.id;
    });
  });
  holder.replaceChildren(s);
}
"""


class Step6(StepView):
    number = 6
    model_class = Step6Model
    url_names = {"part": "part", "kv_heads": "heads", "precision": "precision",
                 "window": "window", "frame": "frame"}

    def build(self):
        m, lang = self.model, self.param.lang
        tr = tr_of
        if served_doc() is not None:
            # keep the other parts' numbers current while one part is shown: a part's numbers
            # are then in place before its tab is drawn (an update that lands while a tab's
            # content is being created can be lost)
            m.eager = True
        m.live_values()

        lead = bound(lambda l: paragraphs_html([text.lead(tr(l))]), lang,
                     css_classes=["step-lead"])
        self.question = built(Question, {"content": (
            lambda q, l: text.question(q, tr(l)), m.param.question, lang)})
        # a part is made the first time it is shown (most visits see one part)
        builders = (self._part_a, self._part_b, self._part_c)
        parts = [components.Column(sizing_mode="stretch_width") for _ in PARTS]

        def show(part: str):
            i = PARTS.index(part)
            if not parts[i].objects:
                parts[i].objects = [builders[i]()]
                if self._layout is not None:
                    self.adopt_stages()
        show(m.part)
        self.tabs = pmui.Tabs(*zip(text.part_titles(tr(self.lang)), parts), dynamic=True,
                              active=PARTS.index(m.part), sizing_mode="stretch_width",
                              sx={**NO_CAPS, "& > .MuiBox-root": {"overflow": "visible"}})
        self.param.watch(lambda e: setattr(self.tabs, "_names", text.part_titles(tr(e.new))),
                         "lang")

        def tab_chosen(e):
            show(PARTS[e.new])
            m.part = PARTS[e.new]

        def part_changed(e):
            show(e.new)
            self.tabs.active = PARTS.index(e.new)
        self.tabs.param.watch(tab_chosen, "active")
        m.param.watch(part_changed, "part")
        return components.Column(lead, self.tabs, sizing_mode="stretch_width",
                                 css_classes=["step", "step-6"])

    # -- controls (Part A and Part C each show them) -------------------------------------------
    def _controls(self) -> Controls:
        labels = text.control_labels
        return Controls(self.model, [
            segments("kv_heads", lambda t: labels(t)["kv_heads"], text.kv_options),
            segments("precision", lambda t: labels(t)["precision"],
                     lambda t: text.precision_options()),
            segments("window", lambda t: labels(t)["window"], text.window_options),
        ], lang=self.param.lang)

    def _all_numbers(self, fn, *refs) -> AllNumbers:
        lang = self.param.lang
        return AllNumbers(title=pn.bind(lambda l: text.all_numbers(tr_of(l)), lang),
                          content=bound(lambda *v: metrics_html(fn(*v[:-1], tr_of(v[-1])),
                                                                tr_of(v[-1])), *refs, lang))

    # -- Part A: computed for the 7B reference ---------------------------------------------------
    def _part_a(self):
        m, lang, q = self.model, self.param.lang, self.question
        tr = tr_of
        revealed = q.param.revealed

        heading = bound(lambda l: paragraphs_html([text.part_a_heading(tr(l))[1]],
                                                  heading=text.part_a_heading(tr(l))[0]), lang)
        explain = bound(lambda a, l: paragraphs_html(
            text.part_a_explain(a, tr(l)) + text.part_a_narration(a, tr(l))), m.param.shrink,
            lang, css_classes=["narration"])
        cards = bound(lambda a, r, l: metrics_html(text.part_a_cards(a, tr(l)), tr(l),
                                                   concealed=not r),
                      m.param.shrink, revealed, lang)
        more = self._all_numbers(text.part_a_more, m.param.shrink)
        figures = prose(
            block(lambda a, l: render("heads.html.j2", **text.heads(a, tr(l))), m.param.shrink,
                  lang),
            block(lambda a, r, l: render("bars.html.j2", **text.bars(a, tr(l), not r)),
                  m.param.shrink, revealed, lang))
        return two_columns([heading, q, self._controls(), explain], [cards, more, figures])

    # -- Part B: the paged block pool, played in the browser --------------------------------------
    def _part_b(self):
        m, lang = self.model, self.param.lang
        tr = tr_of
        paged = m.paged
        self.pool = built(PoolStage, {
            "frames": (lambda p, l: FRAMES(p, tr(l)), paged.param.value, lang),
            "text": (lambda l: text.pool_stage_text(tr(l)), lang)},
            frame=m.frame, interval=1100)
        sync(self.pool, "frame", m, "frame")
        words = prose(
            block(lambda l: paragraphs_html([], heading=text.part_b_heading(tr(l))), lang),
            block(lambda p, l: paragraphs_html(text.part_b_narration(p, tr(l))),
                  paged.param.value, lang, cls="narration"),
            block(lambda st, err, l: notices_html(text.live_notices(
                st, err, tr(l), kind="paged", shown=False)), paged.param.status,
                paged.param.error, lang))
        legend = bound(lambda l: legend_html(text.pool_legend(tr(l))), lang)
        return two_columns([words], [self.pool, legend])

    # -- Part C: the same choices on the live model ---------------------------------------------
    def _part_c(self):
        m, lang = self.model, self.param.lang
        tr = tr_of
        live = m.live
        heading = bound(lambda l: paragraphs_html([], heading=text.part_c_heading(tr(l))), lang)
        mapping = prose(
            block(lambda s, l: paragraphs_html(text.live_mapping(s, tr(l)) if s else []),
                  m.param.setting, lang, cls="narration"),
            block(lambda s, st, err, v, l: notices_html(
                (text.live_setting_notices(s, tr(l)) if s else []) +
                text.live_notices(st, err, tr(l), kind="live", shown=v is not None)),
                m.param.setting, live.param.status, live.param.error, live.param.value, lang))
        cards = bound(lambda v, l: metrics_html(text.live_cards(v, tr(l)), tr(l)),
                      live.param.value, lang)
        more = self._all_numbers(text.live_more, live.param.value)
        texts = prose(
            block(lambda v, l: render("continuations.html.j2", **text.continuations(v, tr(l)))
                  if v is not None else "", live.param.value, lang),
            block(lambda v, l: paragraphs_html([text.live_facts(v, tr(l))] if v else []),
                  live.param.value, lang, cls="live-facts"))
        return two_columns([heading, self._controls(), mapping], [cards, more, texts])
