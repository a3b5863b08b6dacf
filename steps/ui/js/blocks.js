// The page's blocks of text (steps/ui/words.py builds them; their shapes are named in
// steps/ui/state.py). Each kind has one builder; a region of the page is a list of blocks
// (`buildBlocks`), which the page places by its layout table (layout.js).

import { h, legendRow } from "./dom.js";

// A card as the server sent it: one that answers the question comes as “?” until the answer is
// out (steps/ui/conceal.py); `hidden` only marks it (class answer-bearing).
export function drawCards(box, cards, ctx) {
  const badges = ctx.badges || {};
  box.replaceChildren();
  for (const c of cards || []) {
    const card = h("div", "metric" + (c.hidden ? " answer-bearing" : ""), box);
    card.setAttribute("data-metric", c.key);
    h("div", "metric-label", card, c.label);
    h("div", "metric-value", card, c.value);
    if (c.kind && badges[c.kind]) {
      const b = h("span", "badge badge-" + c.kind, card, badges[c.kind][0]);
      b.title = badges[c.kind][1];
    }
  }
}

export function drawTable(table, t) {
  table.replaceChildren();
  if (t.caption) h("caption", "", table, t.caption);
  const head = h("tr", "", h("thead", "", table));
  for (const c of t.head || []) h("th", "", head, c).setAttribute("scope", "col");
  const body = h("tbody", "", table);
  for (const r of t.rows || []) {
    const tr = h("tr", "", body);
    r.forEach((c, k) => {
      const e = h(k ? "td" : "th", "", tr, c);
      if (!k) e.setAttribute("scope", "row");
    });
  }
}

const BUILD = {
  paragraphs(b, box) {
    if (b.heading) h("h3", "", box, b.heading);
    // data-terms: the glossary marks the first use of a term here (terms.js)
    for (const p of b.items || []) h("p", "", box, p, { "data-terms": "" });
  },
  notices(b, box) {
    for (const n of b.items || []) h("p", "notice", box, n).setAttribute("role", "status");
  },
  legend(b, box) {
    legendRow(b.items || [], b.cls || "", box);
  },
  metrics(b, box, ctx) {
    const row = h("div", "metrics", box, null, { role: "group" });
    if (b.label) row.setAttribute("aria-label", b.label);
    drawCards(row, b.cards, ctx);
  },
  table(b, box) {
    const t = h("table", "kv", box);
    if (b.caption) t.setAttribute("aria-label", b.caption);
    drawTable(t, b);
  },
  details(b, box, ctx) {
    const d = h("details", "", box);
    h("summary", "", d, b.summary);
    drawInto(d, b.blocks, ctx);
  },
  html(b, box) {
    // autoescaped on the server (steps/ui/words.py `html`); appended: without a class the
    // box is the column itself
    box.insertAdjacentHTML("beforeend", b.html);
  },
};

// The nodes of `blocks`, drawn afresh (a region of the page: page.js places them). A block with
// nothing to say gives nothing. A details block whose summary is in `open` starts open (the
// learner opened it before this region was drawn again).
export function buildBlocks(blocks, ctx, open) {
  const made = document.createElement("div");
  drawInto(made, blocks, ctx);
  if (open && open.size) made.querySelectorAll("details > summary").forEach((s) => {
    if (open.has(s.textContent)) s.parentElement.open = true;
  });
  return [...made.childNodes];
}

// the summaries of the open details among `nodes` (kept across a region's redraw)
export function openSummaries(nodes) {
  const open = new Set();
  for (const n of nodes) {
    if (n.nodeType !== 1) continue;
    if (n.matches("details[open]")) open.add(n.querySelector(":scope > summary")?.textContent);
    n.querySelectorAll("details[open] > summary").forEach((s) => open.add(s.textContent));
  }
  return open;
}

function drawInto(parent, blocks, ctx) {
  for (const b of blocks || []) {
    const build = BUILD[b.kind];
    if (!build || isEmpty(b)) continue;
    const made = document.createElement("div");
    const box = b.kind === "details" || !b.cls ? made : h("div", b.cls, made);
    build(b, box, ctx);
    if (b.kind === "details" && b.cls) made.lastChild.classList.add(...b.cls.split(" "));
    while (made.firstChild) parent.appendChild(made.firstChild);
  }
}

function isEmpty(b) {
  if (b.kind === "paragraphs") return !(b.items && b.items.length) && !b.heading;
  if (b.kind === "notices" || b.kind === "legend") return !(b.items && b.items.length);
  if (b.kind === "metrics") return !(b.cards && b.cards.length);
  if (b.kind === "html") return !b.html;
  if (b.kind === "details") return !(b.blocks && b.blocks.length);
  return false;
}
