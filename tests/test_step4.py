"""Step 4 (prefill vs decode): the reference figures, every control's extremes, locale
formatting, and measured numbers that really come from the live model."""
import threading
import time

import pytest

import explainer.costs as costs
import explainer.runtime as rt
import steps.step4 as step4
from explainer.presets import GB, GPUS, STEP4
from steps.common import AppState
from steps.live import LiveJobs
from steps.step4 import Step4, measure_plan


def norm(s: str) -> str:
    return s.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.fixture
def fresh(monkeypatch):
    """An empty measurement queue and cache for this test only."""
    jobs = LiveJobs("test-step4")
    monkeypatch.setattr(step4, "JOBS", jobs)
    yield jobs
    jobs.stop()


@pytest.fixture
def fake_measure(fresh, monkeypatch):
    """Cheap stand-in for the live measurement (tests of computed numbers only)."""
    calls = []

    def fake(variant, p, o, repeats=3):
        calls.append((variant, p, o))
        return rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0, "cpu")

    monkeypatch.setattr(rt, "throughput", fake)
    return calls


def test_reference_figures_at_defaults(fake_measure):
    s = Step4(AppState())
    vm = s.view_model()
    assert (s.prompt, s.output, s.gpu) == (512, 256, "illustrative")
    assert vm["prefill_tokens"] == "512"
    assert vm["decode_steps"] == "255"
    assert norm(vm["read_per_step"]) == "13.9 GB"
    assert vm["prefill_intensity"] == "502"
    assert norm(vm["prefill_time"]) == "23 ms"
    assert norm(vm["decode_step_time"]) == "6.9 ms"
    assert vm["ridge"] == "150"
    assert 0.9 < vm["decode_intensity_raw"] < 1.1          # decode ≈ 1 FLOP/byte
    assert vm["decode_intensity"] == "0.97"
    assert (vm["prefill_bound_raw"], vm["decode_bound_raw"]) == ("compute", "memory")
    assert (vm["prefill_bound"], vm["decode_bound"]) == ("compute-bound", "memory-bound")
    assert norm(vm["weights"]) == "13.5 GB" and norm(vm["kv_per_token"]) == "512 KiB"
    assert norm(vm["gpu_peak"]) == "300 TFLOP/s" and norm(vm["gpu_bandwidth"]) == "2 TB/s"
    assert vm["times_kind"] == "illustrative"
    # the numbers are the engine's, not re-derived here
    pre = costs.prefill_cost("llama2-7b", 512, "illustrative")
    dec = costs.decode_step_cost("llama2-7b", 767, "illustrative")
    assert vm["prefill_intensity_raw"] == pre.intensity
    assert vm["prefill_time_raw"] == pre.time_s
    assert vm["decode_step_time_raw"] == dec.time_s
    assert vm["decode_steps_raw"] == costs.decode_steps(256)
    assert vm["read_per_step_raw"] == costs.decode_read_bytes_max("llama2-7b", 512, 256)
    assert round(vm["read_per_step_raw"] / GB, 1) == 13.9
    # the frame-specific narration carries the same numbers
    text = norm(vm["narration"])
    for fig in ("512", "502", "23 ms", "255", "13.9 GB", "6.9 ms"):
        assert fig in text
    # the rendered cards show them too
    html = norm(s._computed.object)
    for fig in ("512", "255", "13.9 GB", "502", "23 ms", "6.9 ms"):
        assert fig in html
    # the question: decode is the memory-bound phase
    assert s._question.options[s._question.correct] == "One decode step"


def test_url_names_and_params():
    assert Step4.url_names == {"prompt": "prompt", "output": "output", "gpu": "gpu"}
    assert Step4.param.prompt.bounds == STEP4["prompt_range"]
    assert Step4.param.output.bounds == STEP4["output_range"]
    assert set(Step4.param.gpu.objects) == set(GPUS)


