"""Step 6 — Shrinking the cache: fewer heads, fewer bits, fewer tokens, no waste.

model.py holds the numbers (Part A pure arithmetic, Parts B and C from the live model in the
background), text.py the words, view.py the controller that turns them into the page's state,
one part at a time behind the step's tabs (`?part=a|b|c`); Part B's block pool is played in
the browser over frames computed once.

`Step6` is imported on first use, so that `steps.step6.model` (Part A) can be imported
without torch.
"""

__all__ = ["Step6"]


def __getattr__(name):
    if name == "Step6":
        from .view import Step6
        return Step6
    raise AttributeError(name)
