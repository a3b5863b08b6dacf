// Step 6, Part B: the live model's block pool, one frame per event. A cell per physical block
// with its token slots (filled or still empty), coloured and lettered by the sequences that
// hold it; shared blocks hatched, with their reference count; the blocks this event changed
// outlined; under the pool, each sequence's block table. ctx.text: block, free, tables.
// Projected (ctx.box, dom.js projectedBox): laid out for the box the page gives the figure, every
// size in units of the chart text's size (em), so that it draws at scale 1 and its text at
// least 18 px; the blocks keep their size from event to event (the tables take what is under
// them), and where the tables would run out of the box their rows close up.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc pool` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} PoolStageFrame
 * @property {string} pos the player's position line
 * @property {string} [say] announced after Step / Pause (else desc)
 * @property {string} desc one sentence: what the figure shows now
 * @property {CardState[]} cards
 * @property {string} caption
 * @property {TableTwin} table the chart's text twin
 * @property {TableBlock[]} [tables] more tables in the twin, after it
 * @property {PoolFig} fig
 */
/**
 * @typedef {Object} PoolStageText
 * The pool's labels (js/draw/pool.js).
 * @property {string} reset
 * @property {string} back
 * @property {string} next
 * @property {string} play
 * @property {string} pause
 * @property {string} table
 * @property {string} more
 * @property {Badges} badges
 * @property {string} screen "Chart {i} of {n}": the page puts the figure's screen in
 * @property {string} next_screen
 * @property {string} prev_screen
 * @property {string} figure
 * @property {string} block
 * @property {string} free
 * @property {string} tables the block tables' heading
 */
/**
 * @typedef {Object} PoolFig
 * One event of js/draw/pool.js: the block pool and the block tables.
 * @property {number} bs tokens per block
 * @property {number} cols blocks per row
 * @property {PoolBlock[]} blocks
 * @property {PoolTable[]} tables
 */
/**
 * @typedef {Object} PoolBlock
 * A physical block of the pool.
 * @property {string} id its number, as written
 * @property {string[]} owners the sequences that hold it
 * @property {number} fill its token slots filled
 * @property {number} ref its reference count
 * @property {boolean} changed changed by this event (outlined)
 * @property {string} cls free, shared, or own-<sequence>
 * @property {string} who the owners' letters
 * @property {string} mark “×n” when shared
 */
/**
 * @typedef {Object} PoolTable
 * A sequence's block table.
 * @property {string} name
 * @property {string} cls
 * @property {string} tokens
 * @property {PoolTableBlock[]} blocks
 */
/**
 * @typedef {Object} PoolTableBlock
 * @property {string} id
 * @property {boolean} shared
 */

import { svg, layoutWidth, textWidths, projectedBox } from "../dom.js";

