"""Step 4's view-model without Panel: the 7B reference model's prefill and decode points from
the controls, every control's extremes, decode against the batch (every figure reproduced from
its formula), the model menu, what each output depends on, and the live model's measurement
plan (the measurement is the runtime's own)."""
import math
import subprocess
import sys

import pytest

import explainer.costs as costs
import explainer.runtime as rt
from explainer.presets import ALL_MODELS, GB, GiB, GPUS, STEP4
from steps.step4.model import (CURVE_BATCHES, OUTPUT_GRID, PROMPT_GRID, Plan, Step4Model,
                               batching_of, cache_per_sequence, decode_total_s, job,
                               live_facts, live_jobs, measure, measure_plan, plan_of,
                               roofline_of, speeds)


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
    # new: the model menu (every preset) and the batch, 1 to 256
    assert (m.model, m.batch) == ("llama2-7b", 1)
    assert m.param.model.objects == list(ALL_MODELS)
    assert m.param.batch.bounds == (1, 256)


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
    assert r.batch == 1 and r.batch_gain == 1.0 and r.single == r.decode
    # batching 8 sequences: 6.65× the tokens per second of one (the old narration's example)
    r8 = roofline_of(512, 256, "illustrative", batch=8)
    assert r8.decode == costs.decode_step_cost("llama2-7b", 767, "illustrative", batch=8)
    assert r8.batch_gain == pytest.approx(
        costs.decode_step_cost("llama2-7b", 767, "illustrative", batch=8).tokens_per_s
        / dec.tokens_per_s)
    assert round(r8.batch_gain, 1) == 6.7 and round(r8.decode.time_s * 1e3, 2) == 8.35
    # the roofline's corners: the slope meets the roof at the ridge
    (x0, y0), (xr, yr), (x1, y1) = r.roof
    assert xr == r.gpu.ridge and yr == y1 == r.gpu.flops and y0 == r.gpu.bandwidth * x0


def test_measure_plan_respects_live_context():
    assert measure_plan(512, 256, 1024) == (512, 256)
    assert measure_plan(8192, 2048, 1024) == (768, 256)      # min(P, 768), 1024 − 768
    assert measure_plan(16, 2048, 1024) == (16, 256)         # the grid's largest output
    assert measure_plan(512, 2048, 1024) == (512, 256)
    assert measure_plan(500, 100, 1024) == (256, 64)         # rounded down to the grid
    assert measure_plan(16, 1, 1024) == (16, 2)              # at least one decode step
    assert measure_plan(100, 40, 100) == (64, 32)            # a short live context
    for p in (16, 100, 768, 8192):
        for o in (1, 2, 33, 700, 2048):
            mp, mo = measure_plan(p, o, 1024)
            assert mp + mo - 1 <= 1024 and mp <= 768 and mo >= 2
            assert mp in PROMPT_GRID and mo in OUTPUT_GRID


def test_every_reachable_plan_is_one_of_few_jobs():
    """The sliders reach only the grid: live_jobs (run at server start) covers every plan,
    and a prompt is measured once for all its outputs."""
    keys = {key for key, _ in live_jobs()}
    lo_p, hi_p = STEP4["prompt_range"]
    lo_o, hi_o = STEP4["output_range"]
    for p in range(lo_p, hi_p + 1, 37):
        for o in list(range(lo_o, hi_o + 1, 23)) + [hi_o]:
            assert plan_of(p, o).key in keys
    assert len(keys) == len(live_jobs()) <= len(PROMPT_GRID) * len(OUTPUT_GRID)


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
    assert m.plan is not plan and (m.plan.prompt, m.plan.output) == (64, 256)
    assert roofline_of(100, 257, "h100", "llama2-7b", 1) is m.roofline   # shared by sessions
    # the batch moves the decode point only: the batch curve and the plan stay
    roof, batching, plan = m.roofline, m.batching, m.plan
    m.batch = 64
    assert m.roofline is not roof and m.batching is batching and m.plan is plan
    assert m.roofline.decode.tokens == 64
    m.model = "llama3.1-8b"
    assert m.batching is not batching and m.plan is plan
    assert batching_of(356, "h100", "llama3.1-8b") is m.batching


def test_the_measurement_is_the_runtime_own(monkeypatch):
    calls = []

    def spy(variant, p, outputs, repeats=3):
        calls.append((variant, p, outputs))
        return {o: rt.Throughput(p, o - 1, 0.01, 0.002, p / 0.01, 500.0 + o, "cpu")
                for o in outputs}

    monkeypatch.setattr(rt, "throughputs", spy)
    speeds.cache_clear()
    try:
        key, fn = job(plan_of(8192, 2048))
        assert key == ("step4", (768, 256))
        assert fn().decode_tokens_per_s == 756.0
        assert job(plan_of(8192, 3))[1]().decode_tokens_per_s == 502.0
        # one run per prompt: every output of the grid that fits after 768 tokens
        assert calls == [("mha", 768, OUTPUT_GRID)]
    finally:
        speeds.cache_clear()


