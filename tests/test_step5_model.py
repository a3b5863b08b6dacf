"""Step 5's view-model without Panel: the memory bill's numbers from the controls, the
extremes of every control, GPU memory in the vendors' binary units, every model preset, “your
model” from a pasted config.json and from the link (and every way they can be wrong), what
each output depends on, and the live model's measured cache."""
import math
import subprocess
import sys

import pytest

from explainer import costs, presets
from explainer import runtime as rt
from explainer.prompts import DEFAULT_PROMPTS
from steps.step5.model import (CACHE_PRECISIONS, CUSTOM, GPU_KEYS, LIVE_NEW_TOKENS, MAX_LAYERS,
                               WEIGHT_CHOICES, Step5Model, bill_of, cache_bytes, curve_of,
                               decode, encode, layers_of, live_of, parse, plan_of, spec_of)

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
    assert m.param.model.objects == list(presets.ALL_MODELS) + [CUSTOM]
    assert set(presets.MODELS) <= set(m.param.model.objects)    # every old link still works
    assert m.custom == "" and m.config == ""
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
    # the A100's “80 GB” is 80 GiB = 85.9 GB (truth review #6): 33 sequences, not the 30
    # that 80 × 10⁹ bytes would give
    assert b.max_sequences == costs.max_sequences("llama2-7b", "a100-80", 4096,
                                                  binary_capacity=True) == 33
    assert costs.max_sequences("llama2-7b", "a100-80", 4096) == 30
    assert b.max_sequences == math.floor((80 * GiB - 13.476e9) / (4096 * 524_288))
    assert b.gpu_mem == 80 * GiB and b.gpu_gib == 80
    assert b.free == pytest.approx(80 * GiB - 13.476e9)
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
    assert big.kv == 2**40 and big.fits_gpu is None
    assert big.max_sequences == math.floor((80 * GiB - 13.476e9) / (32768 * 524_288)) == 4
    small = Step5Model(context=512, batch=1).bill
    assert small.kv == 256 * 2**20


@pytest.mark.parametrize("model", list(presets.ALL_MODELS))
def test_every_model(model):
    p = presets.ALL_MODELS[model]
    for ctx, batch in ((512, 1), (32768, 64)):
        m = Step5Model(model=model, context=ctx, batch=batch)
        assert m.spec.kind == p.attention_kind
        assert m.spec.per_token == costs.kv_bytes_per_token(p)
        assert m.bill.kv == costs.kv_cache_bytes(p, ctx, batch, window=p.cache_window)
        assert m.bill.kv == cache_bytes(p, ctx, batch)               # summed per window
        assert m.curve.kv == tuple(costs.kv_cache_bytes(p, t, batch, window=p.cache_window)
                                   for t in m.curve.ctx)
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
    g = presets.GPUS[gpu]
    assert b.max_sequences == costs.max_sequences("llama2-7b", gpu, 4096, binary_capacity=True)
    assert b.gpu_name == g.name and b.gpu_mem == g.mem_gib * GiB == g.mem_bytes_binary
    assert b.gpu_gib == g.mem_bytes / 1e9                        # the vendor's number
    # every capacity line is drawn at its binary size
    assert all(cap == gib * GiB for cap, gib, _ in b.capacities)


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


# -- the new presets: per-layer windows, MLA ---------------------------------------------------

def test_gemma_sums_its_layers():
    """Gemma 3 27B: 10 global layers keep every token, 52 local ones at most 1,024."""
    m = Step5Model(model="gemma3-27b", context=32768)
    s, b = m.spec, m.bill
    per_layer = 2 * 16 * 128 * 2
    assert s.per_layer == per_layer and s.per_token == 62 * per_layer
    assert (s.n_window_layers, s.n_full_layers, s.window) == (52, 10, 1024) and s.layered
    assert b.kv == (10 * 32768 + 52 * 1024) * per_layer
    assert (b.kept, b.kept_local) == (32768, 1024)
    assert s.cap is None and s.crossover is not None        # the global layers keep growing
    # the crossing, from the formula: 62 layers until 1,024 tokens, then 10
    w = costs.weight_bytes("gemma3-27b")
    expect = 1024 + math.ceil((w - 1024 * 62 * per_layer) / (10 * per_layer))
    assert s.crossover == pytest.approx(expect, abs=1)
    assert costs.exceeds_max_context("gemma3-27b", 32768) is False


