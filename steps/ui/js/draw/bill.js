// Step 5: three still charts, drawn in the browser: the bill as one stacked bar against the
// GPUs' memory, the batch's cache over the context against the weights, and the layer map
// (draw/layers.js: what each layer keeps at this context). The point where
// the cache reaches the weights, and the sentence that says where, wait for the answer: the
// server leaves them out of the frame until then (`cross`, `said`), and this draws what comes.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc bill` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} BillStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {BillFig} fig
 * @property {string[]} lines under the charts (bill.js `extra`): the GPU lines, a note
 * @property {string} said where the cache overtakes the weights ("" until the answer)
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
 * @typedef {Object} BillFig
 * The one frame of js/draw/bill.js: the bar, the curve and the layer map.
 * @property {BarFig} bar
 * @property {CurveFig} curve
 * @property {(LayerMapFig|null)} layers null when the view has no layer map
 */
/**
 * @typedef {Object} BarFig
 * The bill as one stacked bar against the GPUs' memory.
 * @property {number} xmax
 * @property {BarPart[]} parts
 * @property {[number, string][]} ticks
 * @property {BarGpu[]} gpus
 * @property {string} axis
 * @property {string} title
 * @property {string} weights_label
 * @property {string} cache_label
 */
/**
 * @typedef {Object} CurveFig
 * The batch's cache as the context grows, against the weights.
 * @property {boolean} mla
 * @property {number[]} ctx contexts drawn (until the answer: up to this one)
 * @property {number[]} kv the cache at each, GB
 * @property {number} xmax
 * @property {number} ymax
 * @property {number} weights GB
 * @property {[number, string][]} xticks
 * @property {[number, string][]} yticks
 * @property {string} xaxis
 * @property {string} yaxis
 * @property {string} title
 * @property {string} weights_label
 * @property {CurveNow} now
 * @property {(CurveCross|null)} cross
 * @property {(CurveLimit|null)} limit
 */
/**
 * @typedef {Object} LayerMapFig
 * The layer map (js/draw/layers.js, under the bill): one bar per layer.
 * @property {string[]} kinds each layer's kind (its colour class)
 * @property {number[]} kept each layer's tokens kept of this context
 * @property {number} top the context: the bars' full height
 * @property {LayerLegend[]} legend
 * @property {string} title
 * @property {string} top_label
 * @property {string} first the first layer's name
 * @property {string} last the last layer's name
 */
/**
 * @typedef {Object} BarPart
 * A part of the bill's bar, in GB.
 * @property {string} cls weights, key, value or latent
 * @property {number} x0
 * @property {number} x1
 * @property {string} name
 * @property {string} size
 */
/**
 * @typedef {Object} BarGpu
 * A GPU memory size on the bar's axis, in GB.
 * @property {number} x
 * @property {string} label
 * @property {string} names the GPUs of that size
 * @property {boolean} chosen
 */
/**
 * @typedef {Object} CurveNow
 * This context on the curve.
 * @property {number} x
 * @property {number} y the cache, GB
 * @property {string} label
 */
/**
 * @typedef {Object} CurveCross
 * Where the cache reaches the weights (the answer: only once it is out).
 * @property {number} x
 * @property {string} label
 * @property {string} tokens
 */
/**
 * @typedef {Object} CurveLimit
 * The model's maximum context, when the axis goes past it.
 * @property {number} x
 * @property {string} label
 */
/**
 * @typedef {Object} LayerLegend
 * A kind of layer: its colour class and what its layers keep.
 * @property {string} cls
 * @property {string} text
 */

import { svg, h, layoutWidth, textLength, textSize } from "../dom.js";
import { placeLabels, around, besideH, besideV } from "./labels.js";
import { layerStrip, layerLegend } from "./layers.js";

// The charts' sizes follow the size their text is drawn at in an <svg>'s units (dom.js
// textSize of a tick label; presenter mode makes it larger: present.js fitChartText), and
// their labels are placed by the width they are drawn at (dom.js textLength; before the
// drawing is in the page, 0.62 em a character).
function text(s, attrs, words) {
  const t = svg("text", attrs, s);
  t.textContent = words;
  return t;
}

