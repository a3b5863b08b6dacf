// DOM helpers every renderer shares. Text goes in with textContent, attributes with
// setAttribute: data never reaches innerHTML (html blocks are autoescaped on the server).

export const SVGNS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export function h(tag, cls, parent, text, attrs) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export function svgText(parent, x, y, text, attrs) {
  const t = svg("text", { x, y, ...(attrs || {}) }, parent);
  t.textContent = text;
  return t;
}

const ICONS = { reset: "M3 3h2v10H3z M13 3 6 8l7 5z", back: "M11 3 4 8l7 5z M12 3h1v10h-1z",
                next: "M5 3l7 5-7 5z M3 3h1v10H3z", play: "M4 2l10 6-10 6z",
                pause: "M4 3h3v10H4z M9 3h3v10H9z" };

export function icon(name) {
  const s = svg("svg", { viewBox: "0 0 16 16", width: "14", height: "14", class: "player-icon",
                         "aria-hidden": "true", focusable: "false" });
  svg("path", { d: ICONS[name], fill: "currentColor" }, s);
  return s;
}

// keys that belong to a focused form control, not to the page
const SKIP_TAGS = ["INPUT", "TEXTAREA", "SELECT", "BUTTON", "A", "SUMMARY"];
const SKIP_ROLES = ["slider", "radio", "tab", "combobox", "listbox", "option", "menuitem",
                    "spinbutton", "textbox", "button"];

export function typingIn(e, tags) {
  const t = e.composedPath ? e.composedPath()[0] : e.target;
  return !!(t && (t.isContentEditable || (tags || SKIP_TAGS).includes(t.tagName) ||
           (t.getAttribute && SKIP_ROLES.includes(t.getAttribute("role")))));
}

// a drawing's width follows its holder's, so that its text stays legible on a phone
export function widthOf(holder, fallback) {
  const w = holder.getBoundingClientRect().width;
  return w > 0 ? Math.round(w) : (fallback || 640);
}

// the width a figure is laid out for: its holder's, kept within [lo, hi]. A figure draws
// itself in CSS pixels for that width (viewBox = pixels, min-width = its width), so that its
// text is drawn at the size the stylesheet gives it, never shrunk: a wider holder scales it
// up (a projector), a narrower one than `lo` scrolls it sideways
export function layoutWidth(holder, lo, hi) {
  const w = holder ? Math.floor(holder.getBoundingClientRect().width) : 0;
  return Math.max(lo, Math.min(hi, w > 0 ? w : hi));
}

// a drawing's width in whole pixels, never a pixel more than it needs (a rounding error
// would make its column scroll)
export const wholeWidth = (w) => Math.ceil(w - 0.05);

// how wide each of `items` ([text class, string, group class?]) is drawn in a figure whose
// svg has the class `svgClass` (measured in `holder` when it is in the page; else estimated,
// 8 px a character)
export function textWidths(holder, svgClass, items) {
  const s = svg("svg", { class: svgClass, width: 1, height: 1, "aria-hidden": "true" });
  s.style.position = "absolute";
  s.style.visibility = "hidden";
  s.style.minWidth = "0";
  s.style.width = "1px";
  if (holder) holder.appendChild(s);
  const out = items.map(([cls, str, group]) => {
    const g = group ? svg("g", { class: group }, s) : s;
    const t = svg("text", { class: cls }, g);
    t.textContent = str;
    let w = 0;
    try { w = s.isConnected ? t.getComputedTextLength() : 0; } catch (err) { w = 0; }
    return w > 0 ? w : 8 * String(str).length;
  });
  s.remove();
  return out;
}

// redraw when the holder's width changes (the charts are laid out for their width); the
// latest `redraw` given for a holder is the one called (it draws the latest frame)
export function refitOnResize(holder, redraw) {
  holder.__kvRedraw = redraw;
  if (holder.__kvResize || typeof ResizeObserver === "undefined") return;
  let last = 0;
  holder.__kvResize = new ResizeObserver((entries) => {
    const w = Math.round(entries[0].contentRect.width);
    if (w && Math.abs(w - last) > 4) { last = w; holder.__kvRedraw(); }
  });
  holder.__kvResize.observe(holder);
}

export function formatNumber(v, lang) {
  try { return Number(v).toLocaleString(lang || "en"); } catch (e) { return String(v); }
}

function overlaps(a, b, pad) {
  return a.x < b.x + b.width + pad && b.x < a.x + a.width + pad &&
         a.y < b.y + b.height + pad && b.y < a.y + a.height + pad;
}

// No two labels on top of each other: `texts` (SVG text elements already in the page, most
// important first) keep their place if it is free; otherwise each is lifted (dy < 0) or
// lowered, a little at a time, up to `tries` times, and hidden if no free place is found
// (the figure's table twin still has every number). `fixed`: boxes already taken.
export function declutter(texts, { dy = -6, tries = 6, pad = 1, fixed = [] } = {}) {
  const placed = fixed.slice();
  for (const t of texts) {
    let box = t.getBBox();
    if (!box.width) continue;              // not laid out (not in the page yet): leave it
    let n = 0;
    while (placed.some((p) => overlaps(box, p, pad)) && n < tries) {
      t.setAttribute("y", String(Number(t.getAttribute("y")) + dy));
      box = t.getBBox();
      n += 1;
    }
    if (placed.some((p) => overlaps(box, p, pad))) t.setAttribute("display", "none");
    else placed.push(box);
  }
  return placed;
}
