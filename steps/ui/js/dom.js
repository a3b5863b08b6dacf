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

// a legend: per [key, label] of `items`, its mark and the label; `cls`: more classes of the
// row. A key `<colour>` is an area: a chip of that colour (`chip-<colour>`: the colour table
// of assets/app.css); a key `<style>:<colour>` is drawn as the figure draws it (a sample in
// its own style, draw/labels.css): `line`, `dashed`, `dotted` (a stretch of line), `dot` (a
// point), `dots` (small points)
export function legendRow(items, cls, parent) {
  const row = h("div", "legend" + (cls ? " " + cls : ""), parent);
  for (const [key, label] of items) {
    const s = h("span", "swatch", row);
    const [style, colour] = key.includes(":") ? key.split(":") : [null, key];
    if (style) s.appendChild(sample(style, colour));
    else h("span", "chip chip-" + colour, s, null, { "aria-hidden": "true" });
    s.appendChild(document.createTextNode(label));
  }
  return row;
}

// a legend's sample of a line or a point, in the style and colour the figure draws it
function sample(style, colour) {
  const m = svg("svg", { class: `mark mark-${style} ink-${colour}`, viewBox: "0 0 28 12", width: 28,
                         height: 12, "aria-hidden": "true", focusable: "false" });
  if (style === "dot") svg("circle", { cx: 14, cy: 6, r: 5 }, m);
  else if (style === "dots") [6, 14, 22].forEach((cx) => svg("circle", { cx, cy: 6, r: 2.5 }, m));
  else svg("line", { x1: 1, y1: 6, x2: 27, y2: 6 }, m);
  return m;
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

// the width a figure is laid out for: its box's (ctx.box, which the stage measures), kept
// within [lo, hi]; `hi` while the box has no width yet (the stage draws again once the page
// shows it). A figure draws itself in CSS pixels for that width (viewBox = pixels, min-width =
// its width), so that its text is drawn at the size the stylesheet gives it, never shrunk: a
// wider box scales it up (a projector), a narrower one than `lo` scrolls it sideways
export function layoutWidth(box, lo, hi) {
  const w = box ? Math.floor(box.width) : 0;
  return Math.max(lo, Math.min(hi, w > 0 ? w : hi));
}

// a drawing's width in whole pixels, never a pixel more than it needs (a rounding error
// would make its column scroll)
export const wholeWidth = (w) => Math.ceil(w - 0.05);

// Measuring text as a figure draws it. The stylesheet sizes a figure's text by the classes of
// its <svg> and of the text (and, presenting, by the chart font present.js fitChartText sets
// on the holder), so a text is measured where the figure puts it: in the figure's own <svg>
// once that is in the page, or in a hidden <svg> of the figure's class put into its holder.
function hiddenSvg(holder, svgClass) {
  const s = svg("svg", { class: svgClass || "", width: 1, height: 1, "aria-hidden": "true" });
  s.style.position = "absolute";
  s.style.visibility = "hidden";
  s.style.minWidth = "0";
  s.style.width = "1px";
  if (holder) holder.appendChild(s);
  return s;
}

// how long the text element `t` is drawn: measured once it is in the page, else estimated,
// `perChar` (7 px) a character
export function textLength(t, perChar) {
  let w = 0;
  try { w = t.isConnected ? t.getComputedTextLength() : 0; } catch (err) { w = 0; }
  return w > 0 ? w : (perChar || 7) * t.textContent.length;
}

// how wide each of `items` ([text class, string, group class?]) is drawn: in a hidden <svg> of
// class `svgClass` in `holder`, or, without `svgClass`, in `holder` itself (a figure's <svg>);
// estimated, 8 px a character, where it cannot be measured (not in the page)
export function textWidths(holder, svgClass, items) {
  const s = svgClass ? hiddenSvg(holder, svgClass) : holder;
  const made = [];
  const texts = items.map(([cls, str, group]) => {
    const g = group ? svg("g", { class: group }, s) : s;
    const t = svg("text", { class: cls }, g);
    made.push(group ? g : t);
    t.textContent = str;
    return t;
  });
  const out = texts.map((t) => textLength(t, 8));   // all in, then all read: one layout
  if (svgClass) s.remove();
  else made.forEach((e) => e.remove());
  return out;
}

// the size (CSS px, in the drawing's own units) that text of class `cls` is drawn at: in the
// <svg> `s`, or, with `svgClass`, in a hidden <svg> of that class in the holder `s`; `fallback`
// (12) where it cannot be measured (not in the page)
export function textSize(s, cls, svgClass, fallback) {
  const where = svgClass ? hiddenSvg(s, svgClass) : s;
  const t = svg("text", { class: cls || "" }, where);
  t.textContent = "0";
  const px = where.isConnected ? parseFloat(getComputedStyle(t).fontSize) : 0;
  (svgClass ? where : t).remove();
  return px > 0 ? px : (fallback || 12);
}

// The box a renderer lays its figure out for when the page is projected (the stage's ctx.box
// with `projected`: the projected page gives the figure a height of its own), with `em`, the
// size its text of class `textClass` is drawn at in an <svg> of class `svgClass` there; null on
// the learners' page and in the speaker view, which lay figures out for their width. A renderer
// that lays out for it draws at scale 1 (viewBox = the box), so its text shows at the size the
// stylesheet gives it.
export function projectedBox(holder, ctx, svgClass, textClass) {
  const box = ctx && ctx.box;
  if (!box || !box.projected) return null;
  return { width: box.width, height: box.height, em: textSize(holder, textClass, svgClass) };
}

// a number as the server's words write it (Babel): thousands grouped from four digits on in
// every language (Polish “4 096”, where the browser's own rule would write “4096”)
export function formatNumber(v, lang) {
  try { return Number(v).toLocaleString(lang || "en", { useGrouping: "always" }); }
  catch (e) { return String(v); }
}

// whether the boxes `a` and `b` ({x, y, width, height}) come within `pad` of each other
export function overlaps(a, b, pad) {
  pad = pad || 0;
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

// The figure's parts the answer talks about (QuestionState.points), marked: every element under
// `root` whose `data-point` (names, separated by spaces, which a renderer or a figure's template
// writes) names one of `points` gets the class `kv-point`; an SVG mark gets, behind it, a
// highlighter's band around its box (`point-glow`), an HTML one an outline (app.css). `fresh`:
// the answer has just come out, so the marks pulse a few times (`kv-point-pulse`; not under
// reduced motion: app.css). Marks of earlier points are taken away first. Returns how many
// elements are marked.
export function markPoints(root, points, fresh) {
  if (!root || !root.querySelectorAll) return 0;
  root.querySelectorAll(".point-glow").forEach((g) => g.remove());
  root.querySelectorAll(".kv-point").forEach((e) => e.classList.remove("kv-point", "kv-point-pulse"));
  const want = new Set(points || []);
  if (!want.size) return 0;
  const hit = [...root.querySelectorAll("[data-point]")]
    .filter((e) => e.getAttribute("data-point").split(/\s+/).some((p) => want.has(p)));
  for (const e of hit) {
    e.classList.add("kv-point");
    if (fresh) e.classList.add("kv-point-pulse");
    if (!(e instanceof SVGGraphicsElement) || e instanceof SVGSVGElement || !e.isConnected) continue;
    let b;
    try { b = e.getBBox(); } catch (err) { continue; }
    if (!(b.width > 0 || b.height > 0)) continue;
    const pad = 4;
    const glow = svg("rect", { x: (b.x - pad).toFixed(1), y: (b.y - pad).toFixed(1),
                               width: (b.width + 2 * pad).toFixed(1), height: (b.height + 2 * pad).toFixed(1),
                               rx: 6, class: "point-glow" + (fresh ? " kv-point-pulse" : ""),
                               "aria-hidden": "true" });
    if (e.getAttribute("transform")) glow.setAttribute("transform", e.getAttribute("transform"));
    e.parentNode.insertBefore(glow, e);
  }
  return hit.length;
}
