// The JavaScript of tests/browser/test_heading.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.heading.<name>(a)", a)`); tests/browser/conftest.py loads every
// file of this folder into the pages the tests drive.
KVT.heading = {
  // the heading's schematic as the page shows it: whether it shows, the size on screen of
  // each of its words (text and subscript: font size × the drawing's scale), its caption's
  // size, and whether it stays inside the heading
  schematic: () => {
    const box = KVT.deep.first(".step-head .schematic-box");
    if (!box || !box.getClientRects().length || getComputedStyle(box).display === "none")
      return { shown: false };
    const svg = box.querySelector("svg");
    const words = [...svg.querySelectorAll("text, tspan")].map((t) => {
      const m = (t.closest("text") || t).getScreenCTM();
      return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)];
    });
    const cap = box.querySelector("figcaption"), head = box.closest(".step-head");
    const b = box.getBoundingClientRect(), hb = head.getBoundingClientRect();
    return { shown: true, words, caption: cap.textContent,
             captionPx: parseFloat(getComputedStyle(cap).fontSize),
             inside: b.left >= hb.left - 1 && b.right <= hb.right + 1,
             subs: svg.querySelectorAll("tspan.sch-sub").length };
  },
};
