// The JavaScript of tests/browser/test_reveal_page.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.reveal_page.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.reveal_page = {
  // the figure's marked parts (dom.js markPoints): each one's data-point, whether it shows, and
  // its highlighter band's (or, an HTML part, its outline's) animation; the answer's font size
  // against the question's and the words' around it (the step's paragraphs; the lead is larger)
  points: () => {
    const all = KVT.deep.all;
    const px = (e) => parseFloat(getComputedStyle(e).fontSize);
    const shown = (e) => e.getClientRects().length > 0;
    const marked = all('.kv-point').filter(shown).map((e) => {
      const glow = e.previousElementSibling && e.previousElementSibling.classList.contains('point-glow')
        ? e.previousElementSibling : null;
      const moving = glow || e;
      return { point: e.getAttribute('data-point'), svg: e instanceof SVGElement, glow: !!glow,
               animation: getComputedStyle(moving).animationName };
    });
    const answer = all('.feedback p').filter((p) => shown(p) && p.textContent.trim());
    const body = all('.narration p, .question').filter(shown).map(px);
    return { marked, answer: answer.map(px), body: Math.max(0, ...body),
             question: Math.max(0, ...all('.question').filter(shown).map(px)) };
  },
};
