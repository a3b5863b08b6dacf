// Step 1: the tokens in a row; arcs from the newest query to every key it reads, with their
// weights written on them; the query's own key is the ring above it; the next token dashed.
// Laid out in pixels for the holder's width: each token's box is as wide as its word and its
// "new"/"cached" label need (wider than the holder: the figure scrolls sideways).
// Projected (ctx.box, dom.js projectedBox): laid out for the whole box the page gives the figure,
// the arcs as tall as it allows; when the tokens do not fit its width side by side, their words
// stand upright in equal slots and the "new"/"cached" labels name groups (a bracket under the
// cached tokens), so that no text is drawn smaller than the chart text.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc arcs` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} ArcsStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {ArcsFig} fig
 */
/**
 * @typedef {Object} ArcsStageText
 * The arcs' labels (js/draw/arcs.js).
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
 * @property {string} prompt
 * @property {string} generated
 * @property {string} new under a token written into the cache at this step
 * @property {string} cached under a token whose key is read from the cache
 * @property {string} own the ring above the newest token: its query reads its own key
 * @property {string} prefill
 */
/**
 * @typedef {Object} ArcsFig
 * One frame of js/draw/arcs.js: the tokens so far and the newest query's attention.
 * @property {string[]} tokens
 * @property {string} next the token the model writes next (drawn dashed)
 * @property {number[]} weights the newest query's attention weight on each token's key
 * @property {string[]} pct the same, as written on the arcs
 * @property {number} prompt_len
 * @property {string[]} role each token's “prompt” or “generated”, translated
 * @property {boolean} prefill frame 0: the whole prompt went through in one pass
 * @property {boolean[]} unk each token: unknown to the vocabulary
 */

import { svg, layoutWidth, textWidths, wholeWidth, projectedBox } from "../dom.js";
import { placeLabels, around, facing, nearestFirst } from "./labels.js";

