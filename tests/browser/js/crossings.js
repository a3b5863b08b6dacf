// The JavaScript of tests/browser/test_crossings.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.crossings.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.crossings = {
  // the served page's figures (every <svg> of the step's visual column or, in one column,
  // of the step; not the player's icons) checked as the figure tests check a drawing
  // (js_units.js `crossings`): the texts that a line, an outline or a point runs through, and
  // the pairs of texts that cover each other
  inPage: (where) => {
    const svgs = KVT.deep.all(".step svg").filter((s) => !s.parentElement.closest("svg") &&
      !s.closest(".player, button") && !s.classList.contains("player-icon") &&
      s.getBoundingClientRect().width > 0);
    const out = [];
    svgs.forEach((s, k) => {
      const at = `${where} ${s.getAttribute("class") || "svg"}#${k}`;
      out.push(...KVT.js_units.crossings(s, at));
      const texts = [...s.querySelectorAll("text")].filter((t) => t.textContent.trim() &&
        t.getBoundingClientRect().width > 0 && t.getAttribute("display") !== "none" &&
        !t.closest("[display=none]"));
      out.push(...KVT.js_units.overlapping(texts, at));
    });
    return { figures: svgs.length, bad: out };
  },
};
