"""Step 2 — Wasted work: without a cache every generation step recomputes the keys and values
of the whole prefix; with a cache each is computed once.

model.py holds the numbers (the formula's per-step breakdown for every T of a prompt length,
and the live model's measurement of the same counts), text.py the words, view.py the step's
controller (`Step2`: its page state, the sliders and the live measurement); the two grids are
drawn and played in the browser (steps/ui/js/draw/grids.js) over frames computed once.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is about,
and that the warm-up builds its played frames (`view.warm`). Its exercises are in
exercises.py."""
from explainer.i18n import N_

TITLE = N_("Wasted work")
TAKEAWAY = N_(
    "Without a cache, every step computes the keys and values of the whole text again: "
    "T·P + T(T−1)/2 projections per layer instead of P + T − 1. The waste grows with the "
    "square of the length.")
NOTES = N_("Compare the two grids: without a cache, every pass computes the keys and values of "
           "the whole text again; with a cache, only the new token's. Ask what happens to the "
           "waste when the text gets twice as long, then move the slider to check: it grows with "
           "the square of the length.")
MINUTES = 10            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("x", "w", "kv")
WARM_FRAMES = True


def __getattr__(name):
    # the view (and the live queue) is imported only when asked for: model and text stay
    # importable alone
    if name == "Step2":
        from .view import Step2
        return Step2
    raise AttributeError(name)


__all__ = ["Step2"]