def test_measure_plan_respects_live_context():
    assert measure_plan(512, 256, 1024) == (512, 256)
    assert measure_plan(8192, 2048, 1024) == (768, 256)      # min(P, 768), 1024 − 768
    assert measure_plan(16, 2048, 1024) == (16, 992)         # 1,009 possible, bucketed
    assert measure_plan(512, 2048, 1024) == (512, 512)
    assert measure_plan(500, 100, 1024) == (496, 96)         # buckets of 16 and 32
    assert measure_plan(16, 1, 1024) == (16, 2)              # at least one decode step
    for p in (16, 100, 768, 8192):
        for o in (1, 2, 33, 700, 2048):
            mp, mo = measure_plan(p, o, 1024)
            assert mp + mo - 1 <= 1024 and mp <= 768 and mo >= 2


@pytest.mark.parametrize("gpu", list(GPUS))
def test_extremes_render(fake_measure, gpu):
    s = Step4(AppState(), gpu=gpu)
    lo_p, hi_p = STEP4["prompt_range"]
    lo_o, hi_o = STEP4["output_range"]
    seen = {}
    for p in (lo_p, hi_p):
        for o in (lo_o, hi_o):
            s.param.update(prompt=p, output=o)        # several params at once
            s.refresh()
            vm = s.view_model()
            seen[p, o] = vm
            assert vm["prefill_tokens"] == f"{p:,}"
            assert vm["decode_steps_raw"] == o - 1
            assert s._points.data["x"], "the prefill point is always drawn"
            assert len(s._points.data["x"]) == (1 if o == 1 else 2)
    # one output token: no decode step at all
    assert seen[lo_p, lo_o]["decode_step_time"] == "–"
    assert seen[lo_p, lo_o]["decode_steps"] == "0"
    # more prompt: more FLOP per byte, longer prefill; more context: slower decode step
    assert seen[hi_p, hi_o]["prefill_intensity_raw"] > seen[lo_p, hi_o]["prefill_intensity_raw"]
    assert seen[hi_p, hi_o]["prefill_time_raw"] > seen[lo_p, hi_o]["prefill_time_raw"]
    assert seen[hi_p, hi_o]["decode_step_time_raw"] > seen[lo_p, hi_o]["decode_step_time_raw"]
    assert seen[hi_p, hi_o]["read_per_step_raw"] > seen[lo_p, hi_o]["read_per_step_raw"]
    # decode is memory-bound everywhere; a 16-token prefill is memory-bound too
    assert all(v["decode_bound_raw"] in ("memory", None) for v in seen.values())
    assert seen[lo_p, hi_o]["prefill_bound_raw"] == "memory"
    assert seen[hi_p, hi_o]["prefill_bound_raw"] == "compute"
    assert seen[hi_p, hi_o]["measured_clamped"] and not seen[lo_p, lo_o]["measured_clamped"]
    assert seen[hi_p, hi_o]["notice"] and s._notice.visible
    assert (seen[hi_p, hi_o]["measured_prompt"], seen[hi_p, hi_o]["measured_output"]) == (768, 256)


def test_gpu_choice_moves_the_ridge(fake_measure):
    s = Step4(AppState())
    s._gpu_w.value = "h100"                       # the Select drives the param
    assert s.gpu == "h100"
    vm = s.view_model()
    assert vm["ridge"] == "295" and vm["times_kind"] == "computed"
    assert s._ridge.location == GPUS["h100"].ridge
    assert norm(vm["decode_step_time"]) == "4.1 ms"       # 13.9 GB / 3.35 TB/s
    s.gpu = "l4"                                  # the param (URL) drives the Select
    assert s._gpu_w.value == "l4"
    assert s.view_model()["ridge"] == "403"


