"""The key-ideas page on the page: one printable block in the session's language; with
`?step=end&exercises=1`, every step's exercises as a printable sheet, the answers on a page
of their own (`steps.ui.exercises.sheet`: each step's exercises, found through the registry)."""
from __future__ import annotations

from ..registry import END
from ..ui import exercises
from ..ui import words as w
from ..ui.step import Step
from . import text
from .model import KeyIdeasModel, worked_example


class KeyIdeas(Step):
    number = END
    model_class = KeyIdeasModel
    url_names = ("exercises", "glossary")

    def page(self, tr) -> dict:
        if self.model.glossary:                 # ?step=end&glossary=1: every term, defined
            return {"body": [w.html("ending/glossary.html.j2", cls="glossary-box",
                                    **text.glossary_page(tr, self.lang))],
                    "classes": ["ending", "glossary-page"]}
        if self.model.exercises:
            return {"body": [w.html("ending/sheet.html.j2", cls="exercise-sheet-box",
                                    **exercises.sheet(tr, self.lang))],
                    "classes": ["ending", "exercise-sheet-page"]}
        return {"body": [w.html("ending.html.j2", cls="key-ideas", heading=text.heading(tr),
                                intro=text.intro(tr), items=text.takeaways(tr, self.lang),
                                formula=text.formula(worked_example(), tr)),
                         w.html("ending/sheet_link.html.j2", cls="sheet-link no-print",
                                **text.sheet_link(tr, self.lang)),
                         w.html("ending/sheet_link.html.j2", cls="sheet-link glossary-link no-print",
                                **text.glossary_link(tr, self.lang))],
                "classes": ["ending"]}

    def title(self, tr) -> str | None:
        """The sheet and the glossary are pages of their own: their title, not “Key ideas”."""
        if self.model.glossary:
            return tr._("Glossary")
        if self.model.exercises:
            return tr._("Exercises")
        return None

    def url_state(self) -> dict:
        """`exercises=1` (`glossary=1`) only when the sheet (the glossary) is on screen: the
        key ideas' link stays short."""
        return {q: 1 for p, q in self.url_names.items() if getattr(self.model, p)}


STEP = KeyIdeas
