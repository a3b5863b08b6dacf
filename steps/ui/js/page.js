// The whole page of one session, drawn from its state (steps/ui/state.py): the shell around
// the step, the step's regions (lead, look, figure, cards, …), its question, controls and
// stage. The server sends a part of the state when it changes; the page sends a learner's
// moves as messages.
//
// One redraw per message: BokehJS applies a server message one part at a time, so a part's
// change only marks it dirty, and the page draws once, in a microtask, when the whole message
// is in (`flush`). Then each region is drawn again only if its blocks changed, each live part
// (question, controls, stage, custom box) is updated only if its own parts changed, and the
// regions are placed by the layout table's row for the page's mode (layout.js), moving only the
// nodes that are out of place (a control being moved keeps the keyboard's focus).
//
// Each part arrives as its JSON text (steps/ui/page.py) and is parsed once per change
// (`createReader`): a part that did not change is the same object as before.

import { h, typingIn, markPoints } from "./dom.js";
import { buildBlocks, openSummaries } from "./blocks.js";
import { createShell, postHeight } from "./shell.js";
import { createControls } from "./controls.js";
import { createQuestion } from "./question.js";
import { createStage } from "./stage.js";
import { WIDGETS } from "./figures.js";
import { createTalk, createScreen, presentBar, speakerUrl, copyUrl, connect, createFollower,
         fitChartText, fitNotices, fitTalk, fitSaid, keepModes } from "./present.js";
import { createTerms, placeLegend } from "./terms.js";
import { LAYOUT, modeOf, rowOf, rowHas, placeRegions } from "./layout.js";
import { saveBar } from "./save.js";

// the page's live elements: placed by the layout table like the regions, drawn by their own
// modules
export const LIVE = ["tabs", "question", "answer", "controls", "custom", "stage", "talk", "screen",
                     "said"];

// the regions: every name of the layout table that is not a live element
export const REGIONS = [...new Set(Object.values(LAYOUT)
  .flatMap((row) => [row, ...Object.values(row.variants || {})])
  .flatMap((row) => [...(row.left || []), ...(row.right || []), ...(row.drawer || [])]).flat())]
  .filter((name) => !LIVE.includes(name));

// what the page has drawn, for the class benchmark and the tests: flushes (one per message),
// regions drawn again, figures drawn
const stats = () => (window.kvExplainerStats ||= { flushes: 0, regions: 0, figures: 0 });

// Place `nodes` in `column` in this order: what is not among them goes first, then each node
// is put before the first one out of place; what is already in order stays untouched.
export function placeNodes(column, nodes) {
  const keep = new Set(nodes);
  for (const n of [...column.childNodes]) if (!keep.has(n)) n.remove();
  let at = column.firstChild;
  for (const n of nodes) {
    if (n === at) { at = at.nextSibling; continue; }
    column.insertBefore(n, at);
  }
  while (at) { const next = at.nextSibling; at.remove(); at = next; }
}

// The parts of the state from their JSON texts: `read(name)` parses a part's text when it
// changed and gives back the same value otherwise; "" (nothing yet) is null.
export function createReader(textOf) {
  const seen = {};
  return (name) => {
    const text = textOf(name);
    const last = seen[name];
    if (last && last.text === text) return last.value;
    const value = typeof text === "string" && text !== "" ? JSON.parse(text) : null;
    seen[name] = { text, value };
    return value;
  };
}

