"""The predict-then-reveal question: asked before the visual answers it.

`content` comes from a step's text layer, built from the current state in the session's
language: {"key", "prompt", "options", "correct", "explain"} (+ the translated "lead",
"right", "wrong", "show" labels). Whatever answers the question stays concealed (`revealed`
is False) until the learner picks an option or presses “Show me”. A new `key` (the state the
question is about changed) asks again.

One small component drawn in the browser: the question, one button per option, “Show me” and
the feedback. A click shows the feedback at once, in the page; the server hears only the
answer, as one message ({"answer": i} or {"shown": true}), and un-conceals the step's visual:
everything that changes comes back as one message (`one_patch`). Everything is drawn with
`textContent`, so no text is ever read as markup.
"""
from __future__ import annotations

import panel as pn
import param

from .batch import OnLoop, index_in, one_patch
from .components import Listening, stylesheet

QUESTION_JS = r"""
export function render({ model }) {
  const box = document.createElement("div");
  box.className = "question-box";
  const q = document.createElement("p");
  q.className = "question";
  const answers = document.createElement("div");
  answers.className = "answers";
  const show = document.createElement("span");
  show.className = "show-me";
  const showBtn = document.createElement("button");
  showBtn.type = "button";
  showBtn.className = "q-btn q-text";
  // what the page shows: the model's state, or the learner's click before the server's echo
  let answer = model.answer, shown = model.shown;
  showBtn.addEventListener("click", () => {
    shown = true;
    draw();
    model.send_msg({ shown: true });
  });
  show.appendChild(showBtn);
  const feedback = document.createElement("div");
  feedback.className = "feedback";
  const said = document.createElement("p");
  said.setAttribute("role", "status");
  said.setAttribute("aria-live", "polite");
  feedback.appendChild(said);
  box.append(q, answers, show, feedback);

  const draw = () => {
    const v = model.view || {};
    const opts = v.options || [];
    const lead = document.createElement("strong");
    lead.textContent = (v.lead || "") + ":";
    q.replaceChildren(lead, document.createTextNode(" " + (v.prompt || "")));
    if (answers.children.length !== opts.length) {
      answers.replaceChildren();
      opts.forEach((_, i) => {
        const wrap = document.createElement("span");
        wrap.className = "answer answer-" + i;
        const b = document.createElement("button");
        b.type = "button";
        b.className = "q-btn";
        b.addEventListener("click", () => {
          answer = i;
          draw();
          model.send_msg({ answer: i });
        });
        wrap.appendChild(b);
        answers.appendChild(wrap);
      });
    }
    opts.forEach((o, i) => {
      const b = answers.children[i].firstChild;
      const chosen = answer === i;
      b.textContent = o;
      b.setAttribute("aria-pressed", chosen ? "true" : "false");
      b.classList.toggle("chosen", chosen);
      b.classList.toggle("q-right", chosen && i === v.correct);
      b.classList.toggle("q-wrong", chosen && i !== v.correct);
    });
    const revealed = answer !== null && answer !== undefined || shown;
    showBtn.textContent = v.show || "";
    show.hidden = revealed;
    let state = "", head = "";
    if (answer !== null && answer !== undefined) {
      [state, head] = answer === v.correct ? ["right", v.right] : ["wrong", v.wrong];
    } else if (shown) {
      state = "shown";
    }
    said.className = state || "feedback-empty";
    said.replaceChildren();
    if (state) {
      if (head) {
        const h = document.createElement("strong");
        h.textContent = head;
        said.append(h, document.createTextNode(" "));
      }
      said.append(document.createTextNode(v.explain || ""));
    }
  };
  draw();
  model.on(["answer", "shown"], () => { answer = model.answer; shown = model.shown; draw(); });
  model.on("view", draw);
  return box;
}
"""


class Question(Listening, OnLoop, pn.custom.JSComponent):

    content = param.Dict(default={}, allow_refs=True, doc="the question (server side)")
    view = param.Dict(default={}, doc="what the browser draws: the content's words")
    answer = param.Integer(default=None, allow_None=True)
    shown = param.Boolean(default=False, doc="“Show me” pressed")
    revealed = param.Boolean(default=False, doc="answered or shown")

    _esm = QUESTION_JS
    _rename = {"content": None, "revealed": None}
    SHARED = False         # views follow `question.param.revealed` (components.shares_parameters)

    def __init__(self, **params):
        params.setdefault("stylesheets", [stylesheet()])
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        self._key = self.content.get("key")
        self.param.watch(self._changed, ["content", "answer", "shown"])
        self._render()

    def _changed(self, *events):
        key = self.content.get("key")
        if key != self._key:                       # a new question: ask again
            self._key = key
            with param.parameterized.discard_events(self):
                self.answer, self.shown = None, False
        self._render()

    def choose(self, i: int):
        self.answer = i

    @one_patch
    def _handle_msg(self, msg) -> None:
        """The learner's click: {"answer": index of an option} or {"shown": true}."""
        if not isinstance(msg, dict):
            return
        i = index_in(msg.get("answer"), len(self.content.get("options", ())))
        if i is not None:
            self.answer = i
        elif msg.get("shown") is True:
            self.shown = True

    def _render(self):
        c = self.content
        if not c:
            return
        view = {k: c[k] for k in ("lead", "prompt", "options", "correct", "explain", "right",
                                  "wrong", "show")}
        if view != self.view:
            self.view = view
        self.revealed = self.answer is not None or self.shown

    def feedback(self) -> str:
        """The feedback's words as the page shows them (“” until answered or shown)."""
        c = self.content
        if self.answer is None:
            return c.get("explain", "") if self.shown else ""
        head = c["right"] if self.answer == c["correct"] else c["wrong"]
        return f"{head} {c['explain']}"


def question_labels(tr) -> dict:
    """The question's fixed words in the session's language."""
    return dict(lead=tr._("Predict first"), right=tr._("Right."), wrong=tr._("Not quite."),
                show=tr._("Show me"))
