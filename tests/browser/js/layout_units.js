// The JavaScript of tests/browser/test_layout_units.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.layout_units.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.layout_units = {
  theBrowserPlacesEveryModeAsTheTableSays: (cases) => cases.map(([label, mode, variant, want, f]) => {
    const L = KV['layout.js'];
    const filled = (n) => n in f.live ? f.live[n] : f.regions[n];
    const got = L.placeRegions(L.rowOf(mode, variant), filled);
    if (!('drawer' in want)) delete got.drawer;        // Python names a drawer only where it is
    return [label, got, want];
  }),

  placingMovesOnlyWhatIsOutOfPlace: () => {
    const root = document.getElementById('root');
    root.replaceChildren();
    const col = document.createElement('div');
    root.append(col);
    const mk = (t) => { const e = document.createElement(t === 'input' ? 'input' : 'p');
                        e.id = 'n-' + t; return e; };
    const [a, b, input, c] = ['a', 'b', 'input', 'c'].map(mk);
    const place = KV['page.js'].placeNodes;
    place(col, [a, b, input, c]);
    input.focus();
    const d = mk('d');
    place(col, [d, input, c]);               // a and b gone, d new, input and c stay
    const after1 = [...col.children].map((e) => e.id);
    const focused1 = document.activeElement === input;
    place(col, [d, input, c, a]);
    const focused2 = document.activeElement === input;
    return [after1, focused1, [...col.children].map((e) => e.id), focused2];
  },

  // the page's parts arrive as JSON texts: each is parsed once per change
  readerParsesEachTextOnce: () => {
    const texts = { values: '{"a":1}', frames: '', shell: '{"lang":"pl"}' };
    const read = KV['page.js'].createReader((n) => texts[n]);
    const first = read('values');
    const same = read('values') === first;
    texts.values = '{"a":2}';
    const second = read('values');
    return [first, same, second, second === first, read('frames'), read('shell').lang,
            read('missing')];
  },
};