// where things go: the learners' page in pixels (its text 12–13 px); projected in em
function layout(holder, fig, ctx, blocks, tables) {
  const box = projectedBox(holder, ctx, "pool-svg", "blk-who");
  const who = textWidths(holder, "pool-svg", [
    ...blocks.map((b) => ["blk-who", b.owners.length ? b.who : ctx.text.free]),
    ...tables.map((t) => ["tbl-name", `${t.name} · ${t.tokens}`]),
    ...blocks.map((b) => ["blk-id", `${b.id} ${b.mark}`]),
    ...blocks.map((b) => ["tbl-id", b.id])]);
  const nb = blocks.length;
  const whoW = Math.max(...who.slice(0, nb));
  const idW = Math.max(...who.slice(nb + tables.length, 2 * nb + tables.length));
  const chipIdW = Math.max(...who.slice(2 * nb + tables.length));
  const nameW0 = Math.ceil(Math.max(0, ...who.slice(nb, nb + tables.length)));
  const bs = fig.bs || 4;
  if (!box) {
    const W0 = layoutWidth(ctx.box, 300, 820), gap = 8, pad = 4;
    return { W0, pad, gap, chipW: 34, rowH: 30, cw: Math.max(76, Math.ceil(whoW) + 12), ch: 60,
             inset: 6, idY: 14, slotY: 21, slotH: 15, slotGap: 3, whoY: 52, headH: 24, headY: 8,
             chipY: 2, chipH: 21, chipText: 17, swatch: 12, swatchY: 6, nameY: 17, nameX: 18,
             nameW: nameW0 + pad + 18 + 12, bottom: 6 };
  }
  const e = box.em, r = (v) => Math.round(v * e);
  const pad = 4, gap = r(0.45), inset = r(0.3);
  const cwMin = Math.ceil(Math.max(whoW + 0.8 * e, idW + 0.9 * e, bs * 0.9 * e));
  const rowH = r(1.6), chipH = r(1.3);
  return { W0: box.width, H: box.height, pad, gap, cwMin, inset, em: e,
           chipW: Math.ceil(chipIdW + 0.8 * e) + 4,
           rowH, chipY: Math.round((rowH - chipH) / 2), chipH,
           chipText: Math.round(rowH / 2 + 0.36 * e), swatch: r(0.7),
           swatchY: Math.round((rowH - r(0.7)) / 2), nameY: Math.round(rowH / 2 + 0.36 * e),
           nameX: r(0.7) + 8, nameW: nameW0 + pad + r(0.7) + 8 + r(0.6),
           idY: r(1.13), slotY: r(1.5), slotH: r(0.8), slotGap: Math.max(2, r(0.15)),
           whoY: r(3.38), ch: r(3.8), headH: r(1.6), headY: r(0.35), bottom: 4 };
}

