// DOM helpers every renderer shares. Text goes in with textContent, attributes with
// setAttribute: data never reaches innerHTML (html blocks are autoescaped on the server).

export const SVGNS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export function h(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
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

// redraw when the holder's width changes (the charts are laid out for their width)
export function refitOnResize(holder, redraw) {
  if (holder.__kvResize || typeof ResizeObserver === "undefined") return;
  let last = 0;
  holder.__kvResize = new ResizeObserver((entries) => {
    const w = Math.round(entries[0].contentRect.width);
    if (w && Math.abs(w - last) > 4) { last = w; redraw(); }
  });
  holder.__kvResize.observe(holder);
}

export function formatNumber(v, lang) {
  try { return Number(v).toLocaleString(lang || "en"); } catch (e) { return String(v); }
}
