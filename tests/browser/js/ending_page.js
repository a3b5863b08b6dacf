// The JavaScript of tests/browser/test_ending_page.py, which runs each function here by its
// name (`page.evaluate("(a) => KVT.ending_page.<name>(a)", a)`); tests/browser/conftest.py
// loads every file of this folder into the pages the tests drive.
KVT.ending_page = {
  // every link of the key-ideas page: how it is drawn, and for a step's link after its
  // sentence, whether it starts a line of its own (its top below the sentence's last word)
  links: () => KVT.deep.all(".step.ending a").filter((a) => a.getClientRects().length).map((a) => {
    const cs = getComputedStyle(a);
    let alone = null;
    const before = a.previousSibling;
    if (a.classList.contains("back-link") && before && before.nodeType === 3) {
      const text = before.textContent, r = document.createRange();
      r.setStart(before, Math.max(0, text.length - 3));
      r.setEnd(before, text.length);
      const rects = [...r.getClientRects()], word = rects[rects.length - 1];
      const link = a.getClientRects()[0];
      alone = !word || link.top > word.bottom - 2;
    }
    return { cls: a.className, text: a.textContent, underline: cs.textDecorationLine,
             border: parseFloat(cs.borderTopWidth) || 0, color: cs.color, alone };
  }),

  // the sheet: the page's heading, the exam questions and their ruled lines
  sheet: () => ({
    heading: (KVT.deep.first(".step-head h2") || {}).textContent,
    exams: KVT.deep.all(".sheet-exam").length,
    lines: KVT.deep.all(".sheet-exam .sheet-write span").map((s) => s.getBoundingClientRect().height),
    answers: KVT.deep.all(".sheet-exam-answer").length,
    title: document.title,
  }),
};
