"""Step 4's view-model without Panel: the 7B reference model's prefill and decode points from
the controls, every control's extremes, what each output depends on, and the live model's
measurement plan (the measurement is the runtime's own)."""
import subprocess
import sys

import pytest

import explainer.costs as costs
import explainer.runtime as rt
from explainer.presets import GB, GPUS, STEP4
from steps.step4.model import (Plan, Step4Model, job, live_facts, measure, measure_plan,
                               plan_of, roofline_of)


def test_the_model_needs_no_panel():
    code = ("import sys; from steps.step4.model import Step4Model; Step4Model(); "
            "print('panel' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_controls_match_the_old_step():
    m = Step4Model()
    assert (m.prompt, m.output, m.gpu) == (512, 256, "illustrative")
    assert m.param.prompt.bounds == STEP4["prompt_range"]
    assert m.param.output.bounds == STEP4["output_range"]
    assert set(m.param.gpu.objects) == set(GPUS)


def test_reference_figures_at_defaults():
    r = Step4Model().roofline
    assert r.steps == 255 == costs.decode_steps(256)         # 256 outputs: 1 + 255 steps
    assert r.last_ctx == 767
    assert round(r.read_max / GB, 1) == 13.9
    assert r.read_max == costs.decode_read_bytes_max("llama2-7b", 512, 256)
    assert round(r.prefill.intensity) == 502
    assert round(r.prefill.time_s * 1e3) == 23
    assert round(r.decode.time_s * 1e3, 1) == 6.9
    assert 0.9 < r.decode.intensity < 1.1                   # decode ≈ 1 FLOP/byte
    assert round(r.gpu.ridge) == 150 and r.gpu.illustrative
    assert (r.prefill.bound, r.decode.bound) == ("compute", "memory")
    assert round(r.weights / GB, 1) == 13.5 and r.kv_per_token == 512 * 1024
    # the numbers are the engine's, not re-derived here
    pre = costs.prefill_cost("llama2-7b", 512, "illustrative")
    dec = costs.decode_step_cost("llama2-7b", 767, "illustrative")
    assert (r.prefill, r.decode) == (pre, dec)
    assert r.decode_total_s == costs.decode_total_time_s("llama2-7b", 512, 256, "illustrative")
    assert r.batch_gain == pytest.approx(
        costs.decode_step_cost("llama2-7b", 767, "illustrative", batch=8).tokens_per_s
        / dec.tokens_per_s)
    # the roofline's corners: the slope meets the roof at the ridge
    (x0, y0), (xr, yr), (x1, y1) = r.roof
    assert xr == r.gpu.ridge and yr == y1 == r.gpu.flops and y0 == r.gpu.bandwidth * x0


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


def test_plan_says_when_the_sliders_ask_too_much():
    assert plan_of(512, 256) == Plan(512, 256, False, live_facts()["max_len"])
    big = plan_of(8192, 2048)
    assert (big.prompt, big.output, big.clamped) == (768, 256, True)
    assert big.key == ("step4", (768, 256))


@pytest.mark.parametrize("gpu", list(GPUS))
def test_extremes(gpu):
    lo_p, hi_p = STEP4["prompt_range"]
    lo_o, hi_o = STEP4["output_range"]
    seen = {}
    for p in (lo_p, hi_p):
        for o in (lo_o, hi_o):
            m = Step4Model(prompt=p, output=o, gpu=gpu)
            seen[p, o] = m.roofline
            assert m.roofline.steps == o - 1
    # one output token: no decode step at all
    assert seen[lo_p, lo_o].steps == 0
    # more prompt: more FLOP per byte, longer prefill; more context: slower decode step
    assert seen[hi_p, hi_o].prefill.intensity > seen[lo_p, hi_o].prefill.intensity
    assert seen[hi_p, hi_o].prefill.time_s > seen[lo_p, hi_o].prefill.time_s
    assert seen[hi_p, hi_o].decode.time_s > seen[lo_p, hi_o].decode.time_s
    assert seen[hi_p, hi_o].read_max > seen[lo_p, hi_o].read_max
    # decode is memory-bound everywhere; a 16-token prefill is memory-bound too
    assert all(r.decode.bound == "memory" for r in seen.values())
    assert seen[lo_p, hi_o].prefill.bound == "memory"
    assert seen[hi_p, hi_o].prefill.bound == "compute"


def test_gpu_choice_moves_the_ridge():
    m = Step4Model(gpu="h100")
    assert round(m.roofline.gpu.ridge) == 295 and not m.roofline.gpu.illustrative
    assert round(m.roofline.decode.time_s * 1e3, 1) == 4.1      # 13.9 GB / 3.35 TB/s
    m.gpu = "l4"
    assert round(m.roofline.gpu.ridge) == 403


def test_each_output_recomputes_only_on_its_inputs():
    m = Step4Model()
    roof, plan = m.roofline, m.plan
    m.gpu = "h100"
    assert m.plan is plan and m.roofline is not roof
    roof = m.roofline
    m.output = 257                          # the same measured bucket (512, 256)
    assert m.plan is plan and m.roofline is not roof
    m.prompt = 100
    assert m.plan is not plan and (m.plan.prompt, m.plan.output) == (96, 256)
    assert roofline_of(100, 257, "h100") is m.roofline          # shared by every session


def test_the_measurement_is_the_runtime_own(monkeypatch):
    calls = []

    def spy(variant, p, o, repeats=3):
        calls.append((variant, p, o))
        return rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0, "cpu")

    monkeypatch.setattr(rt, "throughput", spy)
    plan = plan_of(8192, 2048)
    key, fn = job(plan)
    assert key == ("step4", (768, 256))
    res = fn()
    assert calls == [("mha", 768, 256)] and res.decode_tokens_per_s == 500.0


def test_a_real_measurement_of_a_small_bucket():
    res = measure(plan_of(32, 3))
    assert isinstance(res, rt.Throughput)
    assert (res.prompt_tokens, res.decode_steps) == (32, 2)
    assert res.prefill_tokens_per_s > 0 and res.decode_tokens_per_s > 0
    assert res.device == rt.model_facts("mha")["device"]
