// Labels clear of every line, point and other label, for every renderer. A renderer draws its
// lines, points and fixed texts (ticks, titles) first, then hands its labels, most important
// first, to `placeLabels` with the places each may go (`spots`, in order of preference; the
// helpers below make them: `around` a point, `besideV`/`besideH` a line, `facing` a curve,
// `inside` a region, `nearestFirst`). Each label takes the first place where its box, a halo's
// width around it, touches no stroked line or outline, no point and no text already there,
// inside its bounds. A label with no such place is set on two or three lines (`split`),
// turned to read upwards (`turn`) or said shorter (`alts`) and tried again; then in a gap of
// its own reference line (`inline`: the line is interrupted behind it); then farther from
// what it names, with a leader line to it (`near`, `far`); then at any of these places where
// only reference lines that may be interrupted (`soft`) cross it, and those are interrupted
// behind it; an `optional` one is then left out (the figure's table twin has every number).
// Where some labels find no place, the placing starts again with those first. A label that
// still has none takes the place it covers least on.
//
// What a label keeps clear of is read from the drawing (`obstacles`): a stroked <line>,
// <polyline>, <path>, <circle>, <rect>... is its stroke (sampled along it), half its width each
// side; a filled circle or a small filled mark (at most 24 px each way: a dot, a diamond) is
// its box. Not obstacles: the light grid (class `grid`: the halo covers it), white strokes (the
// gaps between cells, a point's rim), strike-throughs (class `*strike*`) and filled areas (a
// region, an area chart). Every placed label gets class `halo` (labels.css: a white outline
// behind its letters) and is positioned by a translation of its own box (any anchor, any
// number of lines, turned or not). tests/browser/js/js_units.js `crossings` checks the result
// on screen, independently of this.

import { svg } from "../dom.js";
import { shapeRuns } from "./path.js";

const WHITE = /^rgba?\(255, 255, 255(, 1)?\)$/i;     // white, as computed styles give it

function shown(e, root) {
  for (let a = e; a && a !== root && a.nodeType === 1; a = a.parentNode) {
    if (a.getAttribute("display") === "none") return false;
  }
  const cs = getComputedStyle(e);
  return cs.display !== "none" && cs.visibility !== "hidden";
}

// the matrix from `e`'s user space to the drawing `s`'s
function toSvg(s, e) {
  const a = s.getScreenCTM(), b = e.getScreenCTM();
  return a && b ? a.inverse().multiply(b) : null;
}

function apply(m, x, y) {
  return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
}