def test_plot_text_and_locale_ticks(fake_measure):
    app = AppState()
    s = Step4(app)
    fig = s._fig
    assert fig.xaxis[0].major_label_overrides[1000] == "1,000"
    assert fig.xaxis[0].major_label_overrides[0.1] == "0.1"
    assert fig.title.text == "Roofline of Illustrative GPU"
    assert [t for t, _ in s._hover.tooltips][0] == "Phase"
    assert s._mem_label.text == "memory-bound" and s._cmp_label.text == "compute-bound"
    assert s._points.data["label"] == ["prefill", "decode"]
    app.lang = "pl"
    assert norm(fig.xaxis[0].major_label_overrides[1000]) == "1 000"
    assert fig.xaxis[0].major_label_overrides[0.1] == "0,1"


def test_polish_number_formatting(fake_measure):
    app = AppState()
    s = Step4(app)
    app.lang = "pl"
    vm = s.view_model()
    assert norm(vm["read_per_step"]) == "13,9 GB"
    assert norm(vm["decode_step_time"]) == "6,9 ms"
    assert vm["decode_intensity"] == "0,97"
    s.param.update(prompt=8192, output=2048)
    vm = s.view_model()
    assert norm(vm["prefill_tokens"]) == "8 192"
    assert norm(vm["decode_steps"]) == "2 047"
    assert "8 192" in norm(vm["narration"])
    app.lang = "nl"
    assert s.view_model()["prefill_tokens"] == "8.192"


def test_measured_numbers_come_from_the_live_model(fresh, monkeypatch):
    """The default bucket is measured in the background at construction; a slider move shows
    "measuring…" without blocking, and the shown numbers are the runtime's own."""
    real = rt.throughput
    returned = {}
    gate = threading.Event()

    def spy(variant, p, o, repeats=3):
        if (p, o) != (512, 256):
            gate.wait(60)                 # hold the second measurement until checked
        r = real(variant, p, o, repeats)
        returned[p, o] = (variant, r)
        return r

    monkeypatch.setattr(rt, "throughput", spy)
    s = Step4(AppState())
    assert s.wait_for_measurement(600)
    vm = s.view_model()
    variant, r = returned[512, 256]
    assert variant == "mha" and isinstance(r, rt.Throughput)
    assert not vm["measured_pending"]
    assert vm["measured_prefill_raw"] == r.prefill_tokens_per_s
    assert vm["measured_decode_raw"] == r.decode_tokens_per_s
    assert vm["measured_ratio_raw"] == r.prefill_tokens_per_s / r.decode_tokens_per_s
    assert (r.prompt_tokens, r.decode_steps) == (512, 255)
    assert vm["measured_device"] == rt.model_facts("mha")["device"]
    assert "measuring" not in s._measured.object
    tr = s.tr
    assert vm["measured_decode"] == tr._("{n} tokens/s", n=step4._rate(tr, r.decode_tokens_per_s))
    facts = rt.model_facts("mha")
    assert (vm["live_layers"], vm["live_heads"], vm["live_head_dim"]) == (
        facts["n_layers"], facts["n_heads"], facts["head_dim"])

    # a new bucket: refresh returns at once and shows "measuring…"
    t0 = time.perf_counter()
    s.param.update(prompt=32, output=3)
    assert time.perf_counter() - t0 < 1.0
    vm = s.view_model()
    assert vm["measured_pending"] and vm["measured_decode"] == "measuring…"
    assert "measuring…" in s._measured.object
    gate.set()
    assert s.wait_for_measurement(600)
    vm = s.view_model()
    _, r2 = returned[32, 3]
    assert vm["measured_decode_raw"] == r2.decode_tokens_per_s
    assert (vm["measured_prompt"], vm["measured_output"]) == (32, 3)
    assert "measuring" not in s._measured.object


def test_failed_measurement_shows_a_dash(fresh, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("no model")

    monkeypatch.setattr(rt, "throughput", broken)
    s = Step4(AppState())
    s.wait_for_measurement(60)
    vm = s.view_model()
    assert not vm["measured_pending"] and vm["measured_decode"] == "–"
