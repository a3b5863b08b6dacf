// Step 5's “your model” box (StepState.custom, widget "config"): a config.json to paste, a
// parameter count (empty: counted from the config), a Read button, and what the server made
// of it: the problems (notices) and the fields read with the formula in their names. Read
// sends the text and the count together as one message {custom: {config, params_b}}; once
// the server's answer is drawn, the box's live region says what it changed: the numbers on
// screen (the cards: controls.js changeWords), else the formula read from the config.
// Everything the server sends is drawn as text (textContent), never as markup.

// Generated from the TypedDicts (`python -m steps.ui.state --jsdoc config` writes them);
// the types named here and not defined are in steps/ui/state.py.
/**
 * @typedef {Object} ConfigCustom
 * Step 5's “your model” box (js/draw/config.js; `view.Step5.your_model` fills it).
 * @property {"config"} widget
 * @property {string} label
 * @property {string} placeholder
 * @property {string} value the config.json as pasted
 * @property {number} max_length
 * @property {string} params_label
 * @property {(number|null)} params_value the parameters in billions (null: counted from the config)
 * @property {string} read the Read button
 * @property {string[]} problems why the config could not be used (notices)
 * @property {string[]} fields what was read, the formula with their values (paragraphs)
 */

import { h } from "../dom.js";
import { cardsOnScreen, changeWords } from "../controls.js";

export function config(send) {
  const box = h("div", "your-model");
  const uid = Math.random().toString(36).slice(2, 8);
  const textWrap = h("div", "ctl ctl-textarea", box);
  const label = h("label", "ctl-label", textWrap);
  const area = h("textarea", "ctl-input config-text", textWrap);
  area.id = label.htmlFor = `config-${uid}-text`;
  area.rows = 7;
  area.spellcheck = false;
  area.setAttribute("autocomplete", "off");
  const row = h("div", "config-row", box);
  const numWrap = h("div", "ctl ctl-number", row);
  const numLabel = h("label", "ctl-label", numWrap);
  const num = h("input", "ctl-input config-params", numWrap);
  num.id = numLabel.htmlFor = `config-${uid}-params`;
  num.type = "number";
  num.min = "0";
  num.step = "any";
  num.inputMode = "decimal";
  const read = h("button", "config-read", row);
  read.type = "button";
  const problems = h("div", "config-problems", box);
  const fields = h("div", "live-facts config-fields", box);
  const say = h("p", "sr-only config-say", box, null, { role: "status", "aria-live": "polite" });
  let before = null;              // the cards on screen when Read was pressed, until answered

  // what each field showed when it was last in step with the server: a field the learner
  // has edited since keeps the learner's text until it is read
  let textShown = "", numShown = "", drawn = "";
  const readNow = () => {
    const n = num.value.trim() === "" ? null : Number(num.value);
    textShown = area.value;
    numShown = num.value;
    before = cardsOnScreen(box.closest(".step"));
    send({ custom: { config: area.value, params_b: Number.isFinite(n) ? n : null } });
  };
  read.addEventListener("click", readNow);
  num.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); readNow(); } });

  const lines = (parent, items, cls) => {
    parent.replaceChildren();
    for (const t of items || []) {
      const p = h("p", cls, parent, t);
      if (cls) p.setAttribute("role", "status");
    }
  };

  // c: {label, placeholder, value, max_length, params_label, params_value, read, problems,
  // fields}, or null (the model list is not on “your model”)
  const update = (c) => {
    box.hidden = !c;
    if (!c) return;
    label.textContent = c.label || "";
    area.placeholder = c.placeholder || "";
    if (c.max_length) area.maxLength = c.max_length;
    numLabel.textContent = c.params_label || "";
    read.textContent = c.read || "";
    const value = c.value || "";
    if (area.value === textShown && area.value !== value) area.value = value;
    textShown = value;
    const pv = c.params_value === null || c.params_value === undefined ? "" : String(c.params_value);
    if (num.value === numShown && num.value !== pv) num.value = pv;
    numShown = pv;
    const said = JSON.stringify([c.problems, c.fields]);
    if (said !== drawn) {           // a notice is announced when it is new, not on every redraw
      drawn = said;
      lines(problems, c.problems, "notice");
      lines(fields, c.fields, "");
      if (before !== null) {          // the answer to Read: said once the page shows it all
        const was = before;
        before = null;
        queueMicrotask(() => {
          const words = changeWords([], was, cardsOnScreen(box.closest(".step")));
          const formula = (c.fields || []).find((f) => f.includes("×")) || "";
          if (!(c.problems || []).length) say.textContent = words || formula;
        });
      }
    }
  };
  return { el: box, update };
}
