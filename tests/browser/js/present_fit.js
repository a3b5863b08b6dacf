// The JavaScript of tests/browser/test_present_fit.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.present_fit.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.present_fit = {
  // the font size (px) of the first element `sel` matches, or null
  fontPx: (sel) => {
    const e = KVT.deep.all(sel)[0];
    return e ? parseFloat(getComputedStyle(e).fontSize) : null;
  },

  playerInside: () => {
    const all = KVT.deep.all;
    const out = [];
    for (const b of all('.stage .player-btn')) {
      const r = b.getBoundingClientRect();
      if (!(r.width > 0)) continue;
      const col = b.closest('.step-visual').getBoundingClientRect();
      if (r.left < Math.max(0, col.left) - 1 || r.right > Math.min(innerWidth, col.right) + 1 ||
          r.bottom > innerHeight + 1) out.push([b.textContent, Math.round(r.left), Math.round(r.right)]);
    }
    // where it stands (“Token 1 of 40”): on one line, inside the column
    for (const p of all('.stage .player-pos')) {
      const r = p.getBoundingClientRect();
      if (!(r.width > 0) || !p.textContent.trim()) continue;
      const col = p.closest('.step-visual').getBoundingClientRect();
      const line = parseFloat(getComputedStyle(p).lineHeight) || 1.2 * parseFloat(getComputedStyle(p).fontSize);
      if (r.height > 1.5 * line) out.push([p.textContent, 'on', Math.round(r.height / line), 'lines']);
      if (r.right > Math.min(innerWidth, col.right) + 1) out.push([p.textContent, Math.round(r.right)]);
    }
    return out;
  },

  markedContrast: () => {
    const all = KVT.deep.all;
    const lum = (c) => { const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
        v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    return all('.q-btn.chosen').map((b) => { const s = getComputedStyle(b);
      const [a, c] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
      return { cls: b.className, ratio: (a + 0.05) / (c + 0.05) }; });
  },

  figure: () => {
    const all = KVT.deep.all;
    const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const holder = all('.stage-svg')[0], r = holder.getBoundingClientRect();
    const svgs = [...holder.children].filter((c) => c.tagName.toLowerCase() === 'svg');
    const cards = all('.stage-cards .metric').filter(shown).map((c) => Math.round(c.getBoundingClientRect().top));
    return { width: r.width, height: r.height, box: holder.dataset.box || '',
             scales: svgs.map((s) => s.getScreenCTM().a),
             fills: svgs.map((s) => { const b = s.getBoundingClientRect(), v = s.viewBox.baseVal;
                                      return [b.width - v.width, b.height - v.height]; }),
             cardRows: new Set(cards).size,
             words: all('.stage-caption, .step-visual .legend').filter(shown).length };
  },

  // how much of the visual column (.step-visual, from its top to the screen's bottom) the figure
  // fills: the box around what it draws (the marks of the stage's charts, a figure drawn once
  // in HTML or SVG), not the box it is given; and the answer's callout and the controls, where
  // they stand there
  share: () => {
    const all = KVT.deep.all;
    const col = all('.step-visual')[0];
    const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
      getComputedStyle(e).visibility !== 'hidden' && e.getAttribute('display') !== 'none' &&
      !e.closest('[display=none], defs, .player, button, .save-bar'); };
    const c = col.getBoundingClientRect();
    const marks = [...col.querySelectorAll('.stage-svg > svg')].flatMap((s) =>
      [...s.querySelectorAll('rect, path, line, polyline, polygon, circle, text')])
      // a figure drawn once: what the column holds besides the stage, the controls, the
      // answer, the cards, a legend and words
      // (a part with no stage, cards first: its cards are the figure's numbers, drawn large)
      .concat([...col.children].filter((e) => !e.matches('.stage, .controls, .ctl-row, .answer-box, ' +
        '.legend, .notices, .notice, .more-numbers, .narration, .custom, details') &&
        (!e.matches('.metrics') || !col.querySelector(':scope > .stage:not([hidden])'))))
      .filter(shown).map((e) => e.getBoundingClientRect());
    const top = Math.min(...marks.map((r) => r.top)), bottom = Math.max(...marks.map((r) => r.bottom));
    const answer = [...col.children].filter((e) => e.matches('.answer-box') && shown(e))
      .map((e) => Math.round(e.getBoundingClientRect().height));
    const controls = [...col.children].filter((e) => e.matches('.controls, .ctl-row') && shown(e))
      .map((e) => Math.round(e.getBoundingClientRect().height));
    return { column: Math.round(Math.min(innerHeight, c.bottom) - c.top),
             figure: marks.length ? Math.round(bottom - top) : 0, answer: answer[0] || 0,
             controls: controls[0] || 0,
             children: [...col.children].filter(shown).map((e) => e.className) };
  },

  // what is cut short on the screen: a menu whose choice, or a text field whose placeholder,
  // is wider than its box; an answer that does not show whole (clipped, or ending in “…”)
  cut: () => {
    const all = KVT.deep.all;
    const shown = (e) => e.getClientRects().length > 0;
    const width = (el, text) => {
      const c = document.createElement('canvas').getContext('2d');
      const s = getComputedStyle(el);
      c.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      return c.measureText(text).width;
    };
    const inner = (el) => { const s = getComputedStyle(el);
      return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); };
    const out = [];
    for (const sel of all('select').filter(shown)) {
      const text = sel.options[sel.selectedIndex] ? sel.options[sel.selectedIndex].text : '';
      if (width(sel, text) > inner(sel) - 16) out.push(['menu', text, Math.round(inner(sel))]);
    }
    for (const t of all('input[type=text]').filter(shown)) {
      const text = t.value || t.placeholder || '';
      if (width(t, text) > inner(t)) out.push(['field', text, Math.round(inner(t))]);
    }
    // a figure's words past the screen's bottom or its column's side
    for (const t of all('.step-visual svg text').filter((t) => shown(t) && t.textContent.trim() &&
        t.getAttribute('display') !== 'none' && !t.closest('[display=none], .player'))) {
      const r = t.getBoundingClientRect(), col = t.closest('.step-visual').getBoundingClientRect();
      if (r.bottom > innerHeight + 1 || r.right > Math.min(innerWidth, col.right) + 1)
        out.push(['chart text', t.textContent.slice(0, 30), Math.round(r.bottom), Math.round(r.right)]);
    }
    for (const p of all('.feedback p').filter((p) => shown(p) && p.textContent.trim())) {
      const r = p.getBoundingClientRect();
      if (p.scrollHeight > p.clientHeight + 1 || r.bottom > innerHeight + 0.5 ||
          /…\s*$/.test(p.textContent)) out.push(['answer', p.textContent.slice(-40), Math.round(r.bottom)]);
    }
    return out;
  },

  fits: () => {
    const grid = KVT.deep.first('.step-grid');
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const texts = KVT.deep.all('.ending li, .ending p, .sheet-link p').filter(shown);
    return { scroll: document.documentElement.scrollHeight - innerHeight,
             inner: grid ? grid.scrollHeight - grid.clientHeight : -1,
             bottom: Math.max(...texts.map((e) => e.getBoundingClientRect().bottom)),
             body: Math.min(...texts.map((e) => parseFloat(getComputedStyle(e).fontSize))) };
  },

  // the speaker view's cockpit: the projected screen's copy (its box on screen), the panel's
  // last line (the clock) and the answer's box, its type size and whether it shows whole
  cockpit: () => {
    const one = (sel) => KVT.deep.all(sel).find((e) => e.getClientRects().length) || null;
    const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height, bottom: r.bottom }; };
    const said = one('.talk-said'), answer = one('.talk-answer');
    return { view: [innerWidth, innerHeight], scrolls: document.documentElement.scrollHeight > innerHeight + 1,
             copy: box(one('iframe.screen-copy')), clock: box(one('.talk-clock')),
             notes: box(one('.talk-notes')), said: box(said), answerText: answer ? answer.textContent : '',
             answerPx: answer ? parseFloat(getComputedStyle(answer).fontSize) : 0,
             bodyPx: parseFloat(getComputedStyle(one('.kv-root')).fontSize),
             answerWhole: !!said && said.scrollHeight <= said.clientHeight + 1 };
  },

  wordsWhole: () => {
    const all = KVT.deep.all('.metric-value');
    const broken = [];
    for (const el of all) for (const node of el.childNodes) {
      if (node.nodeType !== 3) continue;
      const re = /\S+/g; let m;
      while ((m = re.exec(node.data))) {
        const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
    const figs = KVT.deep.all('.stage-svg > svg');
    const planner = KVT.deep.all('.planner');
    // a value whose text runs past its card's inner edge
    const over = [];
    for (const el of all) {
      const card = el.closest('.metric'); if (!card || !el.getClientRects().length) continue;
      const box = card.getBoundingClientRect(); const r = document.createRange();
      r.selectNodeContents(el);
      const right = Math.max(...[...r.getClientRects()].map((b) => b.right));
      if (right > box.right - card.clientLeft + 0.5) over.push(el.textContent);
    }
    return { broken, over, heights: figs.map((s) => s.getBoundingClientRect().height),
             planner: planner.filter((e) => e.getClientRects().length > 0).length };
  },

  // the top and bottom of every notice shown
  notices: () => KVT.deep.all('.notice').map((n) => n.getBoundingClientRect())
    .filter((r) => r.height > 0).map((r) => [Math.round(r.top), Math.round(r.bottom)]),

  // the top of the control `name` (the last one found)
  controlTop: (name) => {
    const found = KVT.deep.all('.ctl-' + name);
    return found.length ? found[found.length - 1].getBoundingClientRect().top : null;
  },
};