def test_deepseek_caches_a_latent_and_a_rotary_key():
    s = spec_of("deepseek-v3")
    assert s.kind == "MLA" and s.mla_split == (512, 64) and s.mla_dims == 576
    assert s.per_token == 61 * (512 + 64) * 2 == 70_272            # no factor 2 for K and V
    # fp8 as released (truth2 item 7): 1 byte per linear weight, embeddings and norms 2
    assert s.dtype == "fp8" and s.weight_format == "fp8"
    assert s.weights == 671e9 + 1_854_239_744


# -- your model: a pasted config.json ------------------------------------------------------------

LLAMA31 = ('{"architectures": ["LlamaForCausalLM"], "model_type": "llama", '
           '"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, '
           '"hidden_size": 4096, "intermediate_size": 14336, "vocab_size": 128256, '
           '"max_position_embeddings": 131072, "torch_dtype": "bfloat16", '
           '"tie_word_embeddings": false}')
DEEPSEEK = ('{"model_type": "deepseek_v3", "num_hidden_layers": 61, "num_attention_heads": 128,'
            ' "num_key_value_heads": 128, "hidden_size": 7168, "kv_lora_rank": 512, '
            '"qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, '
            '"q_lora_rank": 1536, "vocab_size": 129280, "intermediate_size": 18432, '
            '"moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1, '
            '"num_experts_per_tok": 8, "first_k_dense_replace": 3, '
            '"max_position_embeddings": 163840, "torch_dtype": "bfloat16"}')
GEMMA2 = ('{"model_type": "gemma2", "num_hidden_layers": 42, "num_attention_heads": 16, '
          '"num_key_value_heads": 8, "head_dim": 256, "hidden_size": 3584, '
          '"intermediate_size": 14336, "vocab_size": 256000, "sliding_window": 4096, '
          '"max_position_embeddings": 8192}')


def test_a_pasted_config_becomes_your_model_and_its_link():
    m = Step5Model()
    m.config = LLAMA31
    assert m.parsed.ok and m.model == CUSTOM
    assert m.custom == ("layers-32_heads-32_kv-8_hd-128_dtype-bf16_ctx-131072_"
                        "params-8030261248_emb-1050673152")   # 128,256 x 4,096 x 2
    s = m.spec
    assert s.custom and s.name == "" and s.per_token == 2 * 32 * 8 * 128 * 2 == 131_072
    assert s.n_params == 8_030_261_248 and s.max_context == 131072
    assert m.bill.kv == 4096 * 131_072
    fields = dict(m.parsed.fields)
    assert fields["num_key_value_heads"] == 8 and fields["hidden_size"] == 4096
    # the link alone gives the same model
    again = Step5Model(model=CUSTOM, custom=m.custom)
    assert again.spec == s and again.bill == m.bill and again.parsed is None


def test_mla_and_interleaved_windows_from_a_config():
    m = Step5Model()
    m.config = DEEPSEEK
    assert m.spec.mla_split == (512, 64) and m.spec.per_token == 70_272
    assert "mla-576" in m.custom and m.custom.endswith("rope-64")
    assert Step5Model(model=CUSTOM, custom=m.custom).spec.mla_split == (512, 64)
    m.config = GEMMA2
    s = m.spec
    assert (s.n_window_layers, s.n_full_layers, s.window) == (21, 21, 4096)
    assert "win-4096_pat-LG" in m.custom
    m.context = 8192
    assert m.bill.kv == (21 * 8192 + 21 * 4096) * 2 * 8 * 256 * 2


