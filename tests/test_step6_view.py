"""Step 6's view: it builds, binds the model and the language, shows every data-metric key,
and keeps the previous live result (with a notice) while a new setting is measured."""
from concurrent.futures import Future

import panel as pn
import pytest

from steps import live as live_mod
from steps.common import AppState
from steps.shell import ExplainerApp
from steps.step6 import Step6

PART_A = {"per_token", "tokens_kept", "cache_gb", "factor", "cache_gib", "baseline_gb",
          "scales_per_token"}
PART_B = {"blocks_used", "paged_share", "reserved_share", "sharing_saved", "slots_wasted",
          "copies_on_write", "bytes_in_use", "reserved"}
PART_C = {"live_bytes", "live_factor_base", "live_top1", "live_dlogit", "live_exact_bytes",
          "live_factor_exact"}


def html(layout) -> str:
    return " ".join(str(p.object) for p in layout.select(pn.pane.HTML))


def keys(layout) -> set:
    import re
    return set(re.findall(r'data-metric="([^"]+)"', html(layout)))


@pytest.fixture(scope="module")
def view():
    v = Step6(AppState())
    v.layout = v.__panel__()
    return v


def test_url_names_keep_the_old_ones_and_add_the_part():
    assert Step6.url_names == {"part": "part", "kv_heads": "heads", "precision": "precision",
                               "window": "window", "frame": "frame"}


def test_builds_three_parts_and_part_a_keys(view):
    assert len(view.tabs.objects) == 3 and view.tabs.dynamic
    assert view.tabs.active == 0
    assert PART_A <= keys(view.tabs.objects[0])
    text = html(view.tabs.objects[0])
    assert "68.7" in text and "kv-groups" in text and "bars-svg" in text


def test_answer_waits_for_the_question(view):
    q = view.question
    assert not q.revealed
    a = html(view.tabs.objects[0])
    assert 'data-metric="factor"><div class="metric-label">' in a
    factor = a.split('data-metric="factor"')[1].split('metric-value">')[1].split("<")[0]
    assert factor == "?"
    q.choose(1)
    factor = html(view.tabs.objects[0]).split('data-metric="factor"')[1] \
        .split('metric-value">')[1].split("<")[0]
    assert factor == "1×"


def test_tabs_follow_the_part_and_back(view):
    view.model.part = "b"
    assert view.tabs.active == 1
    view.tabs.active = 2
    assert view.model.part == "c"
    view.tabs.active = 0
    assert view.model.part == "a"


def test_part_b_stage_frames_and_keys(view):
    view.model.part = "b"
    frames = view.pool.frames
    assert len(frames) == view.model.paged.value.n_frames
    assert {c["key"] for c in frames[0]["cards"]} == PART_B
    view.model.frame = 3
    assert view.pool.frame == 3
    view.pool.frame = 5                       # the browser's position reaches the model
    assert view.model.frame == 5
    view.model.param.update(part="a", frame=0)


def test_part_c_keys_and_escaped_texts(view):
    view.model.part = "c"
    c = view.tabs.objects[2]
    assert PART_C <= keys(c)
    assert "continuations" in html(c) and "<script" not in html(c)
    view.model.part = "a"


def test_language_switch_translates_in_place(view):
    from explainer.i18n import Translator
    from steps.step6 import text
    tabs = view.tabs
    view.lang = "pl"
    assert tabs._names == text.part_titles(Translator("pl"))
    assert "16 384" in html(tabs.objects[0]).replace("\u00a0", " ").replace("\u202f", " ")
    view.lang = "en"


def test_a_pending_measurement_shows_the_last_result(view, monkeypatch):
    class Doc:
        session_context = object()

        def __init__(self):
            self.callbacks = []

        def add_next_tick_callback(self, fn):
            self.callbacks.append(fn)

    m = view.model
    m.part = "c"
    before = m.live.value
    assert before is not None
    pending = Future()
    monkeypatch.setattr(live_mod, "served_doc", lambda: Doc())
    monkeypatch.setattr(live_mod.JOBS, "submit", lambda key, fn, front=False, owner=None: pending)
    m.kv_heads = 8
    assert m.live.status == "pending" and m.live.value is before
    c = html(view.tabs.objects[2])
    assert "Measuring this setting" in c and "previous result" in c
    assert PART_C <= keys(view.tabs.objects[2])           # the last numbers stay
    monkeypatch.undo()
    m.param.update(kv_heads=32, part="a")


def test_deep_link_to_part_b():
    app = ExplainerApp(query={"step": [b"6"], "part": [b"b"], "frame": [b"4"]})
    v = app.steps[6]
    assert (v.model.part, v.model.frame) == ("b", 4)
    assert app.view_model()["notices"] == []
    assert "part=b" in app.url_query() and "frame=4" in app.url_query()
    v.__panel__()
    assert v.tabs.active == 1
