"""Step 4's words per language from fixed numbers (the 7B reference figures in every locale's
format), the question built from the state on screen, the measured numbers' three states, and
the view's bindings with the live measurement."""
import threading
import time

import pytest

import explainer.runtime as rt
from explainer.i18n import LANGS, Translator
from steps import live as live_mod
from steps.live import LiveJobs
from steps.step4 import text
from steps.step4.model import live_facts, plan_of, roofline_of

FAKE = rt.Throughput(512, 255, 0.05, 0.004, 10_240.0, 250.0, "cpu")


def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


def values(prompt=512, output=256, gpu="illustrative", lang="en"):
    return {k: norm(v) for k, v in text.values(roofline_of(prompt, output, gpu),
                                               Translator(lang)).items()}


def test_reference_figures_at_defaults():
    v = values()
    assert v["prefill_tokens"] == "512"
    assert v["decode_steps"] == "255"
    assert v["read_per_step"] == "13.9 GB"
    assert v["prefill_intensity"] == "502"
    assert v["decode_intensity"] == "0.97"
    assert v["prefill_time"] == "23 ms"
    assert v["decode_step_time"] == "6.9 ms"
    assert (v["prefill_bound"], v["decode_bound"]) == ("compute-bound", "memory-bound")
    tr = Translator("en")
    r = roofline_of(512, 256, "illustrative")
    note = norm(" ".join(text.model_note(r, tr)))
    for fig in ("13.5 GB", "512 KiB", "300 TFLOP/s", "2 TB/s", "ridge ≈ 150 FLOP/byte",
                "Illustrative GPU", "lower bounds"):
        assert fig in note
    # the paragraph that places both phases carries the same numbers (once revealed)
    said = norm(" ".join(text.narration(r, True, tr)))
    for fig in ("512", "502", "23 ms", "255", "13.9 GB", "6.9 ms", "1.8 s"):
        assert fig in said
    assert "6.7×" in said                                   # batching 8 sequences


def test_256_outputs_are_1_from_the_prefill_and_255_decode_steps():
    tr = Translator("en")
    assert text.tokens_words(roofline_of(512, 256, "illustrative"), tr).startswith(
        "256 output tokens = 1 from the prefill + 255 decode steps")
    assert "no decode step" in text.tokens_words(roofline_of(512, 1, "illustrative"), tr)
    assert "+ 1 decode step:" in text.tokens_words(roofline_of(512, 2, "illustrative"), tr)


def test_cards_four_headline_numbers_the_rest_under_all_numbers():
    tr = Translator("en")
    cards = text.cards(roofline_of(512, 256, "illustrative"), "ready", FAKE, tr)
    head = [c["key"] for c in cards if not c["more"]]
    assert head == ["prefill_intensity", "decode_intensity", "prefill_time", "decode_step_time"]
    by = {c["key"]: c for c in cards}
    assert {k for k, c in by.items() if c["hidden"]} == {"prefill_bound", "decode_bound"}
    # badges on results only: none on inputs and categories
    assert [by[k]["kind"] for k in ("prefill_tokens", "decode_steps", "prefill_bound",
                                    "decode_bound")] == [None] * 4
    assert by["prefill_time"]["kind"] == by["decode_step_time"]["kind"] == "illustrative"
    assert by["measured_decode"]["kind"] == "measured"
    h100 = {c["key"]: c for c in text.cards(roofline_of(512, 256, "h100"), "ready", FAKE, tr)}
    assert h100["prefill_time"]["kind"] == "computed"


def test_answer_bearing_words_wait_for_the_answer():
    tr = Translator("en")
    r = roofline_of(512, 256, "illustrative")
    before = " ".join(text.narration(r, False, tr))
    assert "memory-bound" not in before and "compute-bound" not in before
    assert "255 decode steps" in before and "ridge" in before      # what to look at
    after = " ".join(text.narration(r, True, tr))
    assert "memory-bound" in after and "compute-bound" in after
    frame = text.frame(r, "ready", FAKE, tr)
    assert "bound" not in frame["desc"] and "bound" not in str(frame["table"])
    assert frame["fig"]["memory"] == "memory-bound"          # drawn only once revealed


def test_the_question_follows_the_state():
    tr = Translator("en")
    q = text.question(roofline_of(512, 256, "illustrative"), tr)
    assert q["options"][q["correct"]] == "One decode step"
    assert "512" in q["prompt"] and "Illustrative GPU" in q["prompt"]
    assert "0.97" in q["explain"] and "502" in q["explain"]
    short = text.question(roofline_of(16, 256, "illustrative"), tr)   # prefill memory-bound
    assert short["options"][short["correct"]] == "Both equally"
    assert short["key"] != q["key"] and "16" in short["prompt"]
    assert text.question(roofline_of(640, 256, "illustrative"), tr)["key"] == q["key"]


