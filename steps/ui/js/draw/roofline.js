// Step 4: a log-log roofline with the prefill and decode points labelled on the chart, the
// decode step at every batch size as small dots and the ceiling no batch passes; under it,
// decode against the batch (FLOP per byte, tokens per second, time per step). The shaded
// memory-bound region and the names of the two regions wait for the answer (ctx.concealed).
//
// The labels are laid out for the drawing's width and language: each stays inside the plot
// (on the other side of its line or point when it does not fit on the first), and labels that
// would still cover one another are moved apart (dom.js `declutter`).

import { svg, svgText, h, widthOf, refitOnResize, declutter } from "../dom.js";

// the drawing's own width follows the holder's (within limits), so that its text stays
// legible on a phone
const width = (holder) => Math.max(340, Math.min(680, widthOf(holder, 640)));
const lg = Math.log10;

// a text's width: measured once it is in the page, else estimated from its length
function textWidth(t) {
  const w = t.isConnected ? t.getComputedTextLength() : 0;
  return w > 0 ? w : t.textContent.length * 7;
}

// put `t` at `x`, on the preferred side ("start": to the right of x + gap, "end": to the
// left of x - gap), on the other side if it does not fit there (unless `stay`), and inside
// [lo, hi] anyway
function place(t, x, gap, side, lo, hi, stay) {
  const w = textWidth(t);
  const right = x + gap, left = x - gap - w;
  const fitsRight = right + w <= hi, fitsLeft = left >= lo;
  let start = side === "start" ? (fitsRight || !fitsLeft || stay ? right : left)
                               : (fitsLeft || !fitsRight || stay ? left : right);
  start = Math.max(lo, Math.min(hi - w, start));
  t.setAttribute("x", start.toFixed(1));
  t.setAttribute("text-anchor", "start");
  return t;
}

// whether `box` covers none of the boxes `taken`
function free(box, taken) {
  return !taken.some((p) => box.x < p.x + p.width && p.x < box.x + box.width &&
                            box.y < p.y + p.height && p.y < box.y + box.height);
}

