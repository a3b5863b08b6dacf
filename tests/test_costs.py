"""Pin every figure of SPEC.md that the cost model produces.

Tolerances match the rounding the app shows (e.g. "2.1 GB" is checked as
2.147e9 to 1e-3 relative, and as round(x / GB, 1) == 2.1).
"""

import dataclasses
import math

import pytest

from explainer import costs
from explainer.costs import (
    attention_flops_per_token,
    batch_where_gains_stop,
    decode_batch_cost,
    decode_read_bytes_max,
    decode_step_cost,
    decode_weight_bytes,
    intensity_ceiling,
    kv_cache_bytes_layered,
    shrink_ceiling,
    time_at_efficiency_s,
    decode_steps,
    kv_bytes_per_token,
    kv_cache_bytes,
    kv_projections_with_cache,
    kv_projections_without_cache,
    max_sequences,
    memory_bill,
    prefill_cost,
    projection_savings,
    qk_scores_so_far,
    scale_bytes_per_token,
    shrink,
    wasted_work_steps,
    weight_bytes,
)
from explainer.presets import (
    GB,
    GPUS,
    ILLUSTRATIVE_GPU,
    KB,
    LLAMA2_70B_MHA,
    MODELS,
    PRECISIONS,
    REFERENCE_MODEL,
    SHRINK_KV_HEADS,
    SHRINK_PRECISIONS,
    STEP2,
    STEP4,
    STEP5,
    STEP6,
    GiB,
    KiB,
    MB,
    MiB,
    ModelPreset,
)

REF = MODELS[REFERENCE_MODEL]


# --------------------------------------------------------------------------
# Units and presets
# --------------------------------------------------------------------------


def test_units():
    assert (KB, MB, GB) == (10**3, 10**6, 10**9)
    assert (KiB, MiB, GiB) == (1024, 1024**2, 1024**3)


def test_reference_model_is_llama2_7b_mha():
    assert REF.name == "Llama 2 7B"
    assert (REF.n_layers, REF.n_heads, REF.n_kv_heads, REF.head_dim) == (32, 32, 32, 128)
    assert REF.hidden == 4096
    assert REF.attention_kind == "MHA"


@pytest.mark.parametrize(
    "key, layers, heads, kv_heads, head_dim, params",
    [
        ("llama2-7b", 32, 32, 32, 128, 6.738e9),
        ("llama2-13b", 40, 40, 40, 128, 13.016e9),
        ("llama2-70b", 80, 64, 8, 128, 68.977e9),
        ("llama3.1-8b", 32, 32, 8, 128, 8.030e9),
        ("llama3.1-70b", 80, 64, 8, 128, 70.554e9),
        ("mistral-7b", 32, 32, 8, 128, 7.242e9),
        ("opt-13b", 40, 40, 40, 128, 12.853e9),
        ("qwen2.5-7b", 28, 28, 4, 128, 7.616e9),
        ("falcon-7b", 32, 71, 1, 64, 6.922e9),
    ],
)
def test_model_table(key, layers, heads, kv_heads, head_dim, params):
    m = MODELS[key]
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim) == (
        layers, heads, kv_heads, head_dim,
    )
    assert m.n_params == params
    assert m.source


def test_model_table_extras():
    assert set(MODELS) == {
        "llama2-7b", "llama2-13b", "llama2-70b", "llama3.1-8b", "llama3.1-70b",
        "mistral-7b", "opt-13b", "qwen2.5-7b", "falcon-7b", "deepseek-v3",
    }
    assert MODELS["mistral-7b"].window == 4096
    assert all(m.window is None for k, m in MODELS.items() if k != "mistral-7b")
    ds = MODELS["deepseek-v3"]
    assert (ds.n_layers, ds.n_heads, ds.mla_dims, ds.n_params) == (61, 128, 576, 671e9)
    assert ds.attention_kind == "MLA"
    assert MODELS["falcon-7b"].attention_kind == "MQA"
    assert MODELS["llama2-70b"].attention_kind == "GQA"
    assert MODELS["falcon-7b"].hidden == 4544


def test_presets_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        REF.n_kv_heads = 8
    with pytest.raises(TypeError):
        MODELS["x"] = REF
    with pytest.raises(TypeError):
        STEP2["P"] = 3


@pytest.mark.parametrize(
    "key, mem, bandwidth, flops, ridge",
    [
        ("illustrative", None, 2e12, 300e12, 150),
        ("a100-40", 40e9, 1.555e12, 312e12, 201),
        ("a100-80", 80e9, 2.039e12, 312e12, 153),
        ("h100", 80e9, 3.35e12, 989e12, 295),
        ("h200", 141e9, 4.8e12, 989e12, 206),
        ("l4", 24e9, 0.30e12, 121e12, 403),
        ("rtx4090", 24e9, 1.008e12, 165e12, 164),
    ],
)
def test_gpu_table(key, mem, bandwidth, flops, ridge):
    g = GPUS[key]
    assert g.mem_bytes == mem
    assert g.bandwidth == pytest.approx(bandwidth)
    assert g.flops == pytest.approx(flops)
    assert round(g.ridge) == ridge


def test_gpu_keys():
    assert list(GPUS) == ["illustrative", "a100-40", "a100-80", "h100", "h200", "l4", "rtx4090"]
    assert GPUS[ILLUSTRATIVE_GPU].ridge == pytest.approx(150)


