// Step 4: a log-log roofline with the prefill and decode points labelled on the chart, the
// decode step at every batch size as small dots and the ceiling no batch passes; under it,
// decode against the batch (FLOP per byte, tokens per second, time per step). The shaded
// memory-bound region and the names of the two regions wait for the answer: the server sends
// the names (`memory`, `compute`) only once it is out, and the region is shaded with them.
//
// The labels are placed for the drawing's width and language once its lines and points are
// drawn (draw/labels.js placeLabels): each inside its plot, where it touches no line, point or
// other text, on the side of its point or line where there is room, on two lines or with a
// leader line where it must.
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
 * @property {string} screen "Chart {i} of {n}": the page puts the figure's screen in
 * @property {string} next_screen
 * @property {string} prev_screen
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

import { svg, svgText, h, layoutWidth, textWidths, textSize } from "../dom.js";
import { placeLabels, around, besideV, besideH, inside } from "./labels.js";

const lg = Math.log10;

// the size of a chart text of class `cls` in `s`'s units, and the widest of `labels` at that
// size, measured in `s` itself (presenting, each of the two charts has its own chart font:
// present.js fitChartText): the margins and the space between ticks follow
function measure(s, cls, labels) {
  return { em: textSize(s, cls),
           widest: Math.max(0, ...textWidths(s, null, labels.map((label) => [cls, label]))) };
}

