// Step 6, Part D: dropping tokens. One frame per generated token of the live model whose cache
// holds at most B tokens. The token strip: the text so far as boxes that flow in lines, each
// coloured by why the cache keeps it (attention sink, heavy hitter, recent token) or greyed and
// struck when the cache has dropped it; the newest query outlined in the query's green; after
// it, the token the full cache's run writes next (✓ or ✗: this cache's top choice agrees or
// not, once the question is answered). Under the strip, the measured top-1 agreement of the
// three policies against the budget (one line each, the budget shown marked), or, while the
// question is open, a sentence saying that it waits for the answer.
// fig: StripFig, ctx.text: StripStageText (below).
// Projected (ctx.box, dom.js projectedBox): laid out for the box the page gives the figure, every
// size in units of the chart text's size (em), drawn at scale 1: the strip as tall as its
// lines, the chart (or the sentence that waits for the answer) in the height left under it;
// where that is too little, the strip's lines close up and the chart's y labels thin out.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc strip` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} StripStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {StripFig} fig
 */
/**
 * @typedef {Object} StripStageText
 * The strip's labels (js/draw/strip.js).
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
 * @property {string} next_token before the next token
 * @property {string} chart the agreement chart's title
 * @property {string} x_axis
 * @property {string} wait instead of the chart while the question is open
 * @property {RoleNames} roles
 */
/**
 * @typedef {Object} StripFig
 * One generated token of js/draw/strip.js: the text so far as a strip of tokens.
 * @property {string[]} words the tokens so far
 * @property {string} roles one letter a position: s sink, h heavy hitter, r recent, x dropped
 * @property {number} query the newest query's position
 * @property {string} next the token the full cache's run writes next
 * @property {(boolean|null)} agree this cache's top choice agrees (null until the answer)
 * @property {(SweepFig|null)} sweep null until measured
 */
/**
 * @typedef {Object} RoleNames
 * @property {string} sink
 * @property {string} heavy
 * @property {string} recent
 * @property {string} gone
 */
/**
 * @typedef {Object} SweepFig
 * The agreement-against-budget chart under the strip.
 * @property {string[]} budgets the budgets, as written
 * @property {number[]} values the budgets
 * @property {[number, string][]} yticks
 * @property {SweepLine[]} lines
 * @property {([string, number]|null)} current [policy, budget] of the run on screen
 */
/**
 * @typedef {Object} SweepLine
 * A policy's measured top-1 agreement at every budget, in %.
 * @property {string} key
 * @property {string} name
 * @property {(number[]|null)} points null while the question is open
 */

import { svg, h, layoutWidth, textWidths, projectedBox } from "../dom.js";

// the sizes of the learners' page (pixels, text 12–14 px), or projected, in em
const STRIP = { pad: 5, gapX: 5, rowH: 34, cellH: 26, arrowW: 22, base: 18, padX: 12, nextX: 14 };
const stripIn = (e, tight) => ({ pad: 5, gapX: Math.round(0.3 * e),
  rowH: Math.round((tight ? 1.3 : 1.65) * e), cellH: Math.round((tight ? 1.2 : 1.35) * e),
  arrowW: Math.round(1.2 * e), base: Math.round((tight ? 0.6 : 0.675) * e + 0.36 * e),
  padX: Math.round(0.6 * e), nextX: Math.round(0.7 * e) });

