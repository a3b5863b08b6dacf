// The JavaScript of tests/browser/test_reading.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.reading.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.reading = {
  // how many cards a learner sees without opening a section
  visibleCards: () => KVT.deep.all('.metric').filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.closest('details:not([open])') === null;
  }).length,

  // the smallest font size of the narration's paragraphs on screen
  narrationPx: () => {
    const sizes = KVT.deep.all('p').filter((el) => el.getBoundingClientRect().width > 0 &&
        (el.closest('.narration') || (el.getRootNode().host &&
         el.getRootNode().host.classList.contains('narration'))))
      .map((el) => parseFloat(getComputedStyle(el).fontSize));
    return sizes.length ? Math.min(...sizes) : 0;
  },
};