// `e`'s box in the drawing's units (its own box, turned by its transforms)
function boxIn(s, e) {
  let b;
  try { b = e.getBBox(); } catch (err) { return null; }
  if (!b || (!b.width && !b.height)) return null;
  const m = toSvg(s, e);
  if (!m) return { x: b.x, y: b.y, width: b.width, height: b.height };
  const c = [apply(m, b.x, b.y), apply(m, b.x + b.width, b.y), apply(m, b.x, b.y + b.height),
             apply(m, b.x + b.width, b.y + b.height)];
  const xs = c.map((p) => p[0]), ys = c.map((p) => p[1]);
  const x = Math.min(...xs), y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

// What labels must keep clear of in the drawing `s` (in the page): `lines` ({pts, r, box}:
// a stroke's points in order and its half width), `points` and `texts` (boxes); `except`: texts
// that are not obstacles (the labels about to be placed); `soft`: a selector of the straight
// lines that may be interrupted behind a label
function obstacles(s, { except = new Set(), soft = null } = {}) {
  const lines = [], points = [], texts = [];
  if (!s.isConnected) return { lines, points, texts };
  const scale = (() => { const m = s.getScreenCTM(); return m ? Math.hypot(m.a, m.b) || 1 : 1; })();
  for (const e of s.querySelectorAll("line, polyline, polygon, path, rect, circle, ellipse")) {
    if (e.closest("defs, clipPath, marker, pattern, mask, symbol") || !shown(e, s) ||
        /strike/.test(e.getAttribute("class") || "")) continue;
    const cs = getComputedStyle(e);
    const m = toSvg(s, e);
    if (!m) continue;
    const k = Math.hypot(m.a, m.b) || 1;
    const sw = (parseFloat(cs.strokeWidth) || 0) * k;
    const stroked = cs.stroke !== "none" && !cs.stroke.startsWith("url") && sw > 0 &&
      parseFloat(cs.strokeOpacity) > 0 && !WHITE.test(cs.stroke) && !e.classList.contains("grid");
    const filled = cs.fill !== "none" && parseFloat(cs.fillOpacity) > 0 && !WHITE.test(cs.fill);
    const tag = e.tagName.toLowerCase();
    const box = boxIn(s, e);
    if (!box) continue;
    const small = box.width * scale <= 24 && box.height * scale <= 24;
    if (filled && (tag === "circle" || tag === "ellipse" || (small && tag !== "rect" && tag !== "line"))) {
      const r = stroked ? sw / 2 : 0;
      points.push({ x: box.x - r, y: box.y - r, width: box.width + 2 * r, height: box.height + 2 * r });
      continue;
    }
    if (!stroked) continue;
    const num = (a) => parseFloat(e.getAttribute(a)) || 0;
    let own;                                  // one run of points per piece, in e's units
    if (tag === "line") own = [[[num("x1"), num("y1")], [num("x2"), num("y2")]]];
    else if (tag === "rect") {
      const [x, y, w, h] = ["x", "y", "width", "height"].map(num);
      own = [[[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]];
    } else if (tag === "circle" || tag === "ellipse") {
      const cx = num("cx"), cy = num("cy"), rx = num(tag === "circle" ? "r" : "rx"),
            ry = num(tag === "circle" ? "r" : "ry");
      const n = Math.max(8, Math.min(64, Math.ceil(2 * Math.PI * Math.max(rx, ry) * k / 3)));
      own = [Array.from({ length: n + 1 }, (_, i) => [cx + rx * Math.cos(2 * Math.PI * i / n),
                                                      cy + ry * Math.sin(2 * Math.PI * i / n)])];
    } else own = shapeRuns(e, 3 / k);
    const runs = own.map((run) => run.map(([x, y]) => apply(m, x, y)));
    const isSoft = !!soft && (tag === "line" || tag === "path") && e.matches(soft);
    for (const run of runs) lines.push(lineOf(run, sw / 2, e, isSoft, sw));
  }
  for (const t of s.querySelectorAll("text")) {
    if (except.has(t) || !t.textContent.trim() || !shown(t, s)) continue;
    const b = boxIn(s, t);
    if (b && b.width) texts.push(b);
  }
  return { lines, points, texts };
}

const CHUNK = 16;

// the box of the points run[i..j), grown by `g` each way
function boxOf(run, i, j, g) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let k = i; k < j; k++) {
    const [x, y] = run[k];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return { x: x0 - g, y: y0 - g, width: x1 - x0 + 2 * g, height: y1 - y0 + 2 * g };
}

// A line labels keep clear of: its points `pts` in order, its half width `r`, its element, whether
// it may be interrupted (`soft`), its box grown by `grow`, and that box per piece of CHUNK
// segments (`chunks`: a label near one end of a long curve is checked against that end only)
function lineOf(pts, r, el, soft, grow) {
  const chunks = [];
  for (let i = 0; i < pts.length - 1; i += CHUNK) {
    const j = Math.min(pts.length, i + CHUNK + 1);
    chunks.push({ i, j, box: boxOf(pts, i, j, grow) });
  }
  return { pts, r, el, soft, box: boxOf(pts, 0, pts.length, grow), chunks };
}

// whether a segment of the line `ln` (with `r` around it) meets the box `box` (with `pad`)
function lineHits(ln, box, r, pad) {
  const { pts } = ln;
  for (const c of ln.chunks) {
    if (!overlap(box, c.box, pad)) continue;
    for (let k = c.i + 1; k < c.j; k++) {
      if (segmentHits(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1], r, box)) return true;
    }
  }
  return false;
}

function overlap(a, b, pad) {
  pad = pad || 0;
  return a.x < b.x + b.width + pad && b.x < a.x + a.width + pad &&
         a.y < b.y + b.height + pad && b.y < a.y + a.height + pad;
}

