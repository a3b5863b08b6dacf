// The JavaScript of tests/browser/test_a11y.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.a11y.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.a11y = {
  order: () => {
    const top = (sel) => { const e = KVT.deep.first(sel); return e ? e.getBoundingClientRect().top : null; };
    // one column (a phone, an embed): every region is in the words' column (layout.js "narrow")
    return { lead: top('.step-text > .step-lead'), stage: top('.step-grid .stage-figure'),
             controls: top('.step-grid .ctl-row'), question: top('.step-text > .question-box'),
             prose: top('.step-text > .narration') };
  },

  onALaptopTheControlsSitOnTheFigureInTheVisualColumn: () => {
    const v = KVT.deep.first('.step-visual');
    return !!(v && v.querySelector('.ctl-row') && v.querySelector('.stage'));
  },
};
