// A step's controls: native form elements (a <select>, a range with its value beside it, a
// text field sent on Enter or when left, a row of radio buttons). A learner's change is sent
// as one message {set, value, seq}; until the server has handled it (its `acks` reach that
// seq), older values from the server do not move the control back (a slider moved by several
// key presses in a row, on a busy server).

import { h, formatNumber } from "./dom.js";

const el = (tag, attrs, parent) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
};

export function createControls(send) {
  const box = h("div", "ctl-row");
  const uid = Math.random().toString(36).slice(2, 8);
  let built = "", lang = "en";
  const parts = {};
  const pending = {};
  let seq = 0;
  const change = (name, value) => {
    pending[name] = [++seq, Date.now()];
    send({ set: name, value, seq });
  };

  const build = (spec) => {
    box.replaceChildren();
    for (const k of Object.keys(parts)) delete parts[k];
    spec.forEach((c, i) => {
      const id = `ctl-${uid}-${i}`;
      const wrap = el("div", { class: `ctl ctl-${c.kind} ctl-${c.size || "normal"} ctl-${c.name}` }, box);
      if (c.kind === "radio") {
        const lab = el("span", { id: id + "-label", class: "ctl-label" }, wrap);
        const group = el("div", { role: "radiogroup", class: "ctl-segments",
                                  "aria-labelledby": id + "-label" }, wrap);
        const inputs = (c.options || []).map(([value], j) => {
          const l = el("label", { class: "ctl-segment" }, group);
          const r = el("input", { type: "radio", name: id, value: String(j) }, l);
          // the short label (projected page only) before the label, which screen readers read
          if ((c.options[j] || [])[2]) {
            l.classList.add("has-short");
            el("span", { class: "ctl-short", "aria-hidden": "true" }, l);
          }
          el("span", { class: "ctl-full" }, l);
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
      const lab = el("label", { for: id, class: "ctl-label" }, wrap);
      if (c.kind === "select") {
        const s = el("select", { id, class: "ctl-input" }, wrap);
        (c.options || []).forEach((_, j) => el("option", { value: String(j) }, s));
        s.addEventListener("change", () => {
          const o = (c.options || [])[Number(s.value)];
          if (o) change(c.name, o[0]);
        });
        parts[c.name] = { label: lab, texts: () => s.querySelectorAll("option"), set: (v) => {
          s.selectedIndex = (c.options || []).findIndex((o) => o[0] === v);
        } };
      } else if (c.kind === "range") {
        const line = el("div", { class: "ctl-range-line" }, wrap);
        const r = el("input", { id, type: "range", class: "ctl-input", min: c.start,
                                max: c.end, step: c.step }, line);
        const out = el("output", { for: id, class: "ctl-value", "aria-hidden": "true" }, line);
        const show = (v) => {
          out.textContent = formatNumber(v, lang);
          r.setAttribute("aria-valuenow", String(v));
          r.setAttribute("aria-valuetext", formatNumber(v, lang));
        };
        r.addEventListener("input", () => show(Number(r.value)));
        r.addEventListener("change", () => change(c.name, Number(r.value)));
        parts[c.name] = { label: lab, set: (v) => { r.value = String(v); show(v); } };
      } else {
        const t = el("input", { id, type: "text", class: "ctl-input", autocomplete: "off",
                                spellcheck: "false" }, wrap);
        if (c.max_length) t.maxLength = c.max_length;
        const commit = () => change(c.name, t.value);
        t.addEventListener("change", commit);
        t.addEventListener("keydown", (e) => { if (e.key === "Enter") commit(); });
        parts[c.name] = { label: lab, input: t, set: (v) => {
          if (document.activeElement !== t || t.value === "") t.value = v ?? "";
        } };
      }
    });
  };

  // spec: [{name, kind, label, options, ...}], values: {name: value}, acks: {name: the last
  // seq the server handled}; a message lost for a minute counts as handled
  const update = (spec, values, language, acks) => {
    acks = acks || {};
    spec = (spec || []).filter((c) => !c.hidden);      // set by other parts of the page (tabs)
    lang = language || lang;
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
      const wait = pending[c.name];
      if (wait && ((acks[c.name] || 0) >= wait[0] || Date.now() - wait[1] > 60000)) delete pending[c.name];
      if (!pending[c.name]) p.set(values[c.name]);
    }
  };
  return { el: box, update };
}