def test_gpu_choice():
    tr = Translator("en")
    opts = {norm(k): v for k, v in text.gpu_options(tr).items()}
    assert opts["H100 SXM (989 TFLOP/s, 3.35 TB/s)"] == "h100"
    assert opts["Illustrative GPU (300 TFLOP/s, 2 TB/s)"] == "illustrative"
    assert values(gpu="h100")["decode_step_time"] == "4.1 ms"       # 13.9 GB / 3.35 TB/s
    assert "ridge ≈ 295" in norm(" ".join(text.model_note(roofline_of(512, 256, "h100"), tr)))
    assert "ridge ≈ 403" in norm(" ".join(text.model_note(roofline_of(512, 256, "l4"), tr)))


def test_one_output_token_has_no_decode_point():
    tr = Translator("en")
    v = values(output=1)
    assert v["decode_step_time"] == "–" and v["decode_steps"] == "0"
    frame = text.frame(roofline_of(16, 1, "h200"), "ready", FAKE, tr)
    assert [p["label"] for p in frame["fig"]["points"]] == ["prefill"]
    assert len(frame["table"]["rows"]) == 1


def test_plot_text_and_locale_ticks():
    r = roofline_of(512, 256, "illustrative")
    fig = text.frame(r, "ready", FAKE, Translator("en"))["fig"]
    ticks = dict(fig["xticks"])
    assert ticks[1000] == "1,000" and ticks[0.1] == "0.1"
    assert fig["title"] == "Roofline of Illustrative GPU"
    assert [p["label"] for p in fig["points"]] == ["prefill", "decode"]
    assert (fig["memory"], fig["compute"]) == ("memory-bound", "compute-bound")
    assert fig["ridge"] == 150 and fig["x0"] < 0.1 and fig["x1"] > 10_000
    pl = dict(text.frame(r, "ready", FAKE, Translator("pl"))["fig"]["xticks"])
    assert norm(pl[1000]) == "1 000" and pl[0.1] == "0,1"


def test_polish_and_dutch_numbers():
    v = values(lang="pl")
    assert v["read_per_step"] == "13,9 GB"
    assert v["decode_step_time"] == "6,9 ms"
    assert v["decode_intensity"] == "0,97"
    v = values(8192, 2048, lang="pl")
    assert v["prefill_tokens"] == "8 192" and v["decode_steps"] == "2 047"
    said = norm(" ".join(text.narration(roofline_of(8192, 2048, "illustrative"), True,
                                        Translator("pl"))))
    assert "8 192" in said
    assert values(8192, 2048, lang="nl")["prefill_tokens"] == "8.192"


def test_measured_numbers_in_their_three_states():
    tr = Translator("en")
    ready = text.measured_values("ready", FAKE, tr)
    assert ready["measured_decode"] == tr._("{n} tokens/s", n=text.rate(250.0, tr))
    assert ready["measured_decode"] == "250 tokens/s"
    assert norm(ready["measured_prefill"]) == "10,240 tokens/s"
    assert ready["measured_ratio"] == "41.0×"
    assert set(text.measured_values("pending", None, tr).values()) == {"measuring…"}
    assert set(text.measured_values("failed", None, tr).values()) == {"–"}
    facts = live_facts()
    plan = plan_of(512, 256)
    paras, notes = text.measured_words(plan, 512, 256, "ready", FAKE, facts, tr)
    said = norm(" ".join(paras))
    assert "10,240 tokens/s" in said and "41.0×" in said and notes == []
    assert "Python" in said and "not the GPU roofline" in said        # the CPU caveat
    paras, notes = text.measured_words(plan, 512, 256, "pending", None, facts, tr)
    assert "measuring…" in paras
    paras, notes = text.measured_words(plan, 512, 256, "failed", None, facts, tr)
    assert notes and "measuring…" not in paras
    big = plan_of(8192, 2048)
    _, notes = text.measured_words(big, 8192, 2048, "ready", FAKE, facts, tr)
    assert norm(notes[0]).endswith("768 prompt tokens and 256 output tokens instead of "
                                   "8,192 and 2,048.")


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_language_renders_every_string(lang):
    tr = Translator(lang)
    for r in (roofline_of(512, 256, "illustrative"), roofline_of(16, 1, "l4")):
        assert all(text.narration(r, True, tr)) and all(text.model_note(r, tr))
        frame = text.frame(r, "ready", FAKE, tr)
        assert frame["desc"] and frame["fig"]["title"] and frame["cards"]
        q = text.question(r, tr)
        assert tr.int(r.prompt) in q["prompt"] and q["explain"]
    paras, _ = text.measured_words(plan_of(512, 256), 512, 256, "ready", FAKE, live_facts(), tr)
    assert all(paras) and text.legend(tr) and text.gpu_options(tr)


