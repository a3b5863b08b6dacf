"""Step 3 — Storing keys and values: the prefill writes the whole prompt into the cache, each
decode step appends one k row and one v row, and every earlier row is reused as it is.

model.py holds the numbers (one cached live run: its cached K/V rows, its newest query's
weights and output), text.py the words, view.py the step's controller (`Step3`: controls,
blocks, question and frames for the page); the player runs in the browser over frames
computed once. The view is imported on first use."""


def __getattr__(name):
    if name == "Step3":
        from .view import Step3
        return Step3
    raise AttributeError(name)