function draw(holder, fig, ctx) {
  const blocks = fig.blocks || [];
  if (!blocks.length) { holder.replaceChildren(); return; }
  const bs = fig.bs || 4, tables = fig.tables || [];
  const L = layout(holder, fig, ctx, blocks, tables);
  const { W0, pad, gap, chipW } = L;
  // as many blocks a row as fit (a block as wide as the longest name it shows; projected, as
  // wide as the box allows), each table's blocks after its name, or under it when they do not
  // fit there
  const longest = Math.max(0, ...tables.map((t) => t.blocks.length));
  const inline = L.nameW + longest * chipW + pad <= W0;
  const perLine = inline ? longest : Math.max(1, Math.floor((W0 - pad - L.nameX) / chipW));
  const lines = (t) => inline ? 1 : 1 + Math.max(1, Math.ceil(t.blocks.length / perLine));
  const nLines = Math.max(1, tables.reduce((a, t) => a + lines(t), 0));
  let ch = L.ch;
  let cw = L.cw, cols;
  if (L.cwMin) {
    // projected: more blocks a row where the box is too low for the pool's rows and the
    // tables (an answer over the figure takes its height), so that the figure stays in its box
    // at scale 1, never drawn smaller than its text
    const most = Math.max(1, Math.min(blocks.length, Math.floor((W0 - 2 * pad + gap) / (L.cwMin + gap))));
    const need = (c) => pad + Math.ceil(blocks.length / c) * (ch + gap) + L.headH +
      nLines * Math.round(1.25 * L.em) + L.bottom;
    cols = Math.min(most, fig.cols || 8);
    while (cols < most && need(cols) > L.H) cols += 1;
    cw = Math.max(L.cwMin, Math.floor((W0 - 2 * pad - (cols - 1) * gap) / cols));
  } else {
    cols = Math.max(1, Math.min(fig.cols || 8, Math.floor((W0 - 2 * pad + gap) / (cw + gap))));
  }
  const rows = Math.ceil(blocks.length / cols);
  if (L.cwMin && L.H) {
    // projected, a box higher than the pool needs: taller blocks (their slots too), up to
    // 1.6 times, so that the pool fills the screen
    const f = Math.max(1, Math.min(1.6, ((L.H - pad - L.headH - nLines * L.rowH - L.bottom) / rows - gap) / ch));
    const grown = Math.floor(ch * f);
    L.whoY += grown - ch;
    L.slotH = Math.round(L.slotH * f);
    ch = grown;
  }
  const W = Math.max(W0, pad * 2 + cols * (cw + gap) - gap);
  const top = pad + rows * (ch + gap) + L.headH;
  // projected: the tables' rows close up (to a text's height) where they would leave the box
  let rowH = L.rowH;
  if (L.H && top + nLines * rowH + L.bottom > L.H)
    rowH = Math.max(Math.round(1.25 * L.em), Math.floor((L.H - top - L.bottom) / nLines));
  const shift = Math.round((rowH - L.rowH) / 2);
  const H = Math.max(L.H || 0, top + nLines * rowH + L.bottom);
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
    const g = svg("g", { class: "blk " + b.cls + (changed ? " changed" : ""),
                         "data-point": b.owners.length ? "used" : "free" }, s);   // (markPoints)
    const tip = svg("title", {}, g);
    tip.textContent = `${ctx.text.block} ${b.id}: ${b.owners.length ? b.who : ctx.text.free}`;
    svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-bg" }, g);
    if (b.ref > 1) svg("rect", { x, y, width: cw, height: ch, rx: 6, class: "blk-hatch",
                                 fill: "url(#pool-hatch)" }, g);
    const id = svg("text", { x: x + L.inset, y: y + L.idY, class: "blk-id" }, g);
    id.textContent = b.id;
    if (b.mark) {
      const m = svg("text", { x: x + cw - L.inset, y: y + L.idY, class: "blk-mark",
                              "text-anchor": "end" }, g);
      m.textContent = b.mark;
    }
    const sw = (cw - 2 * L.inset - (bs - 1) * L.slotGap) / bs;
    for (let j = 0; j < bs; j++)
      svg("rect", { x: x + L.inset + j * (sw + L.slotGap), y: y + L.slotY, width: sw.toFixed(2),
                    height: L.slotH, rx: 2, class: "slot" + (j < b.fill ? " filled" : "") }, g);
    const who = svg("text", { x: x + cw / 2, y: y + L.whoY, class: "blk-who",
                              "text-anchor": "middle" }, g);
    who.textContent = b.owners.length ? b.who : ctx.text.free;
    if (changed)
      svg("rect", { x: x - 2, y: y - 2, width: cw + 4, height: ch + 4, rx: 7,
                    class: "blk-changed" + (ctx.reduced ? "" : " enter") }, g);
  });
  const head = svg("text", { x: pad, y: top - L.headY, class: "tables-head" }, s);
  head.textContent = ctx.text.tables;
  let line = 0;
  tables.forEach((t) => {
    const y0 = top + line * rowH + shift;
    line += lines(t);
    const g = svg("g", { class: "tbl " + t.cls }, s);
    svg("rect", { x: pad, y: y0 + L.swatchY, width: L.swatch, height: L.swatch, rx: 2,
                  class: "tbl-chip" }, g);
    const name = svg("text", { x: pad + L.nameX, y: y0 + L.nameY, class: "tbl-name" }, g);
    name.textContent = `${t.name} · ${t.tokens}`;
    t.blocks.forEach((b, j) => {
      const x = inline ? L.nameW + j * chipW : pad + L.nameX + (j % perLine) * chipW;
      const y = inline ? y0 : y0 + rowH * (1 + Math.floor(j / perLine));
      svg("rect", { x, y: y + L.chipY, width: chipW - 4, height: L.chipH, rx: 3,
                    class: "tbl-blk" + (b.shared ? " shared" : "") }, g);
      if (b.shared) svg("rect", { x, y: y + L.chipY, width: chipW - 4, height: L.chipH, rx: 3,
                                  class: "blk-hatch", fill: "url(#pool-hatch)" }, g);
      const tx = svg("text", { x: x + (chipW - 4) / 2, y: y + L.chipText, class: "tbl-id",
                               "text-anchor": "middle" }, g);
      tx.textContent = b.id;
    });
  });
  holder.replaceChildren(s);
}

export const pool = { draw };
