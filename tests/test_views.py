"""Every step's view builds in every language; what a learner sees in a tooltip is translated."""
import pytest
from panel_material_ui.base import MaterialComponent

from steps.shell import ExplainerApp


@pytest.mark.parametrize("step", ["1", "2", "3", "4", "5", "6", "end"])
@pytest.mark.parametrize("lang", ["id", "pl", "nl"])
def test_no_english_tooltip(step, lang):
    app = ExplainerApp(query={"step": step, "lang": lang})
    layout = app.__panel__()
    view = app.steps[app.state.step]
    view.__panel__()
    model = view.model
    english = {p.doc.strip() for p in model.param.objects().values() if p.doc}
    for widget in layout.select(MaterialComponent):
        desc = getattr(widget, "description", None)
        assert not desc or desc.strip() not in english, (type(widget).__name__, desc)
