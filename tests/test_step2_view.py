"""Step 2's controller without Panel: its state (blocks, controls, question, frames) is well
formed; the T slider and the player move together, the P slider and the language recompute
the frames (T alone sends none), the live measurement shows once ready and a notice while
pending or failed, and the question is about the state on screen until answered, then kept
as answered (also on a later visit)."""
import json

import pytest

from steps.common import translator
from steps.shell import App
from steps.step2 import text
from steps.step2.view import STEP, Step2
from steps.ui.state import columns, check_step

KEYS = {"uncached", "cached", "ratio", "recomputed", "measured_uncached", "measured_cached",
        "measured_uncached_all", "measured_cached_all", "time_uncached", "time_cached",
        "same_tokens", "dlogit"}


def frames_of(state):
    return json.loads(state["frames"])


def values(frame):
    return {c["key"]: c["value"] for c in frame["cards"]}


def sp(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def step():
    return Step2("en")


def test_state_is_well_formed(step):
    assert STEP is Step2
    st = check_step(step.state())
    assert st["number"] == 2 and "step-2" in st["classes"]
    assert step.url_names == {"tokens": "tokens", "prompt": "prompt"}
    assert step.url_state() == {"tokens": 16, "prompt": 5}
    kinds = [(b["kind"], b.get("name") or b.get("cls")) for b in columns(st)["left"]]
    assert kinds == [("paragraphs", "step-lead"), ("paragraphs", "narration"),
                     ("slot", "question"), ("slot", "answer"), ("paragraphs", "narration"),
                     ("details", "deeper deeper-why"), ("details", "deeper deeper-live"),
                     ("details", "exercises")]                 # the step's exercises end it
    live = columns(st)["left"][-2]["blocks"]
    assert [b["cls"] for b in live] == ["live-facts"] and len(live[0]["items"]) == 2
    assert columns(st)["right"] == [{"kind": "slot", "name": "controls"},      # the figure and its controls
                           {"kind": "slot", "name": "stage"}]
    labels = text.control_labels(translator("en"))
    assert [(c["name"], c["kind"], c["label"], c["start"], c["end"]) for c in st["controls"]] \
        == [("tokens", "range", labels["tokens"], 1, 64),
            ("prompt", "range", labels["prompt"], 1, 16)]
    assert st["values"] == {"tokens": 16, "prompt": 5}
    assert st["stage"]["figure"] == "grids" and st["stage"]["player"]
    t = st["stage"]["text"]
    assert t["uncached"] == "Without a cache" and t["next"] == "Step forward"
    assert set(t["legend"]) == {"new", "recomputed", "cached"}
    f = frames_of(st)
    assert len(f) == 64 and st["frame"] == 15
    assert {c["key"] for c in f[15]["cards"]} == KEYS
    assert values(f[15])["same_tokens"] == "yes"            # outside a server: waited for
    assert values(f[15])["measured_uncached"] == "?"        # it answers the question: waits
    assert f[15]["more"]["outputs"] and f[15]["more"]["notices"] == []
    assert st["concealed"] and st["question"]["answer"] is None
    assert step.live.status == "ready"


def test_slider_and_player_stay_consistent(step):
    step.handle({"set": "tokens", "value": 3, "seq": 1})           # the slider
    assert step.state()["frame"] == 2
    step.handle({"frame": 40})                                     # the player stopped
    st = step.state()
    assert step.model.tokens == 41 and st["values"]["tokens"] == 41
    assert step.url_state()["tokens"] == 41
    step.handle({"frame": 0})                                      # Reset
    assert step.model.tokens == 1
    step.handle({"frame": 999})                                    # past the end: the end
    assert step.model.tokens == 64 and step.state()["frame"] == 63


def test_slider_values_are_checked(step):
    for i, junk in enumerate((True, "3", float("nan"), None, [3]), start=1):
        step.handle({"set": "tokens", "value": junk, "seq": i})
        assert step.model.tokens == 16
    step.handle({"set": "tokens", "value": 200, "seq": 10})         # clamped to the bounds
    assert step.model.tokens == 64
    step.handle({"set": "tokens", "value": 7.4, "seq": 11})         # snapped to a step
    assert step.model.tokens == 7
    step.handle({"set": "tokens", "value": 9, "seq": 11})           # older than one applied
    assert step.model.tokens == 7
    step.handle({"set": "nothing", "value": 9, "seq": 12})
    assert step.url_state() == {"tokens": 7, "prompt": 5}


def test_prompt_length_recomputes_the_frames_and_tokens_do_not(step):
    step.handle({"shown": True})                    # the counts, not “?”
    before = step.state()["frames"]
    step.handle({"set": "tokens", "value": 20, "seq": 1})
    assert step.state()["frames"] is before                         # T alone: the same text
    step.handle({"set": "prompt", "value": 16, "seq": 1})
    st = step.state()
    assert st["frames"] != before
    f = frames_of(st)[15]
    assert values(f)["uncached"] == str(16 * 16 + 16 * 15 // 2)
    assert values(f)["measured_uncached"] == "376"


def test_language_switch_translates_everything():
    app = App(query={"step": "2"})
    app.handle({"shown": True})                     # the counts, not “?”
    app.handle({"lang": "pl"})
    assert app.step.model.lang == "pl" and app.step.live.value.lang == "pl"
    st = app.state()
    f = frames_of(st)[63]
    assert sp(f["cards"][0]["value"]) == "2 336"
    assert values(f)["ratio"] == "34,4×"
    assert "Krok" in st["stage"]["text"]["next"]
    assert st["controls"][0]["label"] == text.control_labels(translator("pl"))["tokens"]


def test_question_asks_about_the_state_and_stays_answered():
    app = App(query={"step": "2", "tokens": "64", "prompt": "5", "lang": "nl"})
    q = app.state()["question"]
    assert "64" in q["prompt"] and "5" in q["prompt"]
    assert q["correct"] is None                      # the page learns it once answered
    assert app.state()["concealed"]
    right = q["options"].index("2.336")
    app.handle({"answer": right})
    st = app.state()
    assert st["question"]["answer"] == st["question"]["correct"] == right
    assert not st["concealed"]
    # once answered, the question stays as answered while the learner explores
    app.handle({"set": "tokens", "value": 10, "seq": 1})
    st = app.state()
    assert st["question"]["key"] == ("step2", 5, 64) and st["question"]["answer"] is not None
    assert not st["concealed"]
    # ... and on a later visit
    app.handle({"nav": 1})
    app.handle({"nav": -1})
    st = app.state()
    assert st["values"]["tokens"] == 10
    assert st["question"]["key"] == ("step2", 5, 64) and not st["concealed"]


def test_unanswered_question_follows_the_sliders(step):
    step.handle({"set": "tokens", "value": 30, "seq": 1})
    q = step.state()["question"]
    assert q["key"] == ("step2", 5, 30) and "30" in q["prompt"]
    step.handle({"set": "prompt", "value": 9, "seq": 1})
    assert step.state()["question"]["key"] == ("step2", 9, 30)
    step.handle({"shown": True})                                    # “Show me”
    st = step.state()
    assert st["question"]["shown"] and not st["concealed"]
    step.handle({"set": "tokens", "value": 3, "seq": 2})
    assert step.state()["question"]["key"] == ("step2", 9, 30)


def test_unanswered_question_on_a_later_visit_is_about_the_state_then():
    app = App(query={"step": "2"})
    app.handle({"nav": 1})
    app.handle({"nav": -1})
    app.handle({"set": "tokens", "value": 12, "seq": 1})
    st = app.state()
    assert st["question"]["key"] == ("step2", 5, 12) and st["concealed"]


def test_junk_answers_are_ignored(step):
    for junk in ({"answer": -1}, {"answer": 99}, {"answer": True}, {"answer": "1"},
                 {"shown": 1}, {"shown": "true"}, {"frame": "3"}, {"frame": True}):
        step.handle(junk)
        st = step.state()
        assert st["concealed"] and st["question"]["answer"] is None and st["frame"] == 15


def test_the_live_measurement_pending_failed_ready():
    """The stage shows the formulas with a notice while the measurement is pending or
    failed, and the measured numbers once it is ready; each change reaches the page."""
    app = App(query={"step": "2"})
    app.handle({"shown": True})                     # the counts, not “?”
    heard = []
    app.on_change(lambda: heard.append(app.state()))
    live, measured = app.step.live, app.step.live.value
    live.param.update(status="pending")             # a new request keeps the old value
    f = frames_of(heard[-1])[15]
    assert values(f)["uncached"] == "200" and values(f)["measured_uncached"] == text.PENDING
    assert "generating" in f["more"]["notices"][0] and f["more"]["outputs"] is None
    live.param.update(status="failed", error="no weights")
    f = frames_of(heard[-1])[15]
    assert values(f)["same_tokens"] == text.FAILED
    assert "no weights" in f["more"]["notices"][0]
    live.param.update(value=measured, error="", status="ready")
    assert len(heard) == 3                           # one state per change
    f = frames_of(heard[-1])[15]
    assert values(f)["measured_uncached"] == "200" and f["more"]["notices"] == []


def test_a_measurement_of_another_prompt_is_not_shown(step):
    step.handle({"shown": True})                    # the counts, not “?”
    old = step.live.value
    step.live.param.update(status="pending")
    step.model.param.update(prompt=6)                # asks again: outside a server, waited for
    assert step.live.status == "ready" and step.live.value.P == 6
    step.live.param.update(value=old)                # an old result arriving last: ignored
    assert step.measured() is None
    assert values(frames_of(step.state())[15])["measured_uncached"] == text.PENDING


def test_leaving_gives_the_claim_back(monkeypatch):
    from steps.step2 import view as v
    released = []
    monkeypatch.setattr(v.JOBS, "release", lambda key, owner: released.append(key))
    s = Step2("id")
    s.close()
    assert released == [("step2", "id", 5)]


def test_server_start_builds_each_measured_prompt_length_once(monkeypatch):
    """`warm` builds the frames of every prompt length whose measurement is done, before and
    after the question is answered; a session showing that state then gets the very same
    frames (nothing built)."""
    from steps.live import LiveJobs
    from steps.step2 import model as mdl
    from steps.step2 import view as v
    jobs = LiveJobs("test-warm2")
    monkeypatch.setattr(v, "JOBS", jobs)
    key, fn = mdl.live_job("nl", 5)
    measured = jobs.submit(key, fn).result(60)
    assert v.warm("nl") == 2                      # only P = 5 has been measured
    m = mdl.Step2Model(lang="nl", prompt=5)
    built = v.FRAMES(m.run, measured, "ready", "", translator("nl"), True)
    assert v.FRAMES(m.run, measured, "ready", "", translator("nl"), True) is built
    session = Step2("nl")
    session.handle({"shown": True})
    assert session.state()["frames"] is built.json
    jobs.stop()