def test_a_parameter_count_typed_in():
    # GPT-BigCode (StarCoder): multi-query, a non-gated MLP the reader does not count
    bigcode = ('{"model_type": "gpt_bigcode", "num_hidden_layers": 32, "num_attention_heads": 71, '
               '"multi_query": true, "hidden_size": 4544, "vocab_size": 65024}')
    m = Step5Model()
    m.config = bigcode
    assert m.parsed.problem.code == "params_needed" and m.model == "llama2-7b"
    m.params_b = 6.922
    assert m.parsed.ok and m.spec.weights == pytest.approx(6.922e9 * 2)
    assert m.spec.n_kv_heads == 1 and m.spec.kind == "MQA"
    m.params_b = -1
    assert m.parsed.problem.code == "not_positive_number"
    assert m.parsed.problem.field == "n_params"


@pytest.mark.parametrize("text,field,code", [
    ("not json at all", "config", "not_json"),
    ('{"num_hidden_layers": 32,}', "config", "not_json"),
    ("  \n", "config", "missing"),
    ("[1, 2]", "config", "not_object"),
    ('<img src=x onerror=alert(1)>', "config", "markup"),
    ("<html><body>config</body></html>", "config", "markup"),
    ('{"num_attention_heads": 32, "hidden_size": 4096}', "num_hidden_layers", "missing"),
    ('{"num_hidden_layers": 0, "num_attention_heads": 32}', "num_hidden_layers",
     "not_positive_int"),
    ('{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 5, '
     '"head_dim": 128, "vocab_size": 10, "intermediate_size": 10, "hidden_size": 4096}',
     "num_key_value_heads", "kv_heads_divide"),
    ('{"num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4001}',
     "hidden_size", "hidden_divide"),
    ('{"num_hidden_layers": 32, "num_hidden_layers": 33}', "num_hidden_layers",
     "duplicate_key"),
    ('{"num_hidden_layers": 1e400}', "num_hidden_layers", "not_positive_int"),
    ('{"model_type": "mamba", "num_hidden_layers": 64, "hidden_size": 2560, '
     '"state_size": 16}', "model_type", "no_kv_cache"),
    ('{"num_hidden_layers": 5000, "num_attention_heads": 32, "head_dim": 128, '
     '"hidden_size": 4096, "vocab_size": 10, "intermediate_size": 10}',
     "num_hidden_layers", "too_large"),
    ('{"num_hidden_layers": 32, "num_attention_heads": 32, "head_dim": 99999999}',
     "head_dim", "too_large"),
    ('{"model_type": "<img src=x onerror=alert(1)>"}', "model_type", "bad_value"),
    ("x" * 1_000_000, "config", "too_large"),
    # every size within its limit, the count beyond any model's: the config's fault, not
    # “the model in the link” (truth2 C-12)
    ('{"num_hidden_layers": 1024, "num_attention_heads": 32, "num_key_value_heads": 1, '
     '"head_dim": 65536, "hidden_size": 999999, "vocab_size": 32000, '
     '"intermediate_size": 14336, "num_local_experts": 8, "num_experts_per_tok": 2}',
     "n_params", "params_too_large"),
])
def test_bad_configs_say_which_field(text, field, code):
    m = Step5Model()
    m.config = text
    p = m.parsed
    assert not p.ok and (p.problem.field, p.problem.code) == (field, code)
    assert p.problem.source == "config" and p.encoded == ""
    assert m.model == "llama2-7b" and m.custom == ""            # nothing else changed


def test_a_bad_config_keeps_the_last_good_one():
    m = Step5Model()
    m.config = LLAMA31
    good = m.custom
    m.config = "{oops"
    assert m.parsed.problem.code == "not_json" and m.custom == good and m.model == CUSTOM
    assert m.spec.per_token == 131_072


