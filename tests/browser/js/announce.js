// The JavaScript of tests/browser/test_announce.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.announce.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
let announceWatched = null;     // what `watch` saw, for `said` and `record`
KVT.announce = {
  // the number cards a sighted learner sees, key -> [label, value] (written here, not taken
  // from controls.js: the test says what “on screen” means on its own)
  cards: () => {
    const out = {};
    for (const c of KVT.deep.all(".step [data-metric]")) {
      const r = c.getBoundingClientRect();
      if (c.closest("details:not([open])") || !r.width || !r.height) continue;
      const label = c.querySelector(".metric-label");     // a table's cell has none
      out[c.getAttribute("data-metric")] = [label ? label.textContent : null,
                                            c.querySelector(".metric-value").textContent];
    }
    return out;
  },

  // the controls the page shows: [name, kind, label]
  controls: () => KVT.deep.all(".step .ctl-row > .ctl").filter((el) => el.getClientRects().length)
    .map((el) => [el.getAttribute("data-control"),
                  ["range", "select", "radio", "text"].find((k) => el.classList.contains("ctl-" + k)),
                  el.querySelector(".ctl-label").textContent]),

  // watch the controls' live region: what it says now and the cards on screen now; the first
  // time it says something else, the cards on screen at that moment
  watch: (selector) => {
    const say = KVT.deep.first(selector || ".ctl-say");
    const rec = { role: say.getAttribute("role"), live: say.getAttribute("aria-live"),
                  before: say.textContent, cards: KVT.announce.cards(), after: null, at: null };
    const seen = () => {
      if (rec.after === null && say.textContent !== rec.before) {
        rec.after = say.textContent;
        rec.at = KVT.announce.cards();
      }
    };
    new MutationObserver(seen).observe(say, { childList: true, characterData: true, subtree: true });
    announceWatched = rec;
  },

  said: () => announceWatched.after !== null,
  record: () => announceWatched,

  // -- units, on the bundle without a server ----------------------------------------------------

  // a step's page in miniature: two cards on screen, one under a closed “All numbers”, and the
  // controls; a slider moved three times (the server handles the first two, then the last,
  // with new cards), then a menu
  saysWhatAChangeDid: async () => {
    const tick = () => new Promise((r) => setTimeout(r, 0));
    const { createControls } = KV["controls.js"];
    const sent = [];
    const c = createControls((m) => sent.push(m));
    const step = document.createElement("div");
    step.className = "step";
    const card = (parent, key, label, value) => {
      const d = KV["dom.js"].h("div", "metric", parent, null, { "data-metric": key });
      KV["dom.js"].h("div", "metric-label", d, label);
      return KV["dom.js"].h("div", "metric-value", d, value);
    };
    const t = card(step, "time", "Prefill time", "23 ms");
    card(step, "steps", "Decode steps", "255");
    const more = KV["dom.js"].h("details", "", step);
    const hiddenValue = card(more, "rate", "Tokens per second", "145");
    step.appendChild(c.el);
    document.getElementById("root").replaceChildren(step);
    const spec = [{ name: "context", kind: "range", label: "Kontekst (tokeny)", start: 512,
                    end: 32768, step: 256 },
                  { name: "gpu", kind: "select", label: "GPU", options: [["a", "Karta A"], ["b", "Karta B"]] }];
    c.update(spec, { context: 4096, gpu: "a" }, "pl", {});
    const out = c.el.querySelector("output").textContent;
    const said = [];
    new MutationObserver(() => said.push(c.say.textContent))
      .observe(c.say, { childList: true, characterData: true, subtree: true });
    const r = c.el.querySelector("input[type=range]");
    for (const v of [4352, 4608, 4864]) { r.value = String(v); r.dispatchEvent(new Event("change")); }
    c.update(spec, { context: 4608, gpu: "a" }, "pl", { context: sent[1].seq });
    await tick();
    const early = said.length;
    t.textContent = "25 ms";
    hiddenValue.textContent = "140";
    c.update(spec, { context: 4864, gpu: "a" }, "pl", { context: sent[2].seq });
    await tick();
    const s = c.el.querySelector("select");
    s.selectedIndex = 1;
    s.dispatchEvent(new Event("change"));
    c.update(spec, { context: 4864, gpu: "b" }, "pl", { context: sent[2].seq, gpu: sent[3].seq });
    await tick();
    return { out, early, said, role: c.say.getAttribute("role"), live: c.say.getAttribute("aria-live") };
  },
};
