// The JavaScript of tests/browser/test_terms.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.terms.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.terms = {
  draw: (g) => {
    const root = document.getElementById("root");
    root.replaceChildren();
    const step = document.createElement("div"); root.appendChild(step);
    const col = document.createElement("div"); step.appendChild(col);
    col.append(...KV["blocks.js"].buildBlocks([
      { kind: "paragraphs", items: ["<b>A token</b> and more tokens, then the KV cache.",
                                    "Each key/value head keeps keys; a token again."] },
      { kind: "details", summary: "Go deeper", blocks: [
        { kind: "paragraphs", items: ["Inside: one token, a key and the prompt."] }] },
    ], { badges: {} }));
    const layer = document.createElement("div"); step.appendChild(layer);
    globalThis.terms = KV["terms.js"].createTerms(step, layer);
    globalThis.terms.mark(g);
    return step.innerHTML;
  },

  // each term marked in the drawn blocks: its words, its button's type and tab stop, its
  // definition's text and children, whether it is in a collapsed section
  markedTerms: () => [...document.querySelectorAll("#root button.term")].map((b) => {
    const d = document.getElementById(b.getAttribute("aria-describedby"));
    return [b.textContent, b.type, b.tabIndex, d && d.textContent, d && d.children.length,
            !!b.closest("details")];
  }),

  theBadgeLegendGoesAfterTheFirstRowOfCards: (g) => {
    const root = document.getElementById("root");
    root.replaceChildren();
    const card = { key: "k", label: "L", value: "1", kind: "measured", hidden: false, more: false };
    root.append(...KV["blocks.js"].buildBlocks([
      { kind: "paragraphs", items: ["Words."] },
      { kind: "details", summary: "All numbers", blocks: [{ kind: "metrics", cards: [card] }] },
      { kind: "metrics", cards: [card] },
      { kind: "metrics", cards: [card] },
    ], { badges: { measured: ["measured", "tip"] } }));
    KV["terms.js"].placeLegend(root, g.legend);
    KV["terms.js"].placeLegend(root, g.legend);           // placed again: still one
    const line = root.querySelectorAll(".badge-legend");
    const rows = root.querySelectorAll(":scope > .metrics");
    return [line.length, line[0].previousElementSibling === rows[0],
            [...line[0].querySelectorAll(".badge")].map((b) => b.className),
            line[0].textContent];
  },

  theBadgeLegendIsNextToTheFirstCard: () => {
    const line = KVT.deep.first(".badge-legend");
    const first = [...line.getRootNode().querySelectorAll(".metrics")].find(
      (r) => !r.hidden && !r.closest("details") && r.querySelector(".metric"));
    return line.previousElementSibling === first;
  },
};
