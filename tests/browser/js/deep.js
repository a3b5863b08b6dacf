// Finding elements in the served page, whose component Panel draws inside a shadow root:
// `all(sel)` is every element matching `sel` in the document and, in that order, in every
// shadow root under it (the tests of the other files here use it).
KVT.deep = {
  all: (sel, root = document) => {
    const out = [...root.querySelectorAll(sel)];
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) out.push(...KVT.deep.all(sel, el.shadowRoot));
    }
    return out;
  },

  first: (sel) => KVT.deep.all(sel)[0] || null,

  // the element that has the keyboard's focus, inside shadow roots too
  focused: () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  },
};