# -- the view: bindings, and the measurement through steps.live.LiveValue -------------------

@pytest.fixture
def fresh(monkeypatch):
    """An empty measurement queue for this test, and a cheap stand-in measurement."""
    jobs = LiveJobs("test-step4")
    monkeypatch.setattr(live_mod, "JOBS", jobs)
    calls = []

    def fake(variant, p, o, repeats=3):
        calls.append((p, o))
        return rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0, "cpu")

    monkeypatch.setattr(rt, "throughput", fake)
    yield calls
    jobs.stop()


def build():
    from steps.common import AppState
    from steps.step4 import Step4
    app = AppState()
    view = Step4(app)
    view.__panel__()
    return app, view


def card(view, key):
    return {c["key"]: c for c in view.stage.frames[0]["cards"]}[key]


def test_the_view_builds_and_binds(fresh):
    app, view = build()
    m = view.model
    assert view.url_names == {"prompt": "prompt", "output": "output", "gpu": "gpu"}
    assert view.url_state() == {"prompt": 512, "output": 256, "gpu": "illustrative"}
    assert view.live.status == "ready" and fresh == [(512, 256)]
    assert card(view, "measured_decode")["value"] == "500 tokens/s"
    assert view.stage.concealed and card(view, "decode_bound")["hidden"]
    view.question.choose(1)
    assert not view.stage.concealed
    m.param.update(prompt=32, output=3)             # a new bucket is measured
    assert fresh[-1] == (32, 3)
    assert norm(card(view, "measured_prefill")["value"]) == "3,200 tokens/s"
    assert view.stage.frames[0]["fig"]["points"][1]["x"] == m.roofline.decode.intensity
    m.gpu = "h100"
    assert fresh[-1] == (32, 3) and len(fresh) == 2      # the GPU does not re-measure
    app.lang = "pl"
    assert card(view, "prefill_tokens")["value"] == "32"
    assert view.question.content["options"][0] == Translator("pl")._("Prefill")


def test_a_slider_move_never_waits_for_the_measurement(fresh, monkeypatch):
    """In a served session the new bucket shows “measuring…” at once and settles later."""
    gate, pending = threading.Event(), []
    real = rt.throughput

    def slow(variant, p, o, repeats=3):
        if (p, o) != (512, 256):
            gate.wait(30)
        return real(variant, p, o, repeats)

    monkeypatch.setattr(rt, "throughput", slow)
    app, view = build()
    monkeypatch.setattr(live_mod, "served_doc", lambda: object())
    monkeypatch.setattr(live_mod, "refresh_when_done",
                        lambda fut, doc, fn: pending.append((fut, fn)))
    t0 = time.perf_counter()
    view.model.param.update(prompt=64, output=5)
    assert time.perf_counter() - t0 < 1.0
    assert view.live.status == "pending"
    assert card(view, "measured_decode")["value"] == "measuring…"
    gate.set()
    fut, settle = pending[-1]
    fut.result(30)
    settle()                                        # on the session's loop, when served
    assert view.live.status == "ready"
    assert norm(card(view, "measured_prefill")["value"]) == "6,400 tokens/s"


def test_a_failed_measurement_shows_a_dash_and_says_so(fresh, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("no model")

    monkeypatch.setattr(rt, "throughput", broken)
    app, view = build()
    assert view.live.status == "failed"
    assert card(view, "measured_decode")["value"] == "–"
    assert card(view, "prefill_intensity")["value"] == "502"     # the formulas stay


def test_deep_link_round_trip(fresh):
    from urllib.parse import parse_qs

    from steps.shell import ExplainerApp
    app = ExplainerApp(query={"step": [b"4"], "prompt": [b"64"], "output": [b"9"],
                              "gpu": [b"h100"]})
    m = app.steps[4].model
    assert (m.prompt, m.output, m.gpu) == (64, 9, "h100")
    assert app.view_model()["notices"] == []
    assert parse_qs(app.url_query()[1:]) == {"step": ["4"], "lang": ["en"], "prompt": ["64"],
                                             "output": ["9"], "gpu": ["h100"]}