function axisX(s, ticks, sx, y, end, em, below) {
  const g = svg("g", { class: "axis" }, s);
  const stop = Math.max(ticks[ticks.length - 1][0], end || 0);
  svg("line", { x1: sx(ticks[0][0]), x2: sx(stop), y1: y, y2: y }, g);
  let last = -1e9;
  for (const [v, label] of ticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: y, y2: y + 4 }, g);
    if (sx(v) - last < 0.62 * em * label.length + 0.7 * em) continue;   // no overlapping labels
    last = sx(v);
    text(g, { x: sx(v), y: y + (below || 4 + 1.1 * em), "text-anchor": "middle", class: "tick-label" }, label);
  }
}
function anchorAt(x, half, L, R) {
  return x - half < L ? ["start", L] : x + half > R ? ["end", R] : ["middle", x];
}

// the bar's height in its units for text of `em`: two rows of GPU names, the cache's label
// (on `over` lines), the bar, the weights' label (on two lines where `split`), the axis and
// its title
function barRows(em, split = false, over = 1) {
  const r = 1.25 * em, bh = 34;
  const y0 = Math.round(2 + (2 + over) * r + 8);
  const axisY = Math.round(y0 + bh + r + (split ? r : 0) + 0.4 * em + 8);
  return { bh, y0, axisY, H: Math.ceil(axisY + 4 + 2.8 * em + 2) };
}
function drawBar(s, fig, W) {
  const em = textSize(s, "tick-label"), r = 1.25 * em;
  const L = 14, R = W - 14;
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const chosen = fig.gpus.find((g) => g.chosen);
  const end = fig.parts[fig.parts.length - 1].x1, w = fig.parts[0].x1;
  // the weights' label under the bar from its left: where a GPU's line (a phone's narrow bar:
  // 24 GiB) runs through it on one line, the bar keeps a second line for it; where a line
  // runs through it on two lines too (a large batch's long axis puts 24 and 48 GiB within
  // “gewichten 13,5 GB”), it stays on one line and the lines it would cross end at the bar
  // (`short`): their gap cut behind it read as crossing it
  const weights = text(s, { class: "bar-label weights-label" }, fig.weights_label);
  const within = (x0) => (g) => sx(g.x) > sx(w) && sx(g.x) < x0 + 0.5 * em;
  const one = fig.gpus.filter(within(L + narrowest(weights, 1, em)));
  const two = fig.gpus.filter(within(L + narrowest(weights, 2, em)));
  const split = one.length > 0 && two.length === 0;
  const short = new Set(split ? [] : one);
  // the cache's label over the bar, on as few lines as leave it clear of every GPU's line at
  // one of its places there (`labelBar`); the bar moves down to make room for them
  const cache = text(s, { class: "bar-label" }, fig.cache_label);
  const xs = fig.gpus.map((g) => sx(g.x));
  const over = cacheLines(cache, xs, [sx(w), sx(end)], L, R, em);
  const { bh, y0, axisY, H } = barRows(em, split, over);
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  for (const g of fig.gpus) {
    svg("line", { x1: sx(g.x), x2: sx(g.x), y1: g.chosen ? 2 + r + 4 : 2 + 2 * r + 4,
                  y2: short.has(g) ? y0 + bh : axisY,
                  class: "gpu-line" + (g.chosen ? " chosen" : "") }, s);
  }
  for (const p of fig.parts) {
    const rect = svg("rect", { x: sx(p.x0), y: y0, width: Math.max(0.5, sx(p.x1) - sx(p.x0)),
                               height: bh, class: "seg seg-" + p.cls }, s);
    svg("title", {}, rect).textContent = p.name + ": " + p.size;
  }
  // the weights' and the cache's sizes: placed once the drawing has its size (`labelBar`),
  // over the lines and the parts
  s.append(weights, cache);
  s.__labels = { weights, cache, L, R, top: 2 + 2 * r + 4, y0, bh, axisY, em, ends: [sx(w), sx(end)],
                 between: between(xs, [sx(w), sx(end)], 2 + 0.25 * em) };
  // a label's extent along x, from its anchor and its measured width
  const place = (t, at) => {
    const tw = textLength(t, 0.62 * em);
    const [anchor, x] = anchorAt(at, tw / 2, L, R);
    t.setAttribute("x", x);
    t.setAttribute("text-anchor", anchor);
    const x0 = anchor === "start" ? x : anchor === "end" ? x - tw : x - tw / 2;
    return [x0, x0 + tw];
  };
  if (chosen) {                      // the chosen GPU on the top row, its name in full
    place(text(s, { y: 2 + em, class: "gpu-label chosen" }, `${chosen.label} (${chosen.names})`),
          sx(chosen.x));
  }
  const taken = [];                  // the others below it, where there is room
  for (const g of fig.gpus) {
    if (g.chosen) continue;
    const t = text(s, { y: 2 + r + em, class: "gpu-label" }, g.label);
    const [x0, x1] = place(t, sx(g.x));
    const near = chosen && Math.abs(sx(g.x) - sx(chosen.x)) < 2.5 * em;
    if (near || taken.some(([a, b]) => x0 < b + 0.5 * em && a < x1 + 0.5 * em)) {
      t.remove();
      continue;
    }
    taken.push([x0, x1]);
  }
  axisX(s, fig.ticks, sx, axisY, fig.xmax, em);    // to the end: GPU lines may pass the last tick
  text(s, { x: (L + R) / 2, y: H - 0.4 * em - 2, "text-anchor": "middle", class: "axis-title" }, fig.axis);
  return s;
}

