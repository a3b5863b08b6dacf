// The JavaScript of tests/browser/helpers.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.helpers.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.helpers = {
  // whether `pred` (a JS expression of `v`) holds of the column `col` of the Bokeh data
  // source named `name`
  waitCds: ([name, col, pred]) => {
    for (const d of Bokeh.documents) {
      const m = d.get_model_by_name(name);
      if (m) { const v = Array.from(m.data[col]); return eval(pred); }
    }
    return false;
  },

  // the projected page measured: how far it scrolls, where its parts end, the smallest body,
  // chart and label text, how many figures and menus show, the palest fill
  presented: () => {
    const all = KVT.deep.all;
    const shown = (e) => { const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
    const px = (e) => parseFloat(getComputedStyle(e).fontSize);
    const bottom = (sel) => Math.max(0, ...all(sel).filter(shown).map((e) => e.getBoundingClientRect().bottom));
    const body = all('.step-lead p, .part-title h3, .question, .q-btn').filter(shown).map(px);
    const chart = all('.step-visual svg text').filter((t) => shown(t) && t.textContent.trim() &&
        t.getAttribute('display') !== 'none').map((t) => px(t) * t.closest('svg').getScreenCTM().a);
    const labels = all('.metric-label, .ctl-label, .legend, .player-pos, .stage-caption, .chart-title, ' +
                       '.bar-name, .bar-label')
        .filter(shown).map(px);
    return { scroll: document.documentElement.scrollHeight - innerHeight, height: innerHeight,
      lead: bottom('.step-lead, .part-title'),   // projected, a part's title stands for the lead
      question: bottom('.question-box'), controls: bottom('.ctl-row'),
      visual: Math.max(0, ...all('.step-visual > *').filter(shown).map((e) => e.getBoundingClientRect().bottom)),
      figures: all('.step-visual svg:not(.player-icon), .step-visual .kv-groups').filter(shown).length,
      body: Math.min(...body), chart: Math.min(...chart), labels: Math.min(...labels),
      menus: all('#kv-lang, .faq, nav.stepnav').filter(shown).length,
      pale: Math.min(...all('.grids-svg .cell.cached, .roof-svg .mem-region').filter(shown)
        .map((e) => parseFloat(getComputedStyle(e).fillOpacity))) };
  },
};
