"""The smallest Panel app that does what a student does in the explainer: move a
slider and see a number change. `benchmarks/classroom.py` serves it next to `app.py` under the
same load, as the yardstick for what Panel itself costs.

    panel serve benchmarks/minimal_app.py      # http://localhost:5006/minimal_app

One IntSlider and one HTML number (the slider value × 2), in the same kind of
template as app.py. The number uses the app's metric-card markup
(`[data-metric] .metric-value`) so that the benchmark's browser user finds it with the same
selector. Query parameters (`?step=2&lang=pl`) are accepted and ignored.
"""
import panel as pn

pn.extension(reconnect=True)

TEMPLATE = """
{% extends base %}
{% block contents %}
<main id="main">{{ embed(roots.app) }}</main>
{% endblock %}
"""


def number_html(value: int) -> str:
    """The number card for a slider value."""
    return (f'<div class="metric" data-metric="double"><div class="metric-label">Value × 2</div>'
            f'<div class="metric-value">{2 * value}</div></div>')


def build() -> pn.Template:
    """One session's page: a title, the slider and the number."""
    slider = pn.widgets.IntSlider(name="Value", start=0, end=100, value=16, width=320)
    number = pn.pane.HTML(number_html(slider.value))
    slider.param.watch(lambda event: setattr(number, "object", number_html(event.new)), "value")
    tmpl = pn.Template(TEMPLATE)
    tmpl.add_panel("app", pn.Column(pn.pane.HTML("<h1>Minimal app</h1>"), slider, number,
                                    sizing_mode="stretch_width", max_width=1200))
    return tmpl


if __name__.startswith("bokeh"):
    build().servable(title="Minimal app")