// the places over the cache's part between the GPUs' lines that run through it (a large
// batch's bar reaches past several GPUs): beside each such line, `pad` from it, on either side
function between(xs, [start, end], pad) {
  return xs.filter((x) => x > start && x < end).flatMap((x) => [x + pad + 1, ["end", x - pad - 1]]);
}

// How many lines (1 to 3) the cache's label `t` needs over the bar to stand clear of the GPUs'
// lines (at `xs`) at one of its places there (`labelBar`: ending at the bar's end, starting
// at the cache's start or at the left edge L), its words split where the longest line is
// shortest (labels.js splits them so); 1 where no number of lines clears them (the label is
// then placed as labelBar can). On a phone the bar is short and the 24 GiB line stands a
// little past its end: on one line the label ran across it.
function cacheLines(t, xs, [start, end], L, R, em) {
  const words = t.textContent.split(" ");
  const longest = (n) => narrowest(t, n, em);
  const pad = 2 + 0.25 * em;
  const clear = (x0, w) => {
    const a = Math.max(L, Math.min(R - w, x0));
    return !xs.some((x) => x > a - pad && x < a + w + pad);
  };
  let lines = 1;
  for (let n = 1; n <= Math.min(3, words.length); n++) {
    const w = longest(n);
    const at = [end - w, start, L, ...between(xs, [start, end], pad).map((x) => (Array.isArray(x) ? x[1] - w : x))];
    if (at.some((x0) => clear(x0, w))) { lines = n; break; }
  }
  return lines;
}

// the width of the text `t` split into `n` lines (1 to 3) at the spaces that make its longest
// line the shortest, as labels.js splits it (Infinity where it has too few spaces); `t` keeps
// its words
function narrowest(t, n, em) {
  const full = t.textContent, words = full.split(" ");
  const width = (s) => { t.textContent = s; return textLength(t, 0.62 * em); };
  if (n === 1) { const w = width(full); t.textContent = full; return w; }
  let best = Infinity;
  const cuts = (from, left) => {
    if (left === 1) return [[words.slice(from).join(" ")]];
    const out = [];
    for (let k = from + 1; k <= words.length - left + 1; k++) {
      for (const rest of cuts(k, left - 1)) out.push([words.slice(from, k).join(" "), ...rest]);
    }
    return out;
  };
  for (const lines of cuts(0, n)) best = Math.min(best, Math.max(...lines.map(width)));
  t.textContent = full;
  return best;
}

