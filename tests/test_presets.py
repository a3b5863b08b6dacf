"""Presets of current models (issue 10) and every preset's maximum context (issue 9).

Each new preset is pinned three ways: its KV bytes per token and its cache at
two context lengths against a hand calculation written out from its
config.json; the preset against that config read by ``explainer.hfconfig``;
and the parameter count derived from the config against the published figure.

The configs below are transcribed from the published ``config.json`` files
(only the fields that matter here, plus a few neighbours). Where the copy we
could read was of a sibling checkpoint, the comment says which field differs.
"""

import json
from pathlib import Path

import pytest

from explainer import costs
from explainer.hfconfig import parse_config
from explainer.presets import (
    ALL_MODELS,
    GB,
    GPUS,
    LLAMA2_70B_MHA,
    MODELS,
    RECENT_MODELS,
    GiB,
    KiB,
    ModelPreset,
    alternating_windows,
)

DATA = Path(__file__).parent / "data"   # the review's config.json files

# meta-llama/Llama-3.2-1B (a verbatim copy of the -Instruct config, same fields).
LLAMA32_1B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False,
    "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
    "intermediate_size": 8192, "max_position_embeddings": 131072,
    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 16, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}
# meta-llama/Llama-3.2-3B.
LLAMA32_3B = dict(LLAMA32_1B, head_dim=128, hidden_size=3072, num_attention_heads=24,
                  num_hidden_layers=28)
# meta-llama/Llama-3.1-405B (architecture fields as in several copies).
LLAMA31_405B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False,
    "hidden_size": 16384, "intermediate_size": 53248,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 128, "num_hidden_layers": 126, "num_key_value_heads": 8,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256,
}
# Qwen/Qwen2.5-72B: as the -Instruct config, whose max_position_embeddings is
# 32,768; the base model's is 131,072 (model card: "Context Length: 131,072").
QWEN25_72B = {
    "architectures": ["Qwen2ForCausalLM"], "hidden_size": 8192,
    "intermediate_size": 29568, "max_position_embeddings": 131072,
    "max_window_layers": 80, "model_type": "qwen2", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "sliding_window": 131072,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "use_sliding_window": False, "vocab_size": 152064,
}
# Qwen/Qwen3-8B: as Qwen3-8B-Base's config (read verbatim), whose
# max_position_embeddings is 32,768; the post-trained Qwen3 configs say 40,960.
QWEN3_8B = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False,
    "head_dim": 128, "hidden_size": 4096, "intermediate_size": 12288,
    "max_position_embeddings": 40960, "max_window_layers": 36,
    "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36,
    "num_key_value_heads": 8, "rope_scaling": None, "sliding_window": None,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "use_sliding_window": False, "vocab_size": 151936,
}
# Qwen/Qwen3-32B.
QWEN3_32B = dict(QWEN3_8B, hidden_size=5120, intermediate_size=25600,
                 max_window_layers=64, num_attention_heads=64, num_hidden_layers=64)
# google/gemma-2-9b (verbatim copy of gemma-2-9b-it's config).
GEMMA2_9B = {
    "architectures": ["Gemma2ForCausalLM"], "attention_bias": False,
    "attn_logit_softcapping": 50.0, "cache_implementation": "hybrid",
    "final_logit_softcapping": 30.0, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584,
    "intermediate_size": 14336, "max_position_embeddings": 8192,
    "model_type": "gemma2", "num_attention_heads": 16, "num_hidden_layers": 42,
    "num_key_value_heads": 8, "query_pre_attn_scalar": 256,
    "sliding_window": 4096, "sliding_window_size": 4096,
    "torch_dtype": "bfloat16", "vocab_size": 256000,
}
# google/gemma-2-27b (fields as in MaxText's HF-architecture table).
GEMMA2_27B = {
    k: v for k, v in dict(
        GEMMA2_9B, head_dim=128, hidden_size=4608, intermediate_size=36864,
        num_attention_heads=32, num_hidden_layers=46, num_key_value_heads=16,
        query_pre_attn_scalar=144,
    ).items() if k != "torch_dtype"
}
# google/gemma-3-27b-it: the language model sits in text_config, which leaves
# out vocab_size, max_position_embeddings and the sliding-window pattern.
GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "mm_tokens_per_image": 256,
    "text_config": {
        "head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504,
        "model_type": "gemma3_text", "num_attention_heads": 32,
        "num_hidden_layers": 62, "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16,
                      "num_hidden_layers": 27, "patch_size": 14},
}
# mistralai/Mistral-Nemo-Base-2407 (verbatim).
MISTRAL_NEMO = {
    "architectures": ["MistralForCausalLM"], "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 5120, "intermediate_size": 14336,
    "max_position_embeddings": 128000, "model_type": "mistral",
    "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8,
    "rope_theta": 1000000.0, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "vocab_size": 131072,
}
# mistralai/Mixtral-8x7B-v0.1 (sliding_window is null in the official config).
MIXTRAL = {
    "architectures": ["MixtralForCausalLM"], "hidden_act": "silu", "hidden_size": 4096,
    "intermediate_size": 14336, "max_position_embeddings": 32768,
    "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8,
    "rope_theta": 1000000.0, "sliding_window": None, "torch_dtype": "bfloat16",
    "vocab_size": 32000,
}

