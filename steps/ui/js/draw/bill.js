// Step 5: two still charts, drawn in the browser: the bill as one stacked bar against the
// GPUs' memory, and the batch's cache over the context against the weights. The point where
// the cache reaches the weights, and the sentence that says where, wait for the answer.

import { svg, h, widthOf, refitOnResize, declutter } from "../dom.js";

// the charts are laid out for their width, kept between a phone's and a wide column's
function width(holder) {
  return Math.max(340, Math.min(680, widthOf(holder)));
}
function axisX(s, ticks, sx, y, end) {
  const g = svg("g", { class: "axis" }, s);
  const stop = Math.max(ticks[ticks.length - 1][0], end || 0);
  svg("line", { x1: sx(ticks[0][0]), x2: sx(stop), y1: y, y2: y }, g);
  let last = -1e9;
  for (const [v, label] of ticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: y, y2: y + 4 }, g);
    if (sx(v) - last < 7.5 * label.length + 8) continue;        // no overlapping labels
    last = sx(v);
    const t = svg("text", { x: sx(v), y: y + 17, "text-anchor": "middle", class: "tick-label" }, g);
    t.textContent = label;
  }
}
function anchorAt(x, half, L, R) {
  return x - half < L ? ["start", L] : x + half > R ? ["end", R] : ["middle", x];
}
function drawBar(fig, ctx, W) {
  const H = 176, L = 14, R = W - 14, y0 = 66, bh = 34, axisY = 132;
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bill-svg", "aria-hidden": "true",
                         focusable: "false" });
  const chosen = fig.gpus.find((g) => g.chosen);
  for (const g of fig.gpus) {
    svg("line", { x1: sx(g.x), x2: sx(g.x), y1: g.chosen ? 20 : 36, y2: axisY,
                  class: "gpu-line" + (g.chosen ? " chosen" : "") }, s);
  }
  for (const p of fig.parts) {
    const r = svg("rect", { x: sx(p.x0), y: y0, width: Math.max(0.5, sx(p.x1) - sx(p.x0)),
                            height: bh, class: "seg seg-" + p.cls }, s);
    svg("title", {}, r).textContent = p.name + ": " + p.size;
  }
  const end = fig.parts[fig.parts.length - 1].x1, w = fig.parts[0].x1;
  const right = sx(end) > (L + R) / 2;
  const cl = svg("text", { x: right ? sx(end) : sx(w), y: y0 - 7, class: "bar-label",
                           "text-anchor": right ? "end" : "start" }, s);
  cl.textContent = fig.cache_label;
  const wl = svg("text", { x: L, y: y0 + bh + 16, class: "bar-label", "text-anchor": "start" }, s);
  wl.textContent = fig.weights_label;
  if (chosen) {                      // the chosen GPU on the top row, its name in full
    const text = `${chosen.label} (${chosen.names})`;
    const [anchor, x] = anchorAt(sx(chosen.x), 3.6 * text.length, L, R);
    const t = svg("text", { x, y: 14, "text-anchor": anchor, class: "gpu-label chosen" }, s);
    t.textContent = text;
  }
  let last = -1e9;                   // the others below it, where there is room
  for (const g of fig.gpus) {
    if (g.chosen || sx(g.x) - last < 52 || (chosen && Math.abs(sx(g.x) - sx(chosen.x)) < 40)) continue;
    last = sx(g.x);
    const [anchor, x] = anchorAt(sx(g.x), 22, L, R);
    const t = svg("text", { x, y: 31, "text-anchor": anchor, class: "gpu-label" }, s);
    t.textContent = g.label;
  }
  axisX(s, fig.ticks, sx, axisY, fig.xmax);        // to the end: GPU lines may pass the last tick
  const a = svg("text", { x: (L + R) / 2, y: H - 4, "text-anchor": "middle", class: "axis-title" }, s);
  a.textContent = fig.axis;
  return s;
}
function drawCurve(fig, ctx, W) {
  const H = 300, L = 56, R = W - 24, T = 14, B = 250;
  const sx = (v) => L + (R - L) * v / fig.xmax;
  const sy = (v) => B - (B - T) * v / fig.ymax;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bill-svg", "aria-hidden": "true",
                         focusable: "false" });
  const grid = svg("g", { class: "axis" }, s);
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    const t = svg("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end", class: "tick-label" }, grid);
    t.textContent = label;
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
  svg("line", { x1: L, x2: R, y1: wy, y2: wy, class: "weights-line" }, s);
  const crossLeft = fig.cross && fig.cross.x < fig.xmax / 2;   // the weights' label avoids it
  const wl = svg("text", { x: crossLeft ? R - 4 : L + 6, y: wy - 6, class: "bar-label",
                           "text-anchor": crossLeft ? "end" : "start" }, s);
  wl.textContent = fig.weights_label;
  const nx = sx(fig.now.x), ny = sy(fig.now.y);
  svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "now-line" }, s);
  svg("circle", { cx: nx, cy: ny, r: 5, class: "now-dot" }, s);
  const nl = svg("text", { x: nx + (nx > R - 90 ? -8 : 8), y: ny - 8, class: "bar-label",
                           "text-anchor": nx > R - 90 ? "end" : "start" }, s);
  nl.textContent = fig.now.label;
  if (fig.cross && !ctx.concealed) {
    const cx = sx(fig.cross.x);
    svg("path", { d: `M ${cx} ${wy - 7} L ${cx + 7} ${wy} L ${cx} ${wy + 7} L ${cx - 7} ${wy} Z`,
                  class: "cross-mark" }, s);
    // below the weights' line (above it when the line runs close to the axis's numbers), on
    // the side away from this context's dot; the second line one line height under the first
    const anchor = cx < L + 120 ? "start" : cx > R - 120 ? "end" : nx > cx ? "end" : "start";
    const dx = anchor === "start" ? 10 : -10;
    const [y1, y2] = wy > B - 40 ? [wy - 11, wy - 11] : [wy + 20, wy + 20];
    const t1 = svg("text", { x: cx + dx, y: y1, dy: wy > B - 40 ? "-1.25em" : 0,
                             "text-anchor": anchor, class: "bar-label cross-label" }, s);
    t1.textContent = fig.cross.label;
    const t2 = svg("text", { x: cx + dx, y: y2, dy: wy > B - 40 ? 0 : "1.25em",
                             "text-anchor": anchor, class: "bar-label" }, s);
    t2.textContent = fig.cross.tokens;
  }
  if (fig.limit) {                   // the model's maximum context: past it, hypothetical
    const lx = sx(fig.limit.x), right = lx > R - 170;
    svg("line", { x1: lx, x2: lx, y1: T, y2: B, class: "limit-line" }, s);
    const t = svg("text", { x: lx + (right ? -5 : 5), y: T + 12, class: "bar-label limit-label",
                            "text-anchor": right ? "end" : "start" }, s);
    t.textContent = fig.limit.label;
  }
  axisX(s, fig.xticks, sx, B);
  const xa = svg("text", { x: (L + R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" }, s);
  xa.textContent = fig.xaxis;
  const ya = svg("text", { x: 0, y: 0, "text-anchor": "middle", class: "axis-title",
                           transform: `translate(14 ${(T + B) / 2}) rotate(-90)` }, s);
  ya.textContent = fig.yaxis;
  return s;
}
// the model's limit is the least important label: in the page, it moves down (or is left
// out: the words under the charts say it too) until it covers no other text
function tidyCurve(s) {
  const limit = s.querySelector(".limit-label");
  if (!limit) return;
  const others = [...s.querySelectorAll("text")].filter((t) => t !== limit && t.textContent);
  declutter([limit], { dy: 6, tries: 8, fixed: others.map((t) => t.getBBox()) });
}
function draw(holder, fig, ctx) {
  // drawn again when the holder's width changes (in the next frame: not inside the observer's
  // callback), while the holder still shows these charts
  refitOnResize(holder, () => requestAnimationFrame(() => {
    if (holder.querySelector(":scope > .bill-svg")) draw(holder, fig, ctx);
  }));
  if (!fig.bar) { holder.replaceChildren(); return; }
  const W = width(holder);
  const curve = drawCurve(fig.curve, ctx, W);
  holder.replaceChildren(h("p", "chart-title", null, fig.bar.title), drawBar(fig.bar, ctx, W),
                         h("p", "chart-title", null, fig.curve.title), curve);
  tidyCurve(curve);
}
function extra(box, frame, ctx) {
  const kids = [];
  for (const line of frame.lines || []) kids.push(h("p", "", null, line));
  if (frame.said && !ctx.concealed) kids.push(h("p", "stage-said", null, frame.said));
  box.replaceChildren(...kids);
}

export const bill = { draw, extra };
