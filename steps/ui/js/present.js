// Presenter mode (?present=1): the projected page and the speaker view.
//
// The projected page is figure-first at 16:9: a one-line bar (where we are, the S hint,
// Previous/Next), then the lead sentence, the question and the controls beside the figure;
// the prose stays on the learners' page (and in the speaker view). Chart text is made at
// least 18 px on screen whatever the figure's scale (`fitChartText`).
//
// The speaker view (?present=1&speaker=1, opened with S) is the same app in a second window,
// one screen that does not scroll: what to say aloud, the answer, the next part or step, a
// clock, and beside them the projected screen itself, scaled (`createScreen`: the projected
// page in a frame, ?copy=1, following the projected page as the speaker view does); the
// step's full prose and exercises are one key away (P: the layout row's drawer). The two windows talk over a BroadcastChannel (same origin): the projected page
// sends its state's parts as they change (the regions, the stage and its frames), which the
// speaker view draws as they are, and its view (query, playhead, answer), which the speaker
// view's own session follows ({follow}) only for what the projected page does not hold: the
// speaker's notes and the question's answer before the class has given it. A key pressed in
// the speaker view (PageDown/PageUp, Space, “.”, “,”, ←/→) and its Previous/Next are sent to
// the projected page, which applies them.

import { h } from "./dom.js";

export const CHANNEL = "kv-explainer-present";
export const MIN_CHART_PX = 18;
export const MIN_VALUE_PX = 20;
const KEYS = ["PageDown", "PageUp", " ", ".", ",", "ArrowLeft", "ArrowRight"];

// The speaker's panel: the notes, the next part or step, a clock (the time spent on this step
// or part, set against the minutes its package suggests) and the button of the prose drawer
// (also the key P); and, a box of its own (`said`, placed by the layout table under the
// projected screen, where the screen's 16:9 leaves the column's height free), the question's
// answer at the panel's body size. `onDrawer()`: the button was pressed.
export function createTalk(onDrawer) {
  const el = h("section", "talk");
  const said = h("section", "talk-said");
  const answer = h("p", "talk-answer", said);
  const [notesHead, notes, nextLine, clock] = [
    ["h3", "talk-head"], ["p", "talk-notes"], ["p", "talk-next"],
    ["p", "talk-clock"]].map(([tag, cls]) => h(tag, cls, el));
  const toggle = h("button", "talk-drawer", el);
  toggle.type = "button";
  toggle.addEventListener("click", () => onDrawer && onDrawer());
  const proseHead = h("h3", "talk-head talk-prose", el);
  // a line that starts with its label in bold; hidden when there is nothing to say
  const labelled = (line, label, words) => {
    line.replaceChildren();
    line.hidden = !words;
    if (words) {
      h("strong", "", line, (label || "") + ": ");
      line.append(document.createTextNode(words));
    }
  };
  let since = Date.now(), where = null, template = "";
  const tick = () => {
    const s = Math.max(0, Math.floor((Date.now() - since) / 1000));
    clock.textContent = template.replace("{time}", `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`);
  };
  const timer = setInterval(tick, 1000);
  // talk: the shell's `talk`; question: the speaker's own (with its answer); tabs and number:
  // the projected page's (the clock starts again when either changes)
  const update = (talk, question, tabs, number) => {
    talk = talk || {};
    notesHead.textContent = talk.notes_label || "";
    notes.textContent = talk.notes || "";
    const right = question ? (question.options || [])[question.correct] : null;
    labelled(answer, talk.answer_label, question &&
             `${question.prompt || ""} → ${right ?? ""}. ` + (question.explain || ""));
    said.hidden = answer.hidden;
    const items = (tabs && tabs.items) || [];
    const at = items.findIndex(([value]) => value === (tabs && tabs.active));
    if (at >= 0 && at < items.length - 1) labelled(nextLine, talk.next_part_label, items[at + 1][1]);
    else labelled(nextLine, talk.next_label, talk.next);
    const here = JSON.stringify([number ?? null, at >= 0 ? items[at][0] : null]);
    if (here !== where) { where = here; since = Date.now(); }
    template = talk.clock || "";
    toggle.textContent = talk.prose_toggle || "";
    proseHead.textContent = talk.prose_label || "";
    tick();
  };
  // the drawer open or closed, and whether it has anything
  const drawer = (open, any) => {
    toggle.hidden = !any;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    proseHead.hidden = !(open && any);
  };
  return { el, said, update, drawer, stop: () => clearInterval(timer) };
}

