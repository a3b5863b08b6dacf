"""KV Cache Explainer — `panel serve app.py`.

Each browser session runs this file once: it builds the page for that session's language and
deep link. The models, tokenizer and traces live in explainer/ and are shared by all sessions.
"""
import panel as pn
import panel_material_ui  # noqa: F401  (the Material design for every component)

import steps.server_guards  # noqa: F401  (Bokeh's teardown race under load: see the module)
from steps import release
from steps.shell import ExplainerApp

pn.extension(reconnect=True)
release.install()     # one collection when it is worth it, not one per closed session

TEMPLATE = """
{% extends base %}
{% block postamble %}<meta name="viewport" content="width=device-width, initial-scale=1">
{% if present %}<style>html { font-size: 118%; --kv-secondary: none; }</style>{% endif %}
{% endblock %}
{% block contents %}
<main id="main">{{ embed(roots.app) }}</main>
{% endblock %}
"""


class Page(pn.Template):
    """The page template. `Template.add_panel` writes `repr(self)` (a full parameter dump of
    every component, for notebooks) on each call: a third of a session's build time here."""

    def __repr__(self) -> str:
        return "Page"


def build():
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        release.session_opened()
        pn.state.on_session_destroyed(release.session_closed)   # memory back once a class leaves
    query = dict(pn.state.session_args or {}) if pn.state.curdoc else {}
    headers = pn.state.headers or {}
    app = ExplainerApp(query=query, accept_language=headers.get("Accept-Language"))
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        release.dispose_when_closed(app)        # taken apart: no garbage for the collector
    tmpl = Page(TEMPLATE)
    tmpl.add_variable("present", app.state.present)
    tmpl.add_panel("app", app)
    return tmpl


if __name__.startswith("bokeh"):
    build().servable(title="KV Cache Explainer")
