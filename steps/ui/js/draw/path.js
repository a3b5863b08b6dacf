// The points along a drawn line, read from its own attributes instead of asked of the browser
// point by point: `getPointAtLength` walks the path from its start at every call, so sampling a
// figure's curves every few pixels that way cost most of a step 1 frame's drawing (about
// 150 ms of a 200 ms frame, Chromium's profiler, 2026-12-07). A straight piece is its two ends,
// exactly; a Bézier curve is evaluated at points about `step` apart (the length of its control
// polygon divided by `step`, at most 200 per curve); each piece of the path (a move starts one)
// is a run of its own, so no segment joins two pieces. Used by labels.js (what labels keep
// clear of) and by the tests' check of the drawn result (tests/browser/js/js_units.js).

const TOKEN = /[MmLlHhVvQqTtCcSsZzAa]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;
const ARGS = { M: 2, L: 2, H: 1, V: 1, Q: 4, T: 2, C: 6, S: 4, Z: 0, A: 7 };

// The runs of points ([[x, y], ...] each) of the path data `d`, in its own units, curves
// evaluated about `step` apart; null for what it does not read (an arc, `A`: the caller asks
// the browser instead).
export function pathRuns(d, step = 2) {
  const tokens = (d || "").match(TOKEN) || [];
  const runs = [];
  let run = null, x = 0, y = 0, sx = 0, sy = 0, cmd = null, last = null;   // last control point
  let i = 0;
  const num = () => parseFloat(tokens[i++]);
  const curve = (pts) => {                  // a Bézier from (x, y) through the controls `pts`
    let len = 0, px = x, py = y;
    for (const [qx, qy] of pts) { len += Math.hypot(qx - px, qy - py); px = qx; py = qy; }
    const n = Math.max(1, Math.min(200, Math.ceil(len / Math.max(step, 0.1))));
    const all = [[x, y], ...pts];
    for (let k = 1; k <= n; k++) {
      const t = k / n;
      let p = all;                            // de Casteljau
      while (p.length > 1) {
        p = p.slice(1).map((q, j) => [p[j][0] + (q[0] - p[j][0]) * t, p[j][1] + (q[1] - p[j][1]) * t]);
      }
      run.push(p[0]);
    }
  };
  while (i < tokens.length) {
    if (/[A-Za-z]/.test(tokens[i])) cmd = tokens[i++];
    else if (cmd === null) return null;
    const C = cmd.toUpperCase(), rel = cmd !== C;
    if (!(C in ARGS)) return null;
    if (C === "A") return null;
    if (C !== "Z" && i + ARGS[C] > tokens.length) return null;
    const ox = rel ? x : 0, oy = rel ? y : 0;
    if (C === "M") {
      x = ox + num(); y = oy + num();
      sx = x; sy = y;
      run = [[x, y]];
      runs.push(run);
      cmd = rel ? "l" : "L";               // further pairs are lines
      last = null;
      continue;
    }
    if (!run) return null;
    if (C === "Z") {
      if (x !== sx || y !== sy) run.push([sx, sy]);
      x = sx; y = sy;
      run = [[x, y]];
      runs.push(run);
      last = null;
      continue;
    }
    if (C === "L") { x = ox + num(); y = oy + num(); run.push([x, y]); last = null; }
    else if (C === "H") { x = ox + num(); run.push([x, y]); last = null; }
    else if (C === "V") { y = oy + num(); run.push([x, y]); last = null; }
    else if (C === "Q" || C === "T") {
      const c = C === "Q" ? [ox + num(), oy + num()]
        : (last && last.q ? [2 * x - last.p[0], 2 * y - last.p[1]] : [x, y]);
      const e = [ox + num(), oy + num()];
      curve([c, e]);
      last = { p: c, q: true };
      [x, y] = e;
    } else {                                  // C, S
      const c1 = C === "C" ? [ox + num(), oy + num()]
        : (last && !last.q ? [2 * x - last.p[0], 2 * y - last.p[1]] : [x, y]);
      const c2 = [ox + num(), oy + num()];
      const e = [ox + num(), oy + num()];
      curve([c1, c2, e]);
      last = { p: c2, q: false };
      [x, y] = e;
    }
  }
  return runs.filter((r) => r.length > 1);
}

// The runs of points of a drawn <path>, <polyline> or <polygon> `e` in its own units (a
// polygon closed); for a path this module cannot read, the browser's points every `step`.
export function shapeRuns(e, step = 2) {
  const tag = e.tagName.toLowerCase();
  if (tag === "polyline" || tag === "polygon") {
    const pts = [...e.points].map((p) => [p.x, p.y]);
    if (tag === "polygon" && pts.length) pts.push(pts[0]);
    return pts.length > 1 ? [pts] : [];
  }
  const read = pathRuns(e.getAttribute("d"), step);
  if (read) return read;
  let len = 0;
  try { len = e.getTotalLength(); } catch (err) { return []; }
  const n = Math.min(400, Math.max(2, Math.ceil(len / Math.max(step, 0.1))));
  const runs = [[]], gap = 2 * len / n + 0.5;     // (a move between pieces: a new run)
  for (let k = 0; k <= n; k++) {
    const q = e.getPointAtLength(len * k / n), run = runs[runs.length - 1], p = run[run.length - 1];
    if (p && Math.hypot(q.x - p[0], q.y - p[1]) > gap) runs.push([]);
    runs[runs.length - 1].push([q.x, q.y]);
  }
  return runs.filter((r) => r.length > 1);
}
