// The JavaScript of tests/browser/test_share_units.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.share_units.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.share_units = {
  shareUrlIsTheViewWithoutTheEmbedModes: () => {
    const { shareUrl } = KV["shell.js"];
    const base = "https://kv.example.edu/app";
    return [
      shareUrl(base, "?step=3&lang=nl&example=1&frame=2&layer=3&head=1&embed=1&figure=1",
               "frame", null),
      // playing: the frame on screen (5) is not the one the server has (2)
      shareUrl(base, "?step=3&lang=en&frame=2&layer=3", "frame", { index: 5, frame: 2 }),
      // step 2: its player moves T; frame f is T = f + 1
      shareUrl(base, "?step=2&lang=en&tokens=16&prompt=5", "tokens", { index: 39, frame: 15 }),
      // stopped where the server has it: the query as it is
      shareUrl(base, "?step=1&lang=en&frame=4", "frame", { index: 4, frame: 4 }),
      // no player parameter (steps 4 and 5, the key ideas)
      shareUrl(base, "?step=5&lang=en&model=custom&custom=layers-32_kv-8", null, { index: 3, frame: 0 }),
      shareUrl(base, "", null, null),
      // the page modes the shell names are left out
      shareUrl(base, "?step=4&lang=id&present=1&speaker=1&batch=8", "frame", null,
               ["embed", "present", "figure", "speaker"]),
    ];
  },

  copy: async ([s, clipboard, execOk]) => {
    const sent = [], copied = [];
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: clipboard === "none"
      ? undefined
      : { writeText: (t) => clipboard === "ok" ? (copied.push(t), Promise.resolve())
                                               : Promise.reject(new Error("denied")) } });
    const exec = document.execCommand, replace = history.replaceState;
    document.execCommand = (cmd) => cmd === "copy" ? execOk : exec.call(document, cmd);
    history.replaceState = () => {};              // about:blank has no address bar to follow
    const shell = KV["shell.js"].createShell((m) => sent.push(m),
                                             { playhead: () => ({ index: 6, frame: 2 }) });
    const root = document.getElementById("root");
    root.replaceChildren(s.embed ? shell.embedBar : shell.prevnext);
    shell.update(s);
    shell.follow(s._query);
    const btn = root.querySelector(".share-btn");
    btn.click();
    await new Promise((r) => setTimeout(r, 200));
    const field = root.querySelector(".share-field");
    const say = root.querySelector(".share-say");
    const out = { sent, copied, label: btn.textContent, said: say.textContent,
                  live: say.getAttribute("aria-live"), role: say.getAttribute("role"),
                  fieldShown: !field.hidden, fieldValue: field.value,
                  selected: field.selectionStart === 0 && field.selectionEnd === field.value.length
                            && field.value.length > 0,
                  fieldLabel: field.getAttribute("aria-label"),
                  inBar: !!root.querySelector(".embed-line .share-btn") };
    document.execCommand = exec;
    history.replaceState = replace;
    delete navigator.clipboard;
    return out;
  },
};