def test_precisions():
    assert set(PRECISIONS) == {"fp32", "fp16", "bf16", "fp8", "int8", "int4"}
    assert PRECISIONS["fp16"].bytes_per_value == 2
    assert PRECISIONS["int4"].bytes_per_value == 0.5
    assert not PRECISIONS["fp8"].quantized
    assert PRECISIONS["int8"].quantized and PRECISIONS["int8"].scale_bytes == 2


def test_step_defaults():
    assert (STEP2["P"], STEP2["T"]) == (5, 16)
    assert STEP2["P_range"] == (1, 16) and STEP2["T_range"] == (1, 64)
    assert (STEP4["prompt"], STEP4["output"]) == (512, 256)
    assert STEP4["gpu"] == ILLUSTRATIVE_GPU
    assert (STEP5["context"], STEP5["batch"]) == (4096, 1)
    assert STEP5["context_range"] == (512, 32768) and STEP5["batch_range"] == (1, 64)
    assert (STEP6["batch"], STEP6["context"], STEP6["kv_heads"]) == (8, 16384, 32)
    assert STEP6["precision"] == "fp16" and STEP6["window"] is None
    assert SHRINK_KV_HEADS == (32, 8, 1)
    assert SHRINK_PRECISIONS == ("fp16", "fp8", "int8", "int4")


# --------------------------------------------------------------------------
# Steps 1 and 2
# --------------------------------------------------------------------------


def test_step2_defaults():
    assert kv_projections_without_cache(5, 16) == 200
    assert kv_projections_with_cache(5, 16) == 20
    assert projection_savings(5, 16) == 10.0


def test_step2_long_generation():
    assert kv_projections_without_cache(5, 64) == 2336
    assert kv_projections_with_cache(5, 64) == 68
    assert projection_savings(5, 64) == pytest.approx(34.35, abs=0.005)
    assert round(projection_savings(5, 64)) == 34


def test_step2_single_step_no_waste():
    assert kv_projections_without_cache(7, 1) == kv_projections_with_cache(7, 1) == 7


@pytest.mark.parametrize("P, T", [(5, 16), (5, 64), (1, 1), (16, 64), (3, 2)])
def test_step2_rows_sum_to_totals(P, T):
    rows = wasted_work_steps(P, T)
    assert len(rows) == T
    assert sum(r.new + r.recomputed for r in rows) == kv_projections_without_cache(P, T)
    assert sum(r.new for r in rows) == kv_projections_with_cache(P, T)
    assert all(r.recomputed == r.cached for r in rows)
    assert rows[-1].context == P + T - 1


@pytest.mark.parametrize("bad", [0, -1, 2.5, "5", None, True])
def test_step2_validation(bad):
    for fn in (kv_projections_without_cache, kv_projections_with_cache):
        with pytest.raises(ValueError):
            fn(bad, 16)
        with pytest.raises(ValueError):
            fn(5, bad)


def test_step1_qk_scores_so_far():
    assert [qk_scores_so_far(5, n) for n in range(4)] == [5, 11, 18, 26]


# --------------------------------------------------------------------------
# Bytes per token and cache size (steps 3 and 5)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, per_token",
    [
        ("llama2-7b", 524_288),
        ("llama2-13b", 819_200),
        ("llama2-70b", 327_680),
        ("llama3.1-8b", 131_072),
        ("llama3.1-70b", 327_680),
        ("mistral-7b", 131_072),
        ("opt-13b", 819_200),
        ("qwen2.5-7b", 57_344),
        ("falcon-7b", 8_192),
        ("deepseek-v3", 70_272),
    ],
)
def test_kv_bytes_per_token_table(key, per_token):
    assert kv_bytes_per_token(key) == per_token
    assert kv_bytes_per_token(MODELS[key], "fp16") == per_token


def test_kv_bytes_per_token_binary_figures():
    assert kv_bytes_per_token(REF) == 512 * KiB
    assert kv_bytes_per_token("llama3.1-8b") == 128 * KiB  # Llama 3 8B: same config
    assert kv_bytes_per_token("opt-13b") == 800 * KiB


@pytest.mark.parametrize("key", [k for k, m in MODELS.items() if not m.is_mla])
@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16", "fp8"])
def test_per_token_formula_all_presets(key, precision):
    m = MODELS[key]
    p = PRECISIONS[precision]
    expected = 2 * m.n_layers * m.n_kv_heads * m.head_dim * p.bits // 8
    assert kv_bytes_per_token(m, precision) == expected


@pytest.mark.parametrize("key", list(MODELS))
def test_per_token_never_uses_hidden_or_query_heads(key):
    m = MODELS[key]
    fake = dataclasses.replace(m, n_heads=m.n_heads * 2, hidden=m.hidden * 3)
    assert kv_bytes_per_token(fake) == kv_bytes_per_token(m)


def test_gqa_override_and_hidden_trap():
    # Computing from hidden_size (4,096) would give the MHA figure for Llama 3.1 8B.
    m = MODELS["llama3.1-8b"]
    assert 2 * m.n_layers * m.hidden * 2 == 4 * kv_bytes_per_token(m)
    assert kv_bytes_per_token(m, n_kv_heads=32) == 512 * KiB
    assert kv_bytes_per_token(REF, n_kv_heads=8) == 128 * KiB
    assert kv_bytes_per_token(REF, n_kv_heads=1) == 16 * KiB


