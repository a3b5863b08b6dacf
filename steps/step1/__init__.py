"""Step 1 — One token at a time: every new query reads all earlier keys.

model.py holds the numbers (one cached live run; its real attention), text.py the words,
view.py binds them; the player runs in the browser over frames computed once."""
from .view import Step1

__all__ = ["Step1"]