def test_a_real_measurement_of_a_small_bucket():
    res = measure(plan_of(32, 3))
    assert isinstance(res, rt.Throughput)
    assert (res.prompt_tokens, res.decode_steps) == (32, 1)
    assert res.prefill_tokens_per_s > 0 and res.decode_tokens_per_s > 0
    assert res.device == rt.model_facts("mha")["device"]


def test_one_run_gives_every_output_as_its_prefix():
    """throughputs: the decode median of output o is over the run's first o − 1 steps."""
    got = rt.throughputs("mha", 16, (2, 8, 32), repeats=2)
    assert [got[o].decode_steps for o in (2, 8, 32)] == [1, 7, 31]
    assert len({got[o].prefill_s for o in got}) == 1           # one prefill median
    assert all(t.decode_tokens_per_s == pytest.approx(1 / t.decode_s_median)
               for t in got.values())


# -- decode against the batch: every figure from its formula ----------------------------------

N7 = 6.738e9                                  # Llama 2 7B parameters
KV7 = 524_288                                 # its fp16 cache per token


def test_decode_at_batch_b_is_weights_once_plus_every_cache():
    """flops = B × 2N; bytes = weights + B × context × KV/token; time = max(F/peak, bytes/BW)."""
    g = GPUS["h100"]
    for b in (1, 8, 64, 256):
        r = roofline_of(4096, 1, "h100", batch=b)            # the decode point at P + 1
        ctx = 4097
        flops, moved = b * 2 * N7, 2 * N7 + b * ctx * KV7
        assert r.decode.flops == pytest.approx(flops)
        assert r.decode.bytes == pytest.approx(moved)
        assert r.decode.intensity == pytest.approx(flops / moved)
        assert r.decode.time_s == pytest.approx(max(flops / g.flops, moved / g.bandwidth))
        assert r.decode.tokens_per_s == pytest.approx(b / r.decode.time_s)
    # the review's figures: Llama 2 7B fp16 on an H100 at 4,096 tokens
    b = batching_of(4096, "h100")
    at = {c.batch: c for c in b.curve}
    assert round(at[1].intensity, 2) == 0.86 and round(at[64].intensity, 1) == 5.7
    assert round(at[256].intensity, 1) == 6.1


def test_the_ceiling_is_two_n_over_one_sequences_cache():
    b = batching_of(4096, "h100")
    assert b.cache_per_seq == 4096 * KV7 == costs.kv_cache_bytes("llama2-7b", 4096)
    assert b.ceiling == pytest.approx(2 * N7 / (4096 * KV7))
    assert round(b.ceiling, 1) == 6.3                          # far below the ridge of 295
    assert b.ceiling == costs.intensity_ceiling("llama2-7b", 4096)
    assert all(c.intensity < b.ceiling for c in b.curve)       # no batch passes it
    assert [c.intensity for c in b.curve] == sorted(c.intensity for c in b.curve)
    assert b.batches == CURVE_BATCHES and CURVE_BATCHES[0] == 1 and CURVE_BATCHES[-1] == 256


def test_where_a_larger_batch_stops_paying():
    """A dense model's intensity reaches f × ceiling at B = f/(1−f) × W/C: ceil(9 × 13.476e9
    / 2^31) = 57 at 4,096 tokens; the H100 holds 33 such sequences (80 GiB), not 30."""
    b = batching_of(4096, "h100")
    assert b.stop.batch == math.ceil(9 * 2 * N7 / (4096 * KV7)) == 57
    assert b.stop.reason == "ceiling" and b.stop.fraction == 0.9
    assert b.stop.max_tokens_per_s == pytest.approx(GPUS["h100"].bandwidth / (4096 * KV7))
    assert b.memory_limit == math.floor((80 * GiB - 2 * N7) / (4096 * KV7)) == 33
    assert b.stop == costs.batch_where_gains_stop("llama2-7b", "h100", 4096)
    assert batching_of(4096, "illustrative").memory_limit is None     # no memory size
    assert batching_of(767, "h100", "llama2-70b").memory_limit == 0   # weights alone too big


def test_a_small_cache_lets_decode_reach_the_ridge():
    b = batching_of(767, "h100", "falcon-7b")                 # MQA: one KV head
    assert b.ceiling > GPUS["h100"].ridge and b.stop.reason == "ridge"
    # a dense model at batch B does at most B FLOP per byte: 256 < the H100's ridge of 295,
    # but above the A100's 153
    assert roofline_of(512, 256, "h100", "falcon-7b", 256).decode.bound == "memory"
    r = roofline_of(512, 256, "a100-80", "falcon-7b", 256)
    assert r.decode.bound == "compute" and r.decode.intensity > GPUS["a100-80"].ridge


