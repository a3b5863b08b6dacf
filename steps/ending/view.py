"""The key-ideas page on the page: one printable block in the session's language."""
from __future__ import annotations

from ..registry import END
from ..ui import words as w
from ..ui.step import Step
from . import text
from .model import KeyIdeasModel, worked_example


class KeyIdeas(Step):
    number = END
    model_class = KeyIdeasModel

    def page(self, tr) -> dict:
        return {"left": [w.html("ending.html.j2", cls="key-ideas", heading=text.heading(tr),
                                intro=text.intro(tr), items=text.takeaways(tr, self.lang),
                                formula=text.formula(worked_example(), tr))],
                "classes": ["ending"]}


STEP = KeyIdeas
