"""The printed sheet as a lecturer hands it out (`?step=end&exercises=1`), and the premises of
its exercises: every worked answer holds by the step's own rules."""
from steps.step4 import exercises as ex4
from steps.step4.model import Step4Model


def test_exercise_4_2_has_a_decode_step_to_make_compute_bound():
    """Truth review N16: with one output token there is no decode step (step 4 says so), so
    the solution has at least two, and a state without a decode step solves nothing."""
    x = ex4._t4_numbers()
    assert x["output"] >= 2 and x["intensity"] > x["ridge"]
    task = next(e for e in ex4.EXERCISES if e.index == 2)
    solved = Step4Model(**task.solution(Step4Model()))
    assert solved.roofline.steps >= 1 and task.check(solved)
    none = Step4Model(prompt=16, output=1, batch=256)       # compute-bound, but no decode step
    assert none.roofline.steps == 0 and not task.check(none)
    from explainer.i18n import Translator
    assert "illustrative GPU" in task.prompt(Translator("en"), x)      # the GPU it assumes