const ROLE = { s: "tok-sink", h: "tok-heavy", r: "tok-recent", x: "tok-gone" };
const ROLE_KEY = { s: "sink", h: "heavy", r: "recent", x: "gone" };
function tokenStrip(holder, fig, ctx, W, P, large) {
  const cls = "strip-svg" + (large ? ` strip-x${Math.round(large * 100)}` : "");
  const words = fig.words || [], roles = fig.roles || "";
  const mark = fig.agree === true ? " ✓" : fig.agree === false ? " ✗" : "";
  const nextText = `${ctx.text.next_token || ""}: ${fig.next || ""}${mark}`;
  const widths = textWidths(holder, cls, [
    ...words.map((w) => ["tok-text", w]), ["tok-text", nextText]]);
  const { pad, gapX, rowH, cellH, arrowW, base } = P || STRIP;
  const padX = (P || STRIP).padX, nextX = (P || STRIP).nextX;
  const cells = [];
  let x = pad, row = 0;
  const place = (w) => {
    if (x > pad && x + w > W - pad) { x = pad; row += 1; }
    const at = { x, row, w };
    x += w + gapX;
    return at;
  };
  words.forEach((word, i) => cells.push(place(Math.max(20, Math.ceil(widths[i]) + padX))));
  // the arrow and the next token stay together on a line
  const nextW = Math.max(28, Math.ceil(widths[words.length]) + nextX);
  if (x > pad && x + arrowW + nextW > W - pad) { x = pad; row += 1; }
  const arrowX = x;
  x += arrowW;
  const next = { x, row, w: nextW };
  const top = 4;
  const H = top + (row + 1) * rowH + 4;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: cls, "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = W + "px";
  const y = (r) => top + r * rowH;
  words.forEach((word, i) => {
    const c = cells[i], code = roles[i] || "x";
    const g = svg("g", { class: "tok " + ROLE[code] + (i === fig.query ? " is-query" : "") }, s);
    const tip = svg("title", {}, g);
    tip.textContent = `${word} (${i}): ${(ctx.text.roles || {})[ROLE_KEY[code]] || ""}`;
    svg("rect", { x: c.x, y: y(c.row), width: c.w, height: cellH, rx: 4, class: "tok-bg" }, g);
    const t = svg("text", { x: c.x + c.w / 2, y: y(c.row) + base, class: "tok-text",
                            "text-anchor": "middle" }, g);
    t.textContent = word;
    if (code === "x")
      svg("line", { x1: c.x + 3, x2: c.x + c.w - 3, y1: y(c.row) + cellH / 2 + 1,
                    y2: y(c.row) + cellH / 2 + 1, class: "tok-strike" }, g);
    if (i === fig.query)
      // (on the cell's own edge, its stroke half inside: clear of the neighbours' words)
      svg("rect", { x: c.x + 0.5, y: y(c.row) + 0.5, width: c.w - 1, height: cellH - 1, rx: 4,
                    class: "query-ring is-query" }, g);
  });
  const ay = y(next.row) + cellH / 2;
  svg("path", { d: `M${arrowX + 3} ${ay} h${arrowW - 10} m-5 -5 l5 5 l-5 5`, class: "next-arrow" }, s);
  const g = svg("g", { class: "tok tok-next" + (fig.agree === false ? " differs" : "") }, s);
  svg("rect", { x: next.x, y: y(next.row), width: next.w, height: cellH, rx: 4, class: "tok-bg" }, g);
  const nt = svg("text", { x: next.x + next.w / 2, y: y(next.row) + base, class: "tok-text",
                           "text-anchor": "middle" }, g);
  nt.textContent = nextText;
  return s;
}

// the chart's sizes: the learners' page's (pixels), or projected (em) with the plot's height
// `plotH` (what the box leaves it)
const SWEEP = { pad: 5, titleY: 19, titleH: 26, legendGap: 6, legendRow: 26, swatch: 30, mid: 8,
                nameY: 13, plotGap: 10, plotH: 150, tickY: 16, axisY: 38, below: 48, tickDy: 4 };
const sweepIn = (e) => ({ pad: 5, titleY: Math.round(1.05 * e), titleH: Math.round(1.35 * e),
  legendGap: Math.round(0.15 * e), legendRow: Math.round(1.4 * e), swatch: Math.round(1.6 * e),
  mid: Math.round(0.7 * e), nameY: Math.round(1.05 * e), plotGap: Math.round(0.6 * e), plotH: 0,
  tickY: Math.round(1.25 * e), axisY: Math.round(2.55 * e), below: Math.round(2.85 * e),
  tickDy: Math.round(0.35 * e), em: e });

