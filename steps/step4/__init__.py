"""Step 4 — Prefill vs decode: compute-bound versus memory-bound.

model.py holds the numbers (a model preset's prefill and decode points on a GPU's roofline,
decode at a batch of 1 to 256 sequences with the ceiling no batch passes, from
`explainer.costs`; which bucket the live model is measured with), text.py the words, view.py
binds them and asks `steps.live` for the live model's measured speed; the roofline and the
batch curve are drawn in the browser from one still frame. The view is imported on first use, so
that the model can be used (and tested) without Panel."""


def __getattr__(name):
    if name == "Step4":
        from .view import Step4
        return Step4
    raise AttributeError(name)