export function render({ model }) {
  const send = (msg) => model.send_msg(msg);
  const read = createReader((name) => model[name]);
  const root = h("div", "kv-root");
  // presenting (js/present.js): the projected page, or the speaker view that follows it; the
  // page mode is the link's, for the whole session
  const mode0 = read("shell") || {};
  const present = !!mode0.present && !mode0.embed, speaker = present && !!mode0.speaker;
  // the projected page's copy in the speaker view: it follows the projected page as the
  // speaker view does and takes no input
  const copy = present && !speaker && !!mode0.copy;
  const figureOnly = !!(mode0.embed && mode0.figure);
  let sync = null;
  const stage = createStage(send, { onframe: () => { stats().figures++; if (sync) sync.announce(); } });
  // the copy link's frame: the one on screen, and the one the query has (see shell.shareUrl)
  const playhead = () => (read("stage") && read("stage").player !== false)
    ? { index: stage.player.index, frame: read("frame") } : null;
  // the speaker view's Previous/Next move the projected page
  const shellSend = (msg) => (speaker && "nav" in msg) ? sync.nav(msg.nav) : send(msg);
  const shell = createShell(shellSend, { playhead });
  const step = h("div", "step");
  const tabs = h("div", "step-tabs", step, null, { role: "tablist" });
  const grid = h("div", "step-grid", step);
  const left = h("div", "step-text", grid);
  const right = h("div", "step-visual", grid);
  const terms = createTerms(step, h("div", "", step));     // the glossary (terms.js)
  // answering while the player plays: it stops where it is first (the server hears that
  // frame), so that the answer's move of the figure is the last word
  const question = createQuestion((msg) => {
    if (stage.player.playing) stage.player.toggle();
    send(msg);
  });
  const controls = createControls(send);
  controls.el.classList.add("controls");
  let custom = null, customName = null;
  const talk = speaker ? createTalk(() => { proseOpen = !proseOpen; touch("layout"); }) : null;
  const screen = speaker ? createScreen(copyUrl(window.location)) : null;
  let proseOpen = false;                 // the speaker view's drawer (the row's `drawer`)
  const bar = present ? presentBar(shell, speaker, copy) : null;
  root.className = "kv-root" + (mode0.embed ? " embed" : "") + (mode0.present ? " present" : "") +
    (figureOnly ? " figure-only" : "") + (speaker ? " speaker" : "") + (copy ? " copy" : "");
  if (mode0.embed) root.append(shell.embedBar, shell.heading, step);
  else if (present) root.append(bar.el, step);     // no title bar, language menu, stepper, FAQ
  else root.append(shell.top, shell.nav, shell.heading, step, shell.prevnext, shell.faq);

  const drawTabs = (t) => {
    tabs.hidden = !t;
    tabs.replaceChildren();
    if (!t) return;
    tabs.setAttribute("aria-label", t.label || "");
    t.items.forEach(([value, title]) => {
      const b = h("button", "step-tab", tabs, title);
      b.type = "button";
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", value === t.active ? "true" : "false");
      b.addEventListener("click", () => { if (value !== t.active) send({ set: t.name, value }); });
    });
  };

  // one column below 700 px (a phone): the layout's "narrow" row
  const narrowQuery = window.matchMedia ? window.matchMedia("(max-width: 699.98px)") : null;
  const isNarrow = () => !!(narrowQuery && narrowQuery.matches);
  const drawn = Object.fromEntries(REGIONS.map((r) => [r, { nodes: [], key: null }]));
  const liveEl = () => ({ question: question.el, answer: question.answer, controls: controls.el,
                          stage: stage.el,
                          custom: custom ? custom.el : null, talk: talk ? talk.el : null,
                          screen: screen ? screen.el : null, said: talk ? talk.said : null });
  const filledLive = {
    question: () => !!read("question"),
    answer: () => !!read("question"),     // (there, empty, before it speaks: a live region)
    controls: () => (read("controls") || []).some((c) => !c.hidden),
    custom: () => !!(custom && part("custom")),
    stage: () => !!part("stage"),
    talk: () => !!talk,
    screen: () => !!screen,
    said: () => !!talk,
    tabs: () => false,                    // drawn above the columns (the row's `tabs`)
  };
  let lastMode = null, tabsKey = null, pointsSeen = null;
  // the speaker view draws the projected page's regions, stage and frames as that page sends
  // them (present.js connect); its own session gives the shell (the notes) and the question
  // (with its answer)
  const MIRRORED = [...REGIONS, "number", "classes", "variant", "tabs", "stage", "frames",
                    "concealed"];
  const mirror = {};
  const mirrored = createReader((name) => mirror[name]);
  const part = (name) => (name in mirror ? mirrored(name) : read(name));

  // the parts a message changed, drawn once it is all in
  let dirty = new Set(), queued = false;
  const touch = (part) => {
    dirty.add(part);
    if (!queued) { queued = true; queueMicrotask(flush); }
  };
  const flush = () => {
    queued = false;
    const d = dirty;
    dirty = new Set();
    if (!d.size) return;
    const s = read("shell") || {};
    const mode = modeOf(s, isNarrow());
    const row = rowOf(mode, part("variant"));
    const modeChanged = mode !== lastMode;
    lastMode = mode;
    const has = (...parts) => parts.some((p) => d.has(p));
    stats().flushes++;
    if (has("shell")) {
      shell.update(s);
      if (bar) bar.update(s);
    }
    if (has("shell", "query")) shell.follow(read("query"));
    if (has("number", "classes")) step.className = ["step", ...(part("classes") || [])].join(" ");
    const tk = row.tabs ? JSON.stringify(part("tabs") || null) : "null";
    if (tk !== tabsKey) { tabsKey = tk; drawTabs(row.tabs ? part("tabs") : null); }
    if (has("question")) question.update(read("question"));
    if (talk && has("shell", "question", "number", "tabs"))
      talk.update(s.talk, read("question"), part("tabs"), part("number"));
    if (has("controls", "values", "acks", "shell"))
      controls.update(read("controls"), read("values") || {}, s.lang, read("acks"));
    if ((has("stage", "frames", "frame", "concealed", "number", "question") || modeChanged) &&
        rowHas(row, "stage"))
      stage.update(part("stage"), part("frames"), read("frame"), part("concealed"), mode, row,
                   question.points());
    if (has("custom")) {
      const c = part("custom");
      if (c && c.widget !== customName) {
        customName = c.widget;
        custom = WIDGETS[c.widget] ? WIDGETS[c.widget](send) : null;
      }
      if (custom && c) custom.update(c);
    }
    // the regions whose blocks (or the language: the cards' badges) changed; a card that
    // answers the open question arrives as “?” (steps/ui/conceal.py)
    const st = part("stage");
    const ctx = { badges: (st && st.text && st.text.badges) || s.badges || {} };
    const shared = `${s.lang}|`;
    let redrawn = 0;
    for (const r of REGIONS) {
      if (!has(r, "shell", "stage") && drawn[r].key !== null) continue;
      const key = shared + JSON.stringify(part(r) || []);
      if (key === drawn[r].key) continue;
      const open = openSummaries(drawn[r].nodes);
      for (const n of drawn[r].nodes) n.remove();
      drawn[r] = { nodes: buildBlocks(part(r), ctx, open), key };
      redrawn++;
    }
    stats().regions += redrawn;
    // place the regions and the live elements by the mode's row
    const live = liveEl();
    const filled = (name) => name in filledLive ? filledLive[name]() : !!(drawn[name] && drawn[name].nodes.length);
    const cols = placeRegions(row, filled);
    const nodes = (names) => names.flatMap((n) => n in filledLive ? (live[n] ? [live[n]] : []) : drawn[n].nodes);
    grid.classList.toggle("one-column", row.columns === 1);
    const leftNames = [...cols.left, ...(proseOpen ? cols.drawer : [])];
    if (talk) talk.drawer(proseOpen, cols.drawer.length > 0);
    placeNodes(left, nodes(row.columns === 1 ? [...leftNames, ...cols.right] : leftNames));
    placeNodes(right, nodes(row.columns === 1 ? [] : cols.right));
    // every figure can be saved for slides (save.js): the stage's, and one drawn once
    const saved = (what) => () => `kv-cache-step-${part("number")}-${what}`;
    const fig = stage.el.querySelector(".stage-figure");
    if (s.save && fig) saveBar(fig, () => fig.querySelector(".stage-svg"),
                               saved((part("stage") || {}).figure || "figure"), s.save);
    if (s.save) drawn.figure.nodes.filter((n) => n.nodeType === 1).forEach((n, i) =>
      saveBar(n, () => n, saved(`figure-${i + 1}`), s.save, { inside: true, html: !n.querySelector("svg") }));
    // the figure's parts the answer talks about, marked in a figure drawn once (the stage
    // marks its own at every drawing)
    const pts = JSON.stringify([question.points(), drawn.figure.key]);
    if (pts !== pointsSeen) {
      const fresh = JSON.stringify(question.points()) !== JSON.stringify(JSON.parse(pointsSeen || "[[]]")[0]);
      pointsSeen = pts;
      for (const n of drawn.figure.nodes) if (n.nodeType === 1) markPoints(n, question.points(), fresh);
    }
    if (redrawn || has("question", "glossary")) {
      // the glossary: a term's first use shows its definition; the badges' legend goes next
      // to the first cards (not when projecting: the lecturer says it)
      const glossary = read("glossary");
      terms.mark(glossary);
      placeLegend(step, s.present ? null : glossary && glossary.legend);
    }
    // a legend of one of the figure's parts (`of-<part>`, e.g. step 5's bar) only where that
    // part is drawn: a figure-only embed draws step 5's curve alone
    const parts = stage.drawnParts();
    for (const lg of step.querySelectorAll(".legend")) {
      const of = [...lg.classList].find((c) => c.startsWith("of-"));
      lg.style.display = of && Array.isArray(parts) && !parts.includes(of.slice(3)) ? "none" : "";
    }
    if (present && (redrawn || modeChanged || d.has("layout"))) {
      if (speaker) left.querySelectorAll("details").forEach((el) => { el.open = true; });   // all of it
      keepModes(step, window.location.search);           // links stay projected
      requestAnimationFrame(fitStatic);
    }
    if (talk) requestAnimationFrame(() => { fitTalk(talk.el, left, proseOpen); fitSaid(screen.el, talk.said); });
    if (speaker && wantFrame !== null) stage.player.moveTo(wantFrame);
    if (sync) sync.announce();
  };
  // presenting: the charts outside the stage (drawn once by the server's template) get their
  // text at least 18 px on screen too, and the notices of the new words show only whole
  const fitStatic = () => {
    for (const svgEl of right.querySelectorAll("svg")) {
      if (!svgEl.closest(".stage-svg") && !svgEl.closest(".player")) fitChartText(svgEl.parentElement);
    }
    fitNotices(left, lastMode);
  };
  let wantFrame = null;               // the speaker view: the projected page's playhead
  const question_ = () => read("question") || {};

  const onkey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || copy) return;
    const s = read("shell") || {};
    if (speaker && (e.key === "p" || e.key === "P") && !typingIn(e)) {     // the prose drawer
      e.preventDefault();
      proseOpen = !proseOpen;
      touch("layout");
      return;
    }
    if (speaker && sync.keys.includes(e.key) && !typingIn(e)) {      // the projected page moves
      e.preventDefault();
      sync.key(e.key);
      return;
    }
    if (present && !speaker && (e.key === "s" || e.key === "S") &&
        !typingIn(e, ["INPUT", "TEXTAREA", "SELECT"])) {
      e.preventDefault();
      window.open(speakerUrl(window.location), "kv-explainer-speaker", "popup,width=1280,height=800");
      return;
    }
    if (!typingIn(e) && stage.key(e)) { e.preventDefault(); return; }
    if (s.present && (e.key === "PageDown" || e.key === "PageUp")) {
      e.preventDefault();
      send({ nav: e.key === "PageUp" ? -1 : 1 });
      return;
    }
    if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && !e.shiftKey &&
        !typingIn(e, ["INPUT", "TEXTAREA", "SELECT"])) {
      send({ nav: e.key === "ArrowLeft" ? -1 : 1 });
    }
  };
  window.addEventListener("keydown", onkey);
  const refit = () => {
    stage.redraw();
    if (talk) { fitTalk(talk.el, left, proseOpen); fitSaid(screen.el, talk.said); }
  };
  if (present) {
    const follower = speaker || copy;
    const follow = follower ? createFollower(send) : null;
    sync = connect({
      speaker: follower,
      parts: () => Object.fromEntries(MIRRORED.map((p) => [p, model[p]])),
      mirror: (parts) => {
        for (const [p, v] of Object.entries(parts)) if (MIRRORED.includes(p)) { mirror[p] = v; touch(p); }
      },
      view: () => ({ query: read("query"), frame: stage.player.index, screen: stage.screen(),
                     width: window.innerWidth, height: window.innerHeight,
                     answer: question_().answer ?? null, shown: !!question_().shown }),
      follow: (v) => {
        if (screen) screen.size(v.width, v.height);
        wantFrame = Number.isInteger(v.frame) ? v.frame : null;
        if (Number.isInteger(v.screen)) stage.setScreen(v.screen);
        follow(v, { query: read("query"), answer: question_().answer, shown: question_().shown });
        if (wantFrame !== null) stage.player.moveTo(wantFrame);
      },
      key: (k) => onkey({ key: k, preventDefault() {} }),
      nav: (d) => send({ nav: d }),
    });
    window.addEventListener("resize", refit);
    // the words' column changes size (a resize, an answer's feedback): the notices fit again
    if (!speaker && typeof ResizeObserver !== "undefined")
      new ResizeObserver(() => fitNotices(left, lastMode)).observe(left);
  }
  const onNarrow = () => touch("layout");
  if (narrowQuery && narrowQuery.addEventListener) narrowQuery.addEventListener("change", onNarrow);
  const stopHeight = mode0.embed ? postHeight(root) : () => {};
  const parts = ["shell", "query", "glossary", ...(model.parts || [])];
  for (const p of parts) model.on(p, () => touch(p));
  parts.forEach((p) => dirty.add(p));
  flush();                                          // drawn before the page is shown
  model.on("remove", () => {
    stage.stop();
    terms.stop();
    stopHeight();
    window.removeEventListener("keydown", onkey);
    window.removeEventListener("resize", refit);
    if (narrowQuery && narrowQuery.removeEventListener) narrowQuery.removeEventListener("change", onNarrow);
    if (sync) sync.close();
    if (talk) talk.stop();
    if (screen) screen.stop();
  });
  return root;
}
