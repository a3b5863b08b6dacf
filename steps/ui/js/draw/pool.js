// Step 6, Part B: the live model's block pool, one frame per event. A cell per physical block
// with its token slots (filled or still empty), coloured and lettered by the sequences that
// hold it; shared blocks hatched, with their reference count; the blocks this event changed
// outlined; under the pool, each sequence's block table. ctx.text: block, free, tables.

import { svg, layoutWidth, textWidths, refitOnResize } from "../dom.js";

function draw(holder, fig, ctx) {
  refitOnResize(holder, () => { if (holder.querySelector(":scope > .pool-svg")) draw(holder, fig, ctx); });
  const blocks = fig.blocks || [];
  if (!blocks.length) { holder.replaceChildren(); return; }
  const bs = fig.bs || 4, tables = fig.tables || [];
  // laid out in pixels for the holder's width: as many blocks a row as fit (a block as wide
  // as the longest name it shows), each table's blocks after its name, or under it when
  // they do not fit there
  const W0 = layoutWidth(holder, 300, 820);
  const who = textWidths(holder, "pool-svg", [
    ...blocks.map((b) => ["blk-who", b.owners.length ? b.who : ctx.text.free]),
    ...tables.map((t) => ["tbl-name", `${t.name} · ${t.tokens}`])]);
  const gap = 8, pad = 4, chipW = 34, rowH = 30;
  const cw = Math.max(76, Math.ceil(Math.max(...who.slice(0, blocks.length))) + 12), ch = 60;
  const cols = Math.max(1, Math.min(fig.cols || 8, Math.floor((W0 - 2 * pad + gap) / (cw + gap))));
  const rows = Math.ceil(blocks.length / cols);
  const nameW = Math.ceil(Math.max(0, ...who.slice(blocks.length))) + pad + 18 + 12;
  const longest = Math.max(0, ...tables.map((t) => t.blocks.length));
  const inline = nameW + longest * chipW + pad <= W0;
  const perLine = inline ? longest : Math.max(1, Math.floor((W0 - pad - 18) / chipW));
  const lines = (t) => inline ? 1 : 1 + Math.max(1, Math.ceil(t.blocks.length / perLine));
  const W = Math.max(W0, pad * 2 + cols * (cw + gap) - gap);
  const top = pad + rows * (ch + gap) + 24;
  const H = top + Math.max(1, tables.reduce((a, t) => a + lines(t), 0)) * rowH + 6;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "pool-svg", "aria-hidden": "true",
                         focusable: "false", preserveAspectRatio: "xMinYMin meet" });
  s.style.minWidth = W + "px";
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
  let line = 0;
  tables.forEach((t) => {
    const y0 = top + line * rowH;
    line += lines(t);
    const g = svg("g", { class: "tbl " + t.cls }, s);
    svg("rect", { x: pad, y: y0 + 6, width: 12, height: 12, rx: 2, class: "tbl-chip" }, g);
    const name = svg("text", { x: pad + 18, y: y0 + 17, class: "tbl-name" }, g);
    name.textContent = `${t.name} · ${t.tokens}`;
    t.blocks.forEach((b, j) => {
      const x = inline ? nameW + j * chipW : pad + 18 + (j % perLine) * chipW;
      const y = inline ? y0 : y0 + rowH * (1 + Math.floor(j / perLine));
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