@pytest.mark.parametrize("heads", [0, 3, 64, 2.0])
def test_kv_heads_validation(heads):
    with pytest.raises(ValueError):
        kv_bytes_per_token(REF, n_kv_heads=heads)


def test_mla_rejects_kv_head_override():
    with pytest.raises(ValueError):
        kv_bytes_per_token("deepseek-v3", n_kv_heads=8)


def test_mla_no_factor_two():
    ds = MODELS["deepseek-v3"]
    assert kv_bytes_per_token(ds) == ds.n_layers * 576 * 2
    assert kv_bytes_per_token(ds, "fp8") == ds.n_layers * 576


def test_unknown_presets():
    with pytest.raises(ValueError):
        kv_bytes_per_token("gpt-5")
    with pytest.raises(ValueError):
        kv_bytes_per_token(REF, "int3")
    with pytest.raises(ValueError):
        prefill_cost(REF, 512, "tpu")


def test_quantized_scales_counted():
    # int8: 128 one-byte values + one 2-byte fp16 scale per head vector.
    assert kv_bytes_per_token(REF, "int8") == 2 * 32 * 32 * (128 + 2) == 266_240
    assert kv_bytes_per_token(REF, "int4") == 2 * 32 * 32 * (64 + 2) == 135_168
    assert scale_bytes_per_token(REF, "int8") == 2 * 32 * 32 * 2 == 4096
    assert scale_bytes_per_token(REF, "fp16") == 0
    # Smaller groups cost more scales.
    assert kv_bytes_per_token(REF, "int4", group=32) == 2 * 32 * 32 * (64 + 4 * 2)
    assert kv_bytes_per_token(REF, "fp8") == 256 * KiB


def test_step3_five_tokens_reference():
    assert kv_cache_bytes(REF, 5) == 2_621_440 == 2.5 * MiB


def test_cache_4096_tokens():
    one = kv_cache_bytes(REF, 4096)
    assert one == 2 * GiB
    assert one / GB == pytest.approx(2.147, abs=5e-4)
    assert round(one / GB, 1) == 2.1
    assert kv_cache_bytes(REF, 4096, batch=8) == 16 * GiB


def test_window_caps_tokens():
    assert kv_cache_bytes("mistral-7b", 32768, window=4096) == kv_cache_bytes("mistral-7b", 4096)
    assert kv_cache_bytes("mistral-7b", 1000, window=4096) == kv_cache_bytes("mistral-7b", 1000)
    assert kv_cache_bytes(REF, 0) == 0
    with pytest.raises(ValueError):
        kv_cache_bytes(REF, 10, window=0)
    with pytest.raises(ValueError):
        kv_cache_bytes(REF, 10, batch=0)


def test_weights_7b():
    assert weight_bytes(REF) == pytest.approx(13.476e9)
    assert round(weight_bytes(REF) / GB, 1) == 13.5
    assert weight_bytes(REF, 1) == pytest.approx(6.738e9)


def test_llama2_70b_assuming_mha():
    # 2 (K,V) x 80 layers x 8,192 wide x 2 bytes x 8,192 tokens x 32 sequences.
    # = 640 GiB exactly. The seed (001) prints "320.00 GB" for this very
    # formula, but its own arithmetic gives 640 GiB: 320 GiB is only the K
    # half (or batch 16). We pin the arithmetic, not the misprint.
    b = kv_cache_bytes(LLAMA2_70B_MHA, 8192, batch=32)
    assert b == 32 * 8192 * 80 * 8192 * 2 * 2
    assert b == 640 * GiB
    assert b / 2 == 320 * GiB
    # The real config (8 KV heads) needs 8x less.
    assert kv_cache_bytes("llama2-70b", 8192, batch=32) == 80 * GiB


# --------------------------------------------------------------------------
# Step 5: memory bill
# --------------------------------------------------------------------------


def test_memory_bill_defaults():
    bill = memory_bill(REF, 4096, 1)
    assert bill.kv_per_token == 512 * KiB
    assert bill.kv_bytes == 2 * GiB
    assert round(bill.weight_bytes / GB, 1) == 13.5
    assert bill.total == pytest.approx(15.623e9, rel=1e-4)
    assert round(bill.total / GB, 1) == 15.6
    assert GPUS[bill.fits_gpu].mem_bytes == 24 * GB
    assert bill.gpu is None and bill.max_sequences is None


def test_memory_bill_selected_gpu():
    bill = memory_bill(REF, 4096, 1, gpu="a100-80")
    assert bill.fits_selected is True
    assert bill.free_bytes == pytest.approx(80e9 - 13.476e9)
    assert bill.max_sequences == math.floor((80e9 - 13.476e9) / (2 * GiB)) == 30
    assert bill.weight_fraction == pytest.approx(13.476 / 80)
    assert not memory_bill(REF, 4096, 8, gpu="l4").fits_selected


def test_memory_bill_batch8_and_overflow():
    bill = memory_bill(REF, 4096, 8)
    assert bill.kv_bytes == 16 * GiB
    assert GPUS[bill.fits_gpu].mem_bytes == 40 * GB
    assert memory_bill(REF, 32768, 64).fits_gpu is None
    assert memory_bill("deepseek-v3", 4096, 1).fits_gpu is None


