// Step 1: the tokens in a row; arcs from the newest query to every key it reads, with their
// weights written on them; the query's own key is the ring above it; the next token dashed.

import { svg, declutter } from "../dom.js";

function draw(holder, fig, ctx) {
  const toks = fig.tokens || [], n = toks.length, w = fig.weights || [];
  if (!n) { holder.replaceChildren(); return; }
  const slot = 74, H = 270, base = 222, top = base - 26;
  const W = (n + 1) * slot + 20;
  const x = (k) => 10 + slot / 2 + k * slot;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "arcs-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMid meet" });
  s.style.minWidth = Math.min(W, (n + 1) * 40) + "px";
  const wmax = Math.max(...w, 1e-9), q = n - 1;
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
    const g = svg("g", { class: "tok-svg " + (k === q ? "is-query" : "is-cached") +
                         (fig.unk[k] ? " is-unk" : "") + (k === q && ctx.index > 0 ? " enter" : "") }, s);
    svg("rect", { x: x(k) - slot / 2 + 3, y: base - 14, width: slot - 6, height: 28, rx: 5 }, g);
    const t = svg("text", { x: x(k), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
    t.textContent = toks[k];
    const sub = svg("text", { x: x(k), y: base + 32, "text-anchor": "middle", class: "tok-role" }, g);
    sub.textContent = k === q ? ctx.text.new : ctx.text.cached;
  }
  const g = svg("g", { class: "tok-svg is-next" }, s);
  svg("rect", { x: x(n) - slot / 2 + 3, y: base - 14, width: slot - 6, height: 28, rx: 5 }, g);
  const t = svg("text", { x: x(n), y: base + 5, "text-anchor": "middle", class: "tok-text" }, g);
  t.textContent = "\u2192 " + fig.next;
  holder.replaceChildren(s);
  // the own key's label first, then the arcs' by weight: a label that would sit on another
  // is lifted, or left out (the table twin has every weight)
  pcts.sort((a, b) => b[0] - a[0]);
  declutter([own, ...pcts.map((p) => p[1])], { dy: -7 });
}

export const arcs = { draw };
