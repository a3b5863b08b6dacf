"""Step 3 — Storing keys and values: the prefill writes the whole prompt into the cache, each
decode step appends one k row and one v row, and every earlier row is reused as it is.

model.py holds the numbers (one cached live run: its cached K/V rows, its newest query's
weights and output), text.py the words, view.py binds them; the player runs in the browser
over frames computed once. The view is imported on first use, so that the model can be used
(and tested) without Panel."""


def __getattr__(name):
    if name == "Step3":
        from .view import Step3
        return Step3
    raise AttributeError(name)
