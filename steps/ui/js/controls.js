// A step's controls: native form elements (a <select>, a range with its value beside it, a
// text field sent on Enter or when left, a row of radio buttons). A learner's change is sent
// as one message {set, value, seq}; until the server has handled it (its `acks` reach that
// seq), older values from the server do not move the control back (a slider moved by several
// key presses in a row, on a busy server).
//
// No change is lost: one the server has not acknowledged `resendMs` after it was sent is sent
// again, with a new seq (steps/ui/step.py Step.handle drops only a seq at or below the last
// it handled, so the copy is handled whether or not the first was: setting the same value
// twice changes nothing), up to `resends` times; then the control shows the server's value
// again, which the rest of the page already shows. A change is resent only while the page
// shows the controls it was made on: on another step, a control of the same name is another.
//
// What a change did is said in the controls' live region (`.ctl-say`, polite) once the server
// has handled it: the control and its new value, then each number card on screen whose value
// changed with it (“Prompt length (tokens): 1,024. Prefill time to first token, at least:
// 46 ms”). A run of changes (a slider moved by several key presses) is said once, when the
// last one is handled, against the cards on screen before the first. A figure's own words
// are the stage's live region's (stage.js).

import { h, formatNumber } from "./dom.js";

// a number's name: its card's label, or in a table (step 5's planner) its column's and its
// row's headings
function numberLabel(c) {
  const label = c.querySelector(".metric-label");
  if (label) return label.textContent;
  const row = c.closest("tr"), table = c.closest("table");
  const col = table && table.tHead && table.tHead.rows[0] ? table.tHead.rows[0].cells[c.cellIndex] : null;
  const name = row && row.cells[0] && row.cells[0] !== c ? row.cells[0].firstChild : null;
  return [col, name].filter(Boolean).map((n) => n.textContent.trim()).filter(Boolean).join(", ");
}

// the numbers a learner sees now (cards, and a table's cells marked as numbers), key ->
// [label, value]: not those in a closed section (“All numbers”) nor any the page does not show
export function cardsOnScreen(root) {
  const out = new Map();
  if (!root) return out;
  for (const c of root.querySelectorAll("[data-metric]")) {
    if (c.closest("details:not([open])") || !c.getClientRects().length) continue;
    const value = c.querySelector(".metric-value");
    if (value) out.set(c.getAttribute("data-metric"), [numberLabel(c), value.textContent]);
  }
  return out;
}

// the words for the live region: each control as “label: value”, then the cards of `now`
// that say something else than in `was` (their value, or their label: “… fit in the H100”),
// or that were not there
export function changeWords(controls, was, now) {
  const cards = [...now].filter(([k, [l, v]]) => !was.has(k) || was.get(k)[0] !== l || was.get(k)[1] !== v)
    .map(([, [label, v]]) => (label ? `${label}: ${v}` : v));
  return [controls.join(". "), cards.join("; ")].filter(Boolean).join(". ");
}

// the attributes of `attrs` that have a value (a range's bounds a spec may leave out)
const given = (attrs) => Object.fromEntries(Object.entries(attrs)
  .filter(([, v]) => v !== undefined && v !== null));

