// Step 3: one row per cached token: its key (blue strip) and value (orange strip), each cell
// one of the head_dim numbers; the newest query's weight per row as a green bar; under the
// value strip, the attention output softmax(q·Kᵀ/√d)·V. Rows written at this step are
// outlined (ink, not a colour). The drawing is as tall as the rows in the frame: it grows
// with the cache. Laid out in pixels for the holder's width: the rows keep their size, the
// cells take the width that is left (on a phone, narrow cells; never smaller text).

import { svg, svgText, declutter, layoutWidth, textWidths, refitOnResize, wholeWidth } from "../dom.js";

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

function draw(holder, fig, ctx) {
  refitOnResize(holder, () => { if (holder.querySelector(":scope > .cache-svg")) draw(holder, fig, ctx); });
  const rows = fig.rows || [], n = rows.length;
  if (!n) { holder.replaceChildren(); return; }
  const t = ctx.text || {};
  const dims = (fig.k[0] || []).length, rh = 26, ch = 20, GAP = 14;
  const W0 = layoutWidth(holder, 300, 820);
  const m = textWidths(holder, "cache-svg", [
    ...rows.map((r) => ["row-label", r, "cache-row is-prompt"]),
    ...(fig.pct || []).map((p) => ["attn-pct", p]),
    ["out-label", t.out || ""], ["dims-label", t.dims || ""]]);
  const LW = Math.ceil(Math.max(...m.slice(0, n)) * 1.08) + 14;      // (italic rows: a little wider)
  const PW = Math.ceil(Math.max(0, ...m.slice(n, m.length - 2))) + 10;
  const [outW, dimsW] = m.slice(m.length - 2);
  const BW = Math.round(Math.max(56, Math.min(130, W0 * 0.16)));
  const cw = Math.max(2, Math.min(12, (W0 - LW - 2 * GAP - BW - PW - 4) / (2 * dims)));
  const strip = dims * cw;
  const KX = LW, VX = KX + strip + GAP, BX = VX + strip + GAP;
  const W = Math.max(W0, wholeWidth(BX + BW + PW + 4));
  const Y0 = 44, yRow = (i) => Y0 + i * rh, OY = yRow(n) + 12;
  const LY = OY + ch + 18, DY = LY + 22, H = DY + 8;
  const mid = (x0) => x0 + strip / 2;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cache-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = W + "px";
  holder.replaceChildren(s);
  // the three heads; one that would cover another goes up a line
  const kh = svgText(s, mid(KX), Y0 - 10, t.k, { class: "strip-head", "text-anchor": "middle" });
  const vh = svgText(s, mid(VX), Y0 - 10, t.v, { class: "strip-head", "text-anchor": "middle" });
  const wh = svgText(s, BX, Y0 - 10, t.weights, { class: "strip-head", "text-anchor": "start" });
  if (s.isConnected) {
    const ww = wh.getComputedTextLength();
    if (BX + ww > W - 2) wh.setAttribute("x", Math.max(2, W - 2 - ww).toFixed(1));
    declutter([kh, vh, wh], { dy: -18, tries: 1, pad: 4 });
  }
  const nf = Math.max(0, Math.min(n, fig.new_from));
  if (fig.prompt_len < n) {
    const y = yRow(fig.prompt_len) - 3;
    svg("line", { x1: KX, x2: BX + BW, y1: y, y2: y, class: "prefill-line" }, s);
  }
  for (const x0 of [KX, VX])
    svg("rect", { x: x0 - 0.5, y: Y0 - 0.5, width: strip + 1, height: n * rh - rh + ch + 1,
                  class: "strip-frame" }, s);
  const wmax = Math.max(...fig.weights, 1e-9);
  for (let i = 0; i < n; i++) {
    const y = yRow(i);
    const g = svg("g", { class: "cache-row" + (fig.gen[i] ? " is-gen" : " is-prompt") +
                         (i >= nf ? " is-new" : "") }, s);
    svg("title", {}, g).textContent = fig.titles[i];
    svgText(g, LW - 8, y + ch - 5, rows[i], { class: "row-label", "text-anchor": "end" });
    cells(g, fig.k[i], KX, y, cw, ch, "cell k");
    cells(g, fig.v[i], VX, y, cw, ch, "cell v");
    svg("rect", { x: BX, y: y + 1, width: BW, height: ch - 2, class: "attn-track" }, g);
    svg("rect", { x: BX, y: y + 1, width: (BW * fig.weights[i]).toFixed(2), height: ch - 2,
                  class: "attn-bar" + (fig.weights[i] === wmax ? " is-max" : "") }, g);
    svgText(g, BX + BW + 5, y + ch - 5, fig.pct[i], { class: "attn-pct" });
  }
  // the rows written at this step, outlined
  svg("rect", { x: 2, y: yRow(nf) - 3, width: W - 4, height: (n - nf) * rh, rx: 4,
                class: "new-rows" + (ctx.index > 0 ? " enter" : "") }, s);
  // what V is for: the output, the value rows added up with the weights; its name under it
  const o = svg("g", { class: "out-row" }, s);
  svg("path", { d: `M ${mid(VX)} ${yRow(n) - rh + ch + 1} V ${OY - 2} m -4 -5 l 4 5 l 4 -5`,
                class: "out-arrow" }, o);
  svg("rect", { x: VX - 1.5, y: OY - 1.5, width: strip + 3, height: ch + 3, rx: 2,
                class: "out-frame" }, o);
  cells(o, fig.out, VX, OY, cw, ch, "out-cell");
  svgText(o, Math.max(4, Math.min(VX, W - 4 - outW)), LY, t.out, { class: "out-label" });
  svgText(s, Math.max(4, Math.min(KX, W - 4 - dimsW)), DY, t.dims, { class: "dims-label" });
}

export const cache = { draw };
