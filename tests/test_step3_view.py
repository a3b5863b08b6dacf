"""Step 3's controller without Panel: the state the page draws (its blocks, controls, question
and frames), the answer's concealment, the learner's moves as messages, the deep links and the
frames a server builds at start."""
import json

import pytest

from steps.shell import App
from steps.step3 import text
from steps.step3.model import N_NEW
from steps.step3.view import FRAMES, Step3, warm
from steps.ui.frames import frames_text
from steps.ui.state import columns, check_page, check_step

OLD_KEYS = {"cache_length", "new_kv", "qk_this_step", "shape", "ref_cache", "live_cache"}


def frames_of(state: dict) -> list:
    return json.loads(state["frames"])


def blocks(state: dict, side: str) -> list:
    return [b.get("name") or b.get("cls") or b["kind"] for b in columns(state)[side]]


def test_the_state_names_its_regions():
    step = Step3("en")
    s = check_step(step.state())
    assert s["number"] == 3 and "step-3" in s["classes"]
    assert blocks(s, "left") == ["step-lead", "question", "answer", "narration", "notices",
                                 "deeper deeper-why", "deeper deeper-live", "exercises"]
    assert blocks(s, "right") == ["controls", "stage", "legend"]     # the figure and its controls
    assert s["lead"][0]["items"] == [text.lead(step.tr)]
    why, live = s["deeper"][0]["blocks"], s["deeper"][1]["blocks"]
    assert "15" in " ".join(why[0]["items"])                        # the prefill's triangle
    assert s["notices"][0]["items"] == []                           # bytes match the formula
    assert [k for k, _ in s["legend"][0]["items"]] == ["ramp-key", "ramp-value", "query", "new"]
    assert [b["cls"] for b in live] == ["narration", "live-facts figure-note", "narration",
                                        "live-facts"]
    assert "key/value head 1" in live[1]["items"][0]
    stage = s["stage"]
    assert stage["figure"] == "cache" and stage["interval"] == 1100 and stage["player"]
    assert {"k", "v", "weights", "out", "dims", "figure", "play", "table"} <= set(stage["text"])
    assert "softmax(q·Kᵀ/√d)·V" in stage["text"]["out"]


def test_the_controls_and_their_labels():
    s = Step3("pl").state()
    labels = text.control_labels(Step3("pl").tr)
    specs = {c["name"]: c for c in s["controls"]}
    assert list(specs) == ["example", "layer", "head"]
    assert all(c["kind"] == "select" for c in specs.values())
    assert {n: c["label"] for n, c in specs.items()} == labels
    assert (specs["example"]["size"], specs["layer"]["size"]) == ("wide", "narrow")
    assert [v for v, _ in specs["layer"]["options"]] == [1, 2, 3, 4]
    assert [v for v, _ in specs["head"]["options"]] == [1, 2, 3, 4]
    assert s["values"] == {"example": 0, "layer": 3, "head": 1}


def test_the_answer_waits_for_the_question():
    step = Step3("en")
    s = step.state()
    fr = frames_of(s)
    assert len(fr) == N_NEW
    assert {c["key"] for c in fr[0]["cards"]} == OLD_KEYS
    assert s["concealed"] and s["question"]["options"] == ["3", "5", "8"]
    assert s["question"]["answer"] is None and not s["question"]["shown"]
    assert fr[3]["fig"]["rows"][-1] == "What"                 # no row numbers before answering
    assert "Row" not in fr[3]["table"]["head"]
    assert "rows per layer" not in fr[3]["say"]
    step.handle({"answer": 7})                                # no such option
    assert step.state()["concealed"]
    step.handle({"answer": 2})
    s = step.state()
    assert not s["concealed"] and s["question"]["answer"] == 2
    fr = frames_of(s)
    assert fr[3]["fig"]["rows"][-1] == "8 What"
    assert fr[3]["table"]["head"][1] == "Row" and "8 rows per layer" in fr[3]["say"]
    shown = Step3("en")
    shown.handle({"shown": True})
    assert not shown.state()["concealed"] and shown.state()["question"]["shown"]


def test_moves_arrive_as_messages():
    step = Step3("en")
    step.state()
    step.handle({"frame": 6})                                 # the browser stopped at frame 6
    assert step.model.frame == 6 and step.state()["frame"] == 6
    step.handle({"frame": 99})
    assert step.model.frame == N_NEW - 1
    run = step.model.run
    step.handle({"set": "layer", "value": 1, "seq": 1})
    step.handle({"set": "head", "value": 2, "seq": 1})
    assert step.model.run is not run
    assert frames_of(step.state())[0]["fig"]["weights"][-1] > 0.99
    step.handle({"set": "layer", "value": 3, "seq": 1})       # older than one applied: dropped
    step.handle({"set": "head", "value": 9, "seq": 2})        # not an option: refused
    step.handle({"set": "frame", "value": 2, "seq": 1})       # not a control
    assert (step.model.layer, step.model.head) == (1, 2)
    step.handle({"set": "example", "value": 1, "seq": 1})     # a new example starts at frame 0
    assert step.model.example == 1 and step.model.frame == 0
    assert step.url_state() == {"example": 1, "frame": 0, "layer": 1, "head": 2}


def test_a_new_prompt_length_asks_again_and_the_language_follows():
    app = App(query={"step": ["3"]})
    app.handle({"answer": 2})
    assert not app.state()["concealed"]
    app.handle({"lang": "pl"})
    s = check_page(app.state())
    assert app.step.model.lang == "pl"
    assert frames_of(s)[0]["cards"][0]["value"] == "?"            # asked again: it waits
    assert s["question"]["options"] == ["3", "6", "12"]
    assert s["concealed"] and s["question"]["answer"] is None       # asked again
    assert s["values"]["example"] == 0
    assert s["controls"][1]["label"] == text.control_labels(app.step.tr)["layer"]


def test_a_later_visit_keeps_the_inputs_and_the_answer():
    app = App(query={"step": ["3"], "layer": ["2"], "head": ["4"]})
    app.handle({"answer": 2})
    app.handle({"goto": 1})
    app.handle({"goto": 3})
    s = app.state()
    assert s["values"]["layer"] == 2 and s["values"]["head"] == 4 and not s["concealed"]


def test_deep_links_are_one_based_and_old_zero_links_fall_back():
    app = App(query={"step": ["3"], "layer": ["2"], "head": ["4"], "frame": ["3"]})
    m = app.step.model
    assert (m.layer, m.head, m.frame) == (2, 4, 3)
    assert app.state()["frame"] == 3
    old = App(query={"step": ["3"], "layer": ["0"], "head": ["0"]})
    m = old.step.model
    assert (m.layer, m.head) == (3, 1)                      # the default, with a notice
    assert len(old.notices) == 2
    assert "layer=3" in old.url_query() and "head=1" in old.url_query()


def test_a_server_builds_every_state_at_start(monkeypatch):
    """`warm` builds the frames of every example, layer and head, before and after the
    answer; a session then only looks them up (nothing is built again)."""
    import steps.ui.frames as frames
    assert warm("id") == 4 * 4 * 4 * 2
    monkeypatch.setattr(frames, "Frames", None)             # building now would fail
    step = Step3("id")
    step.model.param.update(example=1, layer=2, head=4)
    for revealed in (False, True):
        step.shown = revealed
        shared = FRAMES(step.model.run, step.tr, revealed)
        assert step.state()["frames"] == frames_text(shared, concealed=not revealed)


@pytest.mark.parametrize("lang", ["en", "id", "pl", "nl"])
def test_every_language_gives_a_valid_state(lang):
    check_step(Step3(lang).state())
