"""Exercises: what one is, and how a step's reading column and the printable sheet show them.
Each step's own exercises live in its package (`steps/stepN/exercises.py`, `EXERCISES`), two or
three per step (step 6, in four parts: a pair for part A's arithmetic and a pair for part D's
dropped tokens); `steps.registry.exercises(n)` finds them. Nothing here knows a step.

Two kinds:

- **on paper** (`PAPER`): a question with numbers, and a worked answer behind a click. Every
  number of both comes from the cost model (`explainer.costs`, `explainer.presets`; for the
  live model, its own configuration) through the exercise's `numbers()`; the words only format
  them in the session's language. A task whose answer is measured (6.4) takes it from the live
  model's runs in `numbers()`, one per language.
- **on the page** (`TASK`): “set the controls so that …”. `check(model)` says whether the
  step's view-model is in a state that solves it; the step shows “done” or “not yet” as the
  learner moves the controls (`Step.exercise_blocks`, on every redraw). `solution` is one
  state that solves it (the tests set it; the sheet's answer page describes it).

Beside them, a step's exam-style questions (`EXAM`, in its package's `exam.py`, `QUESTIONS`:
two per step, `steps.registry.exam(n)`): a conceptual question and its model answer, with the
minutes it takes; only the printed sheet shows them, each with room to write under it, their
answers on the answers' page.

No Panel and no browser here: `blocks(exercises, model, tr)` returns a step's blocks
(`steps.ui.words`) and `sheet(tr, lang)` the printable sheet's context (`?step=end&exercises=1`,
`steps/ending/`), every step's exercises in the registry's order, then their answers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from explainer.i18n import Translator

from . import words as w

PAPER, TASK, EXAM = "paper", "task", "exam"


def no_numbers() -> dict:
    """The numbers of a question that has none."""
    return {}


def fixed(msgid: str) -> Callable[[Translator, dict], str]:
    """A question without numbers: its msgid (marked with `N_` where it is written)."""
    return lambda tr, x: tr._(msgid)


def fixed_lines(*msgids: str) -> Callable[[Translator, dict], list]:
    """An answer without numbers: its paragraphs' msgids (marked with `N_`)."""
    return lambda tr, x: [tr._(m) for m in msgids]


@dataclass(frozen=True)
class Exercise:
    step: int
    index: int                                   # 1-based within its step
    kind: str                                    # PAPER, TASK or EXAM
    numbers: Callable[[], dict]                  # every number the words use (the cost model;
                                                 # cached: read, never change)
    prompt: Callable[[Translator, dict], str]
    answer: Callable[[Translator, dict], list]   # paper: the worked answer; task: a solution
    check: Callable[[Any], bool] | None = None   # task: the step's model solves it
    solution: Callable[[Any], dict] | None = None  # task: model -> inputs that solve it
    minutes: int = 0                             # exam: about how long it takes

    @property
    def label(self) -> str:
        """“4.2” for an exercise; “4b” for an exam question (a letter per step)."""
        if self.kind == EXAM:
            return f"{self.step}{'abcdefghij'[self.index - 1]}"
        return f"{self.step}.{self.index}"


def heading(ex: Exercise, tr: Translator) -> str:
    if ex.kind == EXAM:
        return tr._("Exam question {n} · about {minutes} min", n=ex.label,
                    minutes=tr.int(ex.minutes))
    if ex.kind == PAPER:
        return tr._("Exercise {n} · on paper", n=ex.label)
    return tr._("Exercise {n} · on the page", n=ex.label)


WRITE_LINES = 4                 # on the sheet: lines to write on under an exercise on paper
LINES_PER_MINUTE = 2            # ... and under an exam question, by its minutes


def sheet_item(ex: Exercise, tr: Translator) -> dict:
    """One exercise or exam question as the sheet prints it: its heading, question and worked
    answer, and how many lines to leave for the learner's answer (none for a task on the page:
    it is solved in the explainer)."""
    x = ex.numbers()
    lines = {PAPER: WRITE_LINES, TASK: 0, EXAM: LINES_PER_MINUTE * ex.minutes}[ex.kind]
    return dict(label=ex.label, heading=heading(ex, tr), prompt=ex.prompt(tr, x),
                answer=ex.answer(tr, x), task=ex.kind == TASK, lines=lines,
                slug=("exam" if ex.kind == EXAM else "ex") + f"-{ex.step}-{ex.index}")


def answer_summary(ex: Exercise, tr: Translator) -> str:
    """The worked answer's summary: one per exercise (an opened one stays open by it)."""
    return tr._("Worked answer to exercise {n}", n=ex.label)


def blocks(exercises: Sequence[Exercise], model, tr: Translator) -> list[dict]:
    """A step's exercises, for the end of its reading column: one collapsed section (not
    prose beside the figure: it opens with a click and stays open while the page redraws),
    with each exercise's question and its worked answer (collapsed too) or the task's state
    (done / not yet, from `check` on the step's view-model). No exercises: no section."""
    if not exercises:
        return []
    out = []
    for ex in exercises:
        x = ex.numbers()
        slug = f"ex-{ex.step}-{ex.index}"
        if ex.kind == PAPER:
            out.append(w.paragraphs([ex.prompt(tr, x)], heading=heading(ex, tr),
                                    cls=f"exercise exercise-paper {slug}"))
            out.append(w.details(answer_summary(ex, tr), [w.paragraphs(ex.answer(tr, x))],
                                 cls=f"exercise-answer {slug}"))
        else:
            done = bool(ex.check(model))
            status = tr._("✓ Done.") if done else tr._("Not yet: move the controls.")
            out.append(w.paragraphs([ex.prompt(tr, x), status], heading=heading(ex, tr),
                                    cls=f"exercise exercise-task {slug} "
                                        f"{'is-done' if done else 'not-done'}"))
    return [w.details(tr._("Exercises"), out, cls="exercises")]


def sheet(tr: Translator, lang: str) -> dict:
    """The printable sheet's context (`ending/sheet.html.j2`): every step's exercises, in the
    registry's order, then their answers."""
    from .. import registry
    steps = []
    for n, s in zip(registry.NUMBERS, registry.STEPS):
        items = [sheet_item(ex, tr) for ex in registry.exercises(n)]
        exam = [sheet_item(ex, tr) for ex in registry.exam(n)]
        steps.append(dict(n=tr.int(n), title=tr._(s.title), exercises=items, exam=exam,
                          href=f"?step={n}&lang={lang}",
                          go=tr._("Back to step {n}", n=tr.int(n)),
                          heading=tr._("Step {n}: {title}", n=tr.int(n), title=tr._(s.title))))
    return dict(
        title=tr._("Exercises"),
        intro=tr._("Solve the exercises “on paper” with pen and paper, and those “on the "
                   "page” in the explainer, at each step's link. The answers are on a separate "
                   "page.") + " " + tr._("Each exam-style question says about how many minutes "
                                         "it takes; write your answer in the space under it."),
        exam_title=tr._("Exam-style questions"),
        answers=tr._("Answers"), steps=steps, print=tr._("Print the exercises"),
        back=tr._("Back to the key ideas"), back_href=f"?step=end&lang={lang}",
        licence=tr._("{app}: the text, figures and exercises are licensed under CC BY 4.0 "
                     "(creativecommons.org/licenses/by/4.0): copy, print and adapt them for "
                     "your course, crediting the source. The code is under the MIT licence.",
                     app=tr._("KV Cache Explainer")))
