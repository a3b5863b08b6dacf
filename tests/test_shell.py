"""The page shell without a browser: deep links in and out, notices, language choice."""
from urllib.parse import parse_qs

from steps.shell import ExplainerApp


def q(**kw):
    return {k: [str(v).encode()] for k, v in kw.items()}


def test_deep_link_sets_step_language_and_controls():
    app = ExplainerApp(query=q(step=2, lang="pl", tokens=64, prompt=5))
    assert (app.state.step, app.state.lang) == (2, "pl")
    s2 = app.steps[2].model
    assert (s2.tokens, s2.prompt) == (64, 5)
    assert app.view_model()["notices"] == []
    back = parse_qs(app.url_query()[1:])
    assert back == {"step": ["2"], "lang": ["pl"], "tokens": ["64"], "prompt": ["5"]}


def test_bad_values_fall_back_with_translated_escaped_free_notices():
    app = ExplainerApp(query=q(step=2, lang="pl", tokens=999, prompt="abc", evil="<script>"))
    s2 = app.steps[2].model
    assert (s2.tokens, s2.prompt) == (16, 5)                 # defaults
    notices = app.view_model()["notices"]
    assert len(notices) == 3
    assert any("evil" in n for n in notices) and any("999" in n for n in notices)
    assert all("parametr" in n.lower() or "wartość" in n.lower() for n in notices)  # Polish
    assert "<script>" not in app._heading.object               # rendered escaped
    assert "&lt;" not in app._heading.object or "evil" in app._heading.object


def test_unknown_step_and_language():
    app = ExplainerApp(query=q(step=9, lang="xx"))
    assert (app.state.step, app.state.lang) == (1, "en")
    assert len(app.view_model()["notices"]) == 2


def test_accept_language_when_the_link_has_none():
    assert ExplainerApp(query={}, accept_language="nl-NL,nl;q=0.9").state.lang == "nl"
    assert ExplainerApp(query={}, accept_language="fr-FR").state.lang == "en"


def test_url_follows_step_and_language_changes():
    app = ExplainerApp(query=q(step=1))
    app.go(1)
    assert app.state.step == 2 and app._keys.query.startswith("?step=2&lang=en&tokens=16")
    app.state.lang = "id"
    assert "lang=id" in app._keys.query
    app.steps[2].model.tokens = 40
    assert "tokens=40" in app._keys.query
    app.go(-1)
    app.go(-1)                                              # no step 0
    assert app.state.step == 1 and "tokens" not in app._keys.query


def test_selector_controls_parse_from_the_url():
    app = ExplainerApp(query=q(step=6, heads=8, precision="int4", window=4096))
    s6 = app.steps[6].model
    assert (s6.kv_heads, s6.precision, s6.window) == (8, "int4", 4096)
    assert app.view_model()["notices"] == []


def test_stepper_message_moves_to_that_step_and_ignores_anything_else():
    app = ExplainerApp(query=q(step=1))
    app._stepper._handle_msg(3)                      # a click on the fourth step
    assert app.state.step == 4 and app._stepper.active == 3
    assert app._keys.query.startswith("?step=4")
    for bad in (-1, 7, 99, True, "2", None, {"k": 1}, 2.0):
        app._stepper._handle_msg(bad)
        assert app.state.step == 4
    app._stepper._handle_msg(6)                      # the key ideas
    assert app.state.step == 7
