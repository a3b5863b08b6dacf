// The JavaScript of tests/browser/test_present_units.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.present_units.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.present_units = {
  thePlayerShowsIconsOnlyWhenItsLabelsDoNotFit: () => {
    const root = document.createElement('div');
    root.className = 'kv-root present';
    root.innerHTML = '<div class="player" style="display:flex;flex-wrap:nowrap;gap:8px">' +
      ['Reset', 'Step back', 'Play', 'następny'].map((w) => '<span><button class="player-btn" ' +
      'style="flex:none;white-space:nowrap;font-size:18px"><svg class="player-icon" width="14" ' +
      'height="14"></svg><span class="player-label">' + w + '</span></button></span>').join('') +
      '<span class="player-pos" style="flex:1 1 auto;min-width:0">Token 1 of 40</span></div>';
    document.getElementById('root').appendChild(root);
    const bar = root.querySelector('.player'), P = KV['present.js'];
    bar.style.width = '900px';
    const wide = P.fitPlayer(bar, 'present');
    bar.style.width = '260px';
    const narrow = P.fitPlayer(bar, 'present');
    const title = bar.querySelector('.player-btn').title;
    bar.style.width = '900px';
    const back = P.fitPlayer(bar, 'present'), titled = bar.querySelector('.player-btn').hasAttribute('title');
    bar.style.width = '260px';
    const learners = P.fitPlayer(bar, 'normal');      // the learners' page: labels stay
    root.remove();
    return { wide, narrow, title, back, titled, learners };
  },

  cardValuesTooWideForTheirCardsAreSetSmaller: () => {
    const root = document.createElement('div');
    root.className = 'kv-root present';
    const card = (v) => '<div class="metric" style="width:170px;padding:0 6px;border:2px solid;' +
      'box-sizing:border-box"><span class="metric-value">' +
      v + '</span></div>';
    root.innerHTML = '<style>.kv-root.present .metric-value { font-size: 39px; ' +
      'font-weight: 700 }</style><div class="metrics stage-cards" style="display:flex;gap:8px">' +
      card('143.9 MB (137.2 MiB)') + card('0') + '</div>';
    document.getElementById('root').appendChild(root);
    const row = root.querySelector('.stage-cards'), P = KV['present.js'];
    const [wide, short] = row.querySelectorAll('.metric-value');
    const inside = (v) => { const r = document.createRange(); r.selectNodeContents(v);
      const c = v.closest('.metric').getBoundingClientRect();
      return Math.max(...[...r.getClientRects()].map((b) => b.right)) <= c.right - 2 - 6 + 0.5; };
    const before = inside(wide);
    const n = P.fitCards(row, 'present');
    const px = parseFloat(getComputedStyle(wide).fontSize);
    const again = P.fitCards(row, 'present');    // idempotent: from the stylesheet's size again
    wide.style.fontSize = '';
    const learners = P.fitCards(row, 'normal');  // the learners' page: left as it is
    root.remove();
    return { before, n, after: px, inside: px < 39, again, short: short.style.fontSize,
             learners, min: P.MIN_VALUE_PX };
  },

  noticesShowWholeInTheirOrderOrNotAtAll: () => {
    const root = document.createElement('div');
    root.className = 'kv-root present';
    root.style.cssText = 'position:fixed;top:0;left:0;width:400px';
    root.innerHTML = '<style>.kv-root.present:not(.speaker) .notice.off-screen { display: none }' +
      '</style><div class="col"><div class="spacer"></div>' +
      [0, 1, 2].map((i) => '<div class="notice">N' + i + '</div>').join('') + '</div>';
    document.getElementById('root').appendChild(root);
    const col = root.querySelector('.col'), P = KV['present.js'];
    const notes = [...col.querySelectorAll('.notice')];
    let mode = 'present';
    const run = (space, heights) => {
      col.querySelector('.spacer').style.height = (innerHeight - space) + 'px';
      notes.forEach((n, i) => { n.style.height = heights[i] + 'px'; });
      const n = P.fitNotices(col, mode);
      return [n, notes.map((x) => x.classList.contains('off-screen'))];
    };
    const out = {
      last: run(150, [100, 30, 30]),      // N2 would end 10 px below the screen
      first: run(150, [170, 30, 30]),     // N0 does not fit: N1 would, after it, but not first
      all: run(400, [100, 30, 30]),       // room for all again
    };
    mode = 'speaker';                             // the speaker view shows every notice
    out.speaker = run(150, [170, 30, 30])[0];
    root.remove();
    return out;
  },

  speakerUrlAndViewKey: () => {
    const P = KV['present.js'];
    return [P.speakerUrl({ pathname: '/app', search: '?step=2&present=1&tokens=40' }),
            P.viewKey('?tokens=40&step=2&present=1&speaker=1'), P.viewKey('?step=2&tokens=40')];
  },

  theTwoWindowsTalkOverABroadcastChannel: async () => {
    const P = KV['present.js'];
    const got = { follow: [], key: [], nav: [], mirror: [] };
    const view = { query: '?step=3&present=1&frame=2', frame: 2, answer: null, shown: false };
    const parts = { lead: [{ kind: 'paragraphs', items: ['Lead.'] }], frames: '[1]' };
    const projected = P.connect({ speaker: false, view: () => view, parts: () => parts,
      follow: () => got.follow.push('wrong window'),
      key: (k) => got.key.push(k), nav: (d) => got.nav.push(d) });
    const speaker = P.connect({ speaker: true, view: () => null,
      follow: (v) => got.follow.push(v), mirror: (p) => got.mirror.push(Object.keys(p)),
      key: () => {}, nav: () => {} });
    const settle = () => new Promise((r) => setTimeout(r, 100));
    await settle();
    speaker.key('.'); speaker.key('PageDown'); speaker.key('x'); speaker.nav(1);
    projected.key('.');                      // the projected page sends no keys
    projected.announce();                    // the same view and parts: not sent again
    view.frame = 3; projected.announce();
    parts.frames = '[1,2]'; projected.announce();      // one part changed: only it is sent
    parts.lead = [{ kind: 'paragraphs', items: ['Lead.'] }]; projected.announce();  // equal
    await settle();
    projected.close(); speaker.close();
    return got;
  },

  theSpeakerViewAsksItsServerOncePerNewView: () => {
    const sent = [];
    const follow = KV['present.js'].createFollower((m) => sent.push(m));
    const v = { query: '?step=2&tokens=40&present=1', frame: 0, answer: null, shown: false };
    follow(v, { query: '?step=1&present=1&speaker=1', answer: null, shown: false });
    follow(v, { query: '?step=1&present=1&speaker=1', answer: null, shown: false });  // waiting
    follow(v, { query: '?step=2&tokens=40&present=1&speaker=1', answer: null, shown: false });
    follow({ ...v, answer: 1 }, { query: '?step=2&tokens=40&speaker=1', answer: null });
    return sent;
  },

  chartTextIsMadeAtLeast18PxOnScreen: () => {
    const holder = document.createElement('div');
    holder.style.width = '500px';
    holder.innerHTML = '<svg viewBox="0 0 1000 400" style="width:100%;height:auto;display:block">' +
                       '<text x="10" y="30" style="font-size: var(--kv-chart-font, 12px)">label</text></svg>';
    document.getElementById('root').appendChild(holder);
    const P = KV['present.js'];
    const first = P.fitChartText(holder), again = P.fitChartText(holder);
    const t = holder.querySelector('text');
    const shown = parseFloat(getComputedStyle(t).fontSize) * t.closest('svg').getScreenCTM().a;
    holder.remove();
    return { first, again, shown };
  },
};
