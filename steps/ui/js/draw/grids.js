// Step 2: two grids side by side (stacked on a narrow screen), one row per generation step,
// one cell per position whose key and value the step needs. Without a cache the earlier cells
// are recomputed (solid); with a cache they are read back (faint outline: no work), and only
// the new cells are solid. Under them (`extra`): the totals (“?” until the question is
// answered), the captions of both grids, the live model's notices and its two outputs.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc grids` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} GridsStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {GridsFig} fig
 * @property {GridsMore} more
 */
/**
 * @typedef {Object} GridsStageText
 * The grids' labels (js/draw/grids.js).
 * @property {string} reset
 * @property {string} back
 * @property {string} next
 * @property {string} play
 * @property {string} pause
 * @property {string} table
 * @property {string} more
 * @property {Badges} badges
 * @property {string} screen "Chart {i} of {n}": the page puts the figure's screen in
 * @property {string} next_screen
 * @property {string} prev_screen
 * @property {string} figure
 * @property {string} uncached the title of the grid without a cache
 * @property {string} cached the title of the grid with a cache
 * @property {string} x the position axis
 * @property {string} y the generation step axis
 * @property {GridLabels} legend
 * @property {string} outputs the heading over the live model's two outputs
 * @property {string} prompt
 */
/**
 * @typedef {Object} GridsFig
 * One frame of js/draw/grids.js: both grids after T generated tokens.
 * @property {number} P the prompt's length
 * @property {number} T tokens generated so far
 * @property {[number, number, number][]} rows per generation step: [context, new, recomputed]
 * @property {[number, string][]} xt position ticks
 * @property {[number, string][]} yt generation step ticks
 */
/**
 * @typedef {Object} GridsMore
 * What js/draw/grids.js `extra` draws under the grids.
 * @property {string} summary the totals (“?” until the question is answered)
 * @property {string[]} captions one per grid
 * @property {string[]} notices the live model's
 * @property {(GridsOutputs|null)} outputs null until measured
 */
/**
 * @typedef {Object} GridLabels
 * The grids' legend: what a cell of each colour is.
 * @property {string} new
 * @property {string} recomputed
 * @property {string} cached
 */
/**
 * @typedef {Object} GridsOutputs
 * The live model's continuation without and with a cache.
 * @property {string} prompt
 * @property {string[]} texts [without a cache, with a cache]
 * @property {string} verdict whether they are the same
 */

import { svg, h, layoutWidth, textWidths, projectedBox } from "../dom.js";