CONFIGS = {
    "llama3.2-1b": LLAMA32_1B,
    "llama3.2-3b": LLAMA32_3B,
    "llama3.1-405b": LLAMA31_405B,
    "qwen2.5-72b": QWEN25_72B,
    "qwen3-8b": QWEN3_8B,
    "qwen3-32b": QWEN3_32B,
    "gemma2-9b": GEMMA2_9B,
    "gemma2-27b": GEMMA2_27B,
    "gemma3-27b": GEMMA3_27B,
    "mistral-nemo-12b": MISTRAL_NEMO,
    "mixtral-8x7b": MIXTRAL,
}


def parsed(key):
    return parse_config(json.dumps(CONFIGS[key]))


# --------------------------------------------------------------------------
# The set of presets
# --------------------------------------------------------------------------


def test_recent_models_are_apart_from_models():
    assert set(RECENT_MODELS) == set(CONFIGS)
    assert not set(RECENT_MODELS) & set(MODELS)
    assert list(ALL_MODELS) == list(MODELS) + list(RECENT_MODELS)
    assert len(MODELS) == 10  # the original list, unchanged
    for key, m in RECENT_MODELS.items():
        assert costs.get_model(key) is m
        assert m.source and m.name


@pytest.mark.parametrize("key", list(RECENT_MODELS))
def test_preset_matches_its_config(key):
    m, r = RECENT_MODELS[key], parsed(key)
    p = r.preset
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim) == (
        p.n_layers, p.n_heads, p.n_kv_heads, p.head_dim)
    assert m.hidden == p.hidden
    assert (m.window, m.layer_windows) == (p.window, p.layer_windows)
    assert m.max_context == p.max_context
    assert m.mla_dims == p.mla_dims is None
    assert (m.n_experts, m.experts_per_token) == (p.n_experts, p.experts_per_token)
    # The preset rounds the count to 1e6; the config gives it to the parameter.
    assert m.n_params == pytest.approx(p.n_params, abs=0.5e6)
    if m.n_active_params:
        assert m.n_active_params == pytest.approx(p.n_active_params, abs=0.5e6)
    else:
        assert p.n_active_params is None
    if m.dtype is not None:
        assert m.dtype == p.dtype
    assert m.multimodal == p.multimodal          # Gemma 3: the language model's parameters


# --------------------------------------------------------------------------
# KV bytes per token and the cache at two contexts, by hand
# --------------------------------------------------------------------------

# layers x KV heads x head_dim x 2 (K and V) x 2 bytes (fp16), from each config.
PER_TOKEN = {
    "llama3.2-1b": (16 * 8 * 64 * 2 * 2, 32 * KiB),
    "llama3.2-3b": (28 * 8 * 128 * 2 * 2, 112 * KiB),
    "llama3.1-405b": (126 * 8 * 128 * 2 * 2, 504 * KiB),
    "qwen2.5-72b": (80 * 8 * 128 * 2 * 2, 320 * KiB),
    "qwen3-8b": (36 * 8 * 128 * 2 * 2, 144 * KiB),
    "qwen3-32b": (64 * 8 * 128 * 2 * 2, 256 * KiB),
    "gemma2-9b": (42 * 8 * 256 * 2 * 2, 336 * KiB),
    "gemma2-27b": (46 * 16 * 128 * 2 * 2, 368 * KiB),
    "gemma3-27b": (62 * 16 * 128 * 2 * 2, 496 * KiB),
    "mistral-nemo-12b": (40 * 8 * 128 * 2 * 2, 160 * KiB),
    "mixtral-8x7b": (32 * 8 * 128 * 2 * 2, 128 * KiB),
}


@pytest.mark.parametrize("key", list(PER_TOKEN))
def test_kv_bytes_per_token_by_hand(key):
    by_hand, binary = PER_TOKEN[key]
    assert by_hand == binary
    assert costs.kv_bytes_per_token(key) == by_hand
    assert costs.kv_bytes_per_token(parsed(key).preset) == by_hand


