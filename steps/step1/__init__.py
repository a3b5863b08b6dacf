"""Step 1 — One token at a time: every new query reads all earlier keys.

model.py holds the numbers (one cached live run; its real attention), text.py the words,
view.py binds them; the player runs in the browser over frames computed once. The view is
imported on first use, so that the model can be used (and tested) without Panel."""


def __getattr__(name):
    if name == "Step1":
        from .view import Step1
        return Step1
    raise AttributeError(name)