// the legend: one entry a line's marker and name, as many a row as fit; the plot's top
function sweepTop(lines, m, W, P) {
  const legend = [];
  let lx = P.pad, lrow = 0;
  lines.forEach((l, i) => {
    const w = P.swatch + Math.ceil(m[i]) + 16;
    if (lx > P.pad && lx + w > W - P.pad) { lx = P.pad; lrow += 1; }
    // a name longer than the chart is wide: on two lines, broken at a space (after a comma
    // where there is one) that keeps the first line inside
    let parts = null;
    if (lx + w > W - P.pad && m[i] > 0) {
      const fits = Math.floor(l.name.length * (W - 2 * P.pad - P.swatch - 16) / m[i]);
      const head = l.name.slice(0, fits + 1);
      const at = head.lastIndexOf(", ") > 0 ? head.lastIndexOf(", ") + 1 : head.lastIndexOf(" ");
      if (at > 0) parts = [l.name.slice(0, at), l.name.slice(at).trim()];
    }
    legend.push({ x: lx, row: lrow, parts });
    lx += w;
    if (parts) { lx = W; }                      // (the next name starts a row of its own)
    if (parts) lrow += 1;
  });
  const legendTop = P.titleH + P.legendGap;
  return { legend, legendTop, plotTop: legendTop + (lrow + 1) * P.legendRow + P.plotGap };
}

function sweepChart(holder, sw, ctx, W, P) {
  P = P || SWEEP;
  const lines = sw.lines || [], n = (sw.budgets || []).length;
  const yticks = sw.yticks || [];
  const m = textWidths(holder, "sweep-svg", [
    ...lines.map((l) => ["legend-name", l.name]), ...yticks.map((t) => ["tick", t[1]]),
    ...(sw.budgets || []).map((b) => ["tick", b]), ["chart-title", ctx.text.chart || ""]]);
  const pad = P.pad, swatch = P.swatch;
  const { legend, legendTop, plotTop } = sweepTop(lines, m, W, P);
  const yw = Math.ceil(Math.max(0, ...m.slice(lines.length, lines.length + yticks.length)));
  const left = pad + yw + 8, right = W - pad - 4, plotH = P.plotH;
  const bottom = plotTop + plotH;
  const H = bottom + P.below;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "sweep-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = W + "px";
  const title = svg("text", { x: pad, y: P.titleY, class: "chart-title" }, s);
  title.textContent = ctx.text.chart || "";
  const step = (right - left) / Math.max(1, n);
  const X = (i) => left + (i + 0.5) * step;
  const Y = (v) => bottom - (v / 100) * plotH;
  // projected: where the plot is low, every k-th y label (the grid lines all stay)
  const gapY = yticks.length > 1 ? plotH * Math.abs(yticks[1][0] - yticks[0][0]) / 100 : Infinity;
  const every = P.em ? Math.max(1, Math.ceil(1.3 * P.em / gapY)) : 1;
  yticks.forEach(([v, label], j) => {
    svg("line", { x1: left, x2: right, y1: Y(v), y2: Y(v), class: "grid" }, s);
    if ((yticks.length - 1 - j) % every) return;
    const t = svg("text", { x: left - 6, y: Y(v) + P.tickDy, class: "tick", "text-anchor": "end" }, s);
    t.textContent = label;
  });
  svg("line", { x1: left, x2: right, y1: bottom, y2: bottom, class: "axis" }, s);
  (sw.budgets || []).forEach((b, i) => {
    const t = svg("text", { x: X(i), y: bottom + P.tickY, class: "tick",
                            "text-anchor": "middle" }, s);
    t.textContent = b;
  });
  const xt = svg("text", { x: (left + right) / 2, y: bottom + P.axisY, class: "axis-title",
                           "text-anchor": "middle" }, s);
  xt.textContent = ctx.text.x_axis || "";
  const cur = sw.current || [];
  const ci = (sw.values || []).indexOf(cur[1]);
  if (ci >= 0) svg("line", { x1: X(ci), x2: X(ci), y1: plotTop - 4, y2: bottom, class: "sweep-now" }, s);
  const r = P.em ? Math.round(0.28 * P.em) : 4;
  const marker = (g, key, cx, cy, r) => {
    if (key === "sinks") return svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, class: "mk" }, g);
    if (key === "h2o") return svg("path", { d: `M${cx} ${cy - r - 1} L${cx + r + 1} ${cy + r} L${cx - r - 1} ${cy + r} Z`, class: "mk" }, g);
    return svg("circle", { cx, cy, r, class: "mk" }, g);
  };
  lines.forEach((l, i) => {
    const g = svg("g", { class: `sweep-line line-${l.key}` }, s);
    const e = legend[i], ly = legendTop + e.row * P.legendRow, mid = P.mid;
    svg("line", { x1: e.x, x2: e.x + swatch - 6, y1: ly + mid, y2: ly + mid, class: "ln" }, g);
    marker(g, l.key, e.x + (swatch - 6) / 2, ly + mid, r);
    const name = svg("text", { x: e.x + swatch, y: ly + P.nameY, class: "legend-name" }, g);
    if (e.parts) e.parts.forEach((part, k) => {
      const t = svg("tspan", { x: e.x + swatch, dy: k ? P.legendRow : 0 }, name);
      t.textContent = part;
    });
    else name.textContent = l.name;
    const pts = l.points || [];
    if (!pts.length) return;
    svg("polyline", { points: pts.map((v, k) => `${X(k).toFixed(1)},${Y(v).toFixed(1)}`).join(" "),
                      class: "ln" }, g);
    pts.forEach((v, k) => {
      const mk = marker(g, l.key, X(k), Y(v), r);
      if (k === ci) mk.setAttribute("data-point", "budget");   // (the answer's point: markPoints)
      const tip = svg("title", {}, mk);
      tip.textContent = `${l.name}, ${sw.budgets[k]}: ${Math.round(v)}%`;
    });
    if (l.key === cur[0] && ci >= 0 && ci < pts.length)
      svg("circle", { cx: X(ci), cy: Y(pts[ci]), r: 2 * r, class: "sweep-cur" }, g);
  });
  return s;
}

