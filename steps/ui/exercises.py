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

No Panel and no browser here: `blocks(exercises, model, tr)` returns a step's blocks
(`steps.ui.words`) and `sheet(tr, lang)` the printable sheet's context (`?step=end&exercises=1`,
`steps/ending/`), every step's exercises in the registry's order, then their answers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from explainer.i18n import Translator

from . import words as w

PAPER, TASK = "paper", "task"


@dataclass(frozen=True)
class Exercise:
    step: int
    index: int                                   # 1-based within its step
    kind: str                                    # PAPER or TASK
    numbers: Callable[[], dict]                  # every number the words use (the cost model;
                                                 # cached: read, never change)
    prompt: Callable[[Translator, dict], str]
    answer: Callable[[Translator, dict], list]   # paper: the worked answer; task: a solution
    check: Callable[[Any], bool] | None = None   # task: the step's model solves it
    solution: Callable[[Any], dict] | None = None  # task: model -> inputs that solve it

    @property
    def label(self) -> str:
        return f"{self.step}.{self.index}"


def heading(ex: Exercise, tr: Translator) -> str:
    if ex.kind == PAPER:
        return tr._("Exercise {n} · on paper", n=ex.label)
    return tr._("Exercise {n} · on the page", n=ex.label)


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
        items = []
        for ex in registry.exercises(n):
            x = ex.numbers()
            items.append(dict(label=ex.label, heading=heading(ex, tr), prompt=ex.prompt(tr, x),
                              answer=ex.answer(tr, x), slug=f"ex-{ex.step}-{ex.index}",
                              task=ex.kind == TASK))
        steps.append(dict(n=tr.int(n), title=tr._(s.title), exercises=items,
                          href=f"?step={n}&lang={lang}",
                          go=tr._("Back to step {n}", n=tr.int(n)),
                          heading=tr._("Step {n}: {title}", n=tr.int(n), title=tr._(s.title))))
    return dict(
        title=tr._("Exercises"),
        intro=tr._("Solve the exercises “on paper” with pen and paper, and those “on the "
                   "page” in the explainer, at each step's link. The answers are on a separate "
                   "page."),
        answers=tr._("Answers"), steps=steps, print=tr._("Print the exercises"),
        back=tr._("Back to the key ideas"), back_href=f"?step=end&lang={lang}",
        licence=tr._("{app}: the text, figures and exercises are licensed under CC BY 4.0 "
                     "(creativecommons.org/licenses/by/4.0): copy, print and adapt them for "
                     "your course, crediting the source. The code is under the MIT licence.",
                     app=tr._("KV Cache Explainer")))
