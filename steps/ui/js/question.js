// The predict-then-reveal question: the question, one button per option, “Show me” and the
// feedback. A click marks the pick (or hides “Show me”) at once and sends {answer: i} or
// {shown: true}; the page does not know the answer before: the server sends the question's
// `correct` and `explain` only once it is answered or shown (steps/ui/conceal.py), with what
// the question was hiding and the figure moved to what the answer says. Then the options stay
// as they are: the pick marked right (✓) or wrong (✗), and the right option marked too, by a
// sign and by words for a screen reader (`mark`), not by colour alone; a new question
// (another key) asks again.
//
// The feedback (the verdict and the explanation) is an element of its own, `answer`, which the
// layout table places like the question (layout.js: after the question; on the projected page
// over the figure it talks about). It is set at the question's size or larger in every mode
// (app.css). `points()`: the figure's parts the answer talks about (QuestionState.points, []
// until the answer is out), which the page marks in the figure (dom.js markPoints).

import { h } from "./dom.js";

export function createQuestion(send) {
  const box = h("div", "question-box");
  const q = h("p", "question", box);
  const answers = h("div", "answers", box);
  const show = h("span", "show-me", box);
  const showBtn = h("button", "q-btn q-text", show);
  showBtn.type = "button";
  const feedback = h("div", "feedback answer-box");
  const said = h("p", "", feedback, null, { role: "status", "aria-live": "polite" });
  let v = null, answer = null, shown = false, key;
  const revealed = () => (answer !== null && answer !== undefined) || shown;

  const draw = () => {
    box.hidden = feedback.hidden = !v;     // (the feedback is there before it speaks: live region)
    if (!v) return;
    const opts = v.options || [];
    const lead = document.createElement("strong");
    lead.textContent = (v.lead || "") + ":";
    // projected, a question with a shorter wording (`projected`) shows that one; the whole
    // prompt stays for screen readers (the stylesheet hides it on the projected page only)
    const full = h("span", v.projected ? "q-prompt has-projected" : "q-prompt");
    full.textContent = " " + (v.prompt || "");
    q.replaceChildren(lead, full);
    if (v.projected) h("span", "q-projected", q, " " + v.projected, { "aria-hidden": "true" });
    if (answers.children.length !== opts.length) {
      answers.replaceChildren();
      opts.forEach((_, i) => {
        const wrap = h("span", "answer answer-" + i, answers);
        const b = h("button", "q-btn", wrap);
        b.type = "button";
        b.addEventListener("click", () => {
          if (revealed()) return;                     // a pick stays: the answer is out
          answer = i; draw(); send({ answer: i });
        });
      });
    }
    const answered = answer !== null && answer !== undefined;
    const done = revealed();
    // the answer, once the server has sent it (a click waits a moment for it)
    const known = done && Number.isInteger(v.correct);
    opts.forEach((o, i) => {
      const b = answers.children[i].firstChild;
      const chosen = answer === i, right = known && i === v.correct;
      const sign = right ? "✓" : chosen && known ? "✗" : "";
      b.replaceChildren(document.createTextNode(o));
      if (sign) h("span", "q-sign", b, sign, { "aria-hidden": "true" });
      if (right && v.mark) h("span", "sr-only", b, ", " + v.mark);
      b.setAttribute("aria-pressed", chosen ? "true" : "false");
      if (done) b.setAttribute("aria-disabled", "true"); else b.removeAttribute("aria-disabled");
      b.classList.toggle("chosen", chosen);
      b.classList.toggle("q-right", right);
      b.classList.toggle("q-wrong", chosen && known && i !== v.correct);
    });
    box.classList.toggle("told", known);             // (projected, app.css: the prompt gives way)
    showBtn.textContent = v.show || "";
    show.hidden = answered || shown;
    let state = "", head = "";
    if (answered && known) [state, head] = answer === v.correct ? ["right", v.right] : ["wrong", v.wrong];
    else if (shown && known) state = "shown";
    said.className = state || "feedback-empty";
    said.replaceChildren();
    if (state) {
      if (head) { h("strong", "", said, head); said.append(document.createTextNode(" ")); }
      said.append(document.createTextNode(v.explain || ""));
    }
  };
  showBtn.addEventListener("click", () => { shown = true; draw(); send({ shown: true }); });

  const update = (state) => {
    const k = state ? JSON.stringify(state.key) : undefined;
    v = state;
    if (state) {
      // the server's answer, unless it is still catching up with this page's click
      if (k !== key || state.answer !== null || state.shown) {
        answer = state.answer; shown = state.shown;
      }
    }
    key = k;
    draw();
  };
  const told = () => !!(v && revealed() && Number.isInteger(v.correct));
  const points = () => (told() && Array.isArray(v.points) ? v.points : []);
  return { el: box, answer: feedback, told, points, update };
}
