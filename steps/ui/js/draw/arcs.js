// Step 1: the tokens in a row; arcs from the newest query to every key it reads, with their
// weights written on them; the query's own key is the ring above it; the next token dashed.
// Laid out in pixels for the holder's width: each token's box is as wide as its word and its
// "new"/"cached" label need (wider than the holder: the figure scrolls sideways).

import { svg, declutter, layoutWidth, textWidths, refitOnResize, wholeWidth } from "../dom.js";

function draw(holder, fig, ctx) {
  refitOnResize(holder, () => { if (holder.querySelector(":scope > .arcs-svg")) draw(holder, fig, ctx); });
  const toks = fig.tokens || [], n = toks.length, w = fig.weights || [];
  if (!n) { holder.replaceChildren(); return; }
  const W0 = layoutWidth(holder, 300, 760);
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
  const spare = Math.max(0, (W0 - 20 - wide.reduce((a, b) => a + b, 0)) / (n + 1));
  const slots = wide.map((v) => v + spare);
  const left = [10];
  slots.forEach((v, k) => left.push(left[k] + v));
  const H = 276, base = 222, top = base - 26;
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
    const r = w[k] / wmax, hgt = 34 + 150 * (q - k) / Math.max(1, q);
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
  for (let k = 0; k < n; k++) {
    const written = fig.prefill || k === q;     // written into the cache at this frame
    const g = svg("g", { class: "tok-svg " + (k === q ? "is-query" : "is-cached") +
                         (written ? " is-written" : "") + (fig.unk[k] ? " is-unk" : "") +
                         (k === q && ctx.index > 0 ? " enter" : "") }, s);
    svg("rect", { x: x(k) - half(k) + 3, y: base - 14, width: slots[k] - 6, height: 28, rx: 5 }, g);
    const t = svg("text", { x: x(k), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
    t.textContent = toks[k];
    const sub = svg("text", { x: x(k), y: base + 32, "text-anchor": "middle", class: "tok-role" }, g);
    sub.textContent = role(k);
  }
  const g = svg("g", { class: "tok-svg is-next" }, s);
  svg("rect", { x: x(n) - half(n) + 3, y: base - 14, width: slots[n] - 6, height: 28, rx: 5 }, g);
  const t = svg("text", { x: x(n), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
  t.textContent = "\u2192 " + fig.next;
  holder.replaceChildren(s);
  // the own key's label first, then the arcs' by weight: a label that would sit on another
  // is lifted, or left out (the table twin has every weight)
  pcts.sort((a, b) => b[0] - a[0]);
  declutter([own, ...pcts.map((p) => p[1])], { dy: -7 });
}

export const arcs = { draw };
