"""KV Cache Explainer — `panel serve app.py`.

Each browser session runs this file once: it builds the session's app (`steps.shell.App`,
its step, language and deep link) and the one component that draws it (`steps.ui.page`).
The models, tokenizer and traces live in explainer/ and are shared by all sessions.
"""
import panel as pn

from steps import platform
from steps.shell import App
from steps.ui.page import connect

pn.extension(reconnect=True)
platform.install()      # the few reaches into library internals: see steps/platform/

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
    query = dict(pn.state.session_args or {}) if pn.state.curdoc else {}
    headers = pn.state.headers or {}
    app = App(query=query, accept_language=headers.get("Accept-Language"))
    tmpl = pn.Template(TEMPLATE)
    tmpl.add_variable("present", app.app_state.present)
    tmpl.add_panel("app", connect(app))
    return tmpl


if __name__.startswith("bokeh"):
    build().servable(title="KV Cache Explainer")
