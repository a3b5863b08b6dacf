// The whole page of one session, drawn from its state (steps/ui/state.py): the shell around
// the step, the step's two columns of blocks, its question, controls and stage. The server
// sends a part of the state when it changes; the page sends a learner's moves as messages.

import { h, typingIn } from "./dom.js";
import { drawBlocks } from "./blocks.js";
import { createShell, postHeight } from "./shell.js";
import { createControls } from "./controls.js";
import { createQuestion } from "./question.js";
import { createStage } from "./stage.js";
import { WIDGETS } from "./figures.js";

const STEP_PARTS = ["number", "classes", "tabs", "left", "right", "question", "controls",
                    "values", "acks", "custom", "stage", "frames", "frame", "concealed"];

export function render({ model }) {
  const send = (msg) => model.send_msg(msg);
  const root = h("div", "kv-root");
  const shell = createShell(send);
  const step = h("div", "step");
  const tabs = h("div", "step-tabs", step, null, { role: "tablist" });
  const grid = h("div", "step-grid", step);
  const left = h("div", "step-text", grid);
  const right = h("div", "step-visual", grid);
  const question = createQuestion(send);
  const controls = createControls(send);
  controls.el.classList.add("controls");
  const stage = createStage(send);
  let custom = null, customName = null;
  // the page mode is the link's, for the whole session: embedded, only the bar, the heading
  // and the step; presenting, no FAQ
  const mode = model.shell || {};
  if (mode.embed) root.append(shell.embedBar, shell.heading, step);
  else root.append(shell.top, shell.nav, shell.heading, step, shell.prevnext,
                   ...(mode.present ? [] : [shell.faq]));

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
    root.className = "kv-root" + (s.embed ? " embed" : "") + (s.present ? " present" : "");
    step.className = ["step", ...(model.classes || [])].join(" ");
    drawTabs(model.tabs);
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
    drawBlocks(left, model.left, ctx);
    drawBlocks(right, model.right, ctx);
  };
  const drawShell = () => { shell.update(model.shell); shell.follow(model.query); drawStep(); };

  const onkey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const s = model.shell || {};
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
  const stopHeight = (model.shell && model.shell.embed) ? postHeight(root) : () => {};
  drawShell();
  model.on("shell", drawShell);
  model.on("query", () => shell.follow(model.query));
  model.on(STEP_PARTS, drawStep);
  model.on("remove", () => {
    stage.stop();
    stopHeight();
    window.removeEventListener("keydown", onkey);
  });
  return root;
}