// whether the segment a–b passes within `r` of the box `b`
function segmentHits(ax, ay, bx, by, r, b) {
  const x0 = b.x - r, x1 = b.x + b.width + r, y0 = b.y - r, y1 = b.y + b.height + r;
  const dx = bx - ax, dy = by - ay;
  // (Liang–Barsky, one side of the box at a time, written out: this runs millions of times)
  let t0 = 0, t1 = 1;
  const clip = (p, q) => {
    if (p === 0) return q >= 0;
    const u = q / p;
    if (p < 0) { if (u > t1) return false; if (u > t0) t0 = u; }
    else { if (u < t0) return false; if (u < t1) t1 = u; }
    return true;
  };
  return clip(-dx, ax - x0) && clip(dx, x1 - ax) && clip(-dy, ay - y0) && clip(dy, y1 - ay) &&
    t0 <= t1;
}

// what the box (with `pad` around it) covers in `ob`, weighed: a text or a point 10, a line
// 3, a line that may be interrupted (`soft`) 1 (0 where `softFree`); and the soft lines it
// crosses (not counting the lines of `mine`, a set of elements)
const TEXT = 10, LINE = 3, SOFT = 1;
function hits(box, ob, pad, mine, softFree) {
  let n = 0;
  const soft = [];
  for (const p of ob.points) if (overlap(box, p, pad)) n += TEXT;
  for (const t of ob.texts) if (overlap(box, t, pad)) n += TEXT;
  for (const ln of ob.lines) {
    if ((mine && mine.has(ln.el)) || !overlap(box, ln.box, pad)) continue;
    if (lineHits(ln, box, ln.r + pad, 0)) {
      if (ln.soft) { n += softFree ? 0 : SOFT; soft.push(ln); } else n += LINE;
    }
  }
  return { n, soft };
}

function within(box, b) {
  return !b || (box.x >= b.x - 0.01 && box.y >= b.y - 0.01 && box.x + box.width <= b.x + b.width + 0.01 &&
                box.y + box.height <= b.y + b.height + 0.01);
}

// -- places ------------------------------------------------------------------------------------
// A place is a function of the label's width and height that gives its box's top-left corner.

// beside the point (x, y) at `gap` (its radius and a little): `sides` among right, left,
// above, below, and the corners above-right, below-right, above-left, below-left
export function around(x, y, gap, sides) {
  const g = gap, d = gap * 0.72;
  const at = {
    right: (w, h) => [x + g, y - h / 2], left: (w, h) => [x - g - w, y - h / 2],
    above: (w, h) => [x - w / 2, y - g - h], below: (w, h) => [x - w / 2, y + g],
    "above-right": (w, h) => [x + d, y - d - h], "below-right": (w, h) => [x + d, y + d],
    "above-left": (w, h) => [x - d - w, y - d - h], "below-left": (w, h) => [x - d - w, y + d],
  };
  return (sides || ["right", "left", "above", "below", "above-right", "below-right", "above-left",
                    "below-left"]).map((s) => at[s]);
}

// beside a vertical line at x, its label's middle (`edge` "bottom": its bottom, whatever
// its height, one line or three) at each of `ys` in turn, on `sides` ("right", "left") at `gap`
export function besideV(x, ys, gap, sides, edge = "middle") {
  const out = [];
  const k = edge === "bottom" ? 1 : 0.5;
  for (const y of ys) for (const side of sides || ["right", "left"]) {
    out.push(side === "right" ? (w, h) => [x + gap, y - k * h] : (w, h) => [x - gap - w, y - k * h]);
  }
  return out;
}

// above or below a horizontal line at y, starting at each of `xs` in turn (a number: the
// label's left edge; ["end", x]: its right edge), on `sides` ("above", "below") at `gap`
export function besideH(y, xs, gap, sides) {
  const out = [];
  for (const x of xs) for (const side of sides || ["above", "below"]) {
    const left = Array.isArray(x) ? (w) => x[1] - w : () => x;
    out.push(side === "above" ? (w, h) => [left(w), y - gap - h] : (w, h) => [left(w), y + gap]);
  }
  return out;
}

// a place facing (x, y) from the direction (nx, ny) (a unit vector) at `d`: the label's side
// nearest the point `d` away from it (beside a curve: along its normal)
export function facing(x, y, nx, ny, d) {
  return (w, h) => {
    const k = d + Math.abs(nx) * w / 2 + Math.abs(ny) * h / 2;
    return [x + nx * k - w / 2, y + ny * k - h / 2];
  };
}

