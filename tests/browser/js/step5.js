// The JavaScript of tests/browser/test_step5.py, which runs each function here by its name
// (`page.evaluate("(a) => KVT.step5.<name>(a)", a)`); tests/browser/conftest.py loads
// every file of this folder into the pages the tests drive.
KVT.step5 = {
  theConfigBoxOnItsOwn: (box) => {
    const sent = [];
    const w = KV["figures.js"].WIDGETS.config((m) => sent.push(m));
    document.getElementById("root").replaceChildren(w.el);
    w.update(box);
    const area = w.el.querySelector("textarea.config-text");
    const num = w.el.querySelector("input.config-params");
    const read = w.el.querySelector("button.config-read");
    const label = w.el.querySelector("label[for='" + area.id + "']").textContent;
    area.value = '{"a": 1}'; num.value = "6.5"; read.click();
    num.value = ""; read.click();
    area.value = "typed, not read yet";
    w.update({ ...box, value: '{"a": 1}', params_value: 6.5,
               problems: ["<img src=x> is not valid"], fields: ["Read: <b>x</b>"] });
    const kept = area.value;
    const img = w.el.querySelectorAll("img, b").length;
    const problem = w.el.querySelector(".config-problems .notice").textContent;
    const role = w.el.querySelector(".config-problems .notice").getAttribute("role");
    w.update(null);
    return { sent, label, kept, img, problem, role, hidden: w.el.hidden,
             maxLength: area.maxLength, button: read.textContent };
  },
};