const heightOf = (s) => Number(s.getAttribute("viewBox").split(" ")[3]);

// projected: the strip and the chart (or the waiting sentence) in the box, each <svg> given
// its height (the page would otherwise share the box out evenly)
function drawProjected(holder, fig, ctx, box) {
  const W = box.width, e = box.em, sw = fig.sweep;
  const chart = sw && (sw.lines || []).some((l) => l.points);
  const fixed = (el, hgt) => { el.style.flex = "none"; el.style.height = hgt + "px"; };
  let wait = null, room = box.height;
  if (sw && !chart) {                       // the sentence's height, measured where it shows
    wait = h("p", "sweep-wait", null, ctx.text.wait || "");
    holder.appendChild(wait);
    room -= Math.ceil(wait.getBoundingClientRect().height) + 2;
  }
  let P = null, rest = 0, top = null;
  if (chart) {
    const Q = sweepIn(e);
    const m = textWidths(holder, "sweep-svg", (sw.lines || []).map((l) => ["legend-name", l.name]));
    top = sweepTop(sw.lines || [], m, W, Q);
    rest = top.plotTop + Q.below + Math.round(3 * e) + 2;   // the chart at its lowest
    P = Q;
  }
  let s = tokenStrip(holder, fig, ctx, W, stripIn(e, false));
  if (heightOf(s) + rest > room) s = tokenStrip(holder, fig, ctx, W, stripIn(e, true));
  else if (!chart) {
    // the strip alone (the chart waits for the answer): larger tokens, as large as the box
    // lets them be (up to twice the chart text: class strip-large, app's presenter CSS)
    for (const k of [2, 1.75, 1.5, 1.25]) {
      const big = tokenStrip(holder, fig, ctx, W, stripIn(e * k, false), k);
      if (heightOf(big) <= room) { s = big; break; }
    }
  }
  const hs = Math.min(heightOf(s), Math.max(0, room - rest));
  fixed(s, heightOf(s) <= hs ? heightOf(s) : hs);
  const parts = [s];
  if (chart) {
    P.plotH = Math.max(Math.round(3 * e), room - hs - 2 - top.plotTop - P.below);
    const c = sweepChart(holder, sw, ctx, W, P);
    fixed(c, heightOf(c));
    parts.push(c);
  } else if (wait) parts.push(wait);
  holder.replaceChildren(...parts);
}

function draw(holder, fig, ctx) {
  if (!(fig.words || []).length) { holder.replaceChildren(); return; }
  const box = projectedBox(holder, ctx, "strip-svg", "tok-text");
  if (box) { drawProjected(holder, fig, ctx, box); return; }
  const W = layoutWidth(ctx.box, 300, 820);
  const parts = [tokenStrip(holder, fig, ctx, W)];
  const sw = fig.sweep;
  if (sw && (sw.lines || []).some((l) => l.points)) parts.push(sweepChart(holder, sw, ctx, W));
  else if (sw) parts.push(h("p", "sweep-wait", null, ctx.text.wait || ""));
  holder.replaceChildren(...parts);
}

export const strip = { draw };
