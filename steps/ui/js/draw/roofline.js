// Step 4: a log-log roofline with the prefill and decode points labelled on the chart, the
// decode step at every batch size as small dots and the ceiling no batch passes; under it,
// decode against the batch (FLOP per byte, tokens per second, time per step). The shaded
// memory-bound region and the names of the two regions wait for the answer (ctx.concealed).

import { svg, h, widthOf, refitOnResize } from "../dom.js";

// the drawing's own width follows the holder's (within limits), so that its text stays
// legible on a phone
const width = (holder) => Math.max(340, Math.min(680, widthOf(holder, 640)));

function draw(holder, fig, ctx) {
  // at a new width, the latest frame is drawn again (while the holder still shows a roofline)
  refitOnResize(holder, () => { if (holder.querySelector(".roof-svg")) draw(holder, fig, ctx); });
  if (!fig.roof) { holder.replaceChildren(); return; }
  const W = width(holder), H = 380, L = 66, R = W - 20, T = 16, B = 318;
  const lg = Math.log10;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const sy = (v) => B - (B - T) * (lg(v) - lg(fig.y0)) / (lg(fig.y1) - lg(fig.y0));
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "roof-svg", "aria-hidden": "true",
                         focusable: "false" });
  const clip = svg("clipPath", { id: "roof-plot" }, svg("defs", {}, s));
  svg("rect", { x: L, y: T, width: R - L, height: B - T }, clip);
  const rx = sx(fig.ridge);
  if (!ctx.concealed) {
    svg("rect", { x: L, y: T, width: rx - L, height: B - T, class: "mem-region" }, s);
  }
  const grid = svg("g", { class: "axis" }, s);
  let last = -1e9;
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, grid);
    svg("line", { x1: sx(v), x2: sx(v), y1: B, y2: B + 4 }, grid);
    if (sx(v) - last < 7.5 * label.length + 8) continue;        // no overlapping labels
    last = sx(v);
    const t = svg("text", { x: sx(v), y: B + 18, "text-anchor": "middle", class: "tick-label" }, grid);
    t.textContent = label;
  }
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    svg("line", { x1: L - 4, x2: L, y1: sy(v), y2: sy(v) }, grid);
    const t = svg("text", { x: L - 7, y: sy(v) + 4, "text-anchor": "end", class: "tick-label" }, grid);
    t.textContent = label;
  }
  svg("line", { x1: L, x2: R, y1: B, y2: B }, grid);
  svg("line", { x1: L, x2: L, y1: T, y2: B }, grid);
  svg("line", { x1: rx, x2: rx, y1: T, y2: B, class: "ridge-line" }, s);
  const rl = svg("text", { x: rx - 6, y: B - 8, "text-anchor": "end", class: "roof-note" }, s);
  rl.textContent = fig.ridge_label;
  if (!ctx.concealed) {
    const m = svg("text", { x: L + 8, y: T + 16, class: "roof-note region" }, s);
    m.textContent = fig.memory;
    const c = svg("text", { x: rx + 8, y: T + 16, class: "roof-note region" }, s);
    c.textContent = fig.compute;
  }
  const d = fig.roof.map(([x, y], k) => (k ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
  svg("path", { d, class: "roof", "clip-path": "url(#roof-plot)" }, s);
  for (const [x, y] of fig.trail || []) {         // the decode step at batch 1 .. 256
    svg("circle", { cx: sx(x), cy: sy(y), r: 2.5, class: "trail" }, s);
  }
  if (fig.ceiling) {                               // no batch passes this intensity
    const cx = sx(fig.ceiling.x), right = cx > R - 150;
    svg("line", { x1: cx, x2: cx, y1: T, y2: B, class: "ceiling-line" }, s);
    const cl = svg("text", { x: cx + (right ? -6 : 6), y: T + 36, class: "roof-note",
                             "text-anchor": right ? "end" : "start" }, s);
    cl.textContent = fig.ceiling.label;
  }
  for (const p of fig.points) {
    const px = sx(p.x), py = sy(p.y), right = px > R - 110;
    svg("circle", { cx: px, cy: py, r: 7.5, class: "pt pt-" + p.cls }, s);
    const t = svg("text", { x: px + (right ? -12 : 12), y: py + 22, class: "pt-label",
                            "text-anchor": right ? "end" : "start" }, s);
    t.textContent = p.label;
  }
  const xa = svg("text", { x: (L + R) / 2, y: H - 8, "text-anchor": "middle", class: "axis-title" }, s);
  xa.textContent = fig.xaxis;
  const ya = svg("text", { x: 0, y: 0, "text-anchor": "middle", class: "axis-title",
                           transform: `translate(16 ${(T + B) / 2}) rotate(-90)` }, s);
  ya.textContent = fig.yaxis;
  const kids = [h("p", "chart-title", null, fig.title), s];
  if (fig.batch) kids.push(h("p", "chart-title", null, fig.batch.title), drawBatch(fig.batch, W));
  holder.replaceChildren(...kids);
}
function drawBatch(fig, W) {
  // three log panels on one log batch axis: FLOP per byte, tokens per second, time per step
  const L = 66, R = W - 20, PH = 84, GAP = 34, T0 = 24, n = fig.panels.length;
  const B0 = T0 + n * (PH + GAP) - GAP, H = B0 + 44;
  const lg = Math.log10;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "batch-svg", "aria-hidden": "true",
                         focusable: "false" });
  const nx = sx(fig.now);
  fig.panels.forEach((p, k) => {
    const T = T0 + k * (PH + GAP), B = T + PH;
    const sy = (v) => B - (B - T) * (lg(v) - lg(p.y0)) / (lg(p.y1) - lg(p.y0));
    const g = svg("g", { class: "axis" }, s);
    for (const [v] of fig.xticks) svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, g);
    for (const [v, label] of p.yticks) {
      svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, g);
      const t = svg("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end", class: "tick-label" }, g);
      t.textContent = label;
    }
    svg("line", { x1: L, x2: R, y1: B, y2: B }, g);
    svg("line", { x1: L, x2: L, y1: T, y2: B }, g);
    const title = svg("text", { x: L, y: T - 8, class: "panel-title" }, s);
    title.textContent = p.title;
    for (const ln of p.lines) {
      if (ln.y < p.y0 || ln.y > p.y1) continue;
      svg("line", { x1: L, x2: R, y1: sy(ln.y), y2: sy(ln.y), class: "lim lim-" + ln.cls }, s);
      // named at the left, where the curve is low: clear of the dot and its number
      const ly = sy(ln.y) < T + 16 ? sy(ln.y) + 14 : sy(ln.y) - 5;     // clear of the title
      const t = svg("text", { x: L + 6, y: ly, "text-anchor": "start", class: "roof-note" }, s);
      t.textContent = ln.label;
    }
    fig.marks.forEach((m, j) => {
      const mx = sx(m.x);
      svg("line", { x1: mx, x2: mx, y1: T, y2: B, class: "mark mark-" + m.cls }, s);
      if (j === k) {                     // each mark named in its own panel
        const right = mx > (L + R) / 2;
        const t = svg("text", { x: mx + (right ? -5 : 5), y: B - 8, class: "roof-note",
                                "text-anchor": right ? "end" : "start" }, s);
        t.textContent = m.label;
      }
    });
    const d = fig.xs.map((x, i) => (i ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(p.ys[i]).toFixed(1)).join(" ");
    svg("path", { d, class: "bcurve" }, s);
    const ny = sy(p.now);
    svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "bnow-line" }, s);
    svg("circle", { cx: nx, cy: ny, r: 5, class: "bnow" }, s);
    const right = nx > R - 90;
    const t = svg("text", { x: nx + (right ? -8 : 8), y: ny - 8, class: "pt-label small",
                            "text-anchor": right ? "end" : "start" }, s);
    t.textContent = p.now_label;
  });
  const g = svg("g", { class: "axis" }, s);
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: B0, y2: B0 + 4 }, g);
    const t = svg("text", { x: sx(v), y: B0 + 18, "text-anchor": "middle", class: "tick-label" }, g);
    t.textContent = label;
  }
  const xa = svg("text", { x: (L + R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" }, s);
  xa.textContent = fig.xaxis;
  return s;
}

export const roofline = { draw };