def test_mistral_nemo_head_dim_is_explicit():
    # 5120 / 32 = 160 would give 200 KiB; the config's head_dim 128 gives 160 KiB.
    m = RECENT_MODELS["mistral-nemo-12b"]
    assert m.head_dim == 128 != m.hidden // m.n_heads
    assert costs.kv_bytes_per_token(m) == 40 * 8 * 128 * 2 * 2 == 160 * KiB


# Full-attention models: the cache is tokens x bytes per token at any length.
FULL = {
    "llama3.2-1b": (4096, 131072),
    "llama3.2-3b": (4096, 131072),
    "llama3.1-405b": (8192, 131072),
    "qwen2.5-72b": (4096, 131072),
    "qwen3-8b": (4096, 40960),
    "qwen3-32b": (4096, 40960),
    "mistral-nemo-12b": (4096, 128000),
    "mixtral-8x7b": (4096, 32768),
}


@pytest.mark.parametrize("key", list(FULL))
def test_cache_full_attention(key):
    m = RECENT_MODELS[key]
    per_token = PER_TOKEN[key][0]
    for tokens in FULL[key]:
        expected = tokens * per_token
        assert costs.kv_cache_bytes(m, tokens) == expected
        assert costs.kv_cache_bytes(m, tokens, window=m.cache_window) == expected
        assert costs.kv_cache_bytes_layered(m, tokens) == expected
    assert FULL[key][1] == m.max_context


def test_cache_mistral_nemo_at_its_limit():
    # 128,000 x 160 KiB = 19.53 GiB for one sequence at the maximum context.
    assert costs.kv_cache_bytes("mistral-nemo-12b", 128000) == 128000 * 160 * KiB
    assert costs.kv_cache_bytes("mistral-nemo-12b", 128000) / GiB == pytest.approx(19.53, abs=0.01)


def test_cache_gemma2_9b_every_other_layer():
    # 42 layers: 21 local (window 4,096) and 21 global; 8 KV heads x 256 x 2 x 2 B.
    m = RECENT_MODELS["gemma2-9b"]
    per_layer = 8 * 256 * 2 * 2
    assert m.n_window_layers == 21 and m.local_window == 4096
    assert m.windows[0] == 4096 and m.windows[1] is None  # layer 0 is local
    # 4,096 tokens fit the window: every layer keeps them all.
    assert costs.kv_cache_bytes_layered(m, 4096) == 42 * 4096 * per_layer
    # 8,192 tokens: the 21 global layers keep 8,192, the 21 local ones 4,096.
    assert costs.kv_cache_bytes_layered(m, 8192) == (21 * 8192 + 21 * 4096) * per_layer
    assert costs.kv_cache_bytes(m, 8192, window=m.cache_window) == (21 * 8192 + 21 * 4096) * per_layer
    # Without the window (the old default of kv_cache_bytes): all 42 layers.
    assert costs.kv_cache_bytes(m, 8192) == 42 * 8192 * per_layer


def test_cache_gemma2_27b_every_other_layer():
    m = RECENT_MODELS["gemma2-27b"]
    per_layer = 16 * 128 * 2 * 2
    assert m.n_window_layers == 23
    assert costs.kv_cache_bytes_layered(m, 2048) == 46 * 2048 * per_layer
    assert costs.kv_cache_bytes_layered(m, 8192) == (23 * 8192 + 23 * 4096) * per_layer


def test_cache_gemma3_27b_five_local_one_global():
    # 62 layers, global when (i + 1) % 6 == 0: layers 5, 11, ..., 59 (10 of
    # them); the other 52 keep the last 1,024 tokens. 16 KV heads x 128 x 2 x 2 B.
    m = RECENT_MODELS["gemma3-27b"]
    per_layer = 16 * 128 * 2 * 2
    assert [i for i, w in enumerate(m.windows) if w is None] == list(range(5, 62, 6))
    assert m.n_window_layers == 52 and m.local_window == 1024
    assert costs.kv_cache_bytes_layered(m, 1024) == 62 * 1024 * per_layer
    assert costs.kv_cache_bytes_layered(m, 32768) == (10 * 32768 + 52 * 1024) * per_layer
    # 3.1 GB instead of 16.6 GB with every layer global: 5.3x smaller.
    full = costs.kv_cache_bytes(m, 32768)
    assert full == 62 * 32768 * per_layer
    assert full / costs.kv_cache_bytes_layered(m, 32768) == pytest.approx(5.33, abs=0.01)
    at_max = costs.kv_cache_bytes_layered(m, 131072)
    assert at_max == (10 * 131072 + 52 * 1024) * per_layer