// The speaker's panel within its column's height (the speaker view does not scroll): while
// the panel runs past the column's bottom, its type is set smaller as a whole (`--talk-scale`,
// 1 down to MIN_TALK_SCALE, 16 px for the notes' 24); with the prose drawer open, the column
// scrolls instead. Returns the scale.
export const MIN_TALK_SCALE = 0.66;
export function fitTalk(talk, column, drawerOpen) {
  if (!talk || !column) return 1;
  let scale = 1;
  talk.style.setProperty("--talk-scale", "1");
  if (drawerOpen) return 1;
  const over = () => talk.getBoundingClientRect().bottom > column.getBoundingClientRect().bottom + 0.5;
  while (scale > MIN_TALK_SCALE && over()) {
    scale = Math.max(MIN_TALK_SCALE, Math.round((scale - 0.04) * 100) / 100);
    talk.style.setProperty("--talk-scale", String(scale));
  }
  return scale;
}

// The speaker view's answer whole under the projected screen: while the answer's box (`said`)
// runs past its bottom, the screen's copy is made narrower (so shorter: it keeps its ratio),
// down to MIN_SCREEN_SHARE of its column's width; the answer keeps its size. Returns the
// share of the column the screen has.
export const MIN_SCREEN_SHARE = 0.6;
export function fitSaid(screenEl, said) {
  if (!screenEl || !said) return 1;
  screenEl.style.maxWidth = "";
  const full = screenEl.getBoundingClientRect().width;
  let share = 1;
  while (share > MIN_SCREEN_SHARE && !said.hidden && said.scrollHeight > said.clientHeight + 1) {
    share = Math.max(MIN_SCREEN_SHARE, Math.round((share - 0.04) * 100) / 100);
    screenEl.style.maxWidth = `${Math.floor(full * share)}px`;
  }
  return share;
}

// The projected screen in the speaker view: the projected page itself (the copy at `src`,
// which follows the projected page), laid out at the projected window's size and scaled down
// to the box it has here: the same rendering, not a reflow. `size(w, h)`: the projected
// window's CSS size (1280×720 until it says).
export function createScreen(src) {
  const el = h("div", "screen");
  const frame = h("iframe", "screen-copy", el, null,
                  { src, tabindex: "-1", "aria-hidden": "true", scrolling: "no" });
  let W = 1280, H = 720;
  const fit = () => {
    const r = el.getBoundingClientRect();
    const scale = Math.min(r.width / W, r.height / H);
    frame.style.width = `${W}px`;
    frame.style.height = `${H}px`;
    frame.style.transform = `scale(${scale > 0 ? scale : 0})`;
    el.style.setProperty("--screen-ratio", `${W} / ${H}`);
  };
  const ro = typeof ResizeObserver !== "undefined" ? new ResizeObserver(fit) : null;
  if (ro) ro.observe(el);
  fit();
  const size = (w, hgt) => {
    if (!(w >= 320 && hgt >= 200) || (w === W && hgt === H)) return;
    W = Math.round(w); H = Math.round(hgt);
    fit();
  };
  return { el, frame, size, fit, stop: () => ro && ro.disconnect() };
}

// The copy's address: the speaker view's, as the projected page (speaker=0) with copy=1
export function copyUrl(loc) {
  const params = new URLSearchParams(loc.search);
  params.delete("speaker");
  params.set("present", "1");
  params.set("copy", "1");
  return loc.pathname + "?" + params.toString();
}

// The projected page's bar and the speaker view's: the heading, a hint or the next step, and
// Previous/Next (in the speaker view they move the projected page). The projected page's copy
// in the speaker view (`copy`) takes no input: its bar is the heading alone, without the hint,
// Previous/Next or “Copy link” (which the shell keeps in its Previous/Next row).
export function presentBar(shell, speaker, copy) {
  const bar = h("div", "present-bar" + (speaker ? " speaker-bar" : ""));
  const hint = h("span", "present-hint", null, null, { "aria-hidden": "true" });
  if (copy) bar.append(shell.heading);
  else bar.append(shell.heading, hint, shell.prevnext);
  // s: the shell's state; the speaker view's window says so in its title
  const update = (s) => {
    const talk = (s && s.talk) || null;
    hint.textContent = (talk && !speaker) ? talk.hint : "";
    if (speaker && talk && s.title) document.title = `${talk.title} · ${s.title}`;
  };
  return { el: bar, update };
}

// Links between the explainer's own pages (`?step=…` hrefs: the key ideas' links back to the
// steps, step 4's links to step 6) keep the page's modes: a projected page's links stay
// projected (present=1, and speaker=1 in the speaker view) and in the page's language when
// the link names none. `search`: the page's query.
export function keepModes(root, search) {
  const here = new URLSearchParams(search || "");
  for (const a of root.querySelectorAll('a[href^="?"]')) {
    const params = new URLSearchParams(a.getAttribute("href").slice(1));
    for (const m of ["present", "speaker"]) if (here.get(m) === "1") params.set(m, "1");
    if (!params.has("lang") && here.has("lang")) params.set("lang", here.get("lang"));
    a.setAttribute("href", "?" + params.toString());
  }
}