def test_layers_past_the_limit_are_refused():
    assert MAX_LAYERS == 1024
    link = decode("layers-1025_heads-8_kv-8_hd-128_params-1000")
    assert link.preset is None and (link.problem.field, link.problem.code) == ("layers",
                                                                                "too_large")
    assert dict(link.problem.values) == {"value": 1025, "limit": 1024}


# -- your model in the link ------------------------------------------------------------------

@pytest.mark.parametrize("model", list(presets.ALL_MODELS))
def test_every_preset_round_trips_through_the_link(model):
    p = presets.ALL_MODELS[model]
    link = decode(encode(p))
    assert link.problem is None
    q = link.preset
    assert (q.n_layers, q.n_heads, q.n_kv_heads, q.head_dim, q.mla_dims, q.windows,
            q.max_context, q.n_params) == (p.n_layers, p.n_heads, p.n_kv_heads, p.head_dim,
                                           p.mla_dims, p.windows, p.max_context, p.n_params)
    assert costs.kv_cache_bytes(q, 20000, window=q.cache_window) == \
        costs.kv_cache_bytes(p, 20000, window=p.cache_window)


@pytest.mark.parametrize("value,field,code", [
    ("layers-0_heads-32_hd-128_params-1", "layers", "not_positive_int"),
    ("heads-32_hd-128_params-1", "layers", "missing"),
    ("layers-32_heads-32_kv-5_hd-128_params-1", "kv", "kv_heads_divide"),
    ("layers-32_heads-32_hd-128", "params", "missing"),
    ("layers-32_heads-32_hd-128_params-x", "params", "not_positive_number"),
    ("layers-32_layers-33", "layers", "duplicate_key"),
    ("nonsense", "custom", "bad_value"),
    ("layers-4_heads-4_hd-8_win-16_pat-LQ_params-9", "pat", "bad_value"),
    ("layers-61_heads-128_hd-128_mla-576_rope-576_params-9", "rope", "bad_value"),
])
def test_bad_links_say_which_key(value, field, code):
    m = Step5Model(model=CUSTOM, custom=value)
    link = m.custom_model
    assert link.preset is None and (link.problem.field, link.problem.code) == (field, code)
    assert link.problem.source == "link"
    assert m.spec.key == "llama2-7b"                    # shown meanwhile: the default preset


def test_the_link_value_is_checked_by_its_param():
    with pytest.raises(ValueError):
        Step5Model(custom="<script>")
    with pytest.raises(ValueError):
        Step5Model(custom="x" * 401)


def test_your_model_recomputes_only_what_depends_on_it():
    m = Step5Model()
    spec, live = m.spec, m.live
    m.config = "{"                                   # a failed read changes nothing shown
    assert m.spec is spec
    m.config = LLAMA31
    assert m.spec is not spec and m.live is live
    spec, bill = m.spec, m.bill
    m.gpu = "h100"
    assert m.spec is spec and m.bill is not bill
    assert parse(LLAMA31, None) is m.parsed          # shared by every session


# -- the precisions ---------------------------------------------------------------------------

def test_the_precisions_default_to_fp16_cache_and_weights_as_released():
    m = Step5Model()
    assert (m.precision, m.weights) == ("fp16", "released")
    assert m.param.precision.objects == list(CACHE_PRECISIONS) == ["fp16", "fp8"]
    assert m.param.weights.objects == list(WEIGHT_CHOICES) == ["released", "fp16", "fp8",
                                                               "int4"]
    assert spec_of("llama2-7b") == spec_of("llama2-7b", None, "fp16", "released")


@pytest.mark.parametrize("weights, bytes_per_param, fmt", [
    ("released", None, "fp8"), ("fp16", 2, "16-bit"), ("fp8", 1, "8-bit"),
    ("int4", 0.5, "4-bit")])