// the bar's two sizes next to what they name, where no GPU line, no part's edge and no other
// text runs through them (draw/labels.js): the weights' under the bar from its left (or over
// it; on two lines where one would cross a GPU's line), the cache's over the bar at its end
// or its start (or under it). Where GPU lines close together cross every such place, they are interrupted behind the label, as a halo would.
function labelBar(s) {
  const b = s.__labels;
  if (!b) return;
  const { weights, cache, L, R, top, y0, bh, axisY, em, ends, between: gaps } = b;
  const under = y0 + bh, gap = 0.25 * em;
  const bounds = { x: L, y: top, width: R - L, height: axisY - 2 - top };
  const at = [...(ends[1] > (L + R) / 2 ? [["end", ends[1]], ends[0], L] : [ends[0], ["end", ends[1]], L]),
              ...gaps];
  placeLabels(s, [
    { t: weights, split: true, spots: [...besideH(under, [L, ["end", ends[0]]], gap, ["below"]),
                          ...besideH(y0, [L, ["end", ends[0]]], gap, ["above"])] },
    { t: cache, split: true, spots: [...besideH(y0, at, gap, ["above"]), ...besideH(under, at, gap, ["below"])] },
  ], { bounds, pad: 2, soft: ".gpu-line" });
}

// the curve in `H` units of height (300 on the page; what the projected box leaves it)
function drawCurve(s, fig, ctx, W, H) {
  const em = textSize(s, "tick-label"), r = 1.25 * em;
  const yticks = fig.yticks.map(([v, label]) => [v, text(s, { class: "tick-label" }, label)]);
  const widest = Math.max(0, ...yticks.map(([, t]) => textLength(t, 0.62 * em)));
  for (const [, t] of yticks) t.remove();
  // the y axis's title turned beside the ticks where the plot is tall enough; else on a line
  // above the plot
  const probe = text(s, { class: "axis-title" }, fig.yaxis);
  const yLong = textLength(probe, 0.62 * em);
  probe.remove();
  const B = Math.round(H - Math.max(50, 3 * em + 10));
  const flat = yLong > B - 14 - 8;
  const T = Math.round(flat ? r + 0.6 * em + 6 : Math.max(14, 0.6 * em));
  // the last context tick is centred on the plot's right end: the margin holds its half
  const lastTick = text(s, { class: "tick-label" }, fig.xticks[fig.xticks.length - 1][1]);
  const R = W - Math.max(24, Math.ceil(textLength(lastTick, 0.62 * em) / 2 + 4));
  lastTick.remove();
  const L = Math.max(56, Math.ceil(widest + (flat ? 10 : 1.3 * em + 16)));
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const sy = (v) => B - (B - T) * v / fig.ymax;
  const grid = svg("g", { class: "axis" }, s);
  let above = 1e9;                   // tick labels at least a line apart
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    if (above - sy(v) < 1.15 * em) continue;
    above = sy(v);
    text(grid, { x: L - 6, y: sy(v) + 0.35 * em, "text-anchor": "end", class: "tick-label" }, label);
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
  // (the answer's points, dom.js markPoints: where the cache crosses the weights, else the weights)
  const wline = svg("line", { x1: L, x2: R, y1: wy, y2: wy, class: "weights-line", "data-point": "weights" }, s);
  const nx = sx(fig.now.x), ny = sy(fig.now.y);
  svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "now-line" }, s);
  const lx = fig.limit ? sx(fig.limit.x) : null;
  if (fig.limit) {                   // the model's maximum context: past it, hypothetical
    svg("line", { x1: lx, x2: lx, y1: T, y2: B, class: "limit-line" }, s);
  }
  svg("circle", { cx: nx, cy: ny, r: 5, class: "now-dot" }, s);
  const cx = fig.cross ? sx(fig.cross.x) : null;
  if (fig.cross) {
    svg("path", { d: `M ${cx} ${wy - 7} L ${cx + 7} ${wy} L ${cx} ${wy + 7} L ${cx - 7} ${wy} Z`,
                  class: "cross-mark", "data-point": "crossover" }, s);
  }
  // the labels, placed once the drawing has its size (`labelCurve`), most important first:
  // where the cache reaches the weights (its two lines together), this context's size, the
  // weights' and the model's limit
  const items = [];
  if (fig.cross) {
    const t = svg("text", { class: "bar-label cross-label" }, s);
    // (the first line ends in a space: the text reads as two words, not one)
    svg("tspan", { x: 0, dy: 0 }, t).textContent = fig.cross.label + " ";
    svg("tspan", { x: 0, dy: r.toFixed(1) }, t).textContent = fig.cross.tokens;
    const away = nx > cx ? ["below-left", "above-left", "left", "below-right", "above-right", "right"]
                         : ["below-right", "above-right", "right", "below-left", "above-left", "left"];
    items.push({ t, near: [cx, wy, 7], spots: around(cx, wy, 7 + 4, [...away, "below", "above"]) });
  }
  items.push({ t: text(s, { class: "bar-label now-label" }, fig.now.label), near: [nx, ny, 5], split: true,
               spots: around(nx, ny, 5 + 4, nx > (L + R) / 2
                 ? ["above-left", "left", "below-right", "above-right", "right", "above", "below-left", "below"]
                 : ["above-right", "right", "above-left", "left", "below-right", "above", "below-left", "below"]) });
  const xs = Array.from({ length: 13 }, (_, k) => L + 6 + (R - L - 12) * k / 12);
  const wfirst = fig.cross && fig.cross.x < fig.xmax / 2 ? [["end", R - 4], ...xs.reverse()] : xs;
  items.push({ t: text(s, { class: "bar-label weights-label" }, fig.weights_label), split: true,
               spots: besideH(wy, wfirst, 0.35 * em, ["above", "below"]), line: wline,
               inline: wfirst.map((x) => (w, h) => [Array.isArray(x) ? x[1] - w : x, wy - h / 2]) });
  if (fig.limit) {
    const ys = Array.from({ length: 9 }, (_, k) => T + em + (B - T - 2 * em) * k / 8);
    items.push({ t: text(s, { class: "bar-label limit-label" }, fig.limit.label), split: true, optional: true,
                 spots: besideV(lx, ys, 5, lx > R - 14 * em ? ["left", "right"] : ["right", "left"]) });
  }
  s.__labels = { items, bounds: { x: L + 2, y: Math.max(0, T - 0.5 * em), width: R - L - 2, height: B - 2 - Math.max(0, T - 0.5 * em) } };
  axisX(s, fig.xticks, sx, B, undefined, em, 6 + 1.3 * em);   // clear of the y axis's “0”
  text(s, { x: (L + R) / 2, y: H - 0.45 * em, "text-anchor": "middle", class: "axis-title" }, fig.xaxis);
  if (flat) text(s, { x: 4, y: em + 2, class: "axis-title" }, fig.yaxis);
  else text(s, { x: 0, y: 0, "text-anchor": "middle", class: "axis-title",
                 transform: `translate(${Math.round(em + 2)} ${(T + B) / 2}) rotate(-90)` }, fig.yaxis);
  return s;
}
// the curve's labels where no line, point or other text runs through them (draw/labels.js);
// the model's limit, the least important (the words under the charts say it too), is left out
// where it has no such place; a reference line (this context's, the limit's, the weights')
// that every place of a label crosses is interrupted behind it
function labelCurve(s) {
  if (s.__labels) {
    placeLabels(s, s.__labels.items, { bounds: s.__labels.bounds, pad: 2,
                                       soft: ".now-line, .limit-line, .weights-line" });
  }
}