// The speaker view's address: the projected page's, with speaker=1
export function speakerUrl(loc) {
  const params = new URLSearchParams(loc.search);
  params.set("present", "1");
  params.set("speaker", "1");
  return loc.pathname + "?" + params.toString();
}

// What a view shows, for comparing: its query without the page modes
export function viewKey(query) {
  const params = new URLSearchParams(query || "");
  for (const m of ["present", "speaker", "embed", "figure"]) params.delete(m);
  params.sort();
  return params.toString();
}

// The channel between the two windows. `speaker`: this window is the speaker view.
// `view()`: the projected page's {query, frame, answer, shown}; `follow(view)`: the speaker
// view takes it on; `parts()`: the projected page's state parts that the speaker view draws
// as they are (its regions, stage and frames: {name: value}), and `mirror(parts)` the speaker
// view's side, given only the parts that changed (all of them after its hello); `key(key)`,
// `nav(d)`: the projected page applies a move made in the speaker view. Returns {announce,
// key, nav, close}; without BroadcastChannel, all no-ops.
export function connect({ speaker, view, follow, parts, mirror, key, nav, Channel }) {
  const C = Channel || (typeof BroadcastChannel !== "undefined" ? BroadcastChannel : null);
  if (!C) return { announce() {}, key() {}, nav() {}, close() {}, keys: [] };
  const ch = new C(CHANNEL);
  let last = "", sent = {};
  ch.onmessage = (e) => {
    const m = e.data || {};
    if (speaker && m.type === "view") follow(m);
    else if (speaker && m.type === "state" && mirror) mirror(m.parts || {});
    else if (!speaker && m.type === "hello") { last = ""; sent = {}; announce(); }
    else if (!speaker && m.type === "key" && KEYS.includes(m.key)) key(m.key);
    else if (!speaker && m.type === "nav" && (m.d === 1 || m.d === -1)) nav(m.d);
  };
  const announce = () => {
    if (speaker) return;
    const all = parts ? parts() : {};
    const changed = {};
    for (const [name, value] of Object.entries(all)) {
      if (sent[name] && sent[name][0] === value) continue;      // the same object: unchanged
      const text = JSON.stringify(value ?? null);
      if (!sent[name] || sent[name][1] !== text) changed[name] = value;
      sent[name] = [value, text];
    }
    if (Object.keys(changed).length) ch.postMessage({ type: "state", parts: changed });
    const v = view();
    if (!v) return;
    const text = JSON.stringify(v);
    if (text === last) return;
    last = text;
    ch.postMessage({ type: "view", ...v });
  };
  if (speaker) ch.postMessage({ type: "hello" });
  return {
    announce,
    key: (k) => { if (speaker && KEYS.includes(k)) ch.postMessage({ type: "key", key: k }); },
    nav: (d) => { if (speaker) ch.postMessage({ type: "nav", d }); },
    close: () => ch.close(),
    keys: KEYS,
  };
}

// The speaker view's side of following: send {follow} to its own server when the projected
// page's query or answer differs from what it last asked for; the playhead moves in the browser.
export function createFollower(send) {
  let asked = null;
  return (v, own) => {
    const key = JSON.stringify([viewKey(v.query), v.answer ?? null, !!v.shown]);
    const mine = JSON.stringify([viewKey(own.query), own.answer ?? null, !!own.shown]);
    if (key !== mine && key !== asked) {
      asked = key;
      send({ follow: v.query || "", answer: v.answer ?? null, shown: !!v.shown });
    } else if (key === mine) asked = null;
  };
}

// The chart text's size on the projected page: MIN_CHART_PX at 720 px high, 2.5 % of the
// screen's height on a taller one (the stylesheet's --pc)
export function chartPx() {
  return Math.max(MIN_CHART_PX, 0.025 * (window.innerHeight || 0));
}

// The player's bar on the projected page: its buttons and where it stands on one line,
// inside its column. When the labels do not fit (a narrow column, a long word: Polish
// “następny”), the buttons show their icons only (`icons-only`: the labels stay for screen
// readers and as the buttons' tooltips). `mode`: the page's (layout.js modeOf); only the
// projected page ("present") fits. Returns whether the bar is now icons-only.
export function fitPlayer(bar, mode) {
  if (!bar) return false;
  bar.classList.remove("icons-only");
  if (mode !== "present") { bar.querySelectorAll(".player-btn").forEach((b) => b.removeAttribute("title")); return false; }
  const r = bar.getBoundingClientRect();
  const over = r.width > 0 && (bar.scrollWidth > bar.clientWidth + 1 ||
    [...bar.querySelectorAll(".player-btn, .player-pos")].some((b) => b.getBoundingClientRect().right > r.right + 1));
  if (over) bar.classList.add("icons-only");
  for (const b of bar.querySelectorAll(".player-btn")) {
    const label = b.querySelector(".player-label");
    if (bar.classList.contains("icons-only") && label) b.title = label.textContent;
    else b.removeAttribute("title");
  }
  return bar.classList.contains("icons-only");
}

