// The glossary on the page (steps/glossary.py sends it once per language, the page's
// `glossary` part): the first use of each term in a step's paragraphs becomes a button that
// shows the term's definition on hover, focus and tap (Escape closes it); and a one-line
// legend of the cards' three badges goes next to the step's first row of cards.
//
// Text stays text: a paragraph's words are split into text nodes and buttons whose labels are
// set with textContent; the definitions go in with textContent too.

import { h } from "./dom.js";

const WORD = "[\\p{L}\\p{N}_]";

// {terms: [[term, forms, definition]]} -> a matcher: the regular expression of every form
// (longest first, whole words, any case) and the entry each form belongs to
export function termMatcher(glossary) {
  const byForm = new Map();
  for (const [term, forms, def] of (glossary && glossary.terms) || []) {
    for (const f of forms || [term]) {
      const key = f.toLocaleLowerCase();
      if (f && !byForm.has(key)) byForm.set(key, { term, def });
    }
  }
  if (!byForm.size) return null;
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const forms = [...byForm.keys()].sort((a, b) => b.length - a.length).map(escape);
  const re = new RegExp(`(?<!${WORD})(?:${forms.join("|")})(?!${WORD})`, "giu");
  return { re, byForm };
}

// Split `text` into nodes: text, and a term button at the first use of each term not yet in
// `seen` (a Set of terms). `def(entry)` gives the id of the element that describes it.
export function termNodes(text, matcher, seen, def) {
  if (!matcher || !text) return [document.createTextNode(text || "")];
  const out = [];
  let last = 0;
  matcher.re.lastIndex = 0;
  for (const m of text.matchAll(matcher.re)) {
    const entry = matcher.byForm.get(m[0].toLocaleLowerCase());
    if (!entry || seen.has(entry.term)) continue;
    seen.add(entry.term);
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    const b = h("button", "term", null, m[0], { type: "button" });
    b.setAttribute("aria-describedby", def(entry));
    b.dataset.term = entry.term;
    out.push(b);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

// The page's terms: `scope` is the step (its paragraphs are marked, `p[data-terms]`, drawn by
// blocks.js, and the question `p.question`), `layer` a box of its own that holds the
// definitions (hidden, for aria-describedby) and the one popup that shows them.
export function createTerms(scope, layer) {
  layer.className = "term-layer";
  const defs = h("div", "term-defs", layer, null, { hidden: "" });
  const pop = h("div", "term-pop", layer, null, { role: "tooltip", hidden: "" });
  let matcher = null, source = null, open = null, pinned = false, timer = null;

  const place = (b) => {
    pop.hidden = false;
    const base = (pop.offsetParent || document.body).getBoundingClientRect();
    const r = b.getBoundingClientRect();
    const room = document.documentElement.clientWidth;
    const w = pop.offsetWidth;
    let left = r.left;
    if (left + w > room - 8) left = Math.max(8, room - 8 - w);
    pop.style.left = `${Math.round(left - base.left)}px`;
    pop.style.top = `${Math.round(r.bottom - base.top + 4)}px`;
  };
  const show = (b) => {
    clearTimeout(timer);
    if (open && open !== b) open.setAttribute("aria-expanded", "false");
    open = b;
    const d = defs.querySelector(`[id="${b.getAttribute("aria-describedby")}"]`);
    pop.replaceChildren();
    h("strong", "", pop, b.dataset.term);
    pop.append(document.createTextNode(" " + (d ? d.textContent : "")));
    b.setAttribute("aria-expanded", "true");
    place(b);
  };
  const hide = () => {
    clearTimeout(timer);
    if (open) open.setAttribute("aria-expanded", "false");
    open = null;
    pinned = false;
    pop.hidden = true;
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(() => { if (!pinned) hide(); }, 200); };
  pop.addEventListener("mouseenter", () => clearTimeout(timer));
  pop.addEventListener("mouseleave", later);

  const wire = (b) => {
    b.addEventListener("mouseenter", () => show(b));
    b.addEventListener("mouseleave", () => { if (!pinned) later(); });
    b.addEventListener("focus", () => show(b));
    b.addEventListener("blur", () => { if (open === b) hide(); });
    b.addEventListener("click", () => {            // a tap: open, and a second tap closes
      if (open === b && pinned) { hide(); return; }
      show(b);
      pinned = true;
    });
  };
  // Escape closes it (wherever the focus is: a pointer may have opened it); a tap anywhere
  // else closes it too (touch screens may not move the focus)
  const onkey = (e) => { if (e.key === "Escape" && open) { e.stopPropagation(); hide(); } };
  const ontap = (e) => {
    const t = e.composedPath ? e.composedPath()[0] : e.target;
    if (open && t !== open && !pop.contains(t)) hide();
  };
  document.addEventListener("keydown", onkey, true);
  document.addEventListener("pointerdown", ontap, true);
  const stop = () => {
    hide();
    document.removeEventListener("keydown", onkey, true);
    document.removeEventListener("pointerdown", ontap, true);
  };

  // mark the step's words again (after every draw of the step)
  const mark = (glossary) => {
    if (glossary !== source) { source = glossary; matcher = termMatcher(glossary); }
    hide();
    defs.replaceChildren();
    if (!matcher) return;
    let n = 0;
    const ids = new Map();
    const def = (entry) => {
      if (!ids.has(entry.term)) {
        const id = `kv-term-${++n}`;
        ids.set(entry.term, id);
        h("span", "", defs, entry.def, { id });
      }
      return ids.get(entry.term);
    };
    // the first use of each term in the step's open text (the lead, the question, the words);
    // then, in the collapsed “Go deeper” sections, the first use of a term the open text
    // does not use
    const ps = [...scope.querySelectorAll("p[data-terms], p.question")];
    for (const p of ps) {
      for (const w of p.querySelectorAll(".term")) w.replaceWith(w.textContent);
      p.normalize();
    }
    const markIn = (p, seen) => {
      for (const node of [...p.childNodes]) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        const parts = termNodes(node.nodeValue, matcher, seen, def);
        if (parts.length > 1) node.replaceWith(...parts);
      }
    };
    const seen = new Set();
    ps.filter((p) => !p.closest("details")).forEach((p) => markIn(p, seen));
    ps.filter((p) => p.closest("details")).forEach((p) => markIn(p, seen));
    for (const b of scope.querySelectorAll("button.term")) wire(b);
  };
  return { mark, hide, stop, pop };
}

// The one-line legend of the badges, right after the step's first row of cards (none when the
// step shows no card). `legend`: {label, items: [[kind, badge, meaning]]}.
export function placeLegend(scope, legend) {
  for (const old of scope.querySelectorAll(".badge-legend")) old.remove();
  if (!legend || !legend.items) return null;
  const first = [...scope.querySelectorAll(".metrics")].find(
    (row) => !row.hidden && !row.closest("details") && row.querySelector(".metric"));
  if (!first) return null;
  const line = h("p", "badge-legend");
  if (legend.label) h("span", "sr-only", line, legend.label + ": ");
  legend.items.forEach(([kind, badge, meaning], i) => {
    if (i) line.append(document.createTextNode(" · "));
    h("span", "badge badge-" + kind, line, badge);
    line.append(document.createTextNode(" " + meaning));
  });
  first.after(line);
  return line;
}
