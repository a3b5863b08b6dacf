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

  // step 5's bar: the GPUs' lines whose line (as drawn, or as it was before it was interrupted
  // behind a label: its pieces' whole extent) runs through the weights' label. A line cut
  // behind a label reads as crossed on a small screen, which inPage does not see (the cut
  // line no longer touches the text).
  barWeights: () => {
    const bar = KVT.deep.all(".step svg.bill-svg").find((s) => s.querySelector(".gpu-line") &&
      s.getBoundingClientRect().width > 0);
    if (!bar) return null;
    const t = bar.querySelector("text.weights-label");
    if (!t) return null;
    const b = t.getBoundingClientRect();
    const out = [];
    for (const ln of bar.querySelectorAll(".gpu-line")) {
      const r = ln.getBoundingClientRect();
      const x = r.left + r.width / 2;
      if (x > b.left + 1 && x < b.right - 1 && r.top < b.bottom - 1 && r.bottom > b.top + 1) {
        out.push(`“${t.textContent}” crossed by the GPU line at x ${Math.round(x)}`);
      }
    }
    return { width: innerWidth, label: t.textContent, bad: out };
  },

  // step 5's legend against what the page draws: each shown legend entry's words, and how
  // many of each mark it names are on screen (the bar's parts and GPU lines; the curve's
  // weights line and its dot at this context)
  legendDrawn: () => {
    const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 || r.height > 0; };
    const count = (sel) => KVT.deep.all(".step " + sel).filter(shown).length;
    return { legend: KVT.deep.all(".legend .swatch").filter(shown).map((e) => e.textContent.trim()),
             drawn: { weightsPart: count(".bill-svg .seg-weights"), gpuLines: count(".bill-svg .gpu-line"),
                      weightsLine: count(".bill-svg .weights-line"), dot: count(".bill-svg .now-dot") } };
  },

  // step 4's roofline: how far the ridge's label stands above the x axis (the plot's lowest
  // level line), in px and in the label's em; a label resting on the axis touches no line
  // and so passes inPage
  ridgeOverAxis: () => {
    const roof = KVT.deep.all(".step svg.roof-svg").find((s) => s.getBoundingClientRect().width > 0);
    const t = roof && roof.querySelector("text.ridge-label");
    if (!t || t.getAttribute("display") === "none") return null;
    const level = [...roof.querySelectorAll(".axis > line:not(.grid)")]
      .filter((l) => l.getAttribute("y1") === l.getAttribute("y2"))
      .map((l) => l.getBoundingClientRect().top);
    const axis = Math.max(...level), b = t.getBoundingClientRect();
    const em = parseFloat(getComputedStyle(t).fontSize);
    return { label: t.textContent, gap: axis - b.bottom, em, over: b.bottom <= axis };
  },
};
