"""Step 2's view builds and binds: the stage shows the model's frames and follows `tokens`
both ways, the P slider and the language recompute the frames (once per change), the question
is about the state on screen and conceals the answer until answered."""
import pytest

from steps.common import AppState
from steps.shell import ExplainerApp
from steps.step2 import Step2

KEYS = {"uncached", "cached", "ratio", "recomputed", "measured_uncached", "measured_cached",
        "measured_uncached_all", "measured_cached_all", "time_uncached", "time_cached",
        "same_tokens", "dlogit"}


def values(frame):
    return {c["key"]: c["value"] for c in frame["cards"]}


@pytest.fixture
def step():
    s = Step2(AppState())
    s.__panel__()
    return s


def test_builds_and_binds(step):
    assert step.url_names == {"tokens": "tokens", "prompt": "prompt"}
    assert step.url_state() == {"tokens": 16, "prompt": 5}
    st = step.stage
    assert len(st.frames) == 64 and st.frame == 15
    assert {c["key"] for c in st.frames[15]["cards"]} == KEYS
    assert values(st.frames[15])["measured_uncached"] == "200"   # outside a server: waited for
    assert st.concealed and not step.question.revealed
    assert step.live.status == "ready"


def test_slider_and_player_stay_consistent(step):
    step.model.tokens = 3                 # the slider
    assert step.stage.frame == 2
    step.stage.frame = 40                 # the player stopped (the browser synced)
    assert step.model.tokens == 41 and step.url_state()["tokens"] == 41
    step.stage.frame = 0                  # Reset
    assert step.model.tokens == 1
    step.stage.frame = 63                 # the end
    assert step.model.tokens == 64


def test_prompt_length_recomputes_the_frames_once(step):
    sent = []
    step.stage.param.watch(lambda e: sent.append(e.new), "frames")
    step.model.tokens = 20                # T alone sends nothing
    assert sent == []
    step.model.prompt = 16
    assert len(sent) == 1
    assert values(step.stage.frames[15])["uncached"] == str(16 * 16 + 16 * 15 // 2)
    assert values(step.stage.frames[15])["measured_uncached"] == "376"


def test_language_switch_translates_the_frames(step):
    step.lang = "pl"
    assert step.model.lang == "pl"
    f = step.stage.frames[63]
    assert f["cards"][0]["value"].replace("\u00a0", " ") == "2 336"
    assert values(f)["ratio"] == "34,4×"
    assert "Krok" in step.stage.text["next"]


def test_question_asks_about_the_state_and_reveals():
    app = ExplainerApp(query={"step": "2", "tokens": "64", "prompt": "5", "lang": "nl"})
    step = app.steps[2]
    step.__panel__()
    q = step.question.content
    assert "64" in q["prompt"] and "5" in q["prompt"]
    assert q["options"][q["correct"]] == "2.336"
    assert step.stage.concealed
    step.question.choose(q["correct"])
    assert step.question.revealed and not step.stage.concealed
    # once answered, the question stays as answered while the learner explores
    step.model.tokens = 10
    assert step.question.revealed and step.question.content["key"] == ("step2", 5, 64)


def test_unanswered_question_follows_the_sliders(step):
    step.model.tokens = 30
    assert step.question.content["key"] == ("step2", 5, 30)
    assert "30" in step.question.content["prompt"]
    step.question.param.update(shown=True)           # “Show me”
    assert step.question.revealed and not step.stage.concealed


def test_server_start_builds_each_measured_prompt_length_once(monkeypatch):
    """`warm` builds and packs the frames of every prompt length whose measurement is done;
    a session showing that state then gets the very same frames (nothing built)."""
    from steps.live import LiveJobs
    from steps.step2 import model as mdl
    from steps.step2 import view as v
    jobs = LiveJobs("test-warm2")
    monkeypatch.setattr(v, "JOBS", jobs)
    key, fn = mdl.live_job("nl", 5)
    measured = jobs.submit(key, fn).result(60)
    assert v.warm("nl") == 1                      # only P = 5 has been measured
    m = mdl.Step2Model(lang="nl", prompt=5)
    built = v.FRAMES(m.run, measured, "ready", "", v.tr_of("nl"))
    assert v.FRAMES(m.run, measured, "ready", "", v.tr_of("nl")) is built
    jobs.stop()
