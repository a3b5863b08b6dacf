// Step 5's layer map: one bar per layer of the model, coloured by what kind of layer it is
// (full attention, a sliding window, chunked attention, MLA, cross-attention, a layer that
// reuses another's K/V, a fixed-size state, no attention) and as tall as the share of the
// sequence it keeps (the dashed line on top: the whole context). A layer that keeps nothing
// that grows with the text gets a short mark under the baseline. The legend under it says,
// per kind, how many layers keep how many tokens (the server writes its words).

import { svg, h, layoutWidth, textSize, legendRow } from "../dom.js";

// the strip drawn in `s` (an <svg> in the page, so that its text is measured), laid out for
// `W` pixels and for the size its text is drawn at (larger when presenting)
export function layerStrip(s, fig, W) {
  const em = textSize(s, "tick-label");
  const L = 12, R = W - 12, T = Math.round(1.25 * em + 6), B = T + 62;
  const H = Math.round(B + 1.75 * em + 8);
  const n = fig.kinds.length;
  s.replaceChildren();
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const step = (R - L) / Math.max(1, n), gap = step >= 4 ? 1 : 0;
  const axis = svg("g", { class: "axis" }, s);
  svg("line", { x1: L, x2: R, y1: T, y2: T, class: "grid context-line" }, axis);
  svg("line", { x1: L, x2: R, y1: B, y2: B }, axis);
  for (let k = 0; k < n; k++) {
    const kept = fig.kept[k], x = L + k * step, w = Math.max(0.5, step - gap);
    const cls = "layer layer-" + fig.kinds[k];
    if (kept > 0) {
      const hh = Math.max(2, (B - T) * Math.min(1, kept / fig.top));
      svg("rect", { x, y: B - hh, width: w, height: hh, class: cls }, s);
    } else {
      svg("rect", { x, y: B + 2, width: w, height: 5, class: cls }, s);
    }
  }
  const label = (x, y, anchor, words) => {
    const t = svg("text", { x, y, "text-anchor": anchor, class: "tick-label" }, s);
    t.textContent = words;
  };
  label(L, T - 0.45 * em, "start", fig.top_label);
  label(L, B + 7 + em, "start", fig.first);
  label(R, B + 7 + em, "end", fig.last);
  return s;
}

// the legend: a chip per kind present and what its layers keep
export function layerLegend(fig) {
  return legendRow(fig.legend.map((item) => ["layer-" + item.cls, item.text]), "layer-legend");
}

// drawn on its own (a stage whose figure is the layer map): the title, the strip, the legend
function draw(holder, fig, ctx) {
  if (!fig || !fig.kinds) { holder.replaceChildren(); return; }
  const s = svg("svg", { class: "bill-svg layers-svg", "aria-hidden": "true", focusable: "false" });
  holder.replaceChildren(h("p", "chart-title", null, fig.title), s, layerLegend(fig));
  layerStrip(s, fig, layoutWidth(ctx.box, 340, 680));
}

export const layers = { draw };
