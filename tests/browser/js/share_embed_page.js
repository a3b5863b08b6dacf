// The JavaScript of tests/browser/test_share_embed_page.py, which runs each function here by its
// name (`page.evaluate("(a) => KVT.share_embed_page.<name>(a)", a)`); tests/browser/conftest.py
// loads every file of this folder into the pages the tests drive.
KVT.share_embed_page = {
  // on the copy button `b`'s next click, what the page shows then (`window.__at`)
  noteWhatTheClickSees: (b) => b.addEventListener("click", () => {
    const root = b.getRootNode();
    window.__at = [root.querySelector(".player-pos").textContent,
                   root.querySelector('[data-metric="seq_len"] .metric-value').textContent];
  }, { once: true }),

  // the empty band at the top of the stage's first drawing: from its top to the top of the
  // first thing drawn in it (px on screen)
  emptyAbove: () => {
    const s = KVT.deep.first(".stage-svg svg");
    let top = Infinity;
    for (const e of s.querySelectorAll("*")) {
      if (e.closest("defs, clipPath")) continue;
      const r = e.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) top = Math.min(top, r.top);
    }
    return top - s.getBoundingClientRect().top;
  },

  // a figure-only embed's height ([at its first frame, at its tallest, the frames seen]): the
  // player's Step forward pressed until it is disabled (the frames are the page's own, no
  // round trip), the page's height read once each frame is drawn (two animation frames on)
  tallestFrame: async () => {
    const root = KVT.deep.first(".kv-root");
    const next = KVT.deep.first(".player-next button");
    const drawn = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const height = () => root.getBoundingClientRect().height;
    const first = height();
    let tallest = first, frames = 1;
    while (next && next.getClientRects().length && !next.disabled && frames < 100) {
      next.click();
      await drawn();
      frames += 1;
      tallest = Math.max(tallest, height());
    }
    return [first, tallest, frames];
  },

  // the course page has heard the app's height in both forms (`window.__kv`: its messages)
  theCoursePageHearsBothHeightMessages: () => {
    const d = window.__kv || [];
    return d.some((m) => m && m.type === "kv-explainer:height" && m.height > 0) &&
           d.some((m) => m && m.subject === "lti.frameResize" && m.height > 0);
  },
};