function sized(el, px) {
  if (px == null) { el.style.removeProperty("flex"); el.style.removeProperty("height"); return; }
  el.style.flex = "none";
  el.style.height = Math.max(0, Math.floor(px)) + "px";
}

// The parts (the layout table's `figures`, ctx.parts; null: all three): "bar", the bill;
// "curve", the cache against the context; "layers", the layer map (projected, one at a time).
function draw(holder, fig, ctx) {
  if (!fig.bar) { holder.replaceChildren(); return; }
  const want = (part) => !ctx.parts || ctx.parts.includes(part);
  // presenting, the holder has a height of its own (ctx.box: the projected page gives the
  // figure what the screen leaves): the charts fill it at one scale, laid out for its whole
  // width at one unit a pixel, the curve taking what the bar leaves, the layer map only where
  // it fits; elsewhere they are laid out for their width, between a phone's and a wide column's
  const projected = !!(ctx.box && ctx.box.projected);
  const W = projected ? Math.max(340, ctx.box.width) : layoutWidth(ctx.box, 340, 680);
  const attrs = { class: "bill-svg", "aria-hidden": "true", focusable: "false" };
  const bar = want("bar") ? svg("svg", attrs) : null;
  const curve = want("curve") ? svg("svg", { ...attrs }) : null;
  const kids = [];
  if (bar) kids.push(h("p", "chart-title", null, fig.bar.title), bar);
  if (curve) kids.push(h("p", "chart-title", null, fig.curve.title), curve);
  let strip = [];
  if (fig.layers && want("layers")) {  // the layer map: what each layer keeps at this context
    const s = svg("svg", { class: "bill-svg layers-svg", "aria-hidden": "true", focusable: "false" });
    strip = [h("p", "chart-title", null, fig.layers.title), s, layerLegend(fig.layers)];
    kids.push(...strip);
  }
  holder.replaceChildren(...kids);   // in the page: the labels are measured
  if (bar) drawBar(bar, fig.bar, W);
  const scale = holder.clientWidth / W;
  if (projected && scale > 0) {
    const gap = parseFloat(getComputedStyle(holder).rowGap) || 0;
    const outside = (els) => els.reduce((a, e) => a + (e.tagName.toLowerCase() === "svg" ? 0 :
                                                       e.getBoundingClientRect().height) + gap, 0);
    const barPx = bar ? bar.viewBox.baseVal.height * scale : 0;
    const room = (els) => holder.clientHeight - outside(els) - barPx;
    const least = curve ? 9 * 1.25 * textSize(curve, "tick-label") * scale : 0;   // the curve's least height
    let stripPx = 0;
    if (strip.length) {
      const s = strip[1];
      layerStrip(s, fig.layers, W);
      stripPx = s.viewBox.baseVal.height * scale;
      if (curve && room(kids) - stripPx < least) {          // no room for the layer map here
        strip.forEach((e) => e.remove());
        strip = [];
        stripPx = 0;
      }
    }
    const left = [...holder.children];
    if (bar) sized(bar, barPx);
    if (strip.length) sized(strip[1], stripPx);
    if (curve) {
      const curvePx = Math.max(room(left) - stripPx, least);
      sized(curve, curvePx);
      drawCurve(curve, fig.curve, ctx, W, Math.floor(curvePx / scale));
    }
  } else {
    [bar, curve].filter(Boolean).forEach((e) => sized(e, null));
    if (curve) drawCurve(curve, fig.curve, ctx, W, 300);
    if (strip.length) layerStrip(strip[1], fig.layers, W);
  }
  if (bar) labelBar(bar);
  if (curve) labelCurve(curve);
}
function extra(box, frame, ctx) {
  const kids = [];
  for (const line of frame.lines || []) kids.push(h("p", "", null, line));
  if (frame.said) kids.push(h("p", "stage-said", null, frame.said));
  box.replaceChildren(...kids);
}

export const bill = { draw, extra };