def test_alternating_windows_rule():
    assert alternating_windows(4, 10, 2) == (10, None, 10, None)
    assert alternating_windows(7, 5, 6) == (5, 5, 5, 5, 5, None, 5)


# --------------------------------------------------------------------------
# Parameter counts from the configs against the published figures
# --------------------------------------------------------------------------

PUBLISHED = {
    # key: (published total, published active or None, tolerance)
    "llama3.2-1b": (1.24e9, None, 0.01),    # Meta: 1.23 B; HF: 1.24 B
    "llama3.2-3b": (3.21e9, None, 0.01),
    "llama3.1-405b": (405e9, None, 0.01),
    "qwen2.5-72b": (72.7e9, None, 0.01),    # model card: 72.7 B
    "qwen3-8b": (8.2e9, None, 0.01),        # model card: 8.2 B
    "qwen3-32b": (32.8e9, None, 0.01),      # model card: 32.8 B
    "gemma2-9b": (9.24e9, None, 0.01),
    "gemma2-27b": (27.2e9, None, 0.01),
    "gemma3-27b": (27.4e9, None, 0.03),     # HF 27.4 B includes the ~0.4 B vision tower
    "mistral-nemo-12b": (12.2e9, None, 0.01),
    "mixtral-8x7b": (46.7e9, 12.9e9, 0.01),
}


@pytest.mark.parametrize("key", list(PUBLISHED))
def test_param_count_from_config(key):
    total, active, tol = PUBLISHED[key]
    r = parsed(key)
    assert r.params_source == "config"
    assert r.params.total == pytest.approx(total, rel=tol)
    if active is None:
        assert r.params.active == r.params.total
    else:
        assert r.params.active == pytest.approx(active, rel=tol)


def test_param_counts_exact_where_known():
    # Counts published with the safetensors files.
    assert parsed("llama3.2-1b").params.total == 1_235_814_400
    assert parsed("llama3.2-3b").params.total == 3_212_749_824
    assert parsed("mixtral-8x7b").params.total == 46_702_792_704


def test_mixtral_total_and_active_by_hand():
    d, L, I, V = 4096, 32, 14336, 32000
    attn = d * 32 * 128 + 2 * d * 8 * 128 + 32 * 128 * d
    expert = 3 * d * I
    router = d * 8
    norms = L * 2 * d + d
    total = 2 * V * d + L * (attn + 8 * expert + router) + norms
    active = 2 * V * d + L * (attn + 2 * expert + router) + norms
    r = parsed("mixtral-8x7b")
    assert (r.params.total, r.params.active) == (total, active)
    m = RECENT_MODELS["mixtral-8x7b"]
    assert m.is_moe and m.params_per_token == 12.880e9


# --------------------------------------------------------------------------
# Maximum context of every preset (issue 9)
# --------------------------------------------------------------------------

MAX_CONTEXT = {
    "llama2-7b": 4096, "llama2-13b": 4096, "llama2-70b": 4096,
    "llama3.1-8b": 131072, "llama3.1-70b": 131072, "mistral-7b": 8192,
    "opt-13b": 2048, "qwen2.5-7b": 131072, "falcon-7b": 2048,
    "deepseek-v3": 163840,
    "llama3.2-1b": 131072, "llama3.2-3b": 131072, "llama3.1-405b": 131072,
    "qwen2.5-72b": 131072, "qwen3-8b": 40960, "qwen3-32b": 40960,
    "gemma2-9b": 8192, "gemma2-27b": 8192, "gemma3-27b": 131072,
    "mistral-nemo-12b": 128000, "mixtral-8x7b": 32768,
}


def test_every_preset_has_its_max_context():
    assert set(MAX_CONTEXT) == set(ALL_MODELS)
    for key, m in ALL_MODELS.items():
        assert m.max_context == MAX_CONTEXT[key], key
    assert LLAMA2_70B_MHA.max_context == 4096


def test_mistral_7b_context_is_the_trained_one():
    """Truth2 P2-4: Mistral 7B v0.1 was trained at 8,192 tokens (paper, Table 1), although
    its config allows 32,768 positions; a pasted config gives only the latter."""
    m = MODELS["mistral-7b"]
    assert m.max_context == 8192 and "Table 1" in m.source
    assert not costs.exceeds_max_context(m, 8192) and costs.exceeds_max_context(m, 8193)
    cfg = (DATA / "configs" / "Mistral-7B-v0.1.json").read_text()
    assert parse_config(cfg).preset.max_context == 32768


