"""The key-ideas page: a template bound to the language."""
from __future__ import annotations

from ..ui.components import bound, render
from ..ui.view import StepView, tr_of
from . import text
from .model import KeyIdeasModel, worked_example


class KeyIdeas(StepView):
    number = 7
    model_class = KeyIdeasModel
    url_names = {}

    def build(self):
        ex = worked_example()

        def page(lang):
            tr = tr_of(lang)
            return render("ending.html.j2", heading=text.heading(tr), intro=text.intro(tr),
                          items=text.takeaways(tr, lang), formula=text.formula(ex, tr))
        return bound(page, self.param.lang, css_classes=["key-ideas"])
