// Saving a figure for a lecturer's slides: a small row of two buttons by each figure (the
// stage's, and a figure the server draws once), “SVG” and “PNG”. The figure is written as it
// is on screen: one SVG of the figure's box, its drawings as nested <svg>s with every style
// the stylesheet gives them written on each element (the file needs no stylesheet), its HTML
// words (a chart's title, a legend) as SVG text where they stand, an HTML figure (step 6's
// head groups and bars) inside a <foreignObject> with its styles written on it. The PNG is that
// SVG drawn on a canvas at twice its size.

import { h, SVGNS } from "./dom.js";

// what the file keeps of each element's computed style
const SVG_STYLE = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray",
                   "stroke-opacity", "stroke-linecap", "stroke-linejoin", "opacity",
                   "font-family", "font-size", "font-weight", "font-style", "text-anchor",
                   "dominant-baseline", "paint-order", "letter-spacing", "visibility"];
const HTML_STYLE = ["display", "position", "box-sizing", "width", "height", "min-width",
                    "max-width", "margin", "padding", "border-top", "border-right",
                    "border-bottom", "border-left", "border-radius", "background-color",
                    "background-image", "color", "font-family", "font-size", "font-weight",
                    "font-style", "line-height", "text-align", "white-space", "flex",
                    "flex-direction", "flex-wrap", "align-items", "justify-content", "row-gap",
                    "column-gap", "grid-template-columns", "vertical-align", "opacity",
                    "overflow", "list-style", "text-decoration"];

const px = (v) => (Math.round(v * 10) / 10).toString();

// `el`'s computed `names` as an inline style, on `copy`
function inline(el, copy, names) {
  const cs = getComputedStyle(el);
  copy.setAttribute("style", names.map((n) => `${n}:${cs.getPropertyValue(n)}`).join(";"));
}

// a copy of `el` (and what it holds) with its styles written on it; what the page does not
// show is left out
function copied(el, names) {
  if (el.classList.contains("figure-save")) return null;      // the save row itself
  if (getComputedStyle(el).display === "none" || el.getAttribute("display") === "none") return null;
  const copy = el.cloneNode(false);
  copy.removeAttribute("class");
  copy.removeAttribute("id");
  inline(el, copy, names);
  if (el.id && el.closest("defs, clipPath")) copy.setAttribute("id", el.id);   // url(#…)
  for (const kid of el.childNodes) {
    if (kid.nodeType === 3) copy.appendChild(kid.cloneNode(false));
    else if (kid.nodeType === 1) { const c = copied(kid, names); if (c) copy.appendChild(c); }
  }
  return copy;
}

// the text nodes of `el` outside its <svg>s that the page shows, with their boxes
function words(el) {
  const out = [];
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.textContent.trim() || n.parentElement.closest("svg, .figure-save")) continue;
    const r = document.createRange();
    r.selectNodeContents(n);
    const box = r.getBoundingClientRect();
    if (box.width && box.height) out.push([n, box]);
  }
  return out;
}

