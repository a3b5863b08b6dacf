"""Step 6 — Shrinking the cache: fewer heads, fewer bits, fewer tokens, no waste.

model.py holds the numbers (Part A pure arithmetic, Parts B and C from the live model in the
background), text.py the words, view.py the controller that turns them into the page's state,
one part at a time behind the step's tabs (`?part=a|b|c`); Part B's block pool is played in
the browser over frames computed once.

`Step6` is imported on first use, so that `steps.step6.model` (Part A) can be imported
without torch.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is
about. Its exercises are in exercises.py."""
from explainer.i18n import N_

TITLE = N_("Shrinking the cache")
TAKEAWAY = N_(
    "Fewer KV heads (GQA, MQA), fewer bits (fp8, int8, int4) and fewer tokens (a sliding "
    "window) shrink it, each at a different price. Paged memory leaves it the same size "
    "but lets more sequences fit.")
NOTES = N_("Take the levers one part at a time: fewer KV heads (GQA, MQA), fewer bits per "
           "number, fewer tokens kept (a sliding window) and no reserved waste (paged memory). "
           "For each one, ask the room what it costs: quality, forgotten context or "
           "bookkeeping. In part D, before you play it, let the room guess whether keeping the "
           "first few tokens (sinks) or the most attended ones (heavy hitters) saves a cache "
           "of a few tokens where the latest ones alone do not.")
MINUTES = 20            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("cache",)


__all__ = ["Step6"]


def __getattr__(name):
    if name == "Step6":
        from .view import Step6
        return Step6
    raise AttributeError(name)
