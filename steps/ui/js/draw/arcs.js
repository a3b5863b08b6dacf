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

import { svg, declutter, layoutWidth, textWidths, wholeWidth, projectedBox } from "../dom.js";

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
  const tokY = box ? roleY - Math.round(1.15 * em) - tokH : 208;  // the token boxes' top
  const top = tokY - 12;                                          // where the arcs end
  const hmax = box ? Math.max(60, (top - 9 - em) / 0.665) : 184, hmin = box ? Math.max(34, 0.12 * hmax) : 34;
  const W = Math.max(W0, wholeWidth(left[n + 1] + 10));
  const x = (k) => left[k] + slots[k] / 2;
  const half = (k) => slots[k] / 2;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "arcs-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMid meet" });
  s.style.minWidth = W + "px";
  const wmax = Math.max(...w, 1e-9);
  const arcs = svg("g", { class: "arcs" }, s);
  const labels = svg("g", { class: "arc-labels" }, s);
  const pcts = [];
  for (let k = 0; k < q; k++) {
    const r = w[k] / wmax, hgt = hmin + (hmax - hmin) * (q - k) / Math.max(1, q);
    const cx = (x(q) + x(k)) / 2, cy = top - hgt * 1.33, apex = (top + cy) / 2;
    svg("path", { d: `M ${x(q)} ${top} Q ${cx} ${cy} ${x(k)} ${top}`, class: "arc",
                  "stroke-width": (1 + 9 * r).toFixed(2), "stroke-opacity": (0.3 + 0.7 * r).toFixed(2) }, arcs);
    if (w[k] >= 0.05 || n <= 8) {
      const t = svg("text", { x: cx, y: apex - 5, class: "arc-pct", "text-anchor": "middle" }, labels);
      t.textContent = fig.pct[k];
      pcts.push([w[k], t]);
    }
  }
  // the query's score with its own key: a ring above the newest token
  const rq = w[q] / wmax;
  svg("circle", { cx: x(q), cy: top - 14, r: (5 + 7 * rq).toFixed(1), class: "self-key",
                  "stroke-width": (1 + 3 * rq).toFixed(1) }, s);
  const own = svg("text", { x: x(q), y: top - 32 - 7 * rq, class: "arc-pct", "text-anchor": "middle" }, labels);
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
    const x0 = x(a) - half(a) + 3, x1 = x(b) + half(b) - 3, y = tokY + tokH + 4;
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
  // the own key's label first, then the arcs' by weight: a label that would sit on another
  // is lifted, or left out (the table twin has every weight); projected, one that would leave
  // the top of the box is left out too
  pcts.sort((a, b) => b[0] - a[0]);
  const pct = [own, ...pcts.map((p) => p[1])];
  declutter(pct, box ? { dy: -Math.max(7, Math.round(em * 0.45)), tries: 8 } : { dy: -7 });
  if (box && s.isConnected) {
    for (const t of pct) if (t.getAttribute("display") !== "none" && t.getBBox().y < 1) t.setAttribute("display", "none");
  }
}

export const arcs = { draw };
