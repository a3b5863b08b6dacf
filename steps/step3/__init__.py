"""Step 3 — Storing keys and values: the prefill writes the whole prompt into the cache, each
decode step appends one k row and one v row, and every earlier row is reused as it is.

model.py holds the numbers (one cached live run: its cached K/V rows, its newest query's
weights and output), text.py the words, view.py the step's controller (`Step3`: controls,
blocks, question and frames for the page); the player runs in the browser over frames
computed once. The view is imported on first use.

Below, what steps/registry.py reads of it: the title, the takeaway (the key-ideas page), the
speaker notes (what the lecturer says aloud), the parts of the heading's schematic it is about,
and that the warm-up builds its played frames (`view.warm`). Its exercises are in
exercises.py."""
from explainer.i18n import N_

TITLE = N_("Storing keys and values")
TAKEAWAY = N_(
    "The KV cache keeps one key row and one value row per token, per layer and KV head. A "
    "decode step appends one row; the earlier rows are read, never rewritten, and the "
    "result is the same as without the cache: the same tokens, the logits equal up to float "
    "rounding.")
NOTES = N_("The cache is a table that gains one key row and one value row per token, in every "
           "layer and KV head. Step through the decode steps: the earlier rows are read, never "
           "rewritten. Stress that the result is the same as without the cache: the same tokens, "
           "the logits differing only by float rounding (the sums are added in another order, "
           "as step 2 shows). The cache saves work, it does not approximate.")
MINUTES = 12            # about how long a 90-minute lecture spends here (the speaker's clock)
HIGHLIGHT = ("kv", "cache", "attn")
WARM_FRAMES = True


def __getattr__(name):
    if name == "Step3":
        from .view import Step3
        return Step3
    raise AttributeError(name)
