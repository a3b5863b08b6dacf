// Step 6, Part B: the live model's block pool, one frame per event. A cell per physical block
// with its token slots (filled or still empty), coloured and lettered by the sequences that
// hold it; shared blocks hatched, with their reference count; the blocks this event changed
// outlined; under the pool, each sequence's block table. ctx.text: block, free, tables.

import { svg } from "../dom.js";

function draw(holder, fig, ctx) {
  const blocks = fig.blocks || [];
  if (!blocks.length) { holder.replaceChildren(); return; }
  const cols = fig.cols || 8, bs = fig.bs || 4, tables = fig.tables || [];
  const cw = 76, ch = 60, gap = 8, pad = 4, rowH = 30, nameW = 220, chipW = 34;
  const rows = Math.ceil(blocks.length / cols);
  const longest = Math.max(0, ...tables.map((t) => t.blocks.length));
  const W = Math.max(pad * 2 + cols * (cw + gap) - gap, nameW + longest * chipW + pad);
  const top = pad + rows * (ch + gap) + 24;
  const H = top + Math.max(1, tables.length) * rowH + 6;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "pool-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = Math.min(W, 480) + "px";
  const defs = svg("defs", {}, s);
  const pat = svg("pattern", { id: "pool-hatch", patternUnits: "userSpaceOnUse", width: 7,
                               height: 7, patternTransform: "rotate(45)" }, defs);
  svg("rect", { x: 0, y: 0, width: 3, height: 7, class: "hatch" }, pat);
  blocks.forEach((b, k) => {
    const x = pad + (k % cols) * (cw + gap), y = pad + Math.floor(k / cols) * (ch + gap);
    const changed = b.changed && ctx.index > 0;
    const g = svg("g", { class: "blk " + b.cls + (changed ? " changed" : "") }, s);
    const tip = svg("title", {}, g);
    tip.textContent = `${ctx.text.block} ${b.id}: ${b.owners.length ? b.who : ctx.text.free}`;
    svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-bg" }, g);
    if (b.ref > 1) svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-hatch",
                                 fill: "url(#pool-hatch)" }, g);
    const id = svg("text", { x: x + 6, y: y + 14, class: "blk-id" }, g);
    id.textContent = b.id;
    if (b.mark) {
      const m = svg("text", { x: x + cw - 6, y: y + 14, class: "blk-mark",
                              "text-anchor": "end" }, g);
      m.textContent = b.mark;
    }
    const sw = (cw - 12 - (bs - 1) * 3) / bs;
    for (let j = 0; j < bs; j++)
      svg("rect", { x: x + 6 + j * (sw + 3), y: y + 21, width: sw.toFixed(2), height: 15, rx: 2,
                    class: "slot" + (j < b.fill ? " filled" : "") }, g);
    const who = svg("text", { x: x + cw / 2, y: y + ch - 8, class: "blk-who",
                              "text-anchor": "middle" }, g);
    who.textContent = b.owners.length ? b.who : ctx.text.free;
    if (changed)
      svg("rect", { x: x - 2, y: y - 2, width: cw + 4, height: ch + 4, rx: 7,
                    class: "blk-changed" + (ctx.reduced ? "" : " enter") }, g);
  });
  const head = svg("text", { x: pad, y: top - 8, class: "tables-head" }, s);
  head.textContent = ctx.text.tables;
  tables.forEach((t, r) => {
    const y = top + r * rowH;
    const g = svg("g", { class: "tbl " + t.cls }, s);
    svg("rect", { x: pad, y: y + 6, width: 12, height: 12, rx: 2, class: "tbl-chip" }, g);
    const name = svg("text", { x: pad + 18, y: y + 17, class: "tbl-name" }, g);
    name.textContent = `${t.name} · ${t.tokens}`;
    t.blocks.forEach((b, j) => {
      const x = nameW + j * chipW;
      svg("rect", { x, y: y + 2, width: chipW - 4, height: 21, rx: 3,
                    class: "tbl-blk" + (b.shared ? " shared" : "") }, g);
      if (b.shared) svg("rect", { x, y: y + 2, width: chipW - 4, height: 21, rx: 3,
                                  class: "blk-hatch", fill: "url(#pool-hatch)" }, g);
      const tx = svg("text", { x: x + (chipW - 4) / 2, y: y + 17, class: "tbl-id",
                               "text-anchor": "middle" }, g);
      tx.textContent = b.id;
    });
  });
  holder.replaceChildren(s);
}

export const pool = { draw };