export function createControls(send, { resendMs = 3000, resends = 3 } = {}) {
  const box = h("div", "ctl-row");
  const say = h("p", "sr-only ctl-say", null, null, { role: "status", "aria-live": "polite" });
  const uid = Math.random().toString(36).slice(2, 8);
  let built = "", lang = "en", names = "", last = {}, shown = [];
  const parts = {};
  // name -> the change waiting for the server: {value, seq, tries, names, timer}
  const pending = {};
  let seq = 0;
  // the cards before the first change still waiting, and the controls handled since
  let before = null, handled = [];
  const page = () => box.closest(".step");
  const drop = (name) => {
    clearTimeout(pending[name].timer);
    delete pending[name];
    if (!Object.keys(pending).length && !handled.length) before = null;
  };
  // “label: value” of control `name` as the server holds it now
  const describe = (name) => {
    const c = shown.find((x) => x.name === name);
    if (!c) return "";
    const v = last[name];
    const o = (c.options || []).find((opt) => opt[0] === v);
    const text = c.kind === "range" ? formatNumber(v, lang) : o ? String(o[1]) : String(v ?? "");
    return `${c.label}: ${text}`;
  };
  // said once the page shows what the server sent with the acknowledgement (page.js draws
  // the whole message first: this runs after it)
  const announce = () => {
    if (Object.keys(pending).length || !handled.length) return;
    const words = changeWords([...new Set(handled)].map(describe).filter(Boolean),
                              before || new Map(), cardsOnScreen(page()));
    handled = [];
    before = null;
    if (words) say.textContent = words;
  };
  const transmit = (name, wait) => {
    wait.seq = ++seq;
    send({ set: name, value: wait.value, seq: wait.seq });
    wait.timer = setTimeout(() => overdue(name, wait), resendMs);
  };
  // no acknowledgement in time: send it again, or give up and show the server's value
  const overdue = (name, wait) => {
    if (pending[name] !== wait) return;             // handled, or a newer change of it waits
    if (wait.tries < resends && wait.names === names) {
      wait.tries += 1;
      transmit(name, wait);
      return;
    }
    drop(name);
    if (parts[name] && name in last) parts[name].set(last[name]);
  };
  const change = (name, value) => {
    if (before === null) before = cardsOnScreen(page());
    if (pending[name]) clearTimeout(pending[name].timer);
    pending[name] = { value, tries: 0, names };
    transmit(name, pending[name]);
  };

  const build = (spec) => {
    box.replaceChildren();
    for (const k of Object.keys(parts)) delete parts[k];
    spec.forEach((c, i) => {
      const id = `ctl-${uid}-${i}`;
      const wrap = h("div", `ctl ctl-${c.kind} ctl-${c.size || "normal"} ctl-${c.name}`, box, null,
                     { "data-control": c.name });
      if (c.kind === "radio") {
        const lab = h("span", "ctl-label", wrap, null, { id: id + "-label" });
        const group = h("div", "ctl-segments", wrap, null, { role: "radiogroup",
                                                            "aria-labelledby": id + "-label" });
        const inputs = (c.options || []).map(([value], j) => {
          const l = h("label", "ctl-segment", group);
          const r = h("input", null, l, null, { type: "radio", name: id, value: String(j) });
          // the short label (projected page only) before the label, which screen readers read
          if ((c.options[j] || [])[2]) {
            l.classList.add("has-short");
            h("span", "ctl-short", l, null, { "aria-hidden": "true" });
          }
          h("span", "ctl-full", l);
          r.addEventListener("change", () => { if (r.checked) change(c.name, value); });
          return [r, value];
        });
        parts[c.name] = { label: lab, texts: () => group.querySelectorAll(".ctl-segment .ctl-full"),
          shorts: () => group.querySelectorAll(".ctl-segment"),
          set: (v) => {
            for (const [r, value] of inputs) {
              r.checked = value === v;
              r.parentElement.classList.toggle("checked", value === v);
            }
          } };
        return;
      }
      const lab = h("label", "ctl-label", wrap, null, { for: id });
      if (c.kind === "select") {
        const s = h("select", "ctl-input", wrap, null, { id });
        (c.options || []).forEach((_, j) => h("option", null, s, null, { value: String(j) }));
        s.addEventListener("change", () => {
          const o = (c.options || [])[Number(s.value)];
          if (o) change(c.name, o[0]);
        });
        parts[c.name] = { label: lab, texts: () => s.querySelectorAll("option"), set: (v) => {
          s.selectedIndex = (c.options || []).findIndex((o) => o[0] === v);
        } };
      } else if (c.kind === "range") {
        const line = h("div", "ctl-range-line", wrap);
        const r = h("input", "ctl-input", line, null, given({ id, type: "range", min: c.start,
                                                                max: c.end, step: c.step }));
        const out = h("output", "ctl-value", line, null, { for: id, "aria-hidden": "true" });
        const show = (v) => {
          out.textContent = formatNumber(v, lang);
          r.setAttribute("aria-valuenow", String(v));
          r.setAttribute("aria-valuetext", formatNumber(v, lang));
        };
        r.addEventListener("input", () => show(Number(r.value)));
        r.addEventListener("change", () => change(c.name, Number(r.value)));
        parts[c.name] = { label: lab, set: (v) => { r.value = String(v); show(v); } };
      } else {
        const t = h("input", "ctl-input", wrap, null, { id, type: "text", autocomplete: "off",
                                                         spellcheck: "false" });
        if (c.max_length) t.maxLength = c.max_length;
        const commit = () => change(c.name, t.value);
        t.addEventListener("change", commit);
        t.addEventListener("keydown", (e) => { if (e.key === "Enter") commit(); });
        parts[c.name] = { label: lab, input: t, set: (v) => {
          if (document.activeElement !== t || t.value === "") t.value = v ?? "";
        } };
      }
    });
    box.appendChild(say);
  };

  // spec: [{name, kind, label, options, ...}], values: {name: value}, acks: {name: the last
  // seq the server handled}
  const update = (spec, values, language, acks) => {
    acks = acks || {};
    spec = (spec || []).filter((c) => !c.hidden);      // set by other parts of the page (tabs)
    lang = language || lang;
    last = values;
    shown = spec;
    names = JSON.stringify(spec.map((c) => c.name));
    for (const name of Object.keys(pending)) if (pending[name].names !== names) drop(name);
    const shape = JSON.stringify(spec.map((c) => [c.name, c.kind, c.start, c.end, c.step,
                                                   (c.options || []).map((o) => o[0])]));
    if (shape !== built) { build(spec); built = shape; }
    box.hidden = !spec.length;
    for (const c of spec) {
      const p = parts[c.name];
      p.label.textContent = c.label;
      if (p.texts) {
        const texts = (c.options || []).map((o) => o[1]);
        p.texts().forEach((n, j) => { if (n.textContent !== texts[j]) n.textContent = texts[j]; });
        if (p.shorts) p.shorts().forEach((seg, j) => {
          const n = seg.querySelector(".ctl-short"), t = ((c.options || [])[j] || [])[2] || "";
          if (n && n.textContent !== t) n.textContent = t;
        });
      }
      if (p.input) p.input.placeholder = c.placeholder || "";
      if (pending[c.name] && (acks[c.name] || 0) >= pending[c.name].seq) {
        handled.push(c.name);
        drop(c.name);
      }
      if (!pending[c.name]) p.set(values[c.name]);
    }
    if (handled.length && !Object.keys(pending).length) queueMicrotask(announce);
  };
  return { el: box, update, say };
}
