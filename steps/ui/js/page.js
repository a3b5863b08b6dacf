// The whole page of one session, drawn from its state (steps/ui/state.py): the shell around
// the step, the step's two columns of blocks, its question, controls and stage. The server
// sends a part of the state when it changes; the page sends a learner's moves as messages.

import { h, typingIn } from "./dom.js";
import { drawBlocks } from "./blocks.js";
import { createShell, postHeight, figureBlocks } from "./shell.js";
import { createControls } from "./controls.js";
import { createQuestion } from "./question.js";
import { createStage } from "./stage.js";
import { WIDGETS } from "./figures.js";
import { presentBlocks, speakerBlocks, createTalk, presentBar, speakerUrl, connect,
         createFollower, fitChartText, fitNotices, keepModes } from "./present.js";
import { createTerms, placeLegend } from "./terms.js";

const STEP_PARTS = ["number", "classes", "tabs", "left", "right", "question", "controls",
                    "values", "acks", "custom", "stage", "frames", "frame", "concealed"];

export function render({ model }) {
  const send = (msg) => model.send_msg(msg);
  const root = h("div", "kv-root");
  // presenting (js/present.js): the projected page, or the speaker view that follows it
  const pmode = model.shell || {};
  const present = !!pmode.present && !pmode.embed, speaker = present && !!pmode.speaker;
  let sync = null;
  const stage = createStage(send, { onframe: () => { if (sync) sync.announce(); } });
  // the copy link's frame: the one on screen, and the one the query has (see shell.shareUrl)
  const playhead = () => (model.stage && model.stage.player !== false)
    ? { index: stage.player.index, frame: model.frame } : null;
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
  // the page mode is the link's, for the whole session: embedded, only the bar, the heading
  // and the step (figure-only: the heading's notices, the lead, the controls and the figure);
  // presenting, no FAQ
  const mode = model.shell || {};
  const figureOnly = !!(mode.embed && mode.figure);
  const talk = speaker ? createTalk() : null;
  const bar = present ? presentBar(shell, speaker) : null;
  if (mode.embed) root.append(shell.embedBar, shell.heading, step);
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
  const drawStep = () => {
    const s = model.shell || {};
    root.className = "kv-root" + (s.embed ? " embed" : "") + (s.present ? " present" : "") +
      (figureOnly ? " figure-only" : "") + (speaker ? " speaker" : "");
    step.className = ["step", ...(model.classes || [])].join(" ");
    drawTabs(figureOnly ? null : model.tabs);         // figure-only: the link picks the part
    question.update(model.question);
    controls.update(model.controls, model.values || {}, s.lang, model.acks);
    stage.update(model.stage, model.frames, model.frame, model.concealed, s.present);
    const c = model.custom;
    if (c && c.widget !== customName) {
      customName = c.widget;
      custom = WIDGETS[c.widget] ? WIDGETS[c.widget](send) : null;
    }
    if (custom) custom.update(c);
    const ctx = { concealed: !!model.concealed, badges: model.stage ? model.stage.text.badges : {},
                  slots: { question: question.el, controls: controls.el, stage: stage.el,
                           custom: custom ? custom.el : null } };
    if (model.stage && model.stage.text) ctx.badges = model.stage.text.badges;
    else ctx.badges = (model.shell && model.shell.badges) || {};
    if (figureOnly) {
      const [words, figure] = figureBlocks(model.left, model.right, !!model.stage);
      drawBlocks(left, words, ctx);
      drawBlocks(right, figure, ctx);
    } else if (present) {
      if (talk) talk.update(s.talk, model.question);
      if (bar) bar.update(s);
      ctx.slots.talk = talk ? talk.el : null;
      const [words, figure] = (speaker ? speakerBlocks : presentBlocks)(model.left, model.right);
      drawBlocks(left, words, ctx);
      drawBlocks(right, figure, ctx);
      if (speaker) left.querySelectorAll("details").forEach((d) => { d.open = true; });   // all of it
      keepModes(step, window.location.search);           // links stay projected
      requestAnimationFrame(fitStatic);
      if (speaker && wantFrame !== null) stage.player.moveTo(wantFrame);
    } else {
      drawBlocks(left, model.left, ctx);
      drawBlocks(right, model.right, ctx);
    }
    // the glossary: a term's first use shows its definition; the badges' legend goes next to
    // the first cards (not when projecting: the lecturer says it)
    terms.mark(model.glossary);
    placeLegend(step, s.present ? null : model.glossary && model.glossary.legend);
  };
  const drawShell = () => { shell.update(model.shell); shell.follow(model.query); drawStep(); };
  // presenting: the charts outside the stage (drawn once by the server's template) get their
  // text at least 18 px on screen too, and the notices of the new words show only whole
  const fitStatic = () => {
    for (const svgEl of right.querySelectorAll("svg")) {
      if (!svgEl.closest(".stage-svg") && !svgEl.closest(".player")) fitChartText(svgEl.parentElement);
    }
    fitNotices(left);
  };
  let wantFrame = null;               // the speaker view: the projected page's playhead
  const question_ = () => model.question || {};

  const onkey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const s = model.shell || {};
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
  const refit = () => stage.redraw();
  if (present) {
    const follow = speaker ? createFollower(send) : null;
    sync = connect({
      speaker,
      view: () => ({ query: model.query, frame: stage.player.index,
                     answer: question_().answer ?? null, shown: !!question_().shown }),
      follow: (v) => {
        wantFrame = Number.isInteger(v.frame) ? v.frame : null;
        follow(v, { query: model.query, answer: question_().answer, shown: question_().shown });
        if (wantFrame !== null) stage.player.moveTo(wantFrame);
      },
      key: (k) => onkey({ key: k, preventDefault() {} }),
      nav: (d) => send({ nav: d }),
    });
    window.addEventListener("resize", refit);
    // the words' column changes size (a resize, an answer's feedback): the notices fit again
    if (!speaker && typeof ResizeObserver !== "undefined")
      new ResizeObserver(() => fitNotices(left)).observe(left);
  }
  const stopHeight = (model.shell && model.shell.embed) ? postHeight(root) : () => {};
  drawShell();
  model.on("shell", drawShell);
  model.on("query", () => { shell.follow(model.query); if (sync) sync.announce(); });
  model.on(STEP_PARTS, () => { drawStep(); if (sync) sync.announce(); });
  model.on("glossary", drawStep);
  model.on("remove", () => {
    stage.stop();
    terms.stop();
    stopHeight();
    window.removeEventListener("keydown", onkey);
    window.removeEventListener("resize", refit);
    if (sync) sync.close();
  });
  return root;
}
