// Step 3: one row per cached token: its key (blue strip) and value (orange strip), each cell
// one of the head_dim numbers; the newest query's weight per row as a green bar; under the
// value strip, the attention output softmax(q·Kᵀ/√d)·V. Rows written at this step are
// outlined (ink, not a colour). The drawing is as tall as the rows in the frame: it grows
// with the cache. Laid out in pixels for the holder's width: the rows keep their size, the
// cells take the width that is left (on a phone, narrow cells; never smaller text).

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc cache` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} CacheStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {CacheFig} fig
 */
/**
 * @typedef {Object} CacheStageText
 * The cache's labels (js/draw/cache.js).
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
 * @property {string} k the K cache's title
 * @property {string} v the V cache's title
 * @property {string} weights the query's weights' title
 * @property {string} out the output row's title
 * @property {string} dims how many numbers a row holds
 */
/**
 * @typedef {Object} CacheFig
 * One frame of js/draw/cache.js: a row per cached token, its key, value and weight.
 * @property {string[]} rows each row's name: its number (once the answer is out) and token
 * @property {string[]} titles each row's tooltip
 * @property {boolean[]} gen each row: written by a decode step (not the prefill)
 * @property {number} prompt_len
 * @property {number} new_from the first row written at this step
 * @property {number[]} weights the newest query's weight on each row
 * @property {string[]} pct the same, as written
 * @property {string[]} k each key row, one character per number (a level of the ramp)
 * @property {string[]} v each value row, the same
 * @property {string} out the attention output row, the same
 */

import { svg, svgText, declutter, layoutWidth, textWidths, wholeWidth, projectedBox } from "../dom.js";

// a row is a string, one character per number: chr(68 + level), level in -20..20
// (steps/step3/text.py `levels`)
const ZERO = 68, LEVELS = 20;

function cells(g, row, x0, y, cw, ch, cls) {
  for (let d = 0; d < row.length; d++) {
    const t = (row.charCodeAt(d) - ZERO) / LEVELS;
    svg("rect", { x: (x0 + d * cw).toFixed(2), y, width: Math.max(0.5, cw - 0.6).toFixed(2), height: ch,
                  class: cls + (t < 0 ? " neg" : " pos"),
                  "fill-opacity": Math.min(1, Math.abs(t)).toFixed(2) }, g);
  }
}

// the rows' height in a figure-only embed, all of them together (16 rows of 15 px)
const FIGURE_ROWS = 240;

function draw(holder, fig, ctx) {
  const rows = fig.rows || [], n = rows.length;
  if (!n) { holder.replaceChildren(); return; }
  const t = ctx.text || {};
  // projected (ctx.box, dom.js projectedBox): laid out for the whole box, the rows of this frame
  // as tall as the box allows (up to three lines of chart text), so that the cache fills the
  // screen at every step and its rows grow thinner as decode steps add rows; where they are
  // lower than the chart text, every k-th row keeps its labels (the twin has them all)
  const box = projectedBox(holder, ctx, "cache-svg", "row-label");
  const em = box ? box.em : 13;
  const dims = (fig.k[0] || []).length, GAP = 14;
  const W0 = box ? box.width : layoutWidth(ctx.box, 300, 820);
  const m = textWidths(holder, "cache-svg", [
    ...rows.map((r) => ["row-label", r, "cache-row is-prompt"]),
    ...(fig.pct || []).map((p) => ["attn-pct", p]),
    ["out-label", t.out || ""], ["dims-label", t.dims || ""],
    ["strip-head", t.k || ""], ["strip-head", t.v || ""], ["strip-head", t.weights || ""]]);
  const [outW, dimsW, kW, vW, wW] = m.slice(m.length - 5);
  const LW = Math.ceil(Math.max(...m.slice(0, n)) * 1.08) + 14;      // (italic rows: a little wider)
  const PW = Math.ceil(Math.max(0, ...m.slice(n, m.length - 5))) + 10;
  const BW = Math.round(Math.max(56, Math.min(box ? 220 : 130, W0 * 0.16)));
  const cw = Math.max(2, Math.min(box ? 16 : 12, (W0 - LW - 2 * GAP - BW - PW - 4) / (2 * dims)));
  const strip = dims * cw;
  const KX = LW, VX = KX + strip + GAP, BX = VX + strip + GAP;
  const W = Math.max(W0, wholeWidth(BX + BW + PW + 4));
  const mid = (x0) => x0 + strip / 2;
  // the heads on one line, or two where they would meet
  const wx = Math.min(BX, W - 2 - wW);
  const meet = mid(KX) + kW / 2 + 4 > mid(VX) - vW / 2 || mid(VX) + vW / 2 + 4 > wx;
  let rh = 26, ch = 20, Y0 = 44, every = 1;
  if (box) {
    Y0 = Math.round((meet ? 2.4 : 1.2) * em + 4);
    // under the rows: the output row (as high as a row's cells, 0.8 of it), its name and,
    // when it does not stand beside the output, the line of numbers per row
    const beside = dimsW <= dims * cw + GAP - 8;
    const below = 8 + Math.round(1.1 * em) + 0.4 * em + (beside ? 0 : Math.round(1.3 * em)) + 6;
    // (n rows, the output 0.8 of one, and the half-gap above the first row: 0.1 of one)
    rh = Math.max(4, Math.min(3 * em, (box.height - Y0 - below) / (n + 0.9)));
    ch = Math.max(3, Math.round(rh * 0.8 * 10) / 10);
    // the first row's cells a half-gap lower, so that the new rows' outline (which starts a
    // half-gap above them) stays under the heads
    Y0 += (rh - ch) / 2;
    every = Math.max(1, Math.ceil(1.2 * em / rh));   // (a text's box is ~1.17 em high)
  } else if (ctx.mode === "figure" && n * rh > FIGURE_ROWS) {
    // a figure-only embed (a course page's frame, ≤ 800 px tall): the rows share FIGURE_ROWS,
    // thinner as decode steps add rows (the 16 rows of a prompt's answer: 15 px, a line of
    // text's height, each labelled), every k-th labelled where they are thinner still
    rh = Math.max(4, FIGURE_ROWS / n);
    ch = Math.max(3, Math.round(rh * 0.8 * 10) / 10);
    Y0 += (rh - ch) / 2;
    every = Math.max(1, Math.ceil(1.15 * em / rh - 0.01));
  }
  const thin = rh < 26;                 // rows laid out for a height: labels on the cells' middle
  const pad = (rh - ch) / 2;
  const yRow = (i) => Y0 + i * rh, OY = yRow(n) + (box ? 8 : 12);
  const baseline = (y) => box || thin ? y + ch / 2 + 0.36 * em : y + ch - 5;
  // under the output row: its name (projected: the numbers per row beside the output, under
  // the keys, when they fit there)
  const dimsBeside = !!box && dimsW <= strip + GAP - 8;
  const LY = box ? OY + ch + Math.round(1.1 * em) : OY + ch + 18;
  const DY = dimsBeside ? baseline(OY) : box ? LY + Math.round(1.3 * em) : LY + 22;
  const H = box ? box.height : DY + 8;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cache-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = W + "px";
  holder.replaceChildren(s);
  // the three heads; one that would cover another goes up a line
  const hy = box ? Y0 - pad - Math.round(0.45 * em) : Y0 - 10;
  const kh = svgText(s, mid(KX), hy, t.k, { class: "strip-head", "text-anchor": "middle" });
  const vh = svgText(s, mid(VX), hy, t.v, { class: "strip-head", "text-anchor": "middle" });
  const wh = svgText(s, BX, hy, t.weights, { class: "strip-head", "text-anchor": "start" });
  if (s.isConnected) {
    const ww = wh.getComputedTextLength();
    if (BX + ww > W - 2) wh.setAttribute("x", Math.max(2, W - 2 - ww).toFixed(1));
    declutter([kh, vh, wh], { dy: box ? -Math.round(1.15 * em) : -18, tries: 1, pad: 4 });
  }
  const nf = Math.max(0, Math.min(n, fig.new_from));
  if (fig.prompt_len < n) {
    const y = yRow(fig.prompt_len) - pad;
    svg("line", { x1: KX, x2: BX + BW, y1: y, y2: y, class: "prefill-line" }, s);
  }
  // (the answer's points, dom.js markPoints: the key rows, the value rows, the newest row)
  for (const [x0, point] of [[KX, "keys"], [VX, "values"]])
    svg("rect", { x: x0 - 0.5, y: Y0 - 0.5, width: strip + 1, height: n * rh - rh + ch + 1,
                  class: "strip-frame", "data-point": point }, s);
  const wmax = Math.max(...fig.weights, 1e-9);
  for (let i = 0; i < n; i++) {
    const y = yRow(i);
    const g = svg("g", { class: "cache-row" + (fig.gen[i] ? " is-gen" : " is-prompt") +
                         (i >= nf ? " is-new" : "") }, s);
    if (i === n - 1) g.setAttribute("data-point", "newest");
    svg("title", {}, g).textContent = fig.titles[i];
    // labelled: every `every`-th row counted from the newest, which is always labelled
    const named = (n - 1 - i) % every === 0;
    if (named) svgText(g, LW - 8, baseline(y), rows[i], { class: "row-label", "text-anchor": "end" });
    cells(g, fig.k[i], KX, y, cw, ch, "cell k");
    cells(g, fig.v[i], VX, y, cw, ch, "cell v");
    svg("rect", { x: BX, y: y + Math.min(1, ch / 6), width: BW, height: Math.max(1, ch - 2 * Math.min(1, ch / 6)),
                  class: "attn-track" }, g);
    svg("rect", { x: BX, y: y + Math.min(1, ch / 6), width: (BW * fig.weights[i]).toFixed(2),
                  height: Math.max(1, ch - 2 * Math.min(1, ch / 6)),
                  class: "attn-bar" + (fig.weights[i] === wmax ? " is-max" : "") }, g);
    if (named) svgText(g, BX + BW + 5, baseline(y), fig.pct[i], { class: "attn-pct" });
  }
  // the rows written at this step, outlined (around their labels too, where those are
  // taller than a row: projected, large text on thin rows)
  const outline = svg("rect", { x: 2, y: yRow(nf) - pad, width: W - 4, height: (n - nf) * rh, rx: 4,
                                class: "new-rows" + (ctx.index > 0 ? " enter" : "") }, s);
  if (s.isConnected && n > nf) {
    const boxes = [...s.querySelectorAll(".cache-row.is-new text")].map((t) => t.getBBox()).filter((b) => b.height);
    const top = Math.min(yRow(nf) - pad, ...boxes.map((b) => b.y - 3));
    const bottom = Math.max(yRow(nf) - pad + (n - nf) * rh, ...boxes.map((b) => b.y + b.height + 3));
    // (clear of every other text: the headings, the row before, the output's name)
    const others = [...s.querySelectorAll("text")].filter((t) => !t.closest(".cache-row.is-new"))
      .map((t) => t.getBBox()).filter((b) => b.height && b.y < bottom + 2 && b.y + b.height > top - 2);
    if (!others.length) {
      outline.setAttribute("y", top.toFixed(1));
      outline.setAttribute("height", (bottom - top).toFixed(1));
    } else {                     // no room: around the rows' cells only
      outline.setAttribute("x", (KX - 4).toFixed(1));
      outline.setAttribute("width", (BX + BW + 2 - (KX - 4)).toFixed(1));
    }
  }
  // what V is for: the output, the value rows added up with the weights; its name under it
  const o = svg("g", { class: "out-row" }, s);
  svg("path", { d: `M ${mid(VX)} ${yRow(n) - rh + ch + 1} V ${OY - 2} m -4 -5 l 4 5 l 4 -5`,
                class: "out-arrow" }, o);
  svg("rect", { x: VX - 1.5, y: OY - 1.5, width: strip + 3, height: ch + 3, rx: 2,
                class: "out-frame" }, o);
  cells(o, fig.out, VX, OY, cw, ch, "out-cell");
  svgText(o, Math.max(4, Math.min(VX, W - 4 - outW)), LY, t.out, { class: "out-label" });
  const dx = dimsBeside ? Math.max(4, VX - GAP / 2 - 4 - dimsW) : Math.max(4, Math.min(KX, W - 4 - dimsW));
  svgText(s, dx, DY, t.dims, { class: "dims-label" });
}

export const cache = { draw };