def test_opt13b_paged_attention_example():
    opt = MODELS["opt-13b"]
    assert kv_bytes_per_token(opt) == 819_200 == 800 * KiB
    per_2048 = kv_cache_bytes(opt, 2048)
    assert per_2048 == 1.5625 * GiB
    assert round(per_2048 / GiB, 1) == 1.6
    assert per_2048 / GB == pytest.approx(1.68, abs=0.005)
    a100 = GPUS["a100-40"]
    share = weight_bytes(opt) / a100.mem_bytes
    assert share == pytest.approx(0.643, abs=0.001)
    assert 0.6 < share < 0.66  # "about 65 %"
    assert max_sequences(opt, a100, 2000, cache_fraction=0.30) == 7
    assert max_sequences(opt, "a100-40", 2000, "int8", cache_fraction=0.30) == 14
    bill = memory_bill(opt, 2000, 1, gpu="a100-40")
    assert bill.weight_fraction == pytest.approx(share)


def test_max_sequences_edges():
    assert max_sequences("deepseek-v3", "h200", 4096) == 0  # weights do not fit
    with pytest.raises(ValueError):
        max_sequences(REF, ILLUSTRATIVE_GPU, 4096)
    with pytest.raises(ValueError):
        max_sequences(REF, "a100-40", 4096, cache_fraction=1.5)


# --------------------------------------------------------------------------
# Step 4: prefill vs decode
# --------------------------------------------------------------------------


def test_step4_counts():
    assert decode_steps(256) == 255
    assert decode_steps(1) == 0
    assert decode_read_bytes_max(REF, 512, 256) == pytest.approx(13.878e9, rel=1e-4)
    assert round(decode_read_bytes_max(REF, 512, 256) / GB, 1) == 13.9


def test_step4_prefill():
    p = prefill_cost(REF, 512, ILLUSTRATIVE_GPU)
    assert p.flops == pytest.approx(2 * 6.738e9 * 512)
    assert p.bytes == pytest.approx(13.476e9 + 512 * 512 * KiB)
    assert round(p.intensity) == 502
    assert p.time_s == pytest.approx(0.023, abs=5e-4)
    assert p.bound == "compute"
    assert p.attainable_flops == GPUS[ILLUSTRATIVE_GPU].flops
    assert p.tokens_per_s == pytest.approx(512 / p.time_s)


def test_step4_decode():
    d = decode_step_cost(REF, 512 + 256 - 1, ILLUSTRATIVE_GPU)
    assert d.bytes == pytest.approx(decode_read_bytes_max(REF, 512, 256))
    assert d.time_s == pytest.approx(6.9e-3, abs=5e-5)
    assert round(d.intensity) == 1
    assert d.bound == "memory"
    assert d.attainable_flops == pytest.approx(d.intensity * 2e12)
    first = decode_step_cost(REF, 513, ILLUSTRATIVE_GPU)
    assert round(first.time_s * 1e3, 1) == 6.9


def test_decode_batching_shares_weights():
    one = decode_step_cost(REF, 1024, ILLUSTRATIVE_GPU, batch=1)
    many = decode_step_cost(REF, 1024, ILLUSTRATIVE_GPU, batch=32)
    assert many.flops == 32 * one.flops
    assert many.bytes == pytest.approx(weight_bytes(REF) + 32 * kv_cache_bytes(REF, 1024))
    assert many.intensity > 10 * one.intensity
    assert many.tokens_per_s > 10 * one.tokens_per_s


def test_decode_total_time():
    total = costs.decode_total_time_s(REF, 512, 256, ILLUSTRATIVE_GPU)
    steps = [decode_step_cost(REF, c, ILLUSTRATIVE_GPU).time_s for c in range(513, 768)]
    assert len(steps) == 255
    assert total == pytest.approx(sum(steps))


# --------------------------------------------------------------------------
# Step 6: shrinking
# --------------------------------------------------------------------------


def test_step6_baseline():
    s = shrink(REF, 8, 16384, 32, "fp16", None)
    assert s.bytes == s.baseline_bytes == 64 * GiB
    assert round(s.bytes / GB, 1) == 68.7
    assert s.factor == 1.0


@pytest.mark.parametrize("heads, factor", [(32, 1.0), (8, 4.0), (1, 32.0)])
def test_step6_heads(heads, factor):
    assert shrink(REF, 8, 16384, heads, "fp16", None).factor == factor


def test_step6_precisions():
    assert shrink(REF, 8, 16384, 32, "fp8", None).factor == 2.0
    int8 = shrink(REF, 8, 16384, 32, "int8", None)
    assert int8.factor == pytest.approx(256 / 130)  # 1.969...
    assert int8.factor < 2
    int4 = shrink(REF, 8, 16384, 32, "int4", None)
    assert int4.factor == pytest.approx(256 / 66)  # 3.879...
    assert int4.factor < 4


def test_step6_window_and_combined():
    assert shrink(REF, 8, 16384, 32, "fp16", 4096).factor == 4.0
    assert shrink(REF, 8, 16384, 32, "fp16", 1024).factor == 16.0
    assert shrink(REF, 8, 16384, 8, "fp8", 4096).factor == 32.0
    assert shrink(REF, 8, 16384, 32, "fp16", 4096).tokens_kept == 4096


def test_shrink_baseline_is_mha_for_gqa_models():
    assert shrink("llama3.1-8b", 1, 4096).factor == 4.0
    assert shrink("deepseek-v3", 1, 4096).factor == 1.0