function draw(holder, fig, ctx) {
  const toks = fig.tokens || [], n = toks.length, w = fig.weights || [];
  if (!n) { holder.replaceChildren(); return; }
  const box = projectedBox(holder, ctx, "arcs-svg", "tok-text");
  const W0 = box ? box.width : layoutWidth(ctx.box, 300, 760);
  // the label under each token: the prefill (frame 0) writes every prompt token at once;
  // later, one new token a step
  const q = n - 1;
  const role = (k) => fig.prefill ? ctx.text.prefill : k === q ? ctx.text.new : ctx.text.cached;
  const words = textWidths(holder, "arcs-svg", [
    ...toks.map((t) => ["tok-text", t, "tok-svg is-query"]),
    ["tok-text", "\u2192 " + fig.next, "tok-svg is-query"],
    ...toks.map((t, k) => ["tok-role", role(k) || ""])]);
  // each token's box as wide as its word and the label under it; room left over is shared
  // out evenly
  const wide = words.slice(0, n + 1).map((v, k) =>
    Math.max(40, v + 12, k < n ? words[n + 1 + k] + 8 : 0));
  // projected, too many tokens for the width: upright words in equal slots
  const upright = !!box && wide.reduce((a, b) => a + b, 0) + 20 > W0;
  const spare = Math.max(0, (W0 - 20 - wide.reduce((a, b) => a + b, 0)) / (n + 1));
  const slots = upright ? wide.map(() => (W0 - 20) / (n + 1)) : wide.map((v) => v + spare);
  const left = [10];
  slots.forEach((v, k) => left.push(left[k] + v));
  // heights: the learners' page draws 276 px; projected, the box's height, the token row at
  // its bottom (its words and the labels under it at the chart text's size), the arcs above
  const em = box ? box.em : 13;
  const tokH = !box ? 28 : upright ? Math.ceil(Math.max(...words.slice(0, n + 1)) + 14)
    : Math.round(1.7 * em);
  const H = box ? box.height : 276;
  const roleY = box ? H - 4 - Math.round(0.3 * em) : 254;       // the labels' baseline
  // (upright, room for the bracket between the boxes and the labels under it)
  const tokY = box ? roleY - Math.round(1.15 * em) - tokH - (upright ? 8 : 0) : 208;  // the token boxes' top
  const top = tokY - 12;                                          // where the arcs end
  const hmax = box ? Math.max(60, (top - 9 - em) / 0.665) : 184, hmin = box ? Math.max(34, 0.12 * hmax) : 34;
  const W = Math.max(W0, wholeWidth(left[n + 1] + 10));
  const x = (k) => left[k] + slots[k] / 2;
  const half = (k) => slots[k] / 2;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "arcs-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMid meet" });
  s.style.minWidth = W + "px";
  const wmax = Math.max(...w, 1e-9);
  // (the answer's points, dom.js markPoints: the arcs to the cached keys, the own key's ring)
  const arcs = svg("g", { class: "arcs", "data-point": "arcs" }, s);
  const labels = svg("g", { class: "arc-labels" }, s);
  const pcts = [];
  for (let k = 0; k < q; k++) {
    const r = w[k] / wmax, hgt = hmin + (hmax - hmin) * (q - k) / Math.max(1, q);
    const cx = (x(q) + x(k)) / 2, cy = top - hgt * 1.33, sw = 1 + 9 * r;
    svg("path", { d: `M ${x(q)} ${top} Q ${cx} ${cy} ${x(k)} ${top}`, class: "arc",
                  "stroke-width": sw.toFixed(2), "stroke-opacity": (0.3 + 0.7 * r).toFixed(2) }, arcs);
    if (w[k] >= 0.05 || n <= 8) {
      const t = svg("text", { class: "arc-pct" }, labels);
      t.textContent = fig.pct[k];
      pcts.push([w[k], t, alongArc([x(q), top], [cx, cy], [x(k), top], sw / 2 + 3),
                 [cx, (top + cy) / 2, sw / 2]]);
    }
  }
  // the query's score with its own key: a ring above the newest token
  const rq = w[q] / wmax, rr = 5 + 7 * rq, rw = 1 + 3 * rq;
  svg("circle", { cx: x(q), cy: top - 14, r: rr.toFixed(1), class: "self-key",
                  "stroke-width": rw.toFixed(1), "data-point": "own" }, s);
  const own = svg("text", { class: "arc-pct" }, labels);
  own.textContent = `${fig.pct[q]} (${ctx.text.own})`;
  const word = (g, k, str) => {
    const attrs = { "text-anchor": upright ? "end" : "middle", class: "tok-text" };
    if (upright) attrs.transform = `translate(${(x(k) + 0.35 * em).toFixed(1)} ${tokY + 7}) rotate(-90)`;
    const t = svg("text", upright ? attrs : { x: x(k), y: tokY + tokH / 2 + 0.36 * em, ...attrs }, g);
    t.textContent = str;
  };
  for (let k = 0; k < n; k++) {
    const written = fig.prefill || k === q;     // written into the cache at this frame
    const g = svg("g", { class: "tok-svg " + (k === q ? "is-query" : "is-cached") +
                         (written ? " is-written" : "") + (fig.unk[k] ? " is-unk" : "") +
                         (k === q && ctx.index > 0 ? " enter" : "") }, s);
    svg("rect", { x: x(k) - half(k) + 3, y: tokY, width: Math.max(2, slots[k] - 6), height: tokH, rx: 5 }, g);
    word(g, k, toks[k]);
    if (!upright) {
      const sub = svg("text", { x: x(k), y: roleY, "text-anchor": "middle", class: "tok-role" }, g);
      sub.textContent = role(k);
    }
  }
  const g = svg("g", { class: "tok-svg is-next" }, s);
  svg("rect", { x: x(n) - half(n) + 3, y: tokY, width: Math.max(2, slots[n] - 6), height: tokH, rx: 5 }, g);
  word(g, n, "\u2192 " + fig.next);
  // upright: one label per group, under a bracket (the prefill: every token; later, the
  // cached ones, and the new one under its own)
  const groups = !upright ? [] : fig.prefill ? [[0, q, ctx.text.prefill]]
    : [[0, q - 1, ctx.text.cached], [q, q, ctx.text.new]];
  const tags = [];
  for (const [a, b, label] of groups) {
    if (b < a) continue;
    const x0 = x(a) - half(a) + 3, x1 = x(b) + half(b) - 3, y = tokY + tokH + 3;
    if (b > a) svg("path", { d: `M ${x0} ${y} v 4 H ${x1} v -4`, class: "tok-bracket" }, s);
    const mid = Math.max(x0, Math.min((x0 + x1) / 2, x1));
    tags.push(svg("text", { x: mid, y: roleY, "text-anchor": "middle", class: "tok-role" }, s));
    tags[tags.length - 1].textContent = label || "";
  }
  holder.replaceChildren(s);
  // the group labels inside the drawing, the new token's clear of the cached one's
  if (tags.length && s.isConnected) {
    let right = W - 2;
    for (const t of tags.slice().reverse()) {
      const b = t.getBBox();
      const shift = Math.min(0, right - (b.x + b.width)) + Math.max(0, 2 - b.x);
      if (shift) t.setAttribute("x", (Number(t.getAttribute("x")) + shift).toFixed(1));
      right = t.getBBox().x - 8;
    }
  }
  // the own key's label first (above its ring, or beside it), then the arcs' by weight, each
  // beside its arc where it touches no arc, ring or other label (draw/labels.js): at the
  // arc's top, outside or inside it, else further along it, else nearby with a leader line to
  // its top, over the highest arc; an arc's label with no such place is left out (the table
  // twin has every weight).
  // All stay above the tokens.
  pcts.sort((a, b) => b[0] - a[0]);
  const above = { x: 2, y: 2, width: W - 4, height: Math.max(10, tokY - 6) };
  // the room over the highest arc, the nearest its top first (labels that go there have a
  // leader line down to their arc's top)
  const free = { x: 2, y: 2, width: W - 4, height: Math.max(0, top - hmax * 0.665 - 6) };
  const far = (ax) => nearestFirst(free, ax, free.y + free.height, Math.max(4, em * 0.4));
  placeLabels(s, [
    { t: own, near: [x(q), top - 14, rr + rw / 2], split: true,
      spots: around(x(q), top - 14, rr + rw / 2 + 3, ["above", "above-right", "right", "above-left", "left"]) },
    ...pcts.map(([, t, spots, apex]) => ({ t, spots, near: apex, far: far(apex[0]), rings: false,
                                             scan: false, across: true, optional: true })),
  ], { bounds: above, pad: 2 });
  // the learners' page: the drawing starts at what is drawn, not at the room kept above the
  // highest arc for labels that may go there (an empty band over the arcs where none does):
  // from a row of text over the highest arc's top, or higher where a label went higher; the
  // same height at every frame of a prompt unless a label needs more
  if (!box && s.isConnected) {
    const apex = top - hmax * 0.665 - 1.6 * em;
    const y0 = Math.max(0, Math.floor(Math.min(s.getBBox().y, apex)) - 2);
    if (y0 > 0) s.setAttribute("viewBox", `0 ${y0} ${W} ${H - y0}`);
  }
}

// places beside the quadratic arc p0–c–p2, `d` from its middle line: at its top, then further
// along it on both sides down to its foot on the token, each outside the arc (above it) and
// inside it (below)
function alongArc(p0, c, p2, d) {
  const out = [];
  for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85, 0.9, 0.94, 0.97]) {
    const u = 1 - t;
    const px = u * u * p0[0] + 2 * u * t * c[0] + t * t * p2[0];
    const py = u * u * p0[1] + 2 * u * t * c[1] + t * t * p2[1];
    const dx = 2 * u * (c[0] - p0[0]) + 2 * t * (p2[0] - c[0]), dy = 2 * u * (c[1] - p0[1]) + 2 * t * (p2[1] - c[1]);
    const len = Math.hypot(dx, dy) || 1;
    let nx = -dy / len, ny = dx / len;
    if (ny > 0) { nx = -nx; ny = -ny; }        // (nx, ny): away from the tokens, outside the arc
    out.push(facing(px, py, nx, ny, d), facing(px, py, -nx, -ny, d));
  }
  return out;
}

export const arcs = { draw };
