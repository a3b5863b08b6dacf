// Step 4: a log-log roofline with the prefill and decode points labelled on the chart, the
// decode step at every batch size as small dots and the ceiling no batch passes; under it,
// decode against the batch (FLOP per byte, tokens per second, time per step). The shaded
// memory-bound region and the names of the two regions wait for the answer: the server sends
// the names (`memory`, `compute`) only once it is out, and the region is shaded with them.
//
// The labels are laid out for the drawing's width and language: each stays inside the plot
// (on the other side of its line or point when it does not fit on the first), and labels that
// would still cover one another are moved apart (dom.js `declutter`).
// Projected (ctx.box): the page puts the two charts side by side; each is laid
// out for the box its <svg> has there (its height too), its margins, offsets and titles (on two
// lines where one does not fit) at the size its text is drawn, and tick labels that would leave
// the drawing are left out.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc roofline` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} RooflineStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {RooflineFig} fig
 */
/**
 * @typedef {Object} StageText
 * A stage's fixed labels: the player's and the figure's name; a renderer that needs more
 * names a subclass (`FIGURES`).
 * @property {string} reset
 * @property {string} back
 * @property {string} next
 * @property {string} play
 * @property {string} pause
 * @property {string} table
 * @property {string} more
 * @property {Badges} badges
 * @property {string} figure
 */
/**
 * @typedef {Object} RooflineFig
 * The one frame of js/draw/roofline.js: a log-log roofline, and decode against the
 * batch under it.
 * @property {string} title
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0
 * @property {number} y1
 * @property {[number, string][]} xticks
 * @property {[number, string][]} yticks
 * @property {[number, number][]} roof the roof's corners: [FLOP per byte, TFLOP/s]
 * @property {number} ridge
 * @property {number} peak the GPU's TFLOP/s
 * @property {string} xaxis
 * @property {string} yaxis
 * @property {string} ridge_label
 * @property {(string|null)} memory the memory-bound region's name, once the answer is out
 * @property {(string|null)} compute the compute-bound region's name, the same
 * @property {RooflinePoint[]} points
 * @property {[number, number][]} trail decode at every batch size
 * @property {(RooflineCeiling|null)} ceiling
 * @property {(BatchFig|null)} batch
 */
/**
 * @typedef {Object} RooflinePoint
 * A phase on the roofline.
 * @property {number} x FLOP per byte
 * @property {number} y attainable TFLOP/s
 * @property {string} cls "prefill" or "decode"
 * @property {string} label
 */
/**
 * @typedef {Object} RooflineCeiling
 * The decode ceiling: the most FLOP per byte any batch reaches.
 * @property {number} x
 * @property {string} label
 */
/**
 * @typedef {Object} BatchFig
 * Decode against the batch, under the roofline (js/draw/roofline.js).
 * @property {string} title
 * @property {number[]} xs the batch sizes
 * @property {number} x0
 * @property {number} x1
 * @property {number} now the chosen batch
 * @property {[number, string][]} xticks
 * @property {string} xaxis
 * @property {BatchPanel[]} panels
 * @property {BatchMark[]} marks
 */
/**
 * @typedef {Object} BatchPanel
 * One panel of decode against the batch: a value at every batch size, on a log axis.
 * @property {string} title
 * @property {number[]} ys one per batch size (BatchFig.xs)
 * @property {PanelLine[]} lines
 * @property {number} now at the chosen batch
 * @property {string} now_label
 * @property {number} y0
 * @property {number} y1
 * @property {[number, string][]} yticks
 */
/**
 * @typedef {Object} BatchMark
 * A batch size marked on the batch axis.
 * @property {number} x
 * @property {string} cls "stop": a larger batch stops paying; "fits": the memory's limit
 * @property {string} label
 */
/**
 * @typedef {Object} PanelLine
 * A level across a batch panel.
 * @property {number} y
 * @property {string} cls "ceiling" or "ridge"
 * @property {string} label
 */

import { svg, svgText, h, layoutWidth, textLength, textWidths, textSize, overlaps, declutter } from "../dom.js";

const lg = Math.log10;