def test_live_model_config_like_preset():
    # The UI builds a preset from the live model's config; the formula must work
    # for any small config (checked against an explicit product).
    tiny = ModelPreset("tiny", "tiny", 4, 4, 2, 32, 3e6)
    assert kv_bytes_per_token(tiny, "fp32") == 2 * 4 * 2 * 32 * 4


# --------------------------------------------------------------------------
# Batch on the roofline (issue 10): Llama 2 7B, fp16, H100 SXM, 4,096 tokens
# --------------------------------------------------------------------------

N_7B = 6.738e9                           # parameters
W_7B = 2 * N_7B                          # fp16 weight bytes, read once per step
C_7B = 2 * 32 * 32 * 128 * 2 * 4096     # one sequence's cache: 2^31 B = 2 GiB
H100_PEAK, H100_BW = 989e12, 3.35e12


@pytest.mark.parametrize(
    "B, intensity, ms, tokens_per_s",
    [(1, 0.86, 4.66, 214), (8, 3.52, 9.15, 874), (64, 5.71, 45.05, 1421),
     (256, 6.13, 168.13, 1523)],
)
def test_decode_batch_by_hand(B, intensity, ms, tokens_per_s):
    assert C_7B == 2 * GiB
    flops = B * 2 * N_7B
    moved = W_7B + B * C_7B
    time = max(flops / H100_PEAK, moved / H100_BW)
    r = decode_batch_cost(REF, "h100", 4096, B)
    assert r.flops == pytest.approx(flops)
    assert r.weight_bytes == pytest.approx(W_7B)
    assert r.cache_bytes == B * C_7B
    assert r.bytes == pytest.approx(moved)
    assert r.intensity == pytest.approx(flops / moved)
    assert r.time_s == pytest.approx(time) == pytest.approx(moved / H100_BW)
    assert r.tokens_per_s == pytest.approx(B / time)
    assert r.bound == "memory"
    # The figures a screen would show.
    assert round(r.intensity, 2) == intensity
    assert round(r.time_s * 1e3, 2) == ms
    assert round(r.tokens_per_s) == tokens_per_s
    # Same flops and bytes as the existing decode step for a dense model.
    old = decode_step_cost(REF, 4096, "h100", batch=B)
    assert (old.flops, old.bytes) == pytest.approx((r.flops, r.bytes))


def test_intensity_ceiling_by_hand():
    # B x 2N / (W + B x C) -> 2N / C as B grows: 13.476e9 / 2^31 = 6.28.
    ceiling = intensity_ceiling(REF, 4096)
    assert ceiling == pytest.approx(2 * N_7B / C_7B)
    assert round(ceiling, 1) == 6.3
    assert ceiling < GPUS["h100"].ridge / 40
    assert decode_batch_cost(REF, "h100", 4096, 10**6).intensity == pytest.approx(ceiling, rel=1e-4)
    # GQA (Llama 3.1 8B, 8 KV heads) sits 4x higher, still far below the ridge.
    gqa = intensity_ceiling("llama3.1-8b", 4096)
    assert gqa == pytest.approx(2 * 8.030e9 / (4096 * 128 * KiB))
    assert gqa < 30


def test_attention_flops_by_hand():
    # 4 x heads x head_dim x context per layer: 4 x 32 x 128 x 4096 x 32 = 2^31.
    assert attention_flops_per_token(REF, 4096) == 4 * 32 * 128 * 4096 * 32 == 2**31
    # Against the fp16 cache read that part alone is heads / kv_heads FLOP/byte.
    with_attn = intensity_ceiling(REF, 4096, include_attention=True)
    assert with_attn == pytest.approx(2 * N_7B / C_7B + 32 / 32)
    assert intensity_ceiling("llama3.1-8b", 4096, include_attention=True) == pytest.approx(
        2 * 8.030e9 / (4096 * 128 * KiB) + 32 / 8)
    r = decode_batch_cost(REF, "h100", 4096, 8, include_attention=True)
    assert r.flops == pytest.approx(8 * (2 * N_7B + 2**31))
    # A window caps the attended tokens per layer too.
    assert attention_flops_per_token(REF, 16384, window=4096) == 4 * 32 * 128 * 4096 * 32


def test_batch_where_gains_stop_by_hand():
    # Memory-bound: I(B) >= 0.9 x ceiling  <=>  B >= 9 x W / C = 56.5 -> 57.
    g = batch_where_gains_stop(REF, "h100", 4096)
    assert 9 * W_7B / C_7B == pytest.approx(56.48, abs=0.01)
    assert g.batch == 57 and g.reason == "ceiling"
    assert decode_batch_cost(REF, "h100", 4096, 56).intensity < 0.9 * g.ceiling
    assert g.intensity >= 0.9 * g.ceiling
    assert g.ceiling == pytest.approx(intensity_ceiling(REF, 4096))
    assert g.ridge == pytest.approx(989 / 3.35)
    # Best memory-bound throughput: bandwidth / C.
    assert g.max_tokens_per_s == pytest.approx(H100_BW / C_7B)
    assert g.tokens_per_s / g.max_tokens_per_s == pytest.approx(g.intensity / g.ceiling)
    # But only 30 such sequences fit next to the weights in 80 GB.
    assert g.memory_limit == math.floor((80e9 - W_7B) / C_7B) == 30
    assert g.fits_memory is False
    assert batch_where_gains_stop(REF, "h100", 4096, fraction=0.5).batch == math.ceil(W_7B / C_7B)
    assert batch_where_gains_stop(REF, ILLUSTRATIVE_GPU, 4096).memory_limit is None
    with pytest.raises(ValueError):
        batch_where_gains_stop(REF, "h100", 4096, fraction=1.0)