function draw(holder, fig, ctx) {
  // at a new width, the latest frame is drawn again (while the holder still shows a roofline)
  refitOnResize(holder, () => { if (holder.querySelector(".roof-svg")) draw(holder, fig, ctx); });
  if (!fig.roof) { holder.replaceChildren(); return; }
  const W = width(holder), H = 380, L = 66, R = W - 20, T = 16, B = 318;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const sy = (v) => B - (B - T) * (lg(v) - lg(fig.y0)) / (lg(fig.y1) - lg(fig.y0));
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "roof-svg", "aria-hidden": "true",
                         focusable: "false" });
  // in the page before the labels are placed: they are measured
  const kids = [h("p", "chart-title", null, fig.title), s];
  const batch = fig.batch ? svg("svg", { class: "batch-svg", "aria-hidden": "true",
                                         focusable: "false" }) : null;
  if (batch) kids.push(h("p", "chart-title", null, fig.batch.title), batch);
  holder.replaceChildren(...kids);

  const clip = svg("clipPath", { id: "roof-plot" }, svg("defs", {}, s));
  svg("rect", { x: L, y: T, width: R - L, height: B - T }, clip);
  const rx = sx(fig.ridge);
  if (!ctx.concealed) {
    svg("rect", { x: L, y: T, width: rx - L, height: B - T, class: "mem-region" }, s);
  }
  const grid = svg("g", { class: "axis" }, s);
  const fixed = [];                                  // axis texts: never moved
  let last = -1e9;
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, grid);
    svg("line", { x1: sx(v), x2: sx(v), y1: B, y2: B + 4 }, grid);
    if (sx(v) - last < 7.5 * label.length + 8) continue;        // no overlapping labels
    last = sx(v);
    fixed.push(svgText(grid, sx(v), B + 18, label, { "text-anchor": "middle", class: "tick-label" }));
  }
  for (const [v, label] of fig.yticks) {
    svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, grid);
    svg("line", { x1: L - 4, x2: L, y1: sy(v), y2: sy(v) }, grid);
    fixed.push(svgText(grid, L - 7, sy(v) + 4, label, { "text-anchor": "end", class: "tick-label" }));
  }
  svg("line", { x1: L, x2: R, y1: B, y2: B }, grid);
  svg("line", { x1: L, x2: L, y1: T, y2: B }, grid);
  fixed.push(svgText(s, (L + R) / 2, H - 8, fig.xaxis, { "text-anchor": "middle", class: "axis-title" }));
  // (the labels below stay right of the plot's left edge, clear of the turned axis title)
  svgText(s, 0, 0, fig.yaxis, { "text-anchor": "middle", class: "axis-title",
                               transform: `translate(16 ${(T + B) / 2}) rotate(-90)` });

  const lo = L + 4, hi = R - 4;
  svg("line", { x1: rx, x2: rx, y1: T, y2: B, class: "ridge-line" }, s);
  const ridge = place(svgText(s, 0, B - 8, fig.ridge_label, { class: "roof-note" }),
                      rx, 6, "end", lo, hi);
  const d = fig.roof.map(([x, y], k) => (k ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(y).toFixed(1)).join(" ");
  svg("path", { d, class: "roof", "clip-path": "url(#roof-plot)" }, s);
  for (const [x, y] of fig.trail || []) {         // the decode step at batch 1 .. 256
    svg("circle", { cx: sx(x), cy: sy(y), r: 2.5, class: "trail" }, s);
  }
  const notes = [];                               // most important first
  for (const p of fig.points) {
    const px = sx(p.x), py = sy(p.y);
    svg("circle", { cx: px, cy: py, r: 7.5, class: "pt pt-" + p.cls }, s);
    notes.push(place(svgText(s, 0, py + 22, p.label, { class: "pt-label" }), px, 12,
                     px > R - 110 ? "end" : "start", lo, hi));
  }
  if (!ctx.concealed) {
    notes.push(place(svgText(s, 0, T + 16, fig.memory, { class: "roof-note region" }),
                     L + 2, 6, "start", lo, hi));
    // right of the ridge; where it does not fit, it reaches back over the ridge line
    notes.push(place(svgText(s, 0, T + 16, fig.compute, { class: "roof-note region" }),
                     rx + 2, 6, "start", lo, hi, true));
  }
  if (fig.ceiling) {                               // no batch passes this intensity
    const cx = sx(fig.ceiling.x);
    svg("line", { x1: cx, x2: cx, y1: T, y2: B, class: "ceiling-line" }, s);
    notes.push(place(svgText(s, 0, T + 36, fig.ceiling.label, { class: "roof-note" }),
                     cx, 6, cx > R - 150 ? "end" : "start", lo, hi));
  }
  if (holder.isConnected) {       // laid out: labels that still cover others move apart
    const taken = declutter([ridge], { dy: -6, tries: 8, fixed: fixed.map((t) => t.getBBox()) });
    declutter(notes, { dy: 6, tries: 10, fixed: taken });
  }
  if (batch) drawBatch(batch, fig.batch, W, holder.isConnected);
}

