"""What waits for the answer: the one rule of every step and part (`Step.state` applies it).

Until the learner answers the step's open question or presses “Show me” (`Step.revealed`), the
state the server sends answers nothing; a student reading the page's messages in the browser's
developer tools learns no more than the page shows:

- the question goes without its answer (`question`): `correct` is None and `explain` is "",
  so the page hears right or wrong in the state the server sends back after {answer: i};
- a card that answers the question (`words.Card(hidden=True)`) goes with the value “?”
  (`conceal`), in the regions' number cards and in every frame (`frames.frames_text`; shared
  frames are concealed once, when they are built: `frames.Frames`);
- whatever else would say it, a figure's payload, a frame's words, a paragraph, the step's
  presenter builds from `revealed` (its `page(tr)` reads `self.revealed`): step 1's decode
  frames count no keys, step 2's summary and captions read “?”, step 3's rows go unnumbered,
  step 4's roofline has no dots (the answer is where they sit) and names neither region,
  step 5's curve ends at the context on screen and its crossing is left out, step 6's bars,
  continuations and sweep wait.

The browser draws what it gets: no renderer asks whether the answer is out. The page's
`concealed` flag stays for the stylesheet and the tests. `tests/test_answer_waits.py` searches
the first state of every step, part and language for its answer.
"""
from __future__ import annotations

import json


CONCEALED = "?"               # what an answer-bearing card shows until the answer is out


def conceal(x):
    """`x` (blocks, frames, any JSON) with the value of every answer-bearing card
    (`state.CardState` with `hidden` true) replaced by “?”."""
    if isinstance(x, dict):
        if x.get("hidden") is True and "key" in x and "value" in x:
            return {**x, "value": CONCEALED}
        return {k: conceal(v) for k, v in x.items()}
    if isinstance(x, list):
        return [conceal(v) for v in x]
    return x


def _hide(obj: dict) -> dict:
    if obj.get("hidden") is True and "key" in obj and "value" in obj:
        return {**obj, "value": CONCEALED}
    return obj


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def conceal_text(text: str) -> str:
    """`conceal` of a compact JSON text (shared frames: `frames.Frames`), as compact JSON text:
    the text is parsed with a hook on each object only (the lists of numbers a frame's grid
    holds are read in C, not walked in Python), and a text with no hidden card is itself."""
    if '"hidden":true' not in text:
        return text
    return _encode(json.loads(text, object_hook=_hide))


def question(q: dict | None, answer: int | None, shown: bool, told: bool) -> dict | None:
    """The question as the page gets it (`state.QuestionState`) from the presenter's: its
    `correct`, `explain` and `points` (the figure's parts the answer talks about) only when
    `told` (answered, shown, or the speaker's own view)."""
    if not q:
        return None
    out = {k: q[k] for k in ("key", "lead", "prompt", "options", "right", "wrong", "show")}
    out.update(correct=q["correct"] if told else None, explain=q["explain"] if told else "",
               points=list(q.get("points", ())) if told else [],
               mark=q.get("mark", ""), projected=q.get("projected", ""),
               answer=answer, shown=shown)
    return out