def test_smaller_caches_raise_the_ceiling_by_their_factor():
    b = batching_of(16383, "h100")                             # P + O − 1 = 16,383
    got = {(s.kind, s.value): s.factor for s in b.shrinks}
    assert got[("heads", 8)] == pytest.approx(4) and got[("heads", 1)] == pytest.approx(32)
    assert got[("precision", "fp8")] == pytest.approx(2)
    assert got[("precision", "int4")] == pytest.approx(128 / 33)        # 64 + 2 B per vector
    assert got[("window", 4096)] == pytest.approx(16383 / 4096)
    assert got[("window", 1024)] == pytest.approx(16383 / 1024)
    for s in b.shrinks:
        assert s.ceiling == pytest.approx(b.ceiling * s.factor)
    heads = next(s for s in b.shrinks if s.kind == "heads")
    assert heads.ceiling == costs.shrink_ceiling("llama2-7b", 16383, n_kv_heads=8).ceiling
    assert heads.query == {"heads": 8}
    # below the window's length a window changes nothing; GQA models have no 8-head step
    assert not any(s.kind == "window" for s in batching_of(767, "h100").shrinks)
    kinds = {(s.kind, s.value) for s in batching_of(767, "h100", "llama3.1-8b").shrinks}
    assert ("heads", 8) not in kinds and ("heads", 1) in kinds
    assert not any(s.kind == "heads" for s in batching_of(767, "h100", "deepseek-v3").shrinks)


@pytest.mark.parametrize("model", list(ALL_MODELS))
def test_every_model(model):
    m = ALL_MODELS[model]
    r = roofline_of(512, 256, "h100", model, 16)
    c = costs.decode_batch_cost(m, "h100", 767, 16, window=m.cache_window)
    assert (r.decode.flops, r.decode.bytes) == (c.flops, c.bytes)
    assert r.kv_per_token == costs.kv_bytes_per_token(m)
    assert cache_per_sequence(m, 767) == costs.kv_cache_bytes(m, 767, window=m.cache_window)
    assert cache_per_sequence(m, 20000) == costs.kv_cache_bytes(m, 20000,
                                                                window=m.cache_window)
    # the total over every decode step, summed per window, equals the engine's step by step
    assert decode_total_s(m, GPUS["h100"], 512, 40, 4) == pytest.approx(sum(
        costs.decode_batch_cost(m, "h100", ctx, 4, window=m.cache_window).time_s
        for ctx in range(513, 552)), rel=1e-12)
    b = batching_of(767, "h100", model)
    assert b.ceiling == costs.intensity_ceiling(m, 767, window=m.cache_window)
    assert r.beyond_max_context == (m.max_context is not None and 767 > m.max_context)


def test_mixture_of_experts_reads_only_the_routed_experts():
    r1 = roofline_of(512, 256, "h100", "mixtral-8x7b", 1)
    assert r1.decode.bytes == pytest.approx(costs.decode_weight_bytes("mixtral-8x7b", 1)
                                            + costs.kv_cache_bytes("mixtral-8x7b", 767))
    assert r1.decode.bytes < costs.weight_bytes("mixtral-8x7b") / 3     # 12.9 B of 46.7 B


def test_longer_than_the_model_can_process():
    assert roofline_of(4096, 2, "h100").beyond_max_context             # Llama 2: 4,096
    assert not roofline_of(4096, 1, "h100").beyond_max_context
    assert not roofline_of(8192, 2048, "h100", "llama3.1-8b").beyond_max_context


def test_shared_and_state_layers_are_not_counted_as_full_ones():
    """A Gemma-3n-like layout (truth3 N2, for step 4): 4 full layers, 16 sliding (512), 12
    reading an earlier layer's K/V (shared) and 3 state layers of 1,000,000 values. Only the
    full and sliding layers grow per token; the state layers add their fixed state; the
    shared ones nothing. Counting every layer by its window would bill 19 full layers."""
    from explainer import presets
    kv = 2 * 2 * 256                                   # 2 KV heads of 256: 2,048 B at 16 bits
    first = tuple(presets.LayerSpec("full", values_per_token=kv) if i % 5 == 4
                  else presets.LayerSpec("sliding", span=512, values_per_token=kv)
                  for i in range(20))
    rest = ((presets.LayerSpec("shared"),) * 12
            + (presets.LayerSpec("state", fixed_values=1_000_000),) * 3)
    m = presets.ModelPreset(key="gemma3n-like-4", name="Gemma 3n-like", n_layers=35,
                            n_heads=8, n_kv_heads=2, head_dim=256, n_params=7.85e9,
                            layers=first + rest)
    states = 3 * 1_000_000 * 2
    for ctx in (100, 767, 32768):
        expect = (4 * ctx + 16 * min(ctx, 512)) * 2 * kv + states
        assert cache_per_sequence(m, ctx) == expect
        assert expect == costs.kv_cache_bytes(m, ctx, window=m.cache_window)
    assert decode_total_s(m, GPUS["h100"], 512, 40, 4) == pytest.approx(sum(
        costs.decode_batch_cost(m, "h100", ctx, 4, window=m.cache_window).time_s
        for ctx in range(513, 552)), rel=1e-12)