function drawBatch(s, fig, W, laidOut) {
  // three log panels on one log batch axis: FLOP per byte, tokens per second, time per step
  const L = 66, R = W - 20, PH = 84, GAP = 34, T0 = 24, n = fig.panels.length;
  const B0 = T0 + n * (PH + GAP) - GAP, H = B0 + 44;
  const sx = (v) => L + (R - L) * (lg(v) - lg(fig.x0)) / (lg(fig.x1) - lg(fig.x0));
  const lo = L + 4, hi = R - 4;
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const nx = sx(fig.now);
  const fixed = [];
  const panels = fig.panels.map((p, k) => {
    const T = T0 + k * (PH + GAP), B = T + PH;
    const sy = (v) => B - (B - T) * (lg(v) - lg(p.y0)) / (lg(p.y1) - lg(p.y0));
    const g = svg("g", { class: "axis" }, s);
    for (const [v] of fig.xticks) svg("line", { x1: sx(v), x2: sx(v), y1: T, y2: B, class: "grid" }, g);
    for (const [v, label] of p.yticks) {
      svg("line", { x1: L, x2: R, y1: sy(v), y2: sy(v), class: "grid" }, g);
      fixed.push(svgText(g, L - 6, sy(v) + 4, label, { "text-anchor": "end", class: "tick-label" }));
    }
    svg("line", { x1: L, x2: R, y1: B, y2: B }, g);
    svg("line", { x1: L, x2: L, y1: T, y2: B }, g);
    const title = svgText(s, L, T - 8, p.title, { class: "panel-title" });
    fixed.push(title);
    const d = fig.xs.map((x, i) => (i ? "L " : "M ") + sx(x).toFixed(1) + " " + sy(p.ys[i]).toFixed(1)).join(" ");
    svg("path", { d, class: "bcurve" }, s);
    // the batch on screen, and its value: the panel's first label
    const ny = sy(p.now);
    svg("line", { x1: nx, x2: nx, y1: T, y2: B, class: "bnow-line" }, s);
    svg("circle", { cx: nx, cy: ny, r: 5, class: "bnow" }, s);
    const now = place(svgText(s, 0, ny - 8, p.now_label, { class: "pt-label small" }), nx, 8,
                      nx > R - 90 ? "end" : "start", lo, hi);
    // the limits, named at the left, where the curve is low (placed once laid out, below)
    const lines = p.lines.filter((ln) => ln.y >= p.y0 && ln.y <= p.y1)
      .sort((a, b) => sy(a.y) - sy(b.y))
      .map((ln) => {
        const y = sy(ln.y);
        svg("line", { x1: L, x2: R, y1: y, y2: y, class: "lim lim-" + ln.cls }, s);
        return { t: svgText(s, L + 6, y < T + 16 ? y + 14 : y - 5, ln.label, { class: "roof-note" }), y };
      });
    const marks = [];
    fig.marks.forEach((m, j) => {
      const mx = sx(m.x);
      svg("line", { x1: mx, x2: mx, y1: T, y2: B, class: "mark mark-" + m.cls }, s);
      if (j === k) {                     // each mark named in its own panel
        marks.push(place(svgText(s, 0, B - 8, m.label, { class: "roof-note" }), mx, 5,
                         mx > (L + R) / 2 ? "end" : "start", lo, hi));
      }
    });
    return { title, now, lines, marks };
  });
  const g = svg("g", { class: "axis" }, s);
  for (const [v, label] of fig.xticks) {
    svg("line", { x1: sx(v), x2: sx(v), y1: B0, y2: B0 + 4 }, g);
    fixed.push(svgText(g, sx(v), B0 + 18, label, { "text-anchor": "middle", class: "tick-label" }));
  }
  fixed.push(svgText(s, (L + R) / 2, H - 6, fig.xaxis, { "text-anchor": "middle", class: "axis-title" }));
  if (!laidOut) return;
  let taken = fixed.map((t) => t.getBBox());
  for (const p of panels) {
    taken = declutter([p.now], { dy: -6, tries: 4, fixed: taken });
    // a limit's name: above its line at the left, above it after the panel's title, or under
    // it, wherever it covers no other text and no other limit's line; else pushed down
    const bars = p.lines.map(({ y }) => ({ x: L, y: y - 1, width: R - L, height: 2 }));
    const tb = p.title.getBBox(), after = tb.x + tb.width + 12;
    p.lines.forEach(({ t, y }, i) => {
      const first = [t.getAttribute("x"), t.getAttribute("y")];
      const others = taken.concat(bars.filter((_, j) => j !== i));
      const spot = [[L + 6, y - 5], [after, y - 5], [L + 6, y + 14]].find(([x, ly]) => {
        t.setAttribute("x", x.toFixed(1));
        t.setAttribute("y", ly.toFixed(1));
        const box = t.getBBox();
        return box.x + box.width <= R - 4 && free(box, others);
      });
      if (!spot) { t.setAttribute("x", first[0]); t.setAttribute("y", first[1]); }
      taken = declutter([t], { dy: 6, tries: 8, fixed: taken });
    });
    taken = declutter(p.marks, { dy: -6, tries: 8, fixed: taken });
  }
}

export const roofline = { draw };