@pytest.mark.parametrize("precision, value_bytes", [("fp16", 2), ("fp8", 1)])
def test_every_output_counts_with_both_precisions(weights, bytes_per_param, fmt, precision,
                                                  value_bytes):
    m = Step5Model(model="deepseek-v3", gpu="h200", gpus=8, context=8192, batch=4,
                   precision=precision, weights=weights)
    # as released: fp8 as DeepSeek ships it; 16-bit: 2 B each; 8 and 4 bits: the embedding
    # and the output head (2 x 129,280 x 7,168 = 1,853,358,080) at 2 B, the rest at 1 B
    # or at 0.5 + 2.5 / 128 = 0.51953125 B (an fp16 scale and a 4-bit zero per 128 weights)
    emb = 2 * 129_280 * 7_168
    w = {"released": 672_854_239_744, "fp16": 671e9 * 2,
         "fp8": (671e9 - emb) * 1 + emb * 2,
         "int4": (671e9 - emb) * 0.51953125 + emb * 2}[weights]
    per_token = 61 * 576 * value_bytes                  # MLA: 512 latent + 64 rotary key
    s, b, c, lm, p = m.spec, m.bill, m.curve, m.layers, m.plan
    assert (s.weight_format, s.precision, s.weight_choice) == (fmt, precision, weights)
    assert s.weights == b.weights == c.weights == p.weights == pytest.approx(w)
    assert s.per_token == b.per_token == per_token and s.bytes_per_value == value_bytes
    assert b.kv == 4 * 8192 * per_token and c.kv[8192 // 256] == b.kv
    assert lm.nbytes == p.per_sequence == 8192 * per_token
    assert s.crossover == pytest.approx(w / per_token)
    mem = 141 * GiB
    assert b.max_sequences == max(0, math.floor((mem - w) / (8192 * per_token)))
    assert p.max_batch == max(0, math.floor((8 * mem - w) / (8192 * per_token)))


def test_an_fp8_cache_halves_a_window_capped_cache_and_its_layer_map():
    full, half = spec_of("mistral-7b"), spec_of("mistral-7b", None, "fp8")
    assert half.cap * 2 == full.cap and half.per_layer * 2 == full.per_layer
    g = layers_of("gemma3-27b", 32768, "fp8").groups
    assert [x.per_token * 2 for x in g] == [x.per_token for x in layers_of("gemma3-27b",
                                                                          32768).groups]


def test_the_precisions_recompute_only_what_they_change():
    m = Step5Model()
    spec, live, bill, plan = m.spec, m.live, m.bill, m.plan
    m.precision = "fp8"
    assert m.spec is not spec and m.bill is not bill and m.plan is not plan
    assert m.live is live
    assert m.plan is plan_of(m.spec.key, m.context, m.gpu, m.gpus, m.share, "fp8", "released")
    spec = m.spec
    m.weights = "int4"
    # 32,000 x 4,096 x 2 = 262,144,000 embedding and head at 2 B; the rest at 0.51953125 B
    assert m.spec is not spec and m.spec.weights == m.bill.weights == pytest.approx(
        (6.738e9 - 262_144_000) * 0.51953125 + 262_144_000 * 2)


def test_what_a_config_reads_the_link_accepts():
    """A paste either fails as the config's own problem or gives a link that reads back:
    never “the model in the link is not valid” after a paste (truth2 C-12). Sizes from
    ordinary to each field's limit, mixed by a fixed seed."""
    import json
    import random
    rng = random.Random(28)
    sizes = dict(num_hidden_layers=[1, 32, 1024], hidden_size=[64, 4096, 999_999],
                 num_attention_heads=[1, 32, 100_000], num_key_value_heads=[1, 8, 100_000],
                 vocab_size=[10, 32000, 10_000_000], intermediate_size=[1, 14336, 10_000_000],
                 head_dim=[None, 1, 65_536], max_position_embeddings=[1, 4096, 10**9],
                 sliding_window=[None, 1, 10**9])
    read = 0
    for _ in range(300):
        cfg = {"model_type": "llama"}
        for k, v in sizes.items():
            x = rng.choice(v)
            if x is not None:
                cfg[k] = x
        if rng.random() < 0.3:
            cfg.update(num_local_experts=rng.choice([8, 100_000]), num_experts_per_tok=2)
        p = parse(json.dumps(cfg))
        assert p.problem is None or p.problem.source == "config"
        if p.ok:
            read += 1
            back = decode(p.encoded)
            assert back.problem is None and back.preset.n_params == p.preset.n_params
    assert read > 30                                   # the property was tested, not skipped


# -- one truth: the curve, the crossing and the counts sum the layer map (truth3 N2) ----------

def _gemma3n_like() -> presets.ModelPreset:
    """A Gemma-3n-E4B-shaped model (truth3 N2): 35 layers, the first 20 in blocks of 4
    sliding (512) + 1 full, the last 15 reading an earlier layer's K/V (shared: no cache);
    2 KV heads of 256, 16-bit: 2,048 B per layer and token."""
    kv = 2 * 2 * 256
    first = tuple(presets.LayerSpec("full", values_per_token=kv) if i % 5 == 4
                  else presets.LayerSpec("sliding", span=512, values_per_token=kv)
                  for i in range(20))
    return presets.ModelPreset(key="gemma3n-like", name="Gemma 3n-like", n_layers=35,
                               n_heads=8, n_kv_heads=2, head_dim=256, n_params=7.85e9,
                               layers=first + (presets.LayerSpec("shared"),) * 15)


def test_shared_layers_are_not_counted_as_full_ones():
    m = _gemma3n_like()
    s = spec_of(m)
    assert (s.n_full_layers, s.n_window_layers, s.n_attention_layers) == (4, 16, 20)
    assert s.layered and not s.chunked
    bill = bill_of(m, 32768, 1, "h100")
    by_map = costs.kv_cache_bytes(m, 32768, window=m.cache_window)
    assert by_map == (4 * 32768 + 16 * 512) * 2048 == 285_212_672   # 285.2 MB, the bill's
    assert bill.per_sequence == bill.kv == by_map
    assert cache_bytes(m, 32768) == by_map
    # the curve is the bill at every point, and the crossing is where 4 full layers
    # (8,192 B per token) reach the weights: about 1.9 M tokens, not 403,000
    c = curve_of(m, 1)
    assert all(kv == costs.kv_cache_bytes(m, t, window=m.cache_window)
               for t, kv in zip(c.ctx, c.kv))
    w = costs.weight_bytes(m)
    expect = 512 + math.ceil((w - 512 * 20 * 2048) / (4 * 2048))
    assert s.crossover == pytest.approx(expect, abs=1) and 1.8e6 < s.crossover < 2.0e6
    # sequences next to the weights: the bill's count, from the same per-sequence bytes
    assert bill.max_sequences == int((bill.gpu_mem - w) // by_map)


def test_fixed_states_count_in_the_curve_and_the_crossing():
    """A hybrid with 4 full layers and 28 state layers (each a fixed 1,000,000 values): the
    curve starts at the states, and the crossing is where states + growth reach the weights."""
    kv = 2 * 8 * 128
    layers = tuple(presets.LayerSpec("full", values_per_token=kv) if i % 8 == 7
                   else presets.LayerSpec("state", fixed_values=1_000_000) for i in range(32))
    m = presets.ModelPreset(key="hybrid-like", name="Hybrid-like", n_layers=32, n_heads=32,
                            n_kv_heads=8, head_dim=128, n_params=7e9, layers=layers)
    s = spec_of(m)
    states = 28 * 1_000_000 * 2
    assert (s.n_full_layers, s.n_window_layers) == (4, 0) and not s.layered
    assert curve_of(m, 1).kv[0] == states
    assert cache_bytes(m, 4096) == costs.kv_cache_bytes(m, 4096) == states + 4096 * 4 * 2 * kv
    assert s.crossover == pytest.approx((14e9 - states) / (4 * 2 * kv))