// The cards' values inside their cards on the projected page: a value too wide for its card
// (a size in two units, “143.9 MB (137.2 MiB)”, in a quarter of the figure's width) is set
// smaller, a pixel at a time, down to MIN_VALUE_PX; the others keep the stylesheet's size.
// Only on the projected page (`mode` "present"). Returns how many values were made smaller.
export function fitCards(row, mode) {
  if (!row || mode !== "present") return 0;
  let smaller = 0;
  for (const v of row.querySelectorAll(".metric-value")) {
    v.style.removeProperty("font-size");
    const card = v.closest(".metric");
    if (!card || !v.getClientRects().length) continue;
    const start = parseFloat(getComputedStyle(v).fontSize);
    let px = start;
    while (px > MIN_VALUE_PX && overflows(v, card)) v.style.fontSize = `${--px}px`;
    if (px < start) smaller += 1;
  }
  return smaller;
}

// The text of `v` runs past the inner edge (border and padding) of its `card`.
function overflows(v, card) {
  const r = document.createRange();
  r.selectNodeContents(v);
  const right = Math.max(...[...r.getClientRects()].map((b) => b.right));
  const box = card.getBoundingClientRect();
  const pad = parseFloat(getComputedStyle(card).paddingRight) || 0;
  return right > box.right - card.clientLeft - pad + 0.5;
}

// The notices on the projected page, whole or not at all, in their order: the first that
// would end below the screen and every one after it are hidden there (class `off-screen`; the
// speaker view shows every notice, and the figure shows what they say). Returns how many are
// hidden. Only on the projected page (`mode` "present").
export function fitNotices(column, mode) {
  if (!column) return 0;
  const notes = [...column.querySelectorAll(".notice")];
  notes.forEach((n) => n.classList.remove("off-screen"));
  if (mode !== "present") return 0;
  const first = notes.findIndex((n) => n.getBoundingClientRect().bottom > window.innerHeight);
  if (first < 0) return 0;
  notes.slice(first).forEach((n) => n.classList.add("off-screen"));
  return notes.length - first;
}

// Chart text at least MIN_CHART_PX on screen (18 px at 720 px high, more on a taller
// screen): each chart (an <svg> child of `holder`, drawn in its own units and scaled to its
// box) gets, on the holder, the font size in its units that shows at that size:
// `--kv-chart-font-<n>` for the holder's n-th <svg> child (n = 1..3) and `--kv-chart-font`
// for any chart deeper down, at the smallest
// scale, which presenter mode's CSS gives every text of the chart. Returns true when a size
// changed enough to draw the figure again (its labels are placed by size), or when the figure
// was laid out for a box (stage.js drawFigure notes it) that is no longer the holder's.
export function fitChartText(holder) {
  const svgs = [...holder.querySelectorAll("svg")].filter((s) => !s.parentElement.closest("svg") &&
    !s.closest(".player") && s.viewBox && s.viewBox.baseVal && s.viewBox.baseVal.width > 0);
  const min = chartPx();
  const size = (scale) => Math.ceil((min + 0.5) / scale * 10) / 10;
  let changed = false, smallest = Infinity;
  if (holder.dataset.box) {
    const r = holder.getBoundingClientRect();
    const [w, hgt] = holder.dataset.box.split("x").map(Number);
    if (Math.abs(Math.floor(r.width) - w) > 2 || Math.abs(Math.floor(r.height) - hgt) > 2) {
      delete holder.dataset.box;          // a renderer that lays out for its box notes it again
      changed = true;
    }
  }
  const put = (name, want) => {
    const had = parseFloat(holder.style.getPropertyValue(name)) || 0;
    if (had && want <= had && (had - want) / had < 0.04) return;   // never below the least
    holder.style.setProperty(name, want + "px");
    changed = true;
  };
  svgs.forEach((s, i) => {
    const m = s.getScreenCTM && s.getScreenCTM();
    const box = s.getBoundingClientRect();
    if (!m || !(box.width > 0 && box.height > 0) || !(Math.abs(m.a) > 0)) return;
    smallest = Math.min(smallest, Math.abs(m.a));
    const nth = [...holder.children].filter((c) => c.tagName.toLowerCase() === "svg").indexOf(s);
    if (nth >= 0 && nth < 3) put(`--kv-chart-font-${nth + 1}`, size(Math.abs(m.a)));
  });
  if (Number.isFinite(smallest)) put("--kv-chart-font", size(smallest));
  return changed;
}