def test_deepseek_v3_weights_as_released_in_fp8():
    """Truth2 item 7: the released weights are fp8: each linear weight 1 byte, the
    embedding, lm_head and norms 2 bytes; the preset agrees with its config read by
    hfconfig within 0.01 % (the config counts 671.03 B parameters, the preset 671 B)."""
    ds = MODELS["deepseek-v3"]
    assert ds.weight_format == "fp8" and ds.dtype == "fp8"
    emb = 129280 * 7168
    assert ds.weight_nbytes == 671e9 + 2 * emb + 881_664 == 672_854_239_744
    r = parse_config((DATA / "configs" / "DeepSeek-V3.json").read_text())
    assert r.quantization == "fp8" and r.preset.weight_format == "fp8"
    assert ds.weight_nbytes == pytest.approx(r.preset.weight_nbytes, rel=1e-4)
    assert costs.weight_bytes(ds) == ds.weight_nbytes
    assert all(m.weight_format == "16-bit" for k, m in ALL_MODELS.items() if k != "deepseek-v3")
    oss = parse_config((DATA / "configs" / "gpt-oss-20b.json").read_text())
    assert oss.preset.weight_format == "quantized"       # MXFP4 experts, not fp8


def test_exceeds_max_context():
    assert not costs.exceeds_max_context("llama2-7b", 4096)
    assert costs.exceeds_max_context("llama2-7b", 4097)
    assert costs.exceeds_max_context("llama2-7b", 16384)  # step 6's baseline
    assert costs.exceeds_max_context("opt-13b", 2049)
    assert not costs.exceeds_max_context("llama3.1-8b", 32768)
    unknown = ModelPreset("x", "x", 2, 2, 2, 8, 1e6)
    assert not costs.exceeds_max_context(unknown, 10**9)


# --------------------------------------------------------------------------
# Existing presets: MLA, windows, GPUs (issue 9)
# --------------------------------------------------------------------------


def test_deepseek_v3_mla_cache():
    ds = ALL_MODELS["deepseek-v3"]
    assert ds.mla_dims == 512 + 64 == 576
    assert costs.kv_bytes_per_token(ds) == 61 * 576 * 2 == 70_272
    assert costs.kv_bytes_per_token_per_layer(ds) == 576 * 2
    assert ds.n_experts == 256 and ds.experts_per_token == 8


def test_old_presets_window_form_unchanged():
    mistral = MODELS["mistral-7b"]
    assert mistral.window == 4096 and mistral.layer_windows is None
    assert mistral.cache_window == 4096 and mistral.n_window_layers == 32
    assert costs.kv_cache_bytes_layered(mistral, 32768) == costs.kv_cache_bytes(
        mistral, 32768, window=4096)


def test_layer_windows_canonical_and_checked():
    same = ModelPreset("s", "s", 3, 4, 2, 8, 1e6, layer_windows=(16, 16, 16))
    assert same.window == 16 and same.layer_windows is None
    none = ModelPreset("n", "n", 2, 4, 2, 8, 1e6, layer_windows=[None, None])
    assert none.window is None and none.layer_windows is None
    mixed = ModelPreset("m", "m", 2, 4, 2, 8, 1e6, layer_windows=[16, None])
    assert mixed.layer_windows == (16, None) and mixed.cache_window == (16, None)
    for bad in (dict(layer_windows=(16,)), dict(layer_windows=(0, None)),
                dict(layer_windows=(16, None), window=16),
                dict(n_experts=8), dict(n_experts=2, experts_per_token=3)):
        with pytest.raises(ValueError):
            ModelPreset("b", "b", 2, 4, 2, 8, 1e6, **bad)


def test_gpu_binary_capacity():
    a100 = GPUS["a100-80"]
    assert a100.mem_bytes == 80 * GB  # unchanged for existing callers
    assert a100.mem_gib == 80
    assert a100.mem_bytes_binary == 80 * GiB
    assert a100.mem_bytes_binary / GB == pytest.approx(85.9, abs=0.05)
    assert GPUS["h100"].mem_bytes_binary == 80 * GiB
    assert GPUS["h200"].name == "H200 SXM"
    assert GPUS["h200"].mem_bytes_binary == 141 * GiB
    assert GPUS["illustrative"].mem_bytes_binary is None
    assert a100.capacity_bytes() == a100.mem_bytes
    assert a100.capacity_bytes(binary=True) == a100.mem_bytes_binary