// The x ticks whose labels are drawn, [[x, label], …]: the labels measured at the size they
// are drawn, all before any is placed (one layout), a label dropped where it would come
// within `gap` of the one before it or run past `right` (the drawing's right edge).
// The last tick (the axis's end: “10,000”) is kept where it fits the drawing: the labels
// before it that it would come too near give way to it.
function xLabels(s, ticks, sx, gap, right) {
  const widths = textWidths(s, null, ticks.map(([, label]) => ["tick-label", label]));
  const fits = (k) => sx(ticks[k][0]) + widths[k] / 2 <= right;
  const clear = (j, k) => sx(ticks[k][0]) - sx(ticks[j][0]) >= (widths[j] + widths[k]) / 2 + gap;
  const kept = [];
  ticks.forEach((_, k) => {
    if (fits(k) && (!kept.length || clear(kept[kept.length - 1], k))) kept.push(k);
  });
  const end = ticks.length - 1;
  if (end >= 0 && fits(end) && kept[kept.length - 1] !== end) {
    while (kept.length && !clear(kept[kept.length - 1], end)) kept.pop();
    kept.push(end);
  }
  return kept.map((k) => [sx(ticks[k][0]), ticks[k][1]]);
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

// The parts (the layout table's `figures`, ctx.parts; null: both): "roof", the roofline, and
// "batch", decode at a batch of 1 to 256 (projected, each on a screen of its own).
function draw(holder, fig, ctx) {
  if (!fig.roof) { holder.replaceChildren(); return; }
  const want = (part) => !ctx.parts || ctx.parts.includes(part);
  const s = want("roof") ? svg("svg", { class: "roof-svg", "aria-hidden": "true", focusable: "false" }) : null;
  // in the page before the labels are placed: they are measured
  const kids = s ? [h("p", "chart-title", null, fig.title), s] : [];
  const batch = fig.batch && want("batch") ? svg("svg", { class: "batch-svg", "aria-hidden": "true",
                                                          focusable: "false" }) : null;
  if (batch) kids.push(h("p", "chart-title", null, fig.batch.title), batch);
  const box = ctx.box && ctx.box.projected ? ctx.box : null;
  holder.replaceChildren(...kids);
  const { W, Hbox } = s ? drawRoof(s, fig, ctx, box)
    : { W: layoutWidth(ctx.box, 340, 680), Hbox: box ? box.height : 0 };
  if (!batch) return;
  // projected: the batch chart laid out for its own box
  const bBox = Hbox ? batch.getBoundingClientRect() : null;
  drawBatch(batch, fig.batch, bBox && bBox.width > 100 ? Math.floor(bBox.width) : W, holder.isConnected,
            bBox && bBox.height > 100 ? Math.floor(bBox.height) : 0);
}

// the roofline in `s`; returns its width and its projected height
function drawRoof(s, fig, ctx, box) {
  s.replaceChildren();
  // the margins hold the tick labels and the axis titles at the size they are drawn
  const { em, widest } = measure(s, "tick-label", fig.yticks.map(([, label]) => label));
  const sBox = box ? s.getBoundingClientRect() : null;
  const W = sBox && sBox.width > 100 ? Math.floor(sBox.width) : layoutWidth(ctx.box, 340, 680);
  const Hbox = sBox && sBox.height > 100 ? Math.floor(sBox.height) : 0;
  const R = W - (Hbox ? Math.round(Math.max(12, 0.7 * em)) : 20);
  const xWide = measure(s, "axis-title", [fig.xaxis]).widest;
  const xLines = xWide > W - 8 ? split(fig.xaxis) : [fig.xaxis];     // (on two lines on a phone)
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
  const H = Hbox || B + Math.max(62, Math.round(2.6 * em + 22)) + (xLines.length - 1) * Math.round(1.3 * em);
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const sy = (v) => B - (B - T) * (lg(v) - lg(fig.y0)) / (lg(fig.y1) - lg(fig.y0));

  const clip = svg("clipPath", { id: "roof-plot" }, svg("defs", {}, s));
  svg("rect", { x: L, y: T, width: R - L, height: B - T }, clip);
  const rx = sx(fig.ridge);
  if (fig.memory) {
    svg("rect", { x: L, y: T, width: rx - L, height: B - T, class: "mem-region" }, s);
  }
  const xLabeled = xLabels(s, fig.xticks, sx, 0.4 * em, W - 2);
  const grid = svg("g", { class: "axis" }, s);
  for (const [v] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, grid);
    svg("line", { x1: sx(v), x2: sx(v), y1: B, y2: B + 4 }, grid);
  }
  for (const [x, label] of xLabeled) {
    svgText(grid, x, B + 6 + 1.3 * em, label, { "text-anchor": "middle", class: "tick-label" });
  }
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    svg("line", { x1: L - 4, x2: L, y1: sy(v), y2: sy(v) }, grid);
    svgText(grid, L - 7, sy(v) + 0.35 * em, label, { "text-anchor": "end", class: "tick-label" });
  }
  svg("line", { x1: L, x2: R, y1: B, y2: B }, grid);
  svg("line", { x1: L, x2: L, y1: T, y2: B }, grid);
  if (Hbox) {                                      // centred under the plot, inside the drawing
    xLines.forEach((line, j) => svgText(s, W / 2, B + 6 + (2.6 + 1.3 * j) * em, line,
                                        { "text-anchor": "middle", class: "axis-title" }));
  } else if (xLines.length > 1) {                 // centred in the drawing, on two lines
    xLines.forEach((line, j) => svgText(s, W / 2, H - 8 - (xLines.length - 1 - j) * Math.round(1.3 * em), line,
                                        { "text-anchor": "middle", class: "axis-title" }));
  } else {
    svgText(s, (L + R) / 2, H - 8, fig.xaxis, { "text-anchor": "middle", class: "axis-title" });
  }
  if (!yLines.length) {
    svgText(s, 0, 0, fig.yaxis, { "text-anchor": "middle", class: "axis-title",
                                 transform: `translate(${Math.max(16, em + 4)} ${(T + B) / 2}) rotate(-90)` });
  }
  yLines.forEach((line, k) => svgText(s, 4, em + 2 + k * Math.round(1.25 * em), line, { class: "axis-title" }));

  svg("line", { x1: rx, x2: rx, y1: T, y2: B, class: "ridge-line", "data-point": "ridge" }, s);
  const d = fig.roof.map(([x, y], k) => (k ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
  svg("path", { d, class: "roof", "clip-path": "url(#roof-plot)" }, s);
  for (const [x, y] of fig.trail || []) {         // the decode step at batch 1 .. 256
    svg("circle", { cx: sx(x), cy: sy(y), r: 2.5, class: "trail" }, s);
  }
  const cx = fig.ceiling ? sx(fig.ceiling.x) : null;
  if (fig.ceiling) {                               // no batch passes this intensity
    svg("line", { x1: cx, x2: cx, y1: T, y2: B, class: "ceiling-line" }, s);
  }
  const dots = fig.points.map((p) => [p, sx(p.x), sy(p.y)]);
  // (the answer's points, dom.js markPoints: each phase's dot, "prefill" or "decode", and the ridge)
  for (const [p, px, py] of dots) svg("circle", { cx: px, cy: py, r: 7.5, class: "pt pt-" + p.cls,
                                                 "data-point": p.cls }, s);
  // the labels, most important first, each where it touches no line, point or other text
  // (draw/labels.js): a point's name beside it, the ridge's and the ceiling's beside their
  // lines (the ridge's from the bottom up, its bottom never less than 0.9 em over the x axis,
  // on one line or more, not resting on it; the ceiling's from the top down; shorter, as the
  // batch chart names them, where the long words do not fit), the regions' in their regions;
  // each on two lines or turned upwards where one line does not fit, else set apart with a
  // leader line; a reference line (the ridge's, the ceiling's) that every place of a label
  // crosses is interrupted behind it
  const plot = { x: L + 3, y: T + 2, width: R - L - 6, height: B - T - 4 };
  const label = (str, cls) => svgText(s, 0, 0, str, { class: cls });
  const steps = (from, to, n) => Array.from({ length: n + 1 }, (_, k) => from + (to - from) * k / n);
  const rows = Math.max(4, Math.round((B - T) / (0.5 * em)));
  const items = [];
  const add = (key, item, ax, ay) => items.push({ key, near: item.near || [ax, ay, 0], ...item });
  dots.forEach(([p, px, py], k) => add("p" + k, {
    t: label(p.label, "pt-label"), near: [px, py, 7.5], split: true,
    spots: around(px, py, 7.5 + 4, p.cls === "prefill"
      ? ["below", "below-right", "below-left", "right", "left", "above", "above-left", "above-right"]
      : ["right", "below-right", "above-left", "left", "below", "above", "above-right", "below-left"]) }, px, py));
  // (the batch chart names the same lines shorter: the words where the long ones do not fit)
  const short = (cls, long) => {
    const ln = (fig.batch ? fig.batch.panels.flatMap((p) => p.lines) : []).find((l) => l.cls === cls);
    return ln && ln.label && ln.label.length < long.length ? [ln.label] : [];
  };
  add("ridge", { t: label(fig.ridge_label, "roof-note ridge-label"), split: true, turn: true,
                 alts: short("ridge", fig.ridge_label),
                 spots: besideV(rx, steps(B - 0.9 * em, T + 1.5 * em, rows), 6, ["right", "left"],
                                "bottom") }, rx, T);
  if (fig.ceiling) {
    add("ceiling", { t: label(fig.ceiling.label, "roof-note"), split: true, turn: true,
                     alts: short("ceiling", fig.ceiling.label),
                     spots: besideV(cx, steps(T + 2.4 * em, B - 0.9 * em, rows), 6, ["left", "right"]) }, cx, T);
  }
  if (fig.memory) {
    const step = Math.max(4, 0.4 * em);
    add("memory", { t: label(fig.memory, "roof-note region"), split: true, turn: true,
                    spots: inside({ x: L + 3, y: T + 2, width: Math.max(0, rx - L - 6), height: B - T - 4 }, step) },
        (L + rx) / 2, T);
    add("compute", { t: label(fig.compute, "roof-note region"), split: true, turn: true,
                     spots: inside({ x: rx + 3, y: T + 2, width: Math.max(0, R - rx - 6), height: B - T - 4 }, step) },
        (rx + R) / 2, T);
  }
  placeLabels(s, items, { bounds: plot, pad: 2, soft: ".ridge-line, .ceiling-line" });
  return { W, Hbox };
}

function drawBatch(s, fig, W, laidOut, Hbox) {
  // three log panels on one log batch axis: FLOP per byte, tokens per second, time per step;
  // the gaps hold the panels' titles and the ticks at the size they are drawn. `Hbox`:
  // projected, the drawing's height (0: as tall as the panels need)
  const { em, widest } = measure(s, "tick-label", fig.panels.flatMap((p) => p.yticks.map(([, l]) => l)));
  const L = Math.max(66, Math.ceil(widest + 18)), n = fig.panels.length;
  const R = W - (Hbox ? Math.round(Math.max(12, 0.7 * em)) : 20);
  // projected: a panel's title from the drawing's left edge, on two lines where one is too
  // wide; the batch axis's title likewise
  const tWide = Math.max(...fig.panels.map((p) => measure(s, "panel-title", [p.title]).widest));
  const tLines = Hbox && tWide > W - 8 ? 2 : 1;
  const xLines = measure(s, "axis-title", [fig.xaxis]).widest > W - 8 ? split(fig.xaxis) : [fig.xaxis];
  // (projected, a title clear of the top tick label, which reaches above the panel)
  const GAP = Hbox ? Math.round((tLines * 1.25 + 1.05) * em + 6) : Math.max(34, Math.round(em * 1.2 + 18));
  const tY = Hbox ? Math.round(0.9 * em) + 2 : 8;     // a title's baseline above its panel
  const T0 = Hbox ? GAP : Math.max(24, Math.round(em + 10));
  const bottom = Hbox ? Math.round(6 + 1.3 * em + xLines.length * 1.3 * em + 0.35 * em + 4)
    : Math.max(44, Math.round(2.4 * em + 14)) + (xLines.length - 1) * Math.round(1.3 * em);
  const PH = Hbox ? Math.max(2.4 * em, (Hbox - bottom - T0 - (n - 1) * GAP) / n)
    : 84 + Math.max(0, Math.round((em - 12) * 1.5));
  const B0 = T0 + n * (PH + GAP) - GAP, H = Hbox ? Math.max(Hbox, B0 + bottom) : B0 + bottom;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const nx = sx(fig.now);
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
      svgText(g, L - 10, sy(v) + 0.35 * em, label, { "text-anchor": "end", class: "tick-label" });
    }
    svg("line", { x1: L, x2: R, y1: B, y2: B }, g);
    svg("line", { x1: L, x2: L, y1: T, y2: B }, g);
    if (tLines > 1 && measure(s, "panel-title", [p.title]).widest > W - 8) {
      const [a, b] = split(p.title);
      svgText(s, 4, T - tY - 1.25 * em, a, { class: "panel-title" });
      svgText(s, 4, T - tY, b || "", { class: "panel-title" });
    } else {
      svgText(s, Hbox ? 4 : L, T - tY, p.title, { class: "panel-title" });
    }
    const d = fig.xs.map((x, i) => (i ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(p.ys[i]).toFixed(1)).join(" ");
    svg("path", { d, class: "bcurve" }, s);
    // the batch on screen, the limits and the marks; their names are placed below, once
    // every line is drawn
    const ny = sy(p.now);
    svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "bnow-line" }, s);
    const lines = p.lines.filter((ln) => ln.y >= p.y0 && ln.y <= p.y1)
      .sort((a, b) => sy(a.y) - sy(b.y))
      .map((ln) => {
        const y = sy(ln.y);
        const el = svg("line", { x1: L, x2: R, y1: y, y2: y, class: "lim lim-" + ln.cls }, s);
        return { label: ln.label, y, el };
      });
    const marks = [];
    fig.marks.forEach((m, j) => {
      const mx = sx(m.x);
      svg("line", { x1: mx, x2: mx, y1: T, y2: B, class: "mark mark-" + m.cls }, s);
      if (j === k) marks.push({ label: m.label, x: mx });     // each mark named in its own panel
    });
    svg("circle", { cx: nx, cy: ny, r: 5, class: "bnow" }, s);
    return { T, B, ny, label: p.now_label, lines, marks };
  });
  const xLabeled = xLabels(s, fig.xticks, sx, 0.3 * em, W - 2);
  const g = svg("g", { class: "axis" }, s);
  for (const [v] of fig.xticks) svg("line", { x1: sx(v), x2: sx(v), y1: B0, y2: B0 + 4 }, g);
  for (const [x, label] of xLabeled) {
    svgText(g, x, B0 + 6 + 1.3 * em, label, { "text-anchor": "middle", class: "tick-label" });
  }
  if (Hbox) {
    xLines.forEach((line, j) => svgText(s, W / 2, B0 + 6 + (2.6 + 1.3 * j) * em, line,
                                        { "text-anchor": "middle", class: "axis-title" }));
  } else {
    xLines.forEach((line, j) => svgText(s, xLines.length > 1 ? W / 2 : (L + R) / 2,
                                        H - 6 - (xLines.length - 1 - j) * Math.round(1.3 * em), line,
                                        { "text-anchor": "middle", class: "axis-title" }));
  }
  if (!laidOut) return;
  // per panel, most important first: the batch's value beside its dot, the limits' names
  // above or under their lines (from the left; else in a gap of the line, else nearby with a
  // leader line), the marks'
  // beside theirs (from the bottom); each inside its panel or the gap above it, clear of
  // every line, point and text (a reference line that every place crosses is interrupted);
  // projected, where the panels are low, a limit's or a mark's name with no clear place is
  // left out (the cards and the table twin have them)
  const items = [];
  const xs = (w0) => Array.from({ length: 9 }, (_, j) => w0 + (R - 4 - w0) * j / 8);
  panels.forEach((p, k) => {
    const top = Math.max(0, k ? p.T - GAP + 2 : 0);
    const bounds = { x: L + 3, y: top, width: R - L - 6, height: p.B - 1 - top };
    const label = (str, cls) => svgText(s, 0, 0, str, { class: cls });
    items.push({ t: label(p.label, "pt-label small"), bounds, near: [nx, p.ny, 5], split: true,
                 spots: around(nx, p.ny, 5 + 4, nx > (L + R) / 2
                   ? ["above-left", "left", "below-left", "above", "above-right", "right", "below", "below-right"]
                   : ["above-right", "right", "below-right", "above", "above-left", "left", "below", "below-left"]) });
    for (const ln of p.lines) {        // above or under its line, else in a gap of it
      items.push({ t: label(ln.label, "roof-note"), bounds, split: true, line: ln.el, near: [L + 12, ln.y, 0],
                   optional: !!Hbox,
                   spots: besideH(ln.y, xs(L + 6), 3, ["above", "below"]),
                   inline: xs(L + 6).map((x) => (w, h) => [x, ln.y - h / 2]) });
    }
    const ys = Array.from({ length: 9 }, (_, j) => p.B - 0.9 * em - (p.B - p.T - 1.8 * em) * j / 8);
    for (const m of p.marks) {
      items.push({ t: label(m.label, "roof-note"), bounds, split: true, near: [m.x, p.B - em, 0], optional: !!Hbox,
                   spots: besideV(m.x, ys, 5, m.x > (L + R) / 2 ? ["left", "right"] : ["right", "left"]) });
    }
  });
  placeLabels(s, items, { pad: 2, soft: ".lim, .mark, .bnow-line" });
}

export const roofline = { draw };