// every place inside the box `b`, row by row from its top (or bottom: `fromBottom`), each row
// from its left (or right: `fromRight`), `step` apart; a label wider than `b` at its left edge
export function inside(b, step, { fromBottom = false, fromRight = false } = {}) {
  const out = [];
  const rows = Math.max(1, Math.floor(b.height / step));
  const cols = Math.max(1, Math.floor(b.width / step));
  for (let i = 0; i <= rows; i++) for (let j = 0; j <= cols; j++) {
    out.push((w, h) => {
      const fx = j / cols, fy = i / rows;
      const x = b.x + Math.max(0, b.width - w) * (fromRight ? 1 - fx : fx);
      const y = b.y + Math.max(0, b.height - h) * (fromBottom ? 1 - fy : fy);
      return [x, y];
    });
  }
  return out;
}

// every place inside the box `b`, `step` apart, the nearest to (x, y) first
export function nearestFirst(b, x, y, step) {
  const out = [];
  const rows = Math.max(1, Math.round(b.height / step)), cols = Math.max(1, Math.round(b.width / step));
  for (let i = 0; i <= rows; i++) for (let j = 0; j <= cols; j++) {
    const cx = b.x + b.width * j / cols, cy = b.y + b.height * i / rows;
    out.push([Math.hypot(cx - x, cy - y), (w, h) => [cx - w / 2, cy - h / 2]]);
  }
  return out.sort((a, c) => a[0] - c[0]).map((o) => o[1]);
}

// the nearest point of box `b` to (x, y)
function nearest(b, x, y) {
  return [Math.max(b.x, Math.min(b.x + b.width, x)), Math.max(b.y, Math.min(b.y + b.height, y))];
}

// a text on `n` lines (two or three), split at the spaces that make its longest line the
// shortest (false: it has too few spaces)
function inLines(t, n) {
  const str = t.textContent;
  const spaces = [...str].map((c, i) => (c === " " ? i : -1)).filter((i) => i > 0);
  if (spaces.length < n - 1) return false;
  let cut = null, worst = Infinity;
  const tryCuts = (cuts) => {
    const ends = [...cuts, str.length], starts = [0, ...cuts.map((c) => c + 1)];
    const longest = Math.max(...ends.map((e, k) => e - starts[k]));
    if (longest < worst) { worst = longest; cut = cuts; }
  };
  for (let i = 0; i < spaces.length; i++) {
    if (n === 2) tryCuts([spaces[i]]);
    else for (let j = i + 1; j < spaces.length; j++) tryCuts([spaces[i], spaces[j]]);
  }
  const em = parseFloat(getComputedStyle(t).fontSize) || 12;
  t.textContent = "";
  // (each line but the last keeps its space: the text reads as before)
  const starts = [0, ...cut.map((c) => c + 1)], ends = [...cut.map((c) => c + 1), str.length];
  starts.forEach((st, k) => {
    const span = svg("tspan", { x: 0, dy: k ? (1.2 * em).toFixed(1) : 0 }, t);
    span.textContent = str.slice(st, ends[k]);
  });
  return true;
}

// Place `items` in `s` (an <svg> in the page), in order: see the top of this file. An item:
//   t        a <text> in `s` (one already in lines of its own, <tspan>s, is kept so)
//   spots    places, in order of preference
//   split    may go on two or three lines (tried at its spots after one line)
//   turn     may be turned to read upwards (beside an upright line, in a tall narrow region),
//            at `turnSpots` or its spots, after one line, two and three
//   alts     shorter words for it (the same thing said shorter), tried in all these forms
//            after its own, and with a leader (the shortest)
//   near     [x, y, r]: what it names, where a leader line starts (r > 0: a point, with
//            rings of places around it tried next, unless `rings` is false)
//   far      places farther away, tried with a leader from `near`
//   inline   places on its own line (`line`: a straight <line> or a path `interrupt` made),
//            which is interrupted behind it (a reference line named in its gap), tried after
//            its spots
//   scan     false: not any place in its bounds (else tried last, the nearest `near` first,
//            its leader first crossing no line, then only reference lines: `soft`)
//   across   its leader may cross any line (the arcs' labels over the arcs), after none
//   optional may be left out where it finds no clear place
//   bounds   the box it stays in (else `bounds`)
// `pad`: the room kept around a label (its halo); `soft`: a selector of straight reference
// lines that may be interrupted behind a label that finds no clear place. Where some labels
// find no clear place, the placing starts again with those first (up to twice), and the
// order that leaves the fewest without one is kept. Returns the items that found no clear
// place, each set where it covers least (texts and points weigh most, soft lines least).
export function placeLabels(s, items, opts = {}) {
  if (!s.isConnected || !items.length) return [];
  for (const it of items) {
    if (it.words === undefined) { it.words = it.t.textContent; it.given = !!it.t.querySelector("tspan"); }
  }
  let order = items, best = null;
  for (let round = 0; round < 3; round++) {
    const run = placeOnce(s, order, opts);
    if (!run.failed.length) return [];
    // (fewest without a place first, then the least they cover)
    const score = run.failed.length * 1e4 + run.cover;
    if (!best || score < best.score) best = { score, order };
    run.undo();
    order = [...run.failed, ...order.filter((it) => !run.failed.includes(it))];
  }
  return placeOnce(s, best.order, opts).failed;
}

