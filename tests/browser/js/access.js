// The JavaScript of tests/browser/test_access.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.access.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.access = {
  // the animation of every element that enters with one
  reducedMotionStillPlaysWithoutTransitions: () =>
    KVT.deep.all('.enter').map((el) => getComputedStyle(el).animationName),

  // the focused element and its focus ring
  focused: () => {
    const a = KVT.deep.focused();
    if (!a) return null;
    const cs = getComputedStyle(a);
    const thumb = a.closest ? a.closest('.MuiSlider-thumb') : null;
    return { tag: a.tagName, role: a.getAttribute('role'), type: a.getAttribute('type'),
             text: (a.innerText || a.getAttribute('aria-label') || a.value || '').trim().slice(0, 40),
             outline: cs.outlineStyle, width: parseFloat(cs.outlineWidth) || 0,
             color: cs.outlineColor,
             ring: thumb ? thumb.classList.contains('Mui-focusVisible') : false };
  },
};
