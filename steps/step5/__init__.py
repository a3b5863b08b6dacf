"""Step 5 — The memory bill: the KV cache grows with context and batch.

Two parts behind the step's tabs (`?part=a|b`): A, the bill and its growth (three controls,
the question); B, planning a server (the planner, the GPUs, the precisions, your model).
model.py holds the numbers (every byte from `explainer.costs`, for a model preset or for your
model read from a pasted config.json by `explainer.hfconfig`; the live model's cache measured
on its tensors), text.py the words, view.py the step on the page (its controller); the two
charts (js/draw/bill.js) and the “your model” box (js/draw/config.js) are drawn in the
browser. The view is imported on first use, so that the model can be used (and tested) alone.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is
about. Its exercises are in exercises.py."""
from explainer.i18n import N_

TITLE = N_("The memory bill")
TAKEAWAY = N_(
    "The cache grows with layers, KV heads, head dimension, bytes per value, context and "
    "batch. At long contexts and large batches it outgrows the model's weights.")
NOTES = N_("Ask the question before touching anything. Then move the context and the batch: "
           "the cache grows in proportion to the batch, and to the context as long as every "
           "layer keeps every token (sliding-window layers, as in Gemma and Mistral 7B, stop "
           "at their window); at long contexts or large batches it outgrows the model's "
           "weights. Read the formula aloud once: two (keys and values) × "
           "layers × KV heads × head dimension × bytes per number, per token. Part B, the "
           "planner, is for those who will run a server: open it if there is time.")
MINUTES = 15            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("cache",)


def __getattr__(name):
    if name == "Step5":
        from .view import Step5
        return Step5
    raise AttributeError(name)