// put `t` at `x`, on the preferred side ("start": to the right of x + gap, "end": to the
// left of x - gap), on the other side if it does not fit there (unless `stay`), and inside
// [lo, hi] anyway
function place(t, x, gap, side, lo, hi, stay) {
  const w = textLength(t);
  const right = x + gap, left = x - gap - w;
  const fitsRight = right + w <= hi, fitsLeft = left >= lo;
  let start = side === "start" ? (fitsRight || !fitsLeft || stay ? right : left)
                               : (fitsLeft || !fitsRight || stay ? left : right);
  start = Math.max(lo, Math.min(hi - w, start));
  t.setAttribute("x", start.toFixed(1));
  t.setAttribute("text-anchor", "start");
  return t;
}

// the size of a chart text of class `cls` in `s`'s units, and the widest of `labels` at that
// size, measured in `s` itself (presenting, each of the two charts has its own chart font:
// present.js fitChartText): the margins and the space between ticks follow
function measure(s, cls, labels) {
  return { em: textSize(s, cls),
           widest: Math.max(0, ...textWidths(s, null, labels.map((label) => [cls, label]))) };
}

// a title in two lines, split at the space nearest its middle
function split(text) {
  const mid = text.length / 2;
  let at = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === " " && (at < 0 || Math.abs(i - mid) < Math.abs(at - mid))) at = i;
  }
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function draw(holder, fig, ctx) {
  if (!fig.roof) { holder.replaceChildren(); return; }
  const s = svg("svg", { class: "roof-svg", "aria-hidden": "true", focusable: "false" });
  // in the page before the labels are placed: they are measured
  const kids = [h("p", "chart-title", null, fig.title), s];
  const batch = fig.batch ? svg("svg", { class: "batch-svg", "aria-hidden": "true",
                                         focusable: "false" }) : null;
  if (batch) kids.push(h("p", "chart-title", null, fig.batch.title), batch);
  const box = ctx.box && ctx.box.projected ? ctx.box : null;
  holder.replaceChildren(...kids);
  // the margins hold the tick labels and the axis titles at the size they are drawn
  const { em, widest } = measure(s, "tick-label", fig.yticks.map(([, label]) => label));
  const sBox = box ? s.getBoundingClientRect() : null;
  const W = sBox && sBox.width > 100 ? Math.floor(sBox.width) : layoutWidth(ctx.box, 340, 680);
  const Hbox = sBox && sBox.height > 100 ? Math.floor(sBox.height) : 0;
  const R = W - (Hbox ? Math.round(Math.max(12, 0.7 * em)) : 20);
  const ks = Hbox ? em / 12 : 1;                     // the labels' offsets follow the text
  const xWide = measure(s, "axis-title", [fig.xaxis]).widest;
  const xLines = Hbox && xWide > W - 8 ? split(fig.xaxis) : [fig.xaxis];
  const below = 6 + 1.3 * em + xLines.length * 1.3 * em + 0.35 * em + 4;   // ticks, x title
  const B0 = Hbox ? Math.max(120, Hbox - below) : 318 + Math.max(0, Math.round((em - 12) * 2));
  // the y axis's title turned beside the ticks where it fits their height; else (large text,
  // a long title) on one or two lines above the plot
  const yTitle = measure(s, "axis-title", [fig.yaxis]).widest;
  const yLines = yTitle <= B0 - 16 ? [] : yTitle <= W - 8 ? [fig.yaxis] : split(fig.yaxis);
  const T0 = Hbox ? Math.round(0.8 * em + 6) : 16;
  const T = T0 + (yLines.length ? Math.round((yLines.length * 1.25 + 0.6) * em) : 0);
  const B = Hbox ? B0 : B0 + T - 16;
  const L = Math.max(66, Math.ceil(widest + (yLines.length ? 12 : 1.3 * em + 16)));
  const H = Hbox || B + Math.max(62, Math.round(2.6 * em + 22));
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const sy = (v) => B - (B - T) * (lg(v) - lg(fig.y0)) / (lg(fig.y1) - lg(fig.y0));

  const clip = svg("clipPath", { id: "roof-plot" }, svg("defs", {}, s));
  svg("rect", { x: L, y: T, width: R - L, height: B - T }, clip);
  const rx = sx(fig.ridge);
  if (fig.memory) {
    svg("rect", { x: L, y: T, width: rx - L, height: B - T, class: "mem-region" }, s);
  }
  const grid = svg("g", { class: "axis" }, s);
  const fixed = [];                                  // axis texts: never moved
  let last = -1e9;
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, grid);
    svg("line", { x1: sx(v), x2: sx(v), y1: B, y2: B + 4 }, grid);
    if (sx(v) - last < 0.62 * em * label.length + em) continue;     // no overlapping labels
    if (Hbox && sx(v) + 0.31 * em * label.length > W - 2) continue;   // inside the drawing
    last = sx(v);
    fixed.push(svgText(grid, sx(v), B + 6 + 1.3 * em, label, { "text-anchor": "middle", class: "tick-label" }));
  }
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    svg("line", { x1: L - 4, x2: L, y1: sy(v), y2: sy(v) }, grid);
    fixed.push(svgText(grid, L - 7, sy(v) + 0.35 * em, label, { "text-anchor": "end", class: "tick-label" }));
  }
  svg("line", { x1: L, x2: R, y1: B, y2: B }, grid);
  svg("line", { x1: L, x2: L, y1: T, y2: B }, grid);
  if (Hbox) {                                      // centred under the plot, inside the drawing
    xLines.forEach((line, j) => fixed.push(svgText(s, W / 2, B + 6 + (2.6 + 1.3 * j) * em, line,
                                                   { "text-anchor": "middle", class: "axis-title" })));
  } else {
    fixed.push(svgText(s, (L + R) / 2, H - 8, fig.xaxis, { "text-anchor": "middle", class: "axis-title" }));
  }
  // (the labels below stay right of the plot's left edge, clear of the turned axis title)
  if (!yLines.length) {
    svgText(s, 0, 0, fig.yaxis, { "text-anchor": "middle", class: "axis-title",
                                 transform: `translate(${Math.max(16, em + 4)} ${(T + B) / 2}) rotate(-90)` });
  }
  yLines.forEach((line, k) => fixed.push(svgText(s, 4, em + 2 + k * Math.round(1.25 * em), line,
                                                 { class: "axis-title" })));

  const lo = L + 4, hi = R - 4;
  // projected: a note wider than the plot goes on two lines, each placed as the note is
  const note = (y, str, cls, x, gap, side, stay) => {
    const t = svgText(s, 0, y, str, { class: cls });
    if (!Hbox || !s.isConnected || textLength(t) <= hi - lo) return [place(t, x, gap, side, lo, hi, stay)];
    const [a, b] = split(str);
    t.textContent = a;
    const t2 = svgText(s, 0, y + 1.2 * em, b || "", { class: cls });
    return [place(t, x, gap, side, lo, hi, stay), place(t2, x, gap, side, lo, hi, stay)];
  };
  svg("line", { x1: rx, x2: rx, y1: T, y2: B, class: "ridge-line" }, s);
  const ridge = note(B - 8 * ks - (Hbox ? 1.2 * em : 0), fig.ridge_label, "roof-note", rx, 6, "end");
  const d = fig.roof.map(([x, y], k) => (k ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
  svg("path", { d, class: "roof", "clip-path": "url(#roof-plot)" }, s);
  for (const [x, y] of fig.trail || []) {         // the decode step at batch 1 .. 256
    svg("circle", { cx: sx(x), cy: sy(y), r: 2.5, class: "trail" }, s);
  }
  const notes = [];                               // most important first
  for (const p of fig.points) {
    const px = sx(p.x), py = sy(p.y);
    svg("circle", { cx: px, cy: py, r: 7.5, class: "pt pt-" + p.cls }, s);
    notes.push(...note(py + 22 * ks, p.label, "pt-label", px, 12, px > R - 110 * ks ? "end" : "start"));
  }
  if (fig.memory) {
    notes.push(...note(T + 16 * ks, fig.memory, "roof-note region", L + 2, 6, "start"));
    // right of the ridge; where it does not fit, it reaches back over the ridge line
    notes.push(...note(T + 16 * ks, fig.compute, "roof-note region", rx + 2, 6, "start", true));
  }
  if (fig.ceiling) {                               // no batch passes this intensity
    const cx = sx(fig.ceiling.x);
    svg("line", { x1: cx, x2: cx, y1: T, y2: B, class: "ceiling-line" }, s);
    notes.push(...note(T + 36 * ks, fig.ceiling.label, "roof-note", cx, 6, cx > R - 150 * ks ? "end" : "start"));
  }
  if (holder.isConnected) {       // laid out: labels that still cover others move apart
    const taken = declutter(ridge, { dy: -6 * ks, tries: 8, fixed: fixed.map((t) => t.getBBox()) });
    declutter(notes, { dy: 6 * ks, tries: 10, fixed: taken });
  }
  if (!batch) return;
  // projected: the batch chart in the other column, laid out for its own box
  const bBox = Hbox ? batch.getBoundingClientRect() : null;
  drawBatch(batch, fig.batch, bBox && bBox.width > 100 ? Math.floor(bBox.width) : W, holder.isConnected,
            bBox && bBox.height > 100 ? Math.floor(bBox.height) : 0);
}

function drawBatch(s, fig, W, laidOut, Hbox) {
  // three log panels on one log batch axis: FLOP per byte, tokens per second, time per step;
  // the gaps hold the panels' titles and the ticks at the size they are drawn. `Hbox`:
  // projected, the drawing's height (0: as tall as the panels need)
  const { em, widest } = measure(s, "tick-label", fig.panels.flatMap((p) => p.yticks.map(([, l]) => l)));
  const L = Math.max(66, Math.ceil(widest + 18)), n = fig.panels.length;
  const R = W - (Hbox ? Math.round(Math.max(12, 0.7 * em)) : 20);
  const ks = Hbox ? em / 12 : 1;
  // projected: a panel's title from the drawing's left edge, on two lines where one is too
  // wide; the batch axis's title likewise
  const tWide = Math.max(...fig.panels.map((p) => measure(s, "panel-title", [p.title]).widest));
  const tLines = Hbox && tWide > W - 8 ? 2 : 1;
  const xLines = Hbox && measure(s, "axis-title", [fig.xaxis]).widest > W - 8 ? split(fig.xaxis) : [fig.xaxis];
  // (projected, a title clear of the top tick label, which reaches above the panel)
  const GAP = Hbox ? Math.round((tLines * 1.25 + 1.05) * em + 6) : Math.max(34, Math.round(em * 1.2 + 18));
  const tY = Hbox ? Math.round(0.9 * em) + 2 : 8;     // a title's baseline above its panel
  const T0 = Hbox ? GAP : Math.max(24, Math.round(em + 10));
  const bottom = Hbox ? Math.round(6 + 1.3 * em + xLines.length * 1.3 * em + 0.35 * em + 4)
    : Math.max(44, Math.round(2.4 * em + 14));
  const PH = Hbox ? Math.max(2.4 * em, (Hbox - bottom - T0 - (n - 1) * GAP) / n)
    : 84 + Math.max(0, Math.round((em - 12) * 1.5));
  const B0 = T0 + n * (PH + GAP) - GAP, H = Hbox ? Math.max(Hbox, B0 + bottom) : B0 + bottom;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const lo = L + 4, hi = R - 4;
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const nx = sx(fig.now);
  const fixed = [];
  const panels = fig.panels.map((p, k) => {
    const T = T0 + k * (PH + GAP), B = T + PH;
    const sy = (v) => B - (B - T) * (lg(v) - lg(p.y0)) / (lg(p.y1) - lg(p.y0));
    const g = svg("g", { class: "axis" }, s);
    for (const [v] of fig.xticks) svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, g);
    let above = 1e9;                      // the last label's y: labels at least a line apart
    for (const [v, label] of p.yticks) {
      svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, g);
      if (above - sy(v) < 1.15 * em) continue;
      above = sy(v);
      fixed.push(svgText(g, L - 10, sy(v) + 0.35 * em, label, { "text-anchor": "end", class: "tick-label" }));
    }
    svg("line", { x1: L, x2: R, y1: B, y2: B }, g);
    svg("line", { x1: L, x2: L, y1: T, y2: B }, g);
    let title;
    if (tLines > 1 && measure(s, "panel-title", [p.title]).widest > W - 8) {
      const [a, b] = split(p.title);
      title = svgText(s, 4, T - tY - 1.25 * em, a, { class: "panel-title" });
      fixed.push(title, svgText(s, 4, T - tY, b || "", { class: "panel-title" }));
    } else {
      title = svgText(s, Hbox ? 4 : L, T - tY, p.title, { class: "panel-title" });
      fixed.push(title);
    }
    const d = fig.xs.map((x, i) => (i ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(p.ys[i]).toFixed(1)).join(" ");
    svg("path", { d, class: "bcurve" }, s);
    // the batch on screen, and its value: the panel's first label
    const ny = sy(p.now);
    svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "bnow-line" }, s);
    svg("circle", { cx: nx, cy: ny, r: 5, class: "bnow" }, s);
    const now = place(svgText(s, 0, ny - 8 * ks, p.now_label, { class: "pt-label small" }), nx, 8,
                      nx > R - 90 * ks ? "end" : "start", lo, hi);
    // the limits, named at the left, where the curve is low (placed once laid out, below)
    const lines = p.lines.filter((ln) => ln.y >= p.y0 && ln.y <= p.y1)
      .sort((a, b) => sy(a.y) - sy(b.y))
      .map((ln) => {
        const y = sy(ln.y);
        svg("line", { x1: L, x2: R, y1: y, y2: y, class: "lim lim-" + ln.cls }, s);
        return { t: svgText(s, L + 6, y < T + 16 * ks ? y + 14 * ks : y - 5 * ks, ln.label, { class: "roof-note" }), y };
      });
    const marks = [];
    fig.marks.forEach((m, j) => {
      const mx = sx(m.x);
      svg("line", { x1: mx, x2: mx, y1: T, y2: B, class: "mark mark-" + m.cls }, s);
      if (j === k) {                     // each mark named in its own panel
        marks.push(place(svgText(s, 0, B - 8 * ks, m.label, { class: "roof-note" }), mx, 5,
                         mx > (L + R) / 2 ? "end" : "start", lo, hi));
      }
    });
    return { title, now, lines, marks };
  });
  const g = svg("g", { class: "axis" }, s);
  let last = -1e9;
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: B0, y2: B0 + 4 }, g);
    if (sx(v) - last < 0.62 * em * label.length + 0.8 * em) continue;   // no overlapping labels
    if (Hbox && sx(v) + 0.31 * em * label.length > W - 2) continue;     // inside the drawing
    last = sx(v);
    fixed.push(svgText(g, sx(v), B0 + 6 + 1.3 * em, label, { "text-anchor": "middle", class: "tick-label" }));
  }
  if (Hbox) {
    xLines.forEach((line, j) => fixed.push(svgText(s, W / 2, B0 + 6 + (2.6 + 1.3 * j) * em, line,
                                                   { "text-anchor": "middle", class: "axis-title" })));
  } else {
    fixed.push(svgText(s, (L + R) / 2, H - 6, fig.xaxis, { "text-anchor": "middle", class: "axis-title" }));
  }
  if (!laidOut) return;
  let taken = fixed.map((t) => t.getBBox());
  for (const p of panels) {
    taken = declutter([p.now], { dy: -6, tries: 4, fixed: taken });
    // a limit's name: above its line at the left, above it after the panel's title, or under
    // it, wherever it covers no other text and no other limit's line; else pushed down
    const bars = p.lines.map(({ y }) => ({ x: L, y: y - 1, width: R - L, height: 2 }));
    const tb = p.title.getBBox(), after = tb.x + tb.width + 12;
    p.lines.forEach(({ t, y }, i) => {
      const first = [t.getAttribute("x"), t.getAttribute("y")];
      const others = taken.concat(bars.filter((_, j) => j !== i));
      const spot = [[L + 6, y - 5 * ks], [after, y - 5 * ks], [L + 6, y + 14 * ks]].find(([x, ly]) => {
        t.setAttribute("x", x.toFixed(1));
        t.setAttribute("y", ly.toFixed(1));
        const box = t.getBBox();
        return box.x + box.width <= R - 4 && !others.some((p) => overlaps(box, p));
      });
      if (!spot) { t.setAttribute("x", first[0]); t.setAttribute("y", first[1]); }
      taken = declutter([t], { dy: 6, tries: 8, fixed: taken });
    });
    taken = declutter(p.marks, { dy: -6, tries: 8, fixed: taken });
  }
}

export const roofline = { draw };