def test_gains_stop_at_the_ridge_for_short_contexts():
    # At 16 tokens the cache is tiny: the ceiling is above the ridge, so the
    # step turns compute-bound first: B x 2N >= ridge x (W + B x C).
    g = batch_where_gains_stop("llama3.1-8b", "h100", 16)
    ridge = GPUS["h100"].ridge
    F, W, C = 2 * 8.030e9, 2 * 8.030e9, 16 * 128 * KiB
    assert g.reason == "ridge"
    assert g.batch == math.ceil(ridge * W / (F - ridge * C))
    assert g.max_tokens_per_s == pytest.approx(GPUS["h100"].flops / F)


def test_moe_reads_only_routed_experts():
    mix = costs.get_model("mixtral-8x7b")
    N, A, E, k = 46.703e9, 12.880e9, 8, 2
    e = (N - A) / (E - k)
    S = N - E * e
    assert decode_weight_bytes(mix, 1) == pytest.approx(2 * A)
    assert decode_weight_bytes(mix, 16) == pytest.approx(2 * (S + E * e * (1 - 0.75**16)))
    assert decode_weight_bytes(mix, 1000) == pytest.approx(2 * N)
    r = decode_batch_cost(mix, "h100", 4096, 1)
    assert r.weight_bytes == pytest.approx(2 * A)
    assert r.flops == pytest.approx(2 * A)
    # The existing decode step still counts every weight (upper bound).
    assert decode_step_cost(mix, 4096, "h100").bytes == pytest.approx(2 * N + 4096 * 128 * KiB)
    # Dense models and MoE presets without expert counts read all weights.
    assert decode_weight_bytes(REF, 64) == weight_bytes(REF)
    ds = MODELS["deepseek-v3"]
    # fp8 as released (truth2 item 7): 1 byte per linear weight, the embedding, lm_head
    # and norms 2 bytes: 671e9 + 1,854,239,744 bytes; at batch 1 it reads the 37 B
    # active parameters at that average, 1.0028 bytes each.
    assert weight_bytes(ds) == 671e9 + 1_854_239_744
    assert weight_bytes(ds, 2) == 2 * 671e9          # an explicit bytes per parameter wins
    assert decode_weight_bytes(ds, 1) == pytest.approx(37e9 * (671e9 + 1_854_239_744) / 671e9)


@pytest.mark.parametrize(
    "heads, precision, window, factor",
    [(32, "fp16", None, 1.0), (8, "fp16", None, 4.0), (1, "fp16", None, 32.0),
     (32, "fp8", None, 2.0), (32, "int8", None, 256 / 130), (32, "fp16", 4096, 4.0),
     (8, "fp8", 4096, 32.0)],
)
def test_shrink_raises_the_ceiling_like_the_cache_shrinks(heads, precision, window, factor):
    c = shrink_ceiling(REF, 16384, heads, precision, window)
    assert c.factor == pytest.approx(factor)
    assert c.factor == pytest.approx(shrink(REF, 8, 16384, heads, precision, window).factor)
    assert c.baseline_ceiling == pytest.approx(2 * N_7B / (16384 * 512 * KiB))


def test_shrink_ceiling_with_attention_flops():
    a = 2 * N_7B / (16384 * 512 * KiB)  # weights' part of the MHA ceiling
    gqa = shrink_ceiling(REF, 16384, 8, include_attention=True)
    assert gqa.baseline_ceiling == pytest.approx(a + 1)
    assert gqa.factor == pytest.approx(4.0)  # both parts divided by the same cache
    win = shrink_ceiling(REF, 16384, window=4096, include_attention=True)
    assert win.factor == pytest.approx((4 * a + 1) / (a + 1))  # the window cuts attention too
    assert win.factor < 4


def test_time_at_efficiency():
    d = decode_step_cost(REF, 4096, "h100")
    assert time_at_efficiency_s(d.flops, d.bytes, "h100") == pytest.approx(d.time_s)
    assert time_at_efficiency_s(d.flops, d.bytes, "h100", 0.7) == pytest.approx(d.time_s / 0.7)
    with pytest.raises(ValueError):
        time_at_efficiency_s(d.flops, d.bytes, "h100", 0)


# --------------------------------------------------------------------------
# Per-layer windows, binary capacities, new model keys
# --------------------------------------------------------------------------


def test_layered_cache_sums_layers():
    spans = (1024, None) * 16
    per_layer = 2 * 32 * 128 * 2
    assert kv_cache_bytes_layered(REF, 4096, windows=spans) == (16 * 1024 + 16 * 4096) * per_layer
    assert kv_cache_bytes(REF, 4096, 2, window=spans) == 2 * (16 * 1024 + 16 * 4096) * per_layer
    assert kv_cache_bytes(REF, 4096, window=[None] * 32) == kv_cache_bytes(REF, 4096)
    assert kv_cache_bytes_layered(REF, 4096, windows=1024) == kv_cache_bytes(REF, 4096, window=1024)
    assert costs.kv_bytes_per_token_per_layer(REF) == per_layer
    assert costs.cached_tokens(4096, spans) == 4096
    assert costs.cached_tokens(4096, (1024,) * 32) == 1024
    for bad in ((1024,) * 31, (0,) * 32, "1024", (1.5,) * 32):
        with pytest.raises(ValueError):
            kv_cache_bytes(REF, 4096, window=bad)
    s = shrink(REF, 8, 16384, window=spans)
    assert s.bytes == 8 * (16 * 1024 + 16 * 16384) * per_layer and s.tokens_kept == 16384


