"""Step 5's view-model without Panel: the memory bill's numbers from the controls, the
extremes of every control, what each output depends on, and the live model's measured cache."""
import subprocess
import sys

import pytest

from explainer import costs, presets
from explainer import runtime as rt
from explainer.prompts import DEFAULT_PROMPTS
from steps.step5.model import (GPU_KEYS, LIVE_NEW_TOKENS, Step5Model, bill_of, curve_of,
                               live_of, spec_of)

GiB = 2**30


def test_the_model_needs_no_panel():
    code = ("import sys; from steps.step5.model import Step5Model; Step5Model(); "
            "print('panel' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_controls_match_the_old_step():
    m = Step5Model()
    d = presets.STEP5
    assert (m.context, m.batch, m.model, m.gpu) == (d["context"], d["batch"], d["model"],
                                                    d["gpu"])
    assert m.param.context.bounds == (512, 32768)
    assert m.param.batch.bounds == (1, 64)
    assert m.param.model.objects == list(presets.MODELS)
    assert "illustrative" not in m.param.gpu.objects
    assert list(GPU_KEYS) == m.param.gpu.objects
    mems = [presets.GPUS[k].mem_bytes for k in GPU_KEYS]
    assert mems == sorted(mems)                      # smallest first


def test_reference_figures_at_defaults():
    m = Step5Model()
    s, b = m.spec, m.bill
    assert s.per_token == b.per_token == 524_288
    assert b.kv == 2 * GiB and b.kept == 4096
    assert b.weights == s.weights == pytest.approx(13.476e9)
    assert b.total == pytest.approx(13.476e9 + 2 * GiB)
    assert b.fits_gpu == "l4" and b.fits_names == ("L4", "RTX 4090")
    assert b.max_sequences == costs.max_sequences("llama2-7b", "a100-80", 4096) == 30
    assert b.free == pytest.approx(66.524e9)
    assert b.fits_selected and not b.beyond_max_context
    assert s.kind == "MHA" and (s.n_layers, s.n_kv_heads, s.head_dim) == (32, 32, 128)
    # where one sequence's cache outgrows the weights: 13,476,000,000 / 524,288 ≈ 25,700
    assert s.crossover == pytest.approx(13.476e9 / 524_288)
    assert 25_000 < s.crossover < 26_000
    assert m.curve.crossover == pytest.approx(s.crossover)


def test_batch_8_is_16_gib():
    m = Step5Model(batch=8)
    assert m.bill.kv == 16 * GiB
    assert m.curve.crossover == pytest.approx(13.476e9 / (8 * 524_288))


def test_llama3_gqa_counts_kv_heads():
    s = Step5Model(model="llama3.1-8b").spec
    assert s.per_token == 128 * 1024 and s.kind == "GQA" and s.n_kv_heads == 8


def test_opt13b():
    m = Step5Model(model="opt-13b", context=2048)
    assert m.spec.per_token == 819_200
    assert m.bill.kv == 2048 * 819_200


@pytest.mark.parametrize("name,lo,hi", [("context", 512, 32768), ("batch", 1, 64)])
def test_slider_extremes(name, lo, hi):
    low, high = Step5Model(**{name: lo}).bill, Step5Model(**{name: hi}).bill
    assert high.kv == low.kv * (hi // lo)
    assert high.per_token == low.per_token and high.weights == low.weights


def test_extremes_together():
    big = Step5Model(context=32768, batch=64).bill
    assert big.kv == 2**40 and big.fits_gpu is None and big.max_sequences == 3
    small = Step5Model(context=512, batch=1).bill
    assert small.kv == 256 * 2**20


@pytest.mark.parametrize("model", list(presets.MODELS))
def test_every_model(model):
    p = presets.MODELS[model]
    for ctx, batch in ((512, 1), (32768, 64)):
        m = Step5Model(model=model, context=ctx, batch=batch)
        assert m.spec.kind == p.attention_kind
        assert m.spec.per_token == costs.kv_bytes_per_token(p)
        assert m.bill.kv == costs.kv_cache_bytes(p, ctx, batch, window=p.window)
        assert len(m.curve.kv) == len(m.curve.ctx) and m.curve.kv[0] == 0
        assert m.curve.kv == tuple(sorted(m.curve.kv))          # the cache never shrinks


def test_mistral_window_caps_the_cache():
    m = Step5Model(model="mistral-7b", context=32768)
    assert m.bill.kept == 4096
    assert m.bill.kv == 4096 * m.spec.per_token
    assert m.spec.window == 4096 and m.spec.cap == 4096 * m.spec.per_token
    assert m.spec.crossover is None                     # one sequence never outgrows them
    assert m.curve.crossover is None
    assert m.curve.kv[-1] == m.curve.kv[len(m.curve.kv) // 2]     # flat past the window
    m.batch = 64                                        # 64 windows do: 14.5 GB / 64 / 128 KiB
    assert m.curve.crossover == pytest.approx(1727, abs=1)


@pytest.mark.parametrize("gpu", GPU_KEYS)
def test_every_gpu(gpu):
    b = Step5Model(gpu=gpu).bill
    assert b.max_sequences == costs.max_sequences("llama2-7b", gpu, 4096)
    assert b.gpu_name == presets.GPUS[gpu].name and b.gpu_mem == presets.GPUS[gpu].mem_bytes


def test_weights_do_not_fit():
    b = Step5Model(model="llama3.1-70b", gpu="l4").bill
    assert b.max_sequences == 0 and b.free < 0 and not b.fits_selected


def test_longer_than_the_model_can_process():
    assert Step5Model(context=8192).bill.beyond_max_context          # Llama 2: 4,096
    assert not Step5Model(model="llama3.1-8b", context=32768).bill.beyond_max_context


def test_each_output_recomputes_only_on_its_inputs():
    m = Step5Model()
    spec, curve, bill, live = m.spec, m.curve, m.bill, m.live
    m.gpu = "h100"
    assert m.spec is spec and m.curve is curve and m.live is live and m.bill is not bill
    bill = m.bill
    m.context = 8192
    assert m.spec is spec and m.curve is curve and m.bill is not bill
    bill = m.bill
    m.batch = 2
    assert m.spec is spec and m.curve is not curve and m.bill is not bill
    curve, bill = m.curve, m.bill
    m.lang = "pl"
    assert (m.spec, m.curve, m.bill) == (spec, curve, bill) and m.live is not live
    m.model = "llama3.1-8b"
    assert m.spec is not spec and m.curve is not curve


def test_results_are_shared_between_sessions():
    assert spec_of("llama2-7b") is spec_of("llama2-7b")
    assert curve_of("llama2-7b", 3) is curve_of("llama2-7b", 3)
    assert bill_of("llama2-7b", 4096, 1, "l4") is bill_of("llama2-7b", 4096, 1, "l4")


def test_live_cache_is_measured_and_equals_formula():
    live = Step5Model().live
    ids = rt.encode(DEFAULT_PROMPTS["en"])
    trace = rt.generate("mha", ids, LIVE_NEW_TOKENS, "fp32")
    assert live.measured == trace.cache_nbytes[-1]
    tokens = trace.cache_shape[-1][2]
    assert live.tokens == tokens == len(ids) + LIVE_NEW_TOKENS - 1
    facts = rt.model_facts("mha")
    preset = presets.live_preset(rt.model("mha").cfg, facts["n_params"])
    assert live.formula == costs.kv_cache_bytes(preset, tokens, precision="fp32")
    assert live.formula == live.measured and live.every_step
    assert (live.n_layers, live.n_kv_heads, live.head_dim) == (
        facts["n_layers"], facts["n_kv_heads"], facts["head_dim"])
    assert live.weights == sum(p.numel() * p.element_size()
                               for p in rt.model("mha").parameters())
    assert live.per_token == costs.kv_bytes_per_token(preset, "fp32")


def test_live_cache_follows_the_language_prompt():
    for lang in ("en", "pl"):
        ids = rt.encode(DEFAULT_PROMPTS[lang])
        assert live_of(lang).prompt_tokens == len(ids)
