"""Step 1 without a browser: the view-model's numbers (no Panel), its words per language,
and the view's bindings."""
import sys

import pytest

from explainer.i18n import LANGS, Translator
from explainer.prompts import PROMPTS
from steps.step1 import text
from steps.step1.model import MAX_PROMPT, N_NEW, Step1Model

DEFAULT_LEN = {"en": 5, "id": 4, "pl": 3, "nl": 5}


def test_the_model_needs_no_panel():
    import subprocess
    code = ("import sys; from steps.step1.model import Step1Model; Step1Model(); "
            "print('panel' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_reference_figures_of_the_english_default():
    m = Step1Model()
    run = m.run
    assert run.prompt_len == 5 and len(run.frames) == N_NEW
    f0 = run.frames[0]
    assert f0.tokens == ("The", "capital", "of", "France", "is") and f0.next == "Paris"
    assert f0.keys_read == 5 and f0.scores == 5
    f1 = run.frames[1]
    assert len(f1.tokens) == 6 and f1.keys_read == 6 and f1.scores == 11
    assert run.frames[2].scores == 18
    assert len(run.frames[-1].tokens) == 16
    for f in run.frames:
        assert f.weights.shape == (len(f.tokens),)
        assert abs(f.weights.sum() - 1) < 1e-4


@pytest.mark.parametrize("lang", list(LANGS))
def test_each_language_uses_its_own_default_prompt(lang):
    m = Step1Model(lang=lang)
    assert m.run.prompt_len == DEFAULT_LEN[lang]


def test_frames_are_not_recomputed_when_the_frame_moves():
    m = Step1Model()
    run = m.run
    m.frame = 5
    assert m.run is run
    m.layer = 2
    assert m.run is not run
    assert m.current().tokens == m.run.frames[5].tokens


def test_layer_and_head_pick_the_real_attention():
    avg, one = Step1Model(layer=0, head=0), Step1Model(layer=4, head=3)
    assert not (avg.run.frames[0].weights == one.run.frames[0].weights).all()


def test_it_starts_on_one_real_head_not_the_average():
    """A newcomer meets one head's attention, as the model computes it; the averages are
    options of the menus."""
    m = Step1Model()
    assert m.layer >= 1 and m.head >= 1
    from explainer import runtime as rt
    ids, _, _ = m.prompt()
    a = rt.generate("mha", ids, 1).attn[0][m.layer - 1][m.head - 1]
    assert (m.run.frames[0].weights == a).all()


def test_free_text_unknown_words_and_truncation():
    m = Step1Model(text="<b>zzqx</b> " + "the capital of France is " * 5)
    codes = [c for c, _ in m.run.notices]
    assert "unknown" in codes and "truncated" in codes
    assert m.run.prompt_len == MAX_PROMPT
    empty = Step1Model(text=" . ")
    assert empty.run.prompt_len >= 1


def test_two_models_never_share_state():
    a, b = Step1Model(), Step1Model(lang="pl")
    a.frame = 3
    assert b.frame == 0 and b.run.prompt_len == 3


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_question_states_the_numbers_on_screen(lang):
    tr = Translator(lang)
    P = Step1Model(lang=lang).run.prompt_len
    q = text.question(P, tr)
    assert tr.int(P) in q["prompt"]
    assert q["options"][q["correct"]] == tr.int(P + 1)
    assert tr.int(P + 1) in q["explain"]


def test_the_words_say_what_is_true():
    """BERT: almost nothing (the first layer's keys and values would survive); the scores card
    counts the newest queries only, so it cannot contradict step 3's P(P+1)/2."""
    tr = Translator("en")
    bert = text.why(tr)[1]
    assert "almost nothing could be reused" in bert and "first layer's keys and values" in bert
    assert "so nothing could be reused" not in bert
    label = {c.key: c.label for c in text.CARDS}["scores"]
    assert label == "q·k scores computed so far (newest queries)"
    assert "q·k/√d" in text.why(tr)[0]


def test_frames_text_in_polish():
    tr = Translator("pl")
    frames = text.frames(Step1Model(lang="pl").run, tr)
    assert len(frames) == N_NEW
    f = frames[2]
    cards = {c["key"]: c for c in f["cards"]}
    assert set(cards) == {"seq_len", "keys_read", "next", "scores"}
    assert cards["seq_len"]["value"] == "5" and cards["keys_read"]["hidden"]
    assert f["pos"].startswith("Krok dekodowania 2 z 11")     # step 3's words
    assert len(f["table"]["rows"]) == 5 and f["table"]["rows"][0][2].endswith("%")
    assert f["fig"]["prompt_len"] == 3 and len(f["fig"]["pct"]) == 5
    assert "5" in f["say"] and f["desc"]


def test_notices_are_translated_and_formatted():
    tr = Translator("nl")
    m = Step1Model(lang="nl", text="the " * 30)
    out = text.notices(m.run, tr)
    assert any("16" in n for n in out)


def test_the_step_state_follows_the_moves():
    import json

    from steps.step1.view import Step1
    step = Step1("en")
    s = step.state()
    assert len(json.loads(s["frames"])) == N_NEW
    assert s["concealed"] and s["stage"]["figure"] == "arcs"
    step.handle({"answer": 2})
    assert not step.state()["concealed"]
    step.handle({"frame": 6})                 # the browser stopped at frame 6
    assert step.model.frame == 6 and step.state()["frame"] == 6
    step.lang = step.model.lang = "id"        # the shell switches both
    s = step.state()
    assert json.loads(s["frames"])[0]["cards"][0]["value"] == "4"
    assert s["question"]["options"][2] == "5"
    assert step.url_state()["frame"] == 6


def test_a_server_builds_every_state_at_start(monkeypatch):
    """`warm` (run by warmup.py) builds the frames of every example, layer and head, before
    and after the question is answered; a session on any of them then only looks them up
    (nothing is built again)."""
    import steps.ui.frames as frames
    from steps.common import translator
    from steps.step1.model import Step1Model
    from steps.step1.view import FRAMES, warm
    assert warm("nl") == 4 * 5 * 5 * 2
    monkeypatch.setattr(frames, "Frames", None)          # building now would fail
    for example, layer, head in ((2, 3, 1), (0, 0, 0), (3, 4, 4)):
        m = Step1Model(lang="nl", example=example, layer=layer, head=head)
        for revealed in (False, True):
            assert FRAMES(m.run, translator("nl"), revealed).json


def test_the_questions_message_answers_it_and_anything_else_is_ignored():
    from steps.step1.view import Step1
    step = Step1("en")
    for junk in ({"answer": -1}, {"answer": 99}, {"answer": True}, {"answer": "1"},
                 {"shown": 1}, {"shown": "true"}, {"frame": "x"}, {"set": "nothing"}):
        step.handle(junk)
        assert step.answer is None and not step.shown and step.state()["concealed"]
    step.handle({"answer": 1})                    # a click on the second option
    s = step.state()
    assert s["question"]["answer"] == 1 and not s["concealed"]
    other = Step1("en")
    other.handle({"shown": True})                 # “Show me”
    assert other.state()["question"]["shown"] and not other.state()["concealed"]


def test_typing_a_prompt_and_picking_an_example():
    from steps.step1.view import Step1
    step = Step1("en")
    step.handle({"set": "text", "value": "the cat", "seq": 1})
    assert step.model.text == "the cat" and step.state()["values"]["example"] is None
    step.handle({"set": "example", "value": 2, "seq": 1})
    assert (step.model.example, step.model.text) == (2, "")


@pytest.mark.parametrize("lang", list(LANGS))
def test_frame_0_is_the_prefill_in_step_3s_words(lang):
    """The prompt goes through the model at once (prefill) before the one-token decode steps:
    frame 0 says so and marks every prompt token as written now, in the words step 3 uses for
    the same thing; the reference figures stay (5 keys and 5 scores, then 6 and 11)."""
    from steps.step3 import text as text3
    from steps.step3.model import Step3Model
    tr = Translator(lang)
    run = Step1Model(lang=lang).run
    P = run.prompt_len
    fs = text.frames(run, tr)
    f0, f1 = fs[0], fs[1]
    three = text3.frames(Step3Model(lang=lang).run, tr)
    assert Step3Model(lang=lang).run.prompt_len == P
    # the same opening words as step 3's prefill frame, and the same position label
    lead0 = three[0]["caption"].split(",")[0]
    assert f0["caption"].startswith(lead0) and tr.int(P) in lead0
    assert f0["say"] == f0["caption"]
    assert f0["pos"] == three[0]["pos"] and f1["pos"] == three[1]["pos"]
    assert f1["caption"].split(" ")[:2] == three[1]["caption"].split(" ")[:2]  # “Decode step”
    assert text.stage_text(tr)["prefill"] == text3.written(0, tr)
    # the figure: every prompt token written at frame 0; then one token a step
    assert f0["fig"]["prefill"] and not any(f["fig"]["prefill"] for f in fs[1:])
    cards0 = {c["key"]: c["value"] for c in f0["cards"]}
    cards1 = {c["key"]: c["value"] for c in f1["cards"]}
    assert cards0["keys_read"] == cards0["scores"] == tr.int(P)
    assert cards1["keys_read"] == tr.int(P + 1) and cards1["scores"] == tr.int(2 * P + 1)


def test_frame_0_words_in_english():
    tr = Translator("en")
    fs = text.frames(Step1Model().run, tr)
    assert fs[0]["caption"] == ("Prefill: the 5 prompt tokens went through the model in one "
                                "pass, and all their keys and values went into the cache at "
                                "once. The query of the last one, “is”, reads all 5 keys and "
                                "predicts “Paris”.")
    assert fs[0]["pos"] == "Decode step 0 of 11 (0 = prefill)"
    assert fs[1]["caption"] == ("Decode step 1: only “Paris” went through the model. Its query "
                                "reads 6 keys, 5 of them from the cache, and predicts "
                                f"“{fs[1]['fig']['next']}”.")
    assert ("new", "outline: written into the cache at this step (at the prefill, the whole "
            "prompt)") in text.legend(tr)
