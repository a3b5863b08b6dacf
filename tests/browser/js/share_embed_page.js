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

  // the course page has heard the app's height in both forms (`window.__kv`: its messages)
  theCoursePageHearsBothHeightMessages: () => {
    const d = window.__kv || [];
    return d.some((m) => m && m.type === "kv-explainer:height" && m.height > 0) &&
           d.some((m) => m && m.subject === "lti.frameResize" && m.height > 0);
  },
};
