// The JavaScript of tests/browser/test_js_units.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.js_units.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.js_units = {
  playerPlaysStepsAndSettlesOnlyWhenItStops: () => {
    const { createPlayer } = KV["player.js"];
    const out = [], settled = [];
    let tick = null;
    const p = createPlayer({ count: 4, index: 0, interval: 10,
      every: (ms, fn) => { tick = fn; return () => { tick = null; }; },
      show: () => out.push(p.index), settle: (i) => settled.push(i) });
    p.play(); tick(); tick();            // 0 -> 1 -> 2, no settle while playing
    const mid = settled.length;
    tick();                              // reaches the last frame: stops and settles
    const playingAtEnd = p.playing;
    p.play();                            // Play at the end starts over
    const restarted = p.index;
    p.toggle();                          // pause: settles
    p.step(-1); p.step(5); p.reset();
    p.setCount(2); p.moveTo(9);
    return { out, settled, mid, playingAtEnd, restarted, last: p.index };
  },

  stageKeepsStepsTheServerHasNotSaidBack: () => {
    const sent = [];
    const st = KV["stage.js"].createStage((m) => sent.push(m));
    document.getElementById("root").replaceChildren(st.el);
    const stage = { figure: "none", interval: 900, player: true, text: {} };
    const frames = JSON.stringify([0, 1, 2, 3, 4, 5].map((i) => ({ pos: `Token ${i}` })));
    st.update(stage, frames, 1, false, "normal", null, []);
    const next = st.el.querySelector(".player-next button");
    next.click(); next.click(); next.click();              // 2, 3, 4: three stops told
    st.update(stage, frames, 2, false, "normal", null, []);   // the first stop said back
    const afterEcho = st.player.index;
    st.update(stage, frames, 4, false, "normal", null, []);   // the last (the 3 in between skipped)
    const afterLast = st.player.index;
    st.update(stage, frames, 0, false, "normal", null, []);   // the server's own move (a reset)
    return { sent: sent.map((m) => m.frame), afterEcho, afterLast,
             moved: st.player.index, pos: st.el.querySelector(".player-pos").textContent };
  },

  blocksEscapeText: () => {
    const root = document.getElementById("root");
    root.replaceChildren(...KV["blocks.js"].buildBlocks([
      { kind: "paragraphs", items: ["<b>not bold</b>"], heading: "H", cls: "narration" },
      { kind: "notices", items: [] },
      { kind: "metrics", cards: [{ key: "k", label: "L", value: "?", kind: "measured",
                                   hidden: true, more: false }] },
      { kind: "details", summary: "More", blocks: [{ kind: "table", head: ["a", "b"],
                                                      rows: [["1", "2"]], caption: "" }] },
    ], { badges: { measured: ["measured", "tip"] } }));
    return root.innerHTML;
  },

  controlsSendOneMessagePerChange: () => {
    const sent = [];
    const c = KV["controls.js"].createControls((m) => sent.push(m));
    document.getElementById("root").replaceChildren(c.el);
    const spec = [{ name: "layer", kind: "select", label: "Layer", options: [[0, "All"], [2, "Two"]] },
                  { name: "tokens", kind: "range", label: "T", start: 1, end: 64, step: 1 }];
    c.update(spec, { layer: 0, tokens: 16 }, "pl");
    const s = c.el.querySelector("select");
    s.selectedIndex = 1; s.dispatchEvent(new Event("change"));
    const r = c.el.querySelector("input[type=range]");
    r.value = "64"; r.dispatchEvent(new Event("input")); r.dispatchEvent(new Event("change"));
    // an older value from the server does not move the control back while a change waits
    c.update(spec, { layer: 0, tokens: 16 }, "pl", { layer: sent[0].seq });
    const waiting = r.value;
    // once the server has handled it, the control shows the server's value (here: snapped)
    c.update(spec, { layer: 2, tokens: 60 }, "pl", { layer: sent[0].seq, tokens: sent[1].seq });
    return { sent, shown: waiting, out: c.el.querySelector("output").textContent,
             handled: r.value };
  },

  controlsSendAChangeAgainUntilTheServerAcknowledgesIt: async () => {
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    const sent = [];
    const c = KV["controls.js"].createControls((m) => sent.push(m), { resendMs: 60, resends: 2 });
    document.getElementById("root").replaceChildren(c.el);
    const spec = [{ name: "tokens", kind: "range", label: "T", start: 1, end: 64, step: 1 }];
    c.update(spec, { tokens: 16 }, "en", {});
    const r = c.el.querySelector("input[type=range]");
    const move = (v) => { r.value = String(v); r.dispatchEvent(new Event("change")); };
    move(64);                                   // its message is lost: no acks
    await wait(100);
    const again = sent.slice();
    c.update(spec, { tokens: 16 }, "en", { tokens: again[0].seq });    // the first, late
    const kept = r.value;
    c.update(spec, { tokens: 64 }, "en", { tokens: again[1].seq });    // the copy
    await wait(200);
    const acknowledged = sent.length;
    move(32);                                   // never acknowledged
    await wait(120);
    const waiting = r.value;
    await wait(250);
    const gaveUp = { sent: sent.length, shown: r.value };
    move(8);                                    // then the page shows another step's controls
    c.update([{ name: "tokens", kind: "range", label: "T", start: 1, end: 8, step: 1 },
              { name: "batch", kind: "range", label: "B", start: 1, end: 8, step: 1 }],
             { tokens: 2, batch: 1 }, "en", {});
    await wait(150);
    return { again, kept, acknowledged, waiting, gaveUp, all: sent,
             other: c.el.querySelector("input[type=range]").value };
  },

  // a question drawn in the page, with what it sends (`sent`) and its state (`state`):
  // before it is answered the server sends no answer (`correct`, `explain`); `told` is
  // the state it sends back once the question is answered or shown
  question: () => {
    const sent = [];
    const q = KV["question.js"].createQuestion((m) => sent.push(m));
    document.getElementById("root").replaceChildren(q.el);
    const state = { key: ["k", 1], lead: "Predict first", prompt: "How many?",
                    options: ["1", "5", "6"], correct: null, explain: "", right: "Right.",
                    wrong: "Not quite.", show: "Show me", mark: "the right answer",
                    answer: null, shown: false };
    const told = (s) => ({ ...state, correct: 2, explain: "Six.", ...s });
    return { sent, q, state, told };
  },

  questionMarksThePickAndSendsIt: () => {
    const { sent, q, state, told } = KVT.js_units.question();
    q.update(state);
    const before = q.answer.textContent;
    q.el.querySelectorAll(".answer button")[1].click();
    const waiting = q.answer.textContent;
    const picked = q.el.querySelector(".answer-1 button").getAttribute("aria-pressed");
    q.update(told({ answer: 1 }));                  // the server's verdict
    const after = q.answer.textContent;
    const wrong = q.el.querySelector(".answer-1 button").className;
    q.update({ ...state, key: ["k", 2] });          // a new question asks again
    return { sent, before, waiting, picked, after, wrong,
             again: q.answer.textContent };
  },

  questionKeepsThePick: () => {
    const { sent, q, state, told } = KVT.js_units.question();
    const look = () => [...q.el.querySelectorAll(".answer button")].map((b) => ({
      cls: b.className, text: b.textContent, pressed: b.getAttribute("aria-pressed"),
      disabled: b.getAttribute("aria-disabled"),
      sign: (b.querySelector(".q-sign") || {}).textContent || "",
      signHidden: b.querySelector(".q-sign") ? b.querySelector(".q-sign").getAttribute("aria-hidden") : null,
      bg: getComputedStyle(b).backgroundColor }));
    q.update(state);
    const before = look();
    q.el.querySelectorAll(".answer button")[0].click();      // a wrong pick
    const picked = look();
    q.el.querySelectorAll(".answer button")[2].click();      // a second click changes nothing
    const kept = look();
    q.update(state);                       // a state sent before the server heard the pick
    const early = look();
    q.update(told({ answer: 0 }));                           // the server's verdict
    const told0 = look();
    q.update(told({ answer: 0 }));                           // and again: nothing moves
    const echoed = look();
    // “Show me” on a fresh question: the right option is marked, nothing is picked
    const q2 = KV["question.js"].createQuestion((m) => sent.push(m));
    document.getElementById("root").replaceChildren(q2.el);
    q2.update({ ...state, key: ["k", 2] });
    q2.el.querySelector(".show-me button").click();
    const waiting = q2.el.querySelector(".show-me").hidden;
    q2.update(told({ key: ["k", 2], shown: true }));
    const shown = [...q2.el.querySelectorAll(".answer button")].map((b) => ({
      cls: b.className, text: b.textContent, pressed: b.getAttribute("aria-pressed") }));
    return { sent, before, picked, kept, early, told: told0, echoed, waiting, shown,
             feedback: q2.answer.textContent };
  },

  overlaps: ([stage, frames, width]) => {
    const F = KV["stage.js"].parseFrames(frames);
    const fig = KV["figures.js"].FIGURES[stage.figure];
    const holder = document.createElement("div");
    holder.style.width = width + "px";
    document.getElementById("root").replaceChildren(holder);
    const bad = [];
    F.forEach((f, i) => {
      const ctx = { text: stage.text, index: i, count: F.length, reduced: true,
                    badges: stage.text.badges };
      KV["stage.js"].drawFigure(fig, holder, f.fig, ctx, "normal");
      const texts = [...holder.querySelectorAll("text")]
        .filter((t) => t.textContent.trim() && t.getBoundingClientRect().width > 0);
      bad.push(...KVT.js_units.overlapping(texts, `frame ${i}`));
      bad.push(...KVT.js_units.crossings(holder, `frame ${i}`));
    });
    return [...new Set(bad)];
  },

  readable: ([cases, widths, cuts]) => {
    const bad = [];
    const holder = document.createElement("div");
    document.getElementById("root").style.width = "auto";
    document.getElementById("root").replaceChildren(holder);
    for (const [label, stage, frames, only] of cases) {
      const F = KV["stage.js"].parseFrames(frames);
      const fig = KV["figures.js"].FIGURES[stage.figure];
      for (const width of widths) {
        holder.style.width = width + "px";
        for (const i of (only || F.map((_, k) => k)).filter((k) => k < F.length)) {
          const ctx = { text: stage.text, index: i, count: F.length, reduced: true,
                        badges: stage.text.badges };
          KV["stage.js"].drawFigure(fig, holder, F[i].fig, ctx, "normal");
          const where = `${label} @${width}px frame ${i}`;
          bad.push(...KVT.js_units.issues(holder, where, null, null, cuts));
        }
      }
    }
    return [...new Set(bad)];
  },

  // each case's first frame drawn at each width: where the roofline's <svg> does not draw
  // the label of the frame's last x tick, `label @width: last`
  lastTick: ([cases, widths]) => {
    const missing = [];
    const holder = document.createElement("div");
    document.getElementById("root").style.width = "auto";
    document.getElementById("root").replaceChildren(holder);
    for (const [label, stage, frames] of cases) {
      const F = KV["stage.js"].parseFrames(frames);
      const fig = KV["figures.js"].FIGURES[stage.figure];
      for (const width of widths) {
        holder.style.width = width + "px";
        const ctx = { text: stage.text, index: 0, count: F.length, reduced: true,
                      badges: stage.text.badges };
        KV["stage.js"].drawFigure(fig, holder, F[0].fig, ctx, "normal");
        const ticks = F[0].fig.xticks || [];
        const last = ticks.length ? ticks[ticks.length - 1][1] : null;
        const drawn = [...holder.querySelectorAll(".roof-svg text.tick-label")]
          .map((t) => t.textContent);
        if (!last || !drawn.includes(last)) missing.push(`${label} @${width}px: ${last} not in ${drawn}`);
      }
    }
    return missing;
  },

  // the pairs of `els` (elements with text) whose boxes cover each other by more than a pixel
  // each way, said as `where: “a” × “b”`
  overlapping: (els, where) => {
    const out = [];
    const boxes = els.map((t) => [t.textContent, t.getBoundingClientRect()]);
    for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
      const [ta, A] = boxes[a], [tb, B] = boxes[b];
      const w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
      const h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
      if (w > 1 && h > 1) out.push(`${where}: “${ta}” × “${tb}”`);
    }
    return out;
  },

  // the texts of `holder` that a drawn line, outline or point runs through, said as
  // `where: “text” crossed by <tag class>`. A text is its box on screen, 1 px in from each
  // edge; a line is its stroke (a <line>'s ends, a <rect>'s edges, any other shape sampled
  // every 2 px along it from its own data: steps/ui/js/draw/path.js, a path's pieces apart), its half
  // width beyond its middle less half a pixel; a point is a filled circle or ellipse, or a filled shape at
  // most 24 px each way (a diamond, a marker): its box. Not lines: the light grid (class
  // `grid`, under a text's halo), white strokes (the gaps between cells and a point's rim),
  // a shape the text is drawn inside (a token's box, a block: it holds its label) and a
  // strike-through (class `*strike*`: an evicted token's mark, meant to run through it)
  crossings: (holder, where, cuts = false) => {
    const pathPoints = KV["draw/path.js"].shapeRuns;   // (checked by the path test)
    const shown = (e) => {
      for (let a = e; a && a !== holder && a.nodeType === 1; a = a.parentNode) {
        if (a.getAttribute("display") === "none") return false;
      }
      const cs = getComputedStyle(e);
      return cs.display !== "none" && cs.visibility !== "hidden" && parseFloat(cs.opacity) > 0;
    };
    const texts = [...holder.querySelectorAll("text")]
      .filter((t) => t.textContent.trim() && shown(t) && t.getBoundingClientRect().width > 0)
      .map((t) => { const r = t.getBoundingClientRect();
                    return { t, x0: r.left + 1, x1: r.right - 1, y0: r.top + 1, y1: r.bottom - 1 }; });
    if (!texts.length) return [];
    const white = (c) => /^rgba?\(255, 255, 255(, 1)?\)$/.test(c) || c === "#fff" || c === "white";
    const out = [];
    // whether the segment a–b comes within `r` of the box: an end inside the box grown by r,
    // or the segment crossing one of its sides (a side between the segment's two ends)
    const side = (ax, ay, bx, by, cx, cy) => Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
    const hits = (ax, ay, bx, by, r, b) => {
      const g = { x0: b.x0 - r, x1: b.x1 + r, y0: b.y0 - r, y1: b.y1 + r };
      const within = (x, y) => x >= g.x0 && x <= g.x1 && y >= g.y0 && y <= g.y1;
      if (Math.max(ax, bx) < g.x0 || Math.min(ax, bx) > g.x1 || Math.max(ay, by) < g.y0 ||
          Math.min(ay, by) > g.y1) return false;
      if (within(ax, ay) || within(bx, by)) return true;
      const corners = [[g.x0, g.y0], [g.x1, g.y0], [g.x1, g.y1], [g.x0, g.y1]];
      return corners.some((c, k) => {
        const d = corners[(k + 1) % 4];
        return side(ax, ay, bx, by, ...c) * side(ax, ay, bx, by, ...d) <= 0 &&
               side(...c, ...d, ax, ay) * side(...c, ...d, bx, by) <= 0;
      });
    };
    const inside = (b, e) => {             // the text drawn within the shape's box
      const r = e.getBoundingClientRect();
      return b.x0 >= r.left - 1 && b.x1 <= r.right + 1 && b.y0 >= r.top - 1 && b.y1 <= r.bottom + 1;
    };
    const name = (e) => `<${e.tagName}${e.getAttribute("class") ? " " + e.getAttribute("class") : ""}>`;
    // a shape whose box, grown by NEAR px (more than half any stroke drawn), meets no text's
    // box cannot run through one: it is passed over before its style is read (step 2's grid
    // has ~4,300 cells, a few of them near a label)
    const NEAR = 12;
    const near = (r) => texts.some((b) => b.x0 < r.right + NEAR && r.left - NEAR < b.x1 &&
                                          b.y0 < r.bottom + NEAR && r.top - NEAR < b.y1);
    for (const e of holder.querySelectorAll("line, polyline, polygon, path, rect, circle, ellipse")) {
      if (!near(e.getBoundingClientRect())) continue;
      if (e.closest("defs, clipPath, marker, pattern, mask, symbol") || !shown(e) ||
          /strike/.test(e.getAttribute("class") || "")) continue;
      const m = e.getScreenCTM();
      if (!m) continue;
      const cs = getComputedStyle(e);
      const scale = Math.hypot(m.a, m.b);
      const sw = parseFloat(cs.strokeWidth) * scale;
      const stroked = cs.stroke !== "none" && !cs.stroke.startsWith("url") && sw > 0 &&
        parseFloat(cs.strokeOpacity) > 0 && !white(cs.stroke) && !e.classList.contains("grid");
      const filled = cs.fill !== "none" && parseFloat(cs.fillOpacity) > 0 && !white(cs.fill);
      const box = e.getBoundingClientRect();
      const tag = e.tagName.toLowerCase();
      const point = filled && (tag === "circle" || tag === "ellipse" ||
                               (tag !== "rect" && tag !== "line" && box.width <= 24 && box.height <= 24));
      if (!stroked && !point) continue;
      const mine = texts.filter((b) => !(tag === "rect" || tag === "circle" || tag === "ellipse" ||
                                         tag === "polygon" || /[zZ]\s*$/.test(e.getAttribute("d") || ""))
                                       || !inside(b, e));
      if (!mine.length) continue;
      const bad = new Set();
      if (point) {
        const ptBox = { x0: box.left, x1: box.right, y0: box.top, y1: box.bottom };
        for (const b of mine) {
          if (b.x0 < ptBox.x1 && ptBox.x0 < b.x1 && b.y0 < ptBox.y1 && ptBox.y0 < b.y1) bad.add(b);
        }
      }
      if (stroked) {
        const P = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
        const num = (k) => parseFloat(e.getAttribute(k)) || 0;
        let runs;                  // one run of points per piece (no segment across a move)
        if (tag === "line") runs = [[[num("x1"), num("y1")], [num("x2"), num("y2")]]];
        else if (tag === "rect") {
          const [x, y, w, h] = ["x", "y", "width", "height"].map(num);
          runs = [[[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]];
        } else if (tag === "circle" || tag === "ellipse") {
          const cx = num("cx"), cy = num("cy"), rx = num(tag === "circle" ? "r" : "rx"),
                ry = num(tag === "circle" ? "r" : "ry");
          const n = Math.max(8, Math.ceil(2 * Math.PI * Math.max(rx, ry) * scale / 2));
          runs = [Array.from({ length: n + 1 }, (_, k) => [cx + rx * Math.cos(2 * Math.PI * k / n),
                                                          cy + ry * Math.sin(2 * Math.PI * k / n)])];
        } else runs = pathPoints(e, 2 / scale);                   // curves every 2 px on screen
        runs = runs.map((run) => run.map(([x, y]) => P(x, y)));
        const r = Math.max(0, sw / 2 - 0.5);
        for (const b of mine) {
          if (bad.has(b)) continue;
          found: for (const pts of runs) {
            for (let k = 1; k < pts.length; k++) {
              if (hits(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1], r, b)) { bad.add(b); break found; }
            }
          }
        }
      }
      // `cuts`: a straight line interrupted behind a text that it runs across (labels.js
      // `interrupt`: an upright line's pieces on either side of a level text, a level line's
      // of a turned one) still reads as crossing it on a small screen: the gap between two
      // pieces on one course is checked as a segment of it. (A level line's gap around a
      // level text is the label set in its own line, as a map labels a contour: not a
      // crossing.)
      const cut = new Set();
      if (cuts && stroked && tag === "path") {
        const runs = pathPoints(e, 2 / scale).map((run) => run.map(([x, y]) => [m.a * x + m.c * y + m.e,
                                                                                  m.b * x + m.d * y + m.f]));
        const upright = (run) => run.length === 2 && Math.abs(run[0][0] - run[1][0]) < 0.5;
        const level = (run) => run.length === 2 && Math.abs(run[0][1] - run[1][1]) < 0.5;
        for (let k = 1; k < runs.length; k++) {
          const a = runs[k - 1], c = runs[k], [ax, ay] = a[1], [cx, cy] = c[0];
          const across = upright(a) && upright(c) && Math.abs(ax - cx) < 0.5 ? "level"
            : level(a) && level(c) && Math.abs(ay - cy) < 0.5 ? "turned" : null;
          if (!across) continue;
          for (const b of mine) {
            const tm = b.t.getScreenCTM();
            const turned = !!tm && Math.abs(tm.b) > Math.abs(tm.a);
            if (bad.has(b) || turned !== (across === "turned")) continue;
            if (hits(ax, ay, cx, cy, Math.max(0, sw / 2 - 0.5), b)) cut.add(b);
          }
        }
      }
      for (const b of bad) out.push(`${where}: “${b.t.textContent}” crossed by ${name(e)}`);
      for (const b of cut) out.push(`${where}: “${b.t.textContent}” crossed by ${name(e)} (cut behind it)`);
    }
    return out;
  },

  // draw/path.js against the browser: every point pathRuns gives lies on the path as Chromium
  // measures it (within `tol` px of its nearest sample every 0.25 px), the runs' ends are the
  // pieces' ends, and a path with an arc is left to the browser (null)
  pathRuns: ([paths, tol]) => {
    const { pathRuns } = KV["draw/path.js"];
    const s = KV["dom.js"].svg("svg", { width: 400, height: 400 });
    document.getElementById("root").replaceChildren(s);
    const out = [];
    for (const d of paths) {
      const runs = pathRuns(d, 2);
      if (runs === null) { out.push([d, null]); continue; }
      const e = KV["dom.js"].svg("path", { d }, s);
      const len = e.getTotalLength(), n = Math.ceil(len / 0.25);
      const on = [];
      for (let k = 0; k <= n; k++) { const q = e.getPointAtLength(len * k / n); on.push([q.x, q.y]); }
      let worst = 0;
      for (const run of runs) for (const [x, y] of run) {
        worst = Math.max(worst, Math.min(...on.map(([a, b]) => Math.hypot(a - x, b - y))));
      }
      out.push([d, { runs: runs.length, points: runs.reduce((a, r) => a + r.length, 0), off: worst <= tol,
                     first: runs[0][0], last: runs[runs.length - 1].slice(-1)[0] }]);
    }
    return out;
  },

  // the check the figure tests share: the texts shown in `holder` (SVG text elements, or the
  // HTML figures' `selector`) that cover each other or are drawn under `least` px on screen
  // (12; their font size times the drawing's scale); `cuts`: lines cut behind a text count
  // as crossing it (`crossings`)
  issues: (holder, where, selector, least, cuts) => {
    const els = [...holder.querySelectorAll(selector || "text")]
      .filter((t) => t.textContent.trim() && t.getBoundingClientRect().width > 0 &&
                     getComputedStyle(t).display !== "none" && t.getAttribute("display") !== "none");
    const out = KVT.js_units.overlapping(els, where);
    out.push(...KVT.js_units.crossings(holder, where, cuts));
    for (const t of els) {
      const m = t.getScreenCTM ? t.getScreenCTM() : null;
      const scale = m ? Math.hypot(m.a, m.b) : 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < (least || 12) - 0.05) out.push(`${where}: “${t.textContent}” drawn at ${px.toFixed(1)} px`);
    }
    return out;
  },

  // presenting: present.js fitChartText with the viewport's height `vh` (its minimum, 2.5 %
  // of it, follows the screen)
  fit: (holder, vh) => {
    const inner = Object.getOwnPropertyDescriptor(window, "innerHeight");
    Object.defineProperty(window, "innerHeight", { value: vh, configurable: true });
    try { return KV["present.js"].fitChartText(holder); }
    finally { Object.defineProperty(window, "innerHeight", inner); }
  },

  presented: ([cases, boxes, n]) => {
    const bad = [];
    const root = document.getElementById("root");
    root.style.width = "auto";
    const page = document.createElement("div");
    page.className = "kv-root present";
    const step = document.createElement("div");
    step.className = `step step-${n}`;
    const visual = document.createElement("div");
    visual.className = "step-visual";
    const holder = document.createElement("div");
    holder.className = "stage-svg";
    page.append(step);
    step.append(visual);
    visual.append(holder);
    root.replaceChildren(page);
    const { MIN_CHART_PX } = KV["present.js"];
    const { drawFigure } = KV["stage.js"];
    // (each screen the layout table gives the figure when projected: its parts alone)
    const { rowOf } = KV["layout.js"];
    for (const [label, stage, frames, only] of cases) {
      const F = KV["stage.js"].parseFrames(frames);
      const fig = KV["figures.js"].FIGURES[stage.figure];
      const screens = rowOf("present").figures[stage.figure] || [null];
      for (const [w, hgt, vh] of boxes) for (const parts of screens) {
        // a box as the projected page gives it, its chart text fitted anew; the frames then
        // drawn one after the other in it as Play does, each fitted again where it needs it
        // (fitChartText's sizes stay from frame to frame, as on the page)
        holder.removeAttribute("style");
        delete holder.dataset.box;
        Object.assign(holder.style, { width: w + "px", height: hgt + "px" });
        for (const i of (only || F.map((_, k) => k)).filter((k) => k < F.length)) {
          const ctx = { text: stage.text, index: i, count: F.length, reduced: true,
                        badges: stage.text.badges, parts };
          drawFigure(fig, holder, F[i].fig, ctx, "present");
          for (let k = 0; k < 4 && KVT.js_units.fit(holder, vh); k++) drawFigure(fig, holder, F[i].fig, ctx, "present");
          const where = `${label} presenting${parts ? " " + parts.join("+") : ""} @${w}×${hgt} frame ${i}`;
          bad.push(...KVT.js_units.issues(holder, where, null, MIN_CHART_PX));
        }
      }
    }
    return [...new Set(bad)];
  },

  htmlFigure: ([html, widths, selector]) => {
    const holder = document.createElement("div");
    document.getElementById("root").style.width = "auto";
    document.getElementById("root").replaceChildren(holder);
    const bad = [];
    for (const width of widths) {
      holder.style.width = width + "px";
      holder.innerHTML = html;
      bad.push(...KVT.js_units.issues(holder, `@${width}px`, selector));
    }
    return [...new Set(bad)];
  },

  step6HeadGroupsAndBarsAreReadable: () => {
    const q = document.querySelector(".kv-group .q").getBoundingClientRect();
    const kv = document.querySelector(".kv-group .kv").getBoundingClientRect();
    return [q.width, q.height, kv.height];
  },

  colours: ([cases]) => {
    const holder = document.createElement("div");
    holder.style.width = "646px";
    document.getElementById("root").style.width = "auto";
    document.getElementById("root").replaceChildren(holder);
    const used = {};
    for (const [label, stage, frames] of cases) {
      const F = KV["stage.js"].parseFrames(frames);
      const fig = KV["figures.js"].FIGURES[stage.figure];
      F.slice(0, 3).concat(F.slice(-1)).forEach((f, i) => {
        KV["stage.js"].drawFigure(fig, holder, f.fig, { text: stage.text, index: i + 1, count: F.length,
                                                        reduced: true, badges: {} },
                                  "normal");
        for (const e of holder.querySelectorAll("svg *")) {
          if (e.closest("defs, title")) continue;
          const cs = getComputedStyle(e);
          for (const prop of ["fill", "stroke"]) {
            const c = cs[prop];
            if (!c || c === "none" || c.startsWith("url")) continue;
            if (prop === "stroke" && parseFloat(cs.strokeWidth) === 0) continue;
            const cls = [e.getAttribute("class") || "", (e.parentNode.getAttribute &&
                         e.parentNode.getAttribute("class")) || ""].join(" | ");
            (used[c] = used[c] || new Set()).add(`${stage.figure}: ${e.tagName} ${prop} ${cls}`);
          }
        }
      });
    }
    return Object.fromEntries(Object.entries(used).map(([c, s]) => [c, [...s]]));
  },
};