def test_memory_bill_per_layer_window():
    g3 = costs.get_model("gemma3-27b")
    bill = memory_bill(g3, 32768, 1, "h200", window=g3.cache_window)
    assert bill.kv_bytes == (10 * 32768 + 52 * 1024) * 16 * 128 * 2 * 2
    assert bill.max_sequences == max_sequences(g3, "h200", 32768, window=g3.cache_window)


def test_binary_capacity_option():
    assert max_sequences(REF, "a100-80", 4096) == 30
    assert max_sequences(REF, "a100-80", 4096, binary_capacity=True) == math.floor(
        (80 * GiB - 13.476e9) / (2 * GiB)) == 33
    bill = memory_bill(REF, 4096, 1, gpu="a100-80", binary_capacity=True)
    assert bill.gpu_mem_bytes == 80 * GiB and bill.max_sequences == 33
    assert memory_bill(REF, 4096, 1, gpu="a100-80").gpu_mem_bytes == 80 * GB
    # 41e9 bytes fit a "40 GB" A100 (40 GiB = 42.9e9 B) only when read as binary.
    assert costs.smallest_fitting_gpu(41e9) == "a100-80"
    assert costs.smallest_fitting_gpu(41e9, binary_capacity=True) == "a100-40"


def test_new_model_keys_resolve():
    assert costs.get_model("qwen3-8b").name == "Qwen3 8B"
    assert kv_bytes_per_token("mistral-nemo-12b") == 160 * KiB
    with pytest.raises(ValueError):
        costs.get_model(["llama2-7b"])


# --------------------------------------------------------------------------
# Layer by layer (issue 28): the cache is the sum over costs.layer_map
# --------------------------------------------------------------------------

from explainer.presets import LayerSpec, ALL_MODELS  # noqa: E402


def _mixed(kinds):
    """A 2-KV-head, head_dim 8 preset (64 B per K/V layer and token in fp16)."""
    return ModelPreset("mix", "mix", len(kinds), 4, 2, 8, 1e6, layers=tuple(kinds))


def test_layer_map_sums_to_the_cache_for_every_preset():
    for m in ALL_MODELS.values():
        for ctx in (1, 1000, 4096, 32768):
            uses = costs.layer_map(m, ctx)
            assert len(uses) == m.n_layers
            assert sum(u.nbytes for u in uses) == kv_cache_bytes(m, ctx, window=m.cache_window)
            assert [u.index for u in uses] == list(range(m.n_layers))


def test_layer_map_gemma3_kinds_and_tokens():
    g3 = costs.get_model("gemma3-27b")
    uses = costs.layer_map(g3, 32768)
    assert [u.kind for u in uses[:6]] == ["sliding"] * 5 + ["full"]
    assert uses[0].span == 1024 and uses[0].tokens == 1024 and uses[0].nbytes == 1024 * 8192
    assert uses[5].span is None and uses[5].tokens == 32768
    assert costs.layer_map("deepseek-v3", 10)[0].kind == "mla"


def test_layer_kinds_chunked_cross_shared_state_none():
    kv = 2 * 2 * 8
    m = _mixed([LayerSpec("full", values_per_token=kv),
                LayerSpec("chunked", span=100, values_per_token=kv),
                LayerSpec("cross"), LayerSpec("shared"),
                LayerSpec("state", fixed_values=1000), LayerSpec("none")])
    uses = costs.layer_map(m, 250)
    assert [u.kind for u in uses] == ["full", "chunked", "cross", "shared", "state", "none"]
    assert [u.tokens for u in uses] == [250, 100, 0, 0, 0, 0]
    assert [u.nbytes for u in uses] == [250 * 64, 100 * 64, 0, 0, 2000, 0]
    assert kv_cache_bytes_layered(m, 250) == 250 * 64 + 100 * 64 + 2000
    assert kv_cache_bytes(m, 250, 3, window=m.cache_window) == 3 * (350 * 64 + 2000)
    # window=None: no window, every per-token layer keeps every token; the state stays.
    assert kv_cache_bytes(m, 250) == 500 * 64 + 2000
    assert kv_bytes_per_token(m) == 128 and costs.kv_bytes_per_token_per_layer(m) == 64
    # a state is 16-bit whatever the cache precision (fp32: 32-bit)
    assert costs.layer_map(m, 250, "int4")[4].nbytes == 2000
    assert costs.layer_map(m, 250, "fp32")[4].nbytes == 4000
    assert attention_flops_per_token(m, 250, m.cache_window) == 4 * 4 * 8 * 350
    assert m.layer_windows == (None, 100, None, None, None, None)


