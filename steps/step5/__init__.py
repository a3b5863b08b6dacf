"""Step 5 — The memory bill: the KV cache grows with context and batch.

model.py holds the numbers (every byte from `explainer.costs`, for a model preset or for your
model read from a pasted config.json by `explainer.hfconfig`; the live model's cache measured
on its tensors), text.py the words, view.py the step on the page (its controller); the two
charts (js/draw/bill.js) and the “your model” box (js/draw/config.js) are drawn in the
browser. The view is imported on first use, so that the model can be used (and tested) alone."""


def __getattr__(name):
    if name == "Step5":
        from .view import Step5
        return Step5
    raise AttributeError(name)
