// The JavaScript of tests/browser/test_save_figure.py, which runs each function here by its
// name (`page.evaluate("(a) => KVT.save_figure.<name>(a)", a)`); tests/browser/conftest.py
// loads every file of this folder into the pages the tests drive.
KVT.save_figure = {
  // a figure drawn as the stage draws it (or, `html`, a server's HTML figure), written as a
  // file: what the file holds, against what the page shows, and its PNG
  saved: async ([stage, frames, html]) => {
    const holder = document.createElement("div");
    holder.style.width = "646px";
    document.getElementById("root").style.width = "auto";
    document.getElementById("root").replaceChildren(holder);
    let shown = [];
    if (html) holder.innerHTML = html;
    else {
      const F = KV["stage.js"].parseFrames(frames), f = F[F.length - 1];
      KV["stage.js"].drawFigure(KV["figures.js"].FIGURES[stage.figure], holder, f.fig,
                                { text: stage.text, index: F.length - 1, count: F.length,
                                  reduced: true, badges: {} }, "normal");
    }
    // the words the page shows (SVG labels not hidden, HTML titles)
    shown = [...holder.querySelectorAll("text, p, .bar-name, .heads-line")]
      .filter((t) => t.getClientRects().length && getComputedStyle(t).display !== "none" &&
                     t.getAttribute("display") !== "none" && t.textContent.trim())
      .map((t) => t.textContent.replace(/\s+/g, " ").trim());
    const strokes = [...holder.querySelectorAll("svg path")].slice(0, 5)
      .map((p) => getComputedStyle(p).stroke);
    const text = KV["save.js"].figureSvg(holder, !!html);
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    const all = [...doc.querySelectorAll("*")];
    const blob = await KV["save.js"].svgPng(text);
    const png = new Uint8Array(await blob.arrayBuffer());
    const bmp = await createImageBitmap(blob);
    const box = holder.getBoundingClientRect();
    return {
      root: root.localName, error: doc.querySelector("parsererror") !== null,
      width: Number(root.getAttribute("width")), height: Number(root.getAttribute("height")),
      box: [Math.ceil(Math.max(box.width, holder.scrollWidth)),
            Math.ceil(Math.max(box.height, holder.scrollHeight))],   // a figure wider than its column: whole
      nested: doc.querySelectorAll("svg > svg").length, foreign: doc.querySelectorAll("foreignObject").length,
      classes: all.filter((e) => e.hasAttribute("class")).length,
      text: root.textContent.replace(/\s+/g, " "), shown,
      strokes, saved: [...doc.querySelectorAll("path")].slice(0, 5).map((p) => p.style.stroke),
      png: { type: blob.type, magic: [...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join(""),
             width: bmp.width, height: bmp.height },
    };
  },
};