function placeOnce(s, items, { bounds = null, pad = 2, step = 10, soft = null } = {}) {
  const failed = [], made = [], swapped = [];
  let cover = 0;
  const undo = () => {
    made.forEach((e) => e.remove());
    swapped.reverse().forEach((e) => { if (e.isConnected) e.replaceWith(e.__was); });
  };
  const ob = obstacles(s, { except: new Set(items.map((i) => i.t)), soft });
  for (const it of items) {
    const t = it.t, str = it.words;
    const given = it.given;
    t.classList.add("halo");
    t.setAttribute("x", 0);
    t.setAttribute("y", 0);
    t.removeAttribute("transform");
    t.removeAttribute("display");
    const b = it.bounds !== undefined ? it.bounds : bounds;
    // its forms ({v, n, turned}): its words (v 0) or a shorter variant (`alts`), on n lines,
    // turned upwards or not
    const words = [str, ...(it.alts || [])];
    const lines = (f) => {
      if (given) return f.n === 1 && !f.v;
      if (f.v >= words.length) return false;
      t.textContent = words[f.v];
      return f.n === 1 || inLines(t, f.n);
    };
    let best = null;
    // the first of `spots` where the label, in form `f`, covers nothing and its leader from
    // `leader` crosses no text or point (and, unless `lax`, no line)
    const tryAll = (spots, leader, f, lax, softFree) => {
      let own;
      try { own = t.getBBox(); } catch (err) { return null; }
      if (!own.width) return null;
      if (f.turned) own = { x: own.x, y: own.y, width: own.height, height: own.width, turned: own };
      for (const spot of spots) {
        let [left, top] = spot(own.width, own.height);
        let k = 0;
        if (b) {                            // kept inside its bounds; too large: a fault
          left = Math.max(b.x, Math.min(b.x + b.width - own.width, left));
          top = Math.max(b.y, Math.min(b.y + b.height - own.height, top));
          if (own.width > b.width + 0.01 || own.height > b.height + 0.01) k += TEXT;
        }
        const box = { x: left, y: top, width: own.width, height: own.height };
        const h = hits(box, ob, pad, mineSet, softFree);
        k += h.n;
        let line = null;
        if (leader && (k === 0 || !best || k < best.k)) {   // from what it names to the box
          const [x, y, r] = leader;
          const [nx, ny] = nearest(box, x, y);
          const dist = Math.hypot(nx - x, ny - y);
          if (dist > r + 4) {
            const ux = (nx - x) / dist, uy = (ny - y) / dist;
            line = [x + ux * (r + 1), y + uy * (r + 1), nx - ux * 2, ny - uy * 2];
            for (const q of ob.texts) if (segmentHits(...line, 0.75 + pad, q)) k += TEXT;
            for (const q of ob.points) {        // (not the point it names)
              const mine = x >= q.x && x <= q.x + q.width && y >= q.y && y <= q.y + q.height;
              if (!mine && segmentHits(...line, 0.5, q)) k += TEXT;
            }
            // (lax: across reference lines, and across any line where the item allows it)
            const lb = { x: Math.min(line[0], line[2]), y: Math.min(line[1], line[3]),
                         width: Math.abs(line[2] - line[0]), height: Math.abs(line[3] - line[1]) };
            for (const ln of ob.lines) {
              if ((lax && (ln.soft || it.across)) || !overlap(lb, ln.box, 0)) continue;
              found: for (const c of ln.chunks) {
                if (!overlap(lb, c.box, 0)) continue;
                for (let j = c.i + 1; j < c.j; j++) {
                  if (crosses(line, ln.pts[j - 1], ln.pts[j])) { k += SOFT; break found; }
                }
              }
            }
          }
        }
        if (!best || k < best.k) best = { k, box, own, line, f, soft: h.soft, inline: !!mineSet };
        if (k === 0) return { box, own, line, f, soft: softFree ? h.soft : [] };
      }
      return null;
    };
    const rings = () => {                  // farther out from a point, with a leader
      const [x, y, r] = it.near, out = [];
      for (let k = 1; k <= 6; k++) {
        for (let a = 0; a < 16; a++) {
          const c = Math.cos(a * Math.PI / 8), sn = Math.sin(a * Math.PI / 8), d = r + 4 + k * step;
          out.push((w, h) => [x + c * d + (c - 1) * w / 2, y + sn * d + (sn - 1) * h / 2]);
        }
      }
      return out;
    };
    const spots = it.spots || [];
    const F = (v, n, turned) => ({ v, n, turned: !!turned });
    const tries = [];
    // next to what it names: its words, then each shorter variant; on a line, on two, turned
    for (let v = 0; v < words.length; v++) {
      tries.push([spots, null, F(v, 1)], [spots, null, F(v, 2)], [spots, null, F(v, 3)]);
      if (it.turn) {
        for (const n of [1, 2, 3]) tries.push([it.turnSpots || spots, null, F(v, n, true)]);
      }
      if (it.inline && it.line) tries.push([it.inline, null, F(v, 1), false, true], [it.inline, null, F(v, 2), false, true]);
    }
    if (it.near) {                        // farther, with a leader: its shortest words
      const v = words.length - 1;
      if (it.near[2] > 0 && it.rings !== false) tries.push([rings(), it.near, F(v, 1)], [rings(), it.near, F(v, 2)]);
      if (it.far) {
        tries.push([it.far, it.near, F(v, 1)], [it.far, it.near, F(v, 2)], [it.far, it.near, F(v, 1), true],
                   [it.far, it.near, F(v, 2), true]);
      }
      if (b && it.scan !== false) {
        const scan = nearestFirst(b, it.near[0], it.near[1], step);
        tries.push([scan, it.near, F(v, 1)], [scan, it.near, F(v, 2)], [scan, it.near, F(v, 1), true],
                   [scan, it.near, F(v, 2), true]);
      }
    }
    // last, all of these again where only reference lines (`soft`) cross it: they are
    // interrupted behind it
    if (soft) tries.push(...tries.map(([where, leader, f, , inline]) => [where, leader, f, true, inline, true]));
    let got = null, mineSet = null;
    for (const [where, leader, f, lax, inline, softFree] of tries) {
      if ((f.n > 1 && !it.split) || !where.length || !lines(f)) continue;
      mineSet = inline ? new Set([it.line]) : null;
      got = tryAll(where, leader, f, lax, softFree);
      if (got) { got.inline = inline; break; }
    }
    mineSet = null;
    if (!got && it.optional) { lines(F(0, 1)); t.setAttribute("display", "none"); continue; }
    let cut = got ? got.soft.concat(got.inline ? ob.lines.filter((ln) => ln.el === it.line) : []) : [];
    if (!got) {
      if (!best) { lines(F(0, 1)); failed.push(it); cover += 100; continue; }
      lines(best.f);
      got = best;
      // covering nothing but soft lines: those are interrupted behind it; else a failure
      if (best.k === best.soft.length * SOFT) {
        cut = best.soft.concat(best.inline ? ob.lines.filter((ln) => ln.el === it.line) : []);
      } else { failed.push(it); cover += best.k; }
    }
    const { box, own, line } = got;
    const o = own.turned;
    t.setAttribute("transform", o
      ? `translate(${(box.x - o.y).toFixed(1)} ${(box.y + o.x + o.width).toFixed(1)}) rotate(-90)`
      : `translate(${(box.x - own.x).toFixed(1)} ${(box.y - own.y).toFixed(1)})`);
    const mine = { x: box.x, y: box.y, width: box.width, height: box.height };
    ob.texts.push(mine);
    for (const el of new Set(cut.map((ln) => ln.el))) {       // its own or soft lines, cut
      const was = ob.lines.filter((ln) => ln.el === el);
      const r = was[0].r;
      const pieces = interrupt([el], [mine], pad + r + 1);
      if (pieces.length) swapped.push(pieces[0].el);
      ob.lines = ob.lines.filter((ln) => ln.el !== el).concat(
        pieces.map((q) => lineOf([[q.x1, q.y1], [q.x2, q.y2]], r, q.el, was[0].soft, r + 1)));
    }
    if (line) {
      const l = svg("line", { x1: line[0].toFixed(1), y1: line[1].toFixed(1), x2: line[2].toFixed(1),
                              y2: line[3].toFixed(1), class: "leader" });
      if (t.parentNode === s) s.insertBefore(l, t);
      else s.appendChild(l);
      made.push(l);
      ob.lines.push(lineOf([[line[0], line[1]], [line[2], line[3]]], 0.75, l, false, 1));
    }
  }
  return { failed, cover, undo };
}

