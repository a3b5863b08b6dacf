"""Step 4 — Prefill vs decode: compute-bound versus memory-bound.

model.py holds the numbers (a model preset's prefill and decode points on a GPU's roofline,
decode at a batch of 1 to 256 sequences with the ceiling no batch passes, from
`explainer.costs`; which bucket the live model is measured with), text.py the words, view.py
binds them and asks `steps.live` for the live model's measured speed; the roofline and the
batch curve are drawn in the browser from one still frame. The view is imported on first use, so
that the model can be used (and tested) without Panel.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is
about. Its exercises are in exercises.py."""
from explainer.i18n import N_

TITLE = N_("Prefill vs decode")
TAKEAWAY = N_(
    "Prefill pushes the whole prompt through at once: a long enough prompt keeps the GPU "
    "busy computing. Each decode step produces one token per sequence but must read all "
    "the weights and the whole cache: at small batch it waits on memory.")
NOTES = N_("Prefill takes the whole prompt at once: each weight read serves every prompt "
           "token, so a long enough prompt keeps the GPU busy computing, while a short prompt "
           "(or a mixture of experts at a few hundred tokens) is still memory-bound. A decode "
           "step makes one token per sequence but must read all the weights and the whole "
           "cache, so at a small batch it waits on memory. Point at the two points on the "
           "roofline, then raise the batch and watch decode move towards the ridge.")
MINUTES = 15            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("w", "cache")


def __getattr__(name):
    if name == "Step4":
        from .view import Step4
        return Step4
    raise AttributeError(name)