def test_layer_spec_checks():
    for bad in (dict(kind="window"), dict(kind="sliding", values_per_token=4),
                dict(kind="full", span=4, values_per_token=4), dict(kind="full"),
                dict(kind="cross", values_per_token=4), dict(kind="full", values_per_token=-1),
                dict(kind="none", fixed_values=3), dict(kind="chunked", span=0, values_per_token=4)):
        with pytest.raises(ValueError):
            LayerSpec(**bad)
    with pytest.raises(ValueError):  # 2 x 2 x 8 = 32 values, not 30
        _mixed([LayerSpec("full", values_per_token=30)])
    with pytest.raises(ValueError):  # one spec per layer
        ModelPreset("x", "x", 2, 4, 2, 8, 1e6, layers=(LayerSpec("none"),))
    with pytest.raises(ValueError):  # layers and layer_windows disagree
        ModelPreset("x", "x", 1, 4, 2, 8, 1e6, layer_windows=(16,),
                    layers=(LayerSpec("full", values_per_token=32),))
    m = costs.get_model("gemma2-9b")
    assert dataclasses.replace(m, name="again") == dataclasses.replace(m, name="again")


def test_released_weight_bytes():
    m = ModelPreset("q", "q", 2, 4, 2, 8, 1e9, weight_nbytes=0.6e9)
    assert weight_bytes(m) == 0.6e9 and weight_bytes(m, 2) == 2e9
    assert weight_bytes(REF) == REF.n_params * 2


def test_prefill_attention_flops_by_hand():
    """Truth round 1 #12: a causal prefill's attention FLOPs, 4 × heads × head_dim ×
    Σ_t min(t, span) per layer: 15.9 % of Llama 2 7B's 2N FLOPs at 8,192 tokens, 1.0 % at
    512; Mistral's 4,096 window caps each layer's triangle."""
    from explainer.costs import forward_flops, prefill_attention_flops
    P = 8192
    full = 4 * 32 * 128 * 32 * P * (P + 1) // 2
    assert prefill_attention_flops("llama2-7b", P) == full
    assert full / forward_flops("llama2-7b", P) == pytest.approx(0.1594, abs=1e-4)
    assert prefill_attention_flops("llama2-7b", 512) / forward_flops("llama2-7b", 512) \
        == pytest.approx(0.00998, abs=1e-5)
    W = 4096
    assert prefill_attention_flops("mistral-7b", P) == 4 * 32 * 128 * 32 * (
        W * (W + 1) // 2 + (P - W) * W)
    assert prefill_attention_flops("mistral-7b", 100) == 4 * 32 * 128 * 32 * 100 * 101 // 2


def test_quantized_weights_keep_the_embeddings_at_16_bits_and_count_the_scales():
    """truth3 N14, by hand for Llama 3.1 8B (8.03 B parameters; embedding and output head
    128,256 x 4,096 each, not tied: 1,050,673,152; the rest 6,979,326,848):
    8-bit: 6,979,326,848 x 1 + 1,050,673,152 x 2 = 9,080,673,152 B = 9.08 GB (not 8.03);
    4-bit: 0.5 B + (2 B scale + 0.5 B zero) / 128 = 0.51953125 B a weight:
    6,979,326,848 x 0.51953125 + 2,101,346,304 = 5,727,324,705.5 B = 5.73 GB (not 4.02),
    the bytes the AWQ reader gives the same model's quantization_config."""
    import json

    from explainer import hfconfig
    from explainer.presets import ModelPreset
    assert costs.QUANT_BYTES["4-bit"] == 0.51953125
    assert costs.quantized_weight_bytes("llama3.1-8b", "8-bit") == 9_080_673_152
    assert costs.quantized_weight_bytes("llama3.1-8b", "4-bit") == 5_727_324_705.5
    with open("tests/data/configs/Llama-3.1-8B.json") as f:
        cfg = json.load(f)
    cfg["quantization_config"] = {"quant_method": "awq", "bits": 4, "group_size": 128}
    awq = hfconfig.parse_config(json.dumps(cfg)).preset
    # the reader counts 8,030,261,248 parameters, its norms (266,240) at 16 bits
    assert awq.weight_nbytes / 1e9 == pytest.approx(5.73, abs=0.005)
    assert costs.quantized_weight_bytes(awq, "4-bit") == pytest.approx(awq.weight_nbytes,
                                                                      rel=1e-4)
    no_vocab = ModelPreset("x", "x", 2, 4, 4, 64, 1e9)             # embedding unknown
    assert costs.quantized_weight_bytes(no_vocab, "8-bit") == 1e9
    with pytest.raises(ValueError):
        costs.quantized_weight_bytes("llama3.1-8b", "3-bit")


@pytest.mark.parametrize("precision", ["fp16", "fp8", "int4"])
def test_a_sequence_is_sized_from_grouped_layers_exactly_as_layer_by_layer(precision):
    """`_sequence_bytes` sums a few groups of alike layers (`_profile`); it must equal the
    layer-by-layer `layer_map` for every model (hybrids, windows, chunks, MLA, state), at
    lengths below, at and past the windows, with the model's own windows, none, one and a
    per-layer list, and with heads replaced."""
    for m in ALL_MODELS.values():
        n = len(m.layers)
        windows = [costs._OWN, None, 512, [None if i % 3 else 256 for i in range(n)]]
        heads = [None] + ([1] if m.n_kv_heads and all(
            s.kind not in ("mla",) for s in m.layers) else [])
        for window in windows:
            for h in heads:
                for tokens in (0, 1, 255, 256, 257, 4096, 100_000):
                    by_layer = sum(u.nbytes for u in (
                        costs.layer_map(m, tokens, precision, h) if window is costs._OWN else
                        costs.layer_map(m, tokens, precision, h, window)))
                    assert costs._sequence_bytes(
                        m, tokens, costs.get_precision(precision), h, window) == by_layer, \
                        (m.key, window if not isinstance(window, list) else "list", h, tokens)
