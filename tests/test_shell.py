"""The app of a session without a browser or Panel: deep links in and out, notices, language,
moves between steps, and the shell's state."""
from urllib.parse import parse_qs

from steps.registry import COUNT, END
from steps.shell import App
from steps.ui.state import check_page, check_shell


def q(**kw):
    return {k: [str(v).encode()] for k, v in kw.items()}


def test_deep_link_sets_step_language_and_controls():
    app = App(query=q(step=2, lang="pl", tokens=64, prompt=5))
    assert (app.app_state.step, app.app_state.lang) == (2, "pl")
    assert (app.step.model.tokens, app.step.model.prompt) == (64, 5)
    assert app.view_model()["notices"] == []
    back = parse_qs(app.url_query()[1:])
    assert back == {"step": ["2"], "lang": ["pl"], "tokens": ["64"], "prompt": ["5"]}


def test_bad_values_fall_back_with_translated_notices():
    app = App(query=q(step=2, lang="pl", tokens=999, prompt="abc", evil="<script>"))
    assert (app.step.model.tokens, app.step.model.prompt) == (16, 5)      # defaults
    notices = app.view_model()["notices"]
    assert len(notices) == 3
    assert any("evil" in n for n in notices) and any("999" in n for n in notices)
    assert all("parametr" in n.lower() or "wartość" in n.lower() for n in notices)  # Polish
    assert app.shell_state()["notices"] == notices      # drawn with textContent by the page


def test_unknown_step_and_language():
    app = App(query=q(step=9, lang="xx"))
    assert (app.app_state.step, app.app_state.lang) == (1, "en")
    assert len(app.view_model()["notices"]) == 2


def test_accept_language_when_the_link_has_none():
    assert App(query={}, accept_language="nl-NL,nl;q=0.9").app_state.lang == "nl"
    assert App(query={}, accept_language="fr-FR").app_state.lang == "en"


def test_url_follows_step_and_language_changes():
    app = App(query=q(step=1))
    app.handle({"nav": 1})
    assert app.app_state.step == 2 and app.url_query().startswith("?step=2&lang=en&tokens=16")
    app.handle({"lang": "id"})
    assert "lang=id" in app.state()["query"]
    app.handle({"set": "tokens", "value": 40, "seq": 1})
    assert "tokens=40" in app.state()["query"]
    app.handle({"nav": -1})
    app.handle({"nav": -1})                                  # no step 0
    assert app.app_state.step == 1 and "tokens" not in app.url_query()


def test_selector_controls_parse_from_the_url():
    app = App(query=q(step=6, heads=8, precision="int4", window=4096))
    m = app.step.model
    assert (m.kv_heads, m.precision, m.window) == (8, "int4", 4096)
    assert app.view_model()["notices"] == []


def test_goto_moves_to_that_step_and_ignores_anything_else():
    app = App(query=q(step=1))
    app.handle({"goto": 4})
    assert app.app_state.step == 4 and app.url_query().startswith("?step=4")
    for bad in (-1, 0, END + 1, True, "2", None, 2.0):
        app.handle({"goto": bad})
        assert app.app_state.step == 4
    for bad in ({"nav": 2}, {"lang": "xx"}, {"nonsense": 1}, {}):
        app.handle(bad)
        assert app.app_state.step == 4
    app.handle({"goto": END})                               # the key ideas
    assert app.app_state.step == END and app.url_query().startswith("?step=end")


def test_the_shell_state_is_whole_and_counts_the_steps_from_the_registry():
    app = App(query=q(step=3, lang="nl"))
    s = check_shell(app.shell_state())
    assert len(s["nav"]["items"]) == COUNT + 1 and s["nav"]["active"] == 2
    assert s["lang"] == "nl" and s["faq"] and s["embed_bar"] is None
    assert "3" in s["heading"] and str(COUNT) in s["heading"]
    check_page(app.state())
    present = App(query=q(step=3, present=1)).shell_state()
    assert present["present"] and present["faq"] == ""
    embed = App(query=q(step=3, embed=1))
    assert "Step 3" in embed.shell_state()["embed_bar"]["line"]
    assert "embed=1" in embed.state()["query"]         # the page links to it without embed


def test_a_move_leaves_the_shell_as_it_was():
    """The shell's words (FAQ and heading included) are not sent again for a slider move:
    only the query changes."""
    app = App(query=q(step=2))
    before = app.state()
    app.handle({"set": "tokens", "value": 40, "seq": 1})
    after = app.state()
    assert after["shell"] == before["shell"] and after["query"] != before["query"]


def test_one_change_is_heard_once():
    app = App(query=q(step=1))
    heard = []
    app.on_change(lambda: heard.append(1))
    app.handle({"set": "layer", "value": 2, "seq": 1})
    assert heard == [1]
    app.handle({"goto": 2})
    assert heard == [1, 1]


def test_speaker_view_is_a_presenter_mode_with_notes_and_the_next_title():
    """`speaker=1` implies `present=1`; in presenter mode the shell carries the speaker notes
    (one paragraph per step, every language) and the next step's title."""
    from steps.registry import notes
    app = App(query=q(step=2, speaker=1, lang="pl"))
    st = app.app_state
    assert st.speaker and st.present
    s = check_shell(app.shell_state())
    assert s["speaker"] and s["present"] and s["faq"] == ""
    assert s["talk"]["notes"] and s["talk"]["notes"] != notes(2)          # translated
    assert s["talk"]["next"] == app.app_state.tr._("Storing keys and values")
    back = parse_qs(app.url_query()[1:])
    assert back["present"] == ["1"] and back["speaker"] == ["1"]
    assert App(query=q(step=2)).shell_state()["talk"] is None            # not presenting
    assert App(query=q(step=2, present=1)).shell_state()["speaker"] is False
    last = App(query=q(step="end", present=1)).shell_state()["talk"]
    assert last["notes"] and last["next"] == ""
    for n in range(1, END + 1):
        assert App(query=q(step=n, present=1)).shell_state()["talk"]["notes"]
    bad = App(query=q(step=2, speaker="yes"))
    assert not bad.app_state.speaker and len(bad.view_model()["notices"]) == 1


def test_follow_takes_on_another_pages_view_but_keeps_its_own_modes():
    """The speaker view's session follows the projected page: step, language, controls,
    playhead and answer from its query; its own page modes stay."""
    speaker = App(query=q(step=1, speaker=1))
    projected = App(query=q(step=3, lang="nl", present=1, layer=2, frame=3))
    projected.handle({"answer": 1})
    heard = []
    speaker.on_change(lambda: heard.append(1))
    speaker.handle({"follow": projected.url_query(), "answer": 1, "shown": False})
    assert heard == [1]
    assert (speaker.app_state.step, speaker.app_state.lang) == (3, "nl")
    assert speaker.step.model.layer == 2 and speaker.step.answer == 1
    assert speaker.app_state.speaker and speaker.app_state.present
    strip = lambda a: {k: v for k, v in parse_qs(a.url_query()[1:]).items()  # noqa: E731
                       if k not in ("speaker",)}
    assert strip(speaker) == strip(projected)
    # a control the query does not name goes back to its default
    speaker.handle({"follow": "?step=3&lang=nl&example=0"})
    assert speaker.step.model.layer == speaker.step.model.param["layer"].default
    # nonsense changes nothing and raises nothing
    for bad in ({"follow": 3}, {"follow": "?step=99&lang=xx&layer=zz"}, {"follow": "x" * 5000}):
        speaker.handle(bad)
        assert (speaker.app_state.step, speaker.app_state.lang) == (3, "nl")