// whether the segment `l` ([x1, y1, x2, y2]) crosses the segment p–q
function crosses(l, p, q) {
  const ex = l[2] - l[0], ey = l[3] - l[1], fx = q[0] - p[0], fy = q[1] - p[1];
  const d1 = ex * (p[1] - l[1]) - ey * (p[0] - l[0]), d2 = ex * (q[1] - l[1]) - ey * (q[0] - l[0]);
  const d3 = fx * (l[1] - p[1]) - fy * (l[0] - p[0]), d4 = fx * (l[3] - p[1]) - fy * (l[2] - p[0]);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

// Straight lines interrupted behind labels, as a halo would hide them: each of `lines`
// (upright or level <line>s, or the paths this made of them, in the drawing's units: reference
// lines such as a GPU's memory) that runs through one of `boxes` (labels' boxes) is cut there,
// `pad` clear of it on each side. A line cut becomes one <path> of its pieces, with its class
// (one element still). Returns the pieces ({el, x1, y1, x2, y2}) of the lines it cut.
function interrupt(lines, boxes, pad) {
  pad = pad === undefined ? 2 : pad;
  const out = [];
  for (const ln of lines) {
    let parts;
    if (ln.tagName.toLowerCase() === "line") {
      parts = [["x1", "y1", "x2", "y2"].map((a) => parseFloat(ln.getAttribute(a)) || 0)];
    } else {
      const n = (ln.getAttribute("d") || "").match(/-?[\d.]+/g) || [];
      parts = [];
      for (let i = 0; i + 3 < n.length; i += 4) parts.push(n.slice(i, i + 4).map(Number));
    }
    let cut = false;
    for (const b of boxes) {
      const bb = { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad };
      parts = parts.flatMap(([x1, y1, x2, y2]) => {
        if (Math.abs(x1 - x2) < 0.01 && x1 > bb.x && x1 < bb.x + bb.width) {          // upright
          const [lo, hi] = [Math.min(y1, y2), Math.max(y1, y2)];
          if (hi <= bb.y || lo >= bb.y + bb.height) return [[x1, y1, x2, y2]];
          cut = true;
          return [[x1, lo, x1, bb.y], [x1, bb.y + bb.height, x1, hi]].filter((q) => q[3] - q[1] > 0.5);
        }
        if (Math.abs(y1 - y2) < 0.01 && y1 > bb.y && y1 < bb.y + bb.height) {        // level
          const [lo, hi] = [Math.min(x1, x2), Math.max(x1, x2)];
          if (hi <= bb.x || lo >= bb.x + bb.width) return [[x1, y1, x2, y2]];
          cut = true;
          return [[lo, y1, bb.x, y1], [bb.x + bb.width, y1, hi, y1]].filter((q) => q[2] - q[0] > 0.5);
        }
        return [[x1, y1, x2, y2]];
      });
    }
    if (!cut) continue;
    const path = svg("path", { d: parts.map((q) => `M ${q[0].toFixed(1)} ${q[1].toFixed(1)} L ${q[2].toFixed(1)} ${q[3].toFixed(1)}`).join(" ") });
    for (const at of ln.attributes) {
      if (!["x1", "y1", "x2", "y2", "d"].includes(at.name)) path.setAttribute(at.name, at.value);
    }
    path.__was = ln.__was || ln;
    ln.replaceWith(path);
    for (const q of parts) out.push({ el: path, x1: q[0], y1: q[1], x2: q[2], y2: q[3] });
  }
  return out;
}
