"""Step 3's view: it builds, binds the model, the language and the question, and keeps every
data-metric key of the old step (read from the stage's public params, not private panes)."""
from steps.common import AppState
from steps.shell import ExplainerApp
from steps.step3 import Step3
from steps.step3.model import N_NEW

OLD_KEYS = {"cache_length", "new_kv", "qk_this_step", "shape", "ref_cache", "live_cache"}


def test_the_view_builds_and_binds():
    app = AppState()
    view = Step3(app)
    view.__panel__()
    frames = view.stage.frames
    assert len(frames) == N_NEW
    assert {c["key"] for c in frames[0]["cards"]} == OLD_KEYS
    assert view.stage.concealed and view.question.content["options"] == ["3", "5", "8"]
    assert frames[3]["fig"]["rows"][-1] == "What"        # no row numbers before answering
    view.question.choose(2)
    assert not view.stage.concealed
    assert view.stage.frames[3]["fig"]["rows"][-1] == "8 What"
    view.model.frame = 4
    assert view.stage.frame == 4
    view.stage.frame = 6                                 # the browser stopped at frame 6
    assert view.model.frame == 6
    run = view.model.run
    view.model.param.update(layer=1, head=2)
    assert view.model.run is not run and view.stage.frames[0]["fig"]["weights"][-1] > 0.99
    view.lang = "pl"
    assert view.model.lang == "pl"
    assert view.stage.frames[0]["cards"][0]["value"] == "3"
    assert view.question.content["options"] == ["3", "6", "12"]
    assert not view.question.revealed                   # a new prompt length: asked again
    assert view.url_state() == {"example": 0, "frame": 6, "layer": 1, "head": 2}


def test_deep_links_are_one_based_and_old_zero_links_fall_back():
    app = ExplainerApp(query={"step": ["3"], "layer": ["2"], "head": ["4"], "frame": ["3"]})
    m = app.steps[3].model
    assert (m.layer, m.head, m.frame) == (2, 4, 3)
    old = ExplainerApp(query={"step": ["3"], "layer": ["0"], "head": ["0"]})
    m = old.steps[3].model
    assert (m.layer, m.head) == (3, 1)                  # the default, with a notice
    assert len(old.notices) == 2
    assert "layer=3" in old.url_query() and "head=1" in old.url_query()


def test_a_server_builds_every_state_at_start(monkeypatch):
    """`warm` packs the frames of every example, layer and head, before and after the
    answer; a session then only looks them up (nothing is packed again)."""
    import steps.ui.stage as stage
    from steps.step3.model import Step3Model
    from steps.step3.view import FRAMES, warm
    from steps.ui.view import tr_of
    assert warm("id") == 4 * 4 * 4 * 2
    monkeypatch.setattr(stage, "Packed", None)          # packing now would fail
    for revealed in (False, True):
        m = Step3Model(lang="id", example=1, layer=2, head=4)
        assert FRAMES(m.run, tr_of("id"), revealed).json
