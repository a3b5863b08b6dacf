"""Step 2 — Wasted work: without a cache every generation step recomputes the keys and values
of the whole prefix; with a cache each is computed once.

model.py holds the numbers (the formula's per-step breakdown for every T of a prompt length,
and the live model's measurement of the same counts), text.py the words, view.py the step's
controller (`Step2`: its page state, the sliders and the live measurement); the two grids are
drawn and played in the browser (steps/ui/js/draw/grids.js) over frames computed once."""


def __getattr__(name):
    # the view (and the live queue) is imported only when asked for: model and text stay
    # importable alone
    if name == "Step2":
        from .view import Step2
        return Step2
    raise AttributeError(name)


__all__ = ["Step2"]
