// Step 3: one row per cached token: its key (blue strip) and value (orange strip), each cell
// one of the head_dim numbers; the newest query's weight per row as a green bar; under the
// value strip, the attention output softmax(q·Kᵀ/√d)·V. Rows written at this step are
// outlined. The drawing is as tall as the rows in the frame: it grows with the cache.

import { svg, svgText } from "../dom.js";

// a row is a string, one character per number: chr(68 + level), level in -20..20
// (steps/step3/text.py `levels`)
const ZERO = 68, LEVELS = 20;

function cells(g, row, x0, y, cw, ch, cls) {
  for (let d = 0; d < row.length; d++) {
    const t = (row.charCodeAt(d) - ZERO) / LEVELS;
    svg("rect", { x: x0 + d * cw, y, width: cw - 0.6, height: ch,
                  class: cls + (t < 0 ? " neg" : " pos"),
                  "fill-opacity": Math.min(1, Math.abs(t)).toFixed(2) }, g);
  }
}

function draw(holder, fig, ctx) {
  const rows = fig.rows || [], n = rows.length;
  if (!n) { holder.replaceChildren(); return; }
  const dims = (fig.k[0] || []).length, cw = 8, rh = 20, ch = 15;
  const LW = 124, GAP = 16, BW = 110;
  const KX = LW, VX = KX + dims * cw + GAP, BX = VX + dims * cw + GAP, W = BX + BW + 46;
  const Y0 = 32, yRow = (i) => Y0 + i * rh, OY = yRow(n) + 16, H = OY + rh + 26;
  const mid = (x0) => x0 + dims * cw / 2;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cache-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = Math.min(W, 520) + "px";
  svgText(s, mid(KX), Y0 - 10, ctx.text.k, { class: "strip-head", "text-anchor": "middle" });
  svgText(s, mid(VX), Y0 - 10, ctx.text.v, { class: "strip-head", "text-anchor": "middle" });
  svgText(s, BX, Y0 - 10, ctx.text.weights, { class: "strip-head", "text-anchor": "start" });
  const nf = Math.max(0, Math.min(n, fig.new_from));
  if (fig.prompt_len < n) {
    const y = yRow(fig.prompt_len) - 2;
    svg("line", { x1: KX, x2: BX + BW, y1: y, y2: y, class: "prefill-line" }, s);
  }
  for (const x0 of [KX, VX])
    svg("rect", { x: x0 - 0.5, y: Y0 - 0.5, width: dims * cw + 1, height: n * rh - rh + ch + 1,
                  class: "strip-frame" }, s);
  const wmax = Math.max(...fig.weights, 1e-9);
  for (let i = 0; i < n; i++) {
    const y = yRow(i);
    const g = svg("g", { class: "cache-row" + (fig.gen[i] ? " is-gen" : " is-prompt") +
                         (i >= nf ? " is-new" : "") }, s);
    svg("title", {}, g).textContent = fig.titles[i];
    svgText(g, LW - 8, y + ch - 3, rows[i], { class: "row-label", "text-anchor": "end" });
    cells(g, fig.k[i], KX, y, cw, ch, "cell k");
    cells(g, fig.v[i], VX, y, cw, ch, "cell v");
    svg("rect", { x: BX, y: y + 1, width: BW, height: ch - 2, class: "attn-track" }, g);
    svg("rect", { x: BX, y: y + 1, width: (BW * fig.weights[i]).toFixed(2), height: ch - 2,
                  class: "attn-bar" + (fig.weights[i] === wmax ? " is-max" : "") }, g);
    svgText(g, BX + BW + 4, y + ch - 3, fig.pct[i], { class: "attn-pct" });
  }
  // the rows written at this step, outlined
  svg("rect", { x: 2, y: yRow(nf) - 2, width: W - 4, height: (n - nf) * rh, rx: 4,
                class: "new-rows" + (ctx.index > 0 ? " enter" : "") }, s);
  // what V is for: the output, the value rows added up with the weights
  const o = svg("g", { class: "out-row" }, s);
  svg("path", { d: `M ${mid(VX)} ${yRow(n) - 3} v 13 m -4 -5 l 4 5 l 4 -5`,
                class: "out-arrow" }, o);
  svgText(o, VX - 8, OY + ch - 3, ctx.text.out, { class: "out-label", "text-anchor": "end" });
  svg("rect", { x: VX - 1.5, y: OY - 1.5, width: dims * cw + 3, height: ch + 3, rx: 2,
                class: "out-frame" }, o);
  cells(o, fig.out, VX, OY, cw, ch, "out-cell");
  svgText(s, mid(KX), H - 6, ctx.text.dims, { class: "dims-label", "text-anchor": "middle" });
  holder.replaceChildren(s);
}

export const cache = { draw };