// The figure in `holder` as one SVG document (text): its size is the holder's; each <svg> in it
// where it stands, each of its other words as text, each coloured chip (a legend's) as a
// rectangle. `html`: the holder is an HTML figure, kept whole in a <foreignObject>.
export function figureSvg(holder, html) {
  const at = holder.getBoundingClientRect();
  const W = Math.ceil(Math.max(at.width, holder.scrollWidth)), H = Math.ceil(Math.max(at.height, holder.scrollHeight));
  const doc = document.implementation.createDocument(SVGNS, "svg", null);
  const root = doc.documentElement;
  for (const [k, v] of Object.entries({ width: W, height: H, viewBox: `0 0 ${W} ${H}` })) root.setAttribute(k, v);
  const bg = doc.createElementNS(SVGNS, "rect");
  for (const [k, v] of Object.entries({ width: W, height: H, fill: "#fff" })) bg.setAttribute(k, v);
  root.appendChild(bg);
  if (html) {
    const fo = doc.createElementNS(SVGNS, "foreignObject");
    for (const [k, v] of Object.entries({ width: W, height: H })) fo.setAttribute(k, v);
    const body = copied(holder, HTML_STYLE);
    body.setAttribute("xmlns", "http://www.w3.org/1999/xhtml");
    fo.appendChild(doc.importNode(body, true));
    root.appendChild(fo);
    return new XMLSerializer().serializeToString(doc);
  }
  for (const s of holder.querySelectorAll("svg")) {
    if (s.parentElement.closest("svg")) continue;              // nested: copied with its own
    const b = s.getBoundingClientRect();
    if (!b.width || !b.height) continue;
    const c = copied(s, SVG_STYLE);
    for (const [k, v] of Object.entries({ x: px(b.left - at.left), y: px(b.top - at.top),
                                          width: px(b.width), height: px(b.height) })) c.setAttribute(k, v);
    root.appendChild(doc.importNode(c, true));
  }
  for (const chip of holder.querySelectorAll(".chip")) {           // a legend's colours
    const b = chip.getBoundingClientRect(), cs = getComputedStyle(chip);
    if (!b.width || !b.height) continue;
    const r = doc.createElementNS(SVGNS, "rect");
    for (const [k, v] of Object.entries({ x: px(b.left - at.left), y: px(b.top - at.top), width: px(b.width),
                                          height: px(b.height), fill: cs.backgroundColor,
                                          stroke: cs.borderTopColor, "stroke-width": parseFloat(cs.borderTopWidth) || 0 }))
      r.setAttribute(k, v);
    root.appendChild(r);
  }
  for (const [n, b] of words(holder)) {
    const cs = getComputedStyle(n.parentElement);
    const t = doc.createElementNS(SVGNS, "text");
    const size = parseFloat(cs.fontSize);
    for (const [k, v] of Object.entries({ x: px(b.left - at.left), y: px(b.top - at.top + 0.8 * size) })) t.setAttribute(k, v);
    t.setAttribute("style", `fill:${cs.color};font-family:${cs.fontFamily};font-size:${cs.fontSize};` +
                            `font-weight:${cs.fontWeight};font-style:${cs.fontStyle}`);
    t.textContent = n.textContent.replace(/\s+/g, " ").trim();
    root.appendChild(t);
  }
  return new XMLSerializer().serializeToString(doc);
}

// the SVG text drawn on a canvas at `scale` times its size: a PNG (a Promise of a Blob)
export function svgPng(text, scale = 2) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const c = document.createElement("canvas");
      c.width = Math.ceil(img.width * scale);
      c.height = Math.ceil(img.height * scale);
      const g = c.getContext("2d");
      g.fillStyle = "#fff";
      g.fillRect(0, 0, c.width, c.height);
      g.drawImage(img, 0, 0, c.width, c.height);
      try { c.toBlob((b) => (b ? resolve(b) : reject(new Error("no PNG"))), "image/png"); }
      catch (err) { reject(err); }
    };
    img.onerror = () => reject(new Error("the SVG did not load"));
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  });
}

// hand `blob` to the browser as a file called `name`
export function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// The save row after `anchor` (inside it with `inside`), for the figure `target()` returns
// (`html`: an HTML figure), saved as `name()`.svg / .png; `labels`: the shell's `save`
// ({label, svg, png}). Made once per anchor; later calls give it new labels.
export function saveBar(anchor, target, name, labels, { inside = false, html = false } = {}) {
  let bar = inside ? anchor.querySelector(":scope > .figure-save")
    : (anchor.nextElementSibling && anchor.nextElementSibling.classList.contains("figure-save")
      ? anchor.nextElementSibling : null);
  if (!bar) {
    bar = h("div", "figure-save no-print");
    const say = h("span", "figure-save-label", bar);
    const button = (kind, save) => {
      const b = h("button", "figure-save-btn", bar, kind.toUpperCase());
      b.type = "button";
      b.dataset.kind = kind;
      b.addEventListener("click", () => {
        const text = figureSvg(target(), bar.dataset.html === "1");
        if (save === "svg") download(new Blob([text], { type: "image/svg+xml" }), `${name()}.svg`);
        else svgPng(text).then((b2) => download(b2, `${name()}.png`),
                                (err) => console.warn("PNG failed", err));
      });
      return b;
    };
    button("svg", "svg");
    button("png", "png");
    bar.update = (l) => {
      say.textContent = l.label || "";
      for (const b of bar.querySelectorAll("button")) {
        const words = l[b.dataset.kind] || "";
        b.title = words;
        b.setAttribute("aria-label", words);
      }
    };
    if (inside) anchor.appendChild(bar);
    else anchor.after(bar);
  }
  bar.dataset.html = html ? "1" : "0";
  bar.update(labels || {});
  return bar;
}