function draw(holder, fig, ctx) {
  const rows = fig.rows || [];
  if (!rows.length) { holder.replaceChildren(); return; }
  const t = ctx.text || {}, leg = t.legend || {};
  const T = fig.T, cols = fig.P + fig.T - 1;
  // laid out in pixels for the holder's width: side by side from 620 px, else one above the
  // other; each grid's title on the first line, the axis' name on the second, its ticks after.
  // Projected (ctx.box, dom.js projectedBox): for the whole box, every line and margin as tall and
  // as wide as the chart text drawn there (the turned axis title clear of the ticks), the
  // cells taking the height that is left
  const box = projectedBox(holder, ctx, "grids-svg", "tick");
  const Wfit = box ? box.width : layoutWidth(ctx.box, 300, 820);
  const narrow = Wfit < 620;
  const GAP = box ? Math.round(1.2 * box.em) : 24, PW = narrow ? Wfit : (Wfit - GAP) / 2;
  let GX = 38, GY = 60, GH = narrow ? 220 : 300, line = 20, chip = 12;
  let titleY = 16, axisY = 34, PH = GY + GH + 52;                 // the legend: room for two lines
  if (box) {
    const em = box.em, tw = Math.max(...textWidths(holder, "grids-svg",
      (fig.yt || []).map(([, lab]) => ["tick", lab])), em);
    line = Math.round(1.3 * em);
    chip = Math.round(0.75 * em);
    titleY = Math.round(em + 2);
    axisY = titleY + line;
    GY = axisY + line + 6;
    GX = Math.ceil(1.3 * em + 8 + tw + 6);          // the turned title, a gap, the ticks
    PH = narrow ? (box.height - GAP) / 2 : box.height;
    GH = Math.max(40, PH - GY - 2 * line - 10);
  }
  const GW = PW - GX - 6;
  const W = narrow ? PW : 2 * PW + GAP, H = narrow ? 2 * PH + GAP : PH;
  const cap = box ? 2 * box.em : 24;
  const cw = Math.min(cap, GW / cols), ch = Math.min(box ? cap : 20, GH / T);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "grids-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  const keys = [];                                  // [chip, inset, label] per legend entry
  const label = (g, x, y, cls, str, anchor) => {
    const e = svg("text", { x, y, class: cls, "text-anchor": anchor || "start" }, g);
    e.textContent = str;
    return e;
  };
  // ticks far enough apart for their labels (projected: a line high, a label wide)
  const spaced = (ticks, step, room) => {
    let last = -Infinity;
    return (ticks || []).filter(([v, lab]) => {
      const at = (v - 0.5) * step;
      if (at - last < room(lab)) return false;
      last = at;
      return true;
    });
  };
  const em = box ? box.em : 12;
  // the legend's labels measured before the grids are built, in a hidden <svg> of the grids'
  // class (dom.js textWidths): measured after, each would make the browser lay out thousands
  // of cells first, at every frame Play draws
  const kinds = ["new", "recomputed", "cached"];
  const widths = textWidths(holder, "grids-svg", kinds.map((k) => ["legend-label", leg[k] || ""]));
  const keyWidth = Object.fromEntries(kinds.map((k, i) => [k, widths[i]]));
  const xt = box ? spaced(fig.xt, cw, (lab) => 0.62 * em * String(lab).length + 0.6 * em) : fig.xt || [];
  const yt = box ? spaced(fig.yt, ch, () => 1.1 * em) : fig.yt || [];
  [["u", t.uncached, "recomputed"], ["c", t.cached, "cached"]].forEach(([id, title, old], k) => {
    const ox = narrow ? 0 : k * (PW + GAP), oy = narrow ? k * (PH + GAP) : 0;
    const g = svg("g", { class: "grid grid-" + id, transform: `translate(${ox},${oy})` }, s);
    label(g, 0, titleY, "grid-title", title);
    label(g, GX + GW, axisY, "axis-label", t.x, "end");
    for (const [v, lab] of xt)
      label(g, GX + (v - 0.5) * cw, GY - 8, "tick", lab, "middle");
    const yl = label(g, 0, 0, "axis-label", t.y, "middle");
    const yx = box ? Math.round(0.95 * em) : 10;    // the turned title's baseline
    yl.setAttribute("transform", `translate(${yx},${GY + GH / 2}) rotate(-90)`);     // beside the whole grid
    for (const [v, lab] of yt)
      label(g, GX - (box ? 6 : 4), GY + (v - 0.5) * ch + (box ? 0.35 * em : 4), "tick", lab, "end");
    const cells = svg("g", { class: "cells", "data-point": "cells-" + id }, g);   // (markPoints)
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
    const ky = GY + GH + (box ? Math.round(0.4 * em) : 12);
    for (const kind of ["new", old]) {              // the legend: every colour named
      const inset = kind === "cached" ? 2 : 0;      // drawn as its cells are: smaller, faint
      const c = svg("rect", { x: GX + inset, y: ky + inset, width: chip - 2 * inset,
                              height: chip - 2 * inset, class: "key-chip " + kind }, g);
      keys.push([c, inset, label(g, GX + chip + 5, ky + (box ? Math.round(0.8 * em) : 10),
                                 "legend-label", leg[kind] || ""), keyWidth[kind]]);
    }
  });
  s.style.minWidth = W + "px";
  holder.replaceChildren(s);
  layoutKeys(keys, GX, PW - 4, line, chip);
}

// the legend's entries side by side, each after the width its label takes (`w`, measured
// before the drawing: 8 units a character where it cannot be measured); one that would pass
// the grid's right edge starts a second line (`line` lower)
function layoutKeys(keys, x0, right, line, chip) {
  let lx = x0, g = null, dy = 0;
  keys.forEach(([c, inset, text, w]) => {
    if (text.parentNode !== g) { g = text.parentNode; lx = x0; dy = 0; }
    if (lx > x0 && lx + chip + 5 + w > right) { lx = x0; dy += line; }
    c.setAttribute("x", lx + inset);
    c.setAttribute("y", Number(c.getAttribute("y")) + dy);
    text.setAttribute("x", lx + chip + 5);
    text.setAttribute("y", Number(text.getAttribute("y")) + dy);
    lx += chip + 5 + w + 16;
  });
}

function extra(box, f, ctx) {
  const m = f.more || {}, t = ctx.text || {};
  box.replaceChildren();
  if (m.summary) h("p", "grid-summary", box, m.summary);
  const caps = h("div", "grid-captions", box);
  (m.captions || []).forEach((caption, k) => {
    const p = h("p", "grid-caption", caps);
    h("strong", "", p, (k ? t.cached : t.uncached) + ": ");
    p.appendChild(document.createTextNode(caption));
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

export const grids = { draw, extra };
