"""KV Cache Explainer — `panel serve app.py`.

Each browser session runs this file once: it builds the session's app (`steps.shell.App`,
its step, language and deep link) and the one component that draws it (`steps.ui.page`).
The models, tokenizer and traces live in explainer/ and are shared by all sessions.
"""
import panel as pn
from bokeh.settings import settings

from steps import platform, release
from steps.platform.collector import tune_gc
from steps.shell import App
from steps.ui.page import connect

pn.extension(reconnect=True)
platform.install()      # the few reaches into library internals: see steps/platform/
tune_gc()               # CPython's full collections rarer under a class
# Bokeh's "did you mean" search (difflib over a model's property names) runs for every
# attribute a model lacks, and Panel looks each changed part of the page up on the Bokeh
# model that does not hold it (`freeze_doc`): 0.06 ms a part, 5 parts a move, for a message
# no learner reads (docs/performance.md, "A move's own cost")
settings.perform_error_diagnostics.set_value(False)

TEMPLATE = """
{% extends base %}
{% block postamble %}<meta name="viewport" content="width=device-width, initial-scale=1">
{% if present %}<style>html { font-size: 118%; --kv-secondary: none; }</style>{% endif %}
{% endblock %}
{% block contents %}
<main id="main">{{ embed(roots.app) }}</main>
{% endblock %}
"""


def build():
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        release.session_opened()
        pn.state.on_session_destroyed(release.session_closed)   # memory back once a class leaves
    query = dict(pn.state.session_args or {}) if pn.state.curdoc else {}
    headers = pn.state.headers or {}
    app = App(query=query, accept_language=headers.get("Accept-Language"))
    tmpl = pn.Template(TEMPLATE)
    tmpl.add_variable("present", app.app_state.present)
    tmpl.add_panel("app", connect(app))
    return tmpl


if __name__.startswith("bokeh"):
    build().servable(title="KV Cache Explainer")
