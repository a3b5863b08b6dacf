""""Your model": reading a Hugging Face config.json (explainer.hfconfig).

Every rule of the module docstring is exercised on a small config, every
error code on a bad one, and the URL form is round-tripped for every preset.
"""

import json
import random

import pytest

from explainer import costs
from explainer.hfconfig import (
    ERROR_CODES,
    MAX_CONFIG_CHARS,
    QUERY_KEYS,
    ConfigError,
    from_query,
    parse_config,
    to_query,
)
from explainer.presets import ALL_MODELS, KiB, ModelPreset

# Llama 2 7B's config.json (meta-llama/Llama-2-7b-hf): the SPEC's reference model.
LLAMA2_7B = {
    "architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": 4096,
    "intermediate_size": 11008, "max_position_embeddings": 4096,
    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 32, "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
    "torch_dtype": "float16", "vocab_size": 32000,
}
LLAMA31_8B = dict(LLAMA2_7B, intermediate_size=14336, num_key_value_heads=8,
                  vocab_size=128256, max_position_embeddings=131072,
                  torch_dtype="bfloat16")
MISTRAL_7B = dict(LLAMA2_7B, model_type="mistral", intermediate_size=14336,
                  num_key_value_heads=8, max_position_embeddings=32768,
                  sliding_window=4096, torch_dtype="bfloat16")
QWEN25_7B = {
    "model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
    "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
    "vocab_size": 152064, "max_position_embeddings": 131072,
    "tie_word_embeddings": False, "use_sliding_window": False,
    "sliding_window": 131072, "max_window_layers": 28, "torch_dtype": "bfloat16",
}
FALCON_7B = {
    "model_type": "falcon", "hidden_size": 4544, "n_head": 71, "n_layer": 32,
    "multi_query": True, "vocab_size": 65024, "torch_dtype": "bfloat16",
}
DEEPSEEK_V3 = {
    "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "num_hidden_layers": 61,
    "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 1,
    "n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128, "v_head_dim": 128, "max_position_embeddings": 163840,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 129280,
}
GEMMA2 = {
    "model_type": "gemma2", "head_dim": 256, "hidden_size": 3584,
    "intermediate_size": 14336, "max_position_embeddings": 8192,
    "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8,
    "query_pre_attn_scalar": 256, "sliding_window": 4096, "vocab_size": 256000,
}
GEMMA3 = {
    "model_type": "gemma3", "torch_dtype": "bfloat16",
    "text_config": {
        "model_type": "gemma3_text", "head_dim": 128, "hidden_size": 5376,
        "intermediate_size": 21504, "num_attention_heads": 32,
        "num_hidden_layers": 62, "num_key_value_heads": 16, "sliding_window": 1024,
    },
    "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27},
}


def parse(cfg, **kw):
    return parse_config(json.dumps(cfg), **kw)


def with_(cfg, **changes):
    out = dict(cfg)
    for k, v in changes.items():
        if v is ...:
            out.pop(k, None)
        else:
            out[k] = v
    return out


# --------------------------------------------------------------------------
# Cache inputs
# --------------------------------------------------------------------------


def test_llama2_7b_matches_the_reference_preset():
    r = parse(LLAMA2_7B)
    m, ref = r.preset, ALL_MODELS["llama2-7b"]
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim, m.hidden) == (32, 32, 32, 128, 4096)
    assert costs.kv_bytes_per_token(m) == costs.kv_bytes_per_token(ref) == 512 * KiB
    assert m.max_context == 4096 and m.dtype == "fp16"
    assert m.key == "custom" and m.name == "Your model"
    assert r.model_type == "llama"
    read = dict(r.fields_read)
    for f in ("num_hidden_layers", "num_attention_heads", "num_key_value_heads",
              "hidden_size", "max_position_embeddings", "torch_dtype",
              "intermediate_size", "vocab_size", "tie_word_embeddings"):
        assert f in read, f
    assert read["num_key_value_heads"] == 32
    inputs = r.cache_inputs()
    assert inputs["layers"] == 32 and inputs["kv_heads"] == 32
    assert inputs["head_dim"] == 128 and inputs["values_per_layer"] == 2 * 32 * 128
    assert inputs["bytes_per_value"] == 2 and inputs["window"] is None


@pytest.mark.parametrize(
    "cfg, expected",
    [
        (LLAMA2_7B, 6_738_415_616),
        (LLAMA31_8B, 8_030_261_248),
        (MISTRAL_7B, 7_241_732_096),
        (QWEN25_7B, 7_615_616_512),  # includes Qwen2's q/k/v biases
        (with_(LLAMA2_7B, hidden_size=8192, intermediate_size=28672,
               num_hidden_layers=80, num_attention_heads=64,
               num_key_value_heads=8), 68_976_648_192),
    ],
)
def test_param_count_to_the_digit(cfg, expected):
    # The counts the truth review recomputed from the same configs.
    r = parse(cfg)
    assert r.params.total == expected == r.preset.n_params
    assert r.preset.n_active_params is None


def test_param_breakdown_llama2_7b():
    p = parse(LLAMA2_7B).params
    d, L, V, I = 4096, 32, 32000, 11008
    assert p.embedding == p.lm_head == V * d
    assert p.attention == L * 4 * d * d
    assert p.dense_mlp == L * 3 * d * I
    assert p.norms == L * 2 * d + d
    assert p.experts == p.active_experts == p.shared == 0


def test_tied_embeddings_count_once():
    untied = parse(LLAMA2_7B).params.total
    tied = parse(with_(LLAMA2_7B, tie_word_embeddings=True)).params.total
    assert untied - tied == 32000 * 4096


def test_kv_heads_default_to_heads_when_absent_or_null():
    for cfg in (with_(LLAMA2_7B, num_key_value_heads=...),
                with_(LLAMA2_7B, num_key_value_heads=None)):
        r = parse(cfg)
        assert r.preset.n_kv_heads == 32
        assert ("num_key_value_heads", 32) in r.defaults_used


def test_explicit_head_dim_wins_over_hidden():
    # Mistral NeMo: 5120 / 32 = 160, but head_dim is 128.
    nemo = with_(MISTRAL_7B, hidden_size=5120, head_dim=128, num_hidden_layers=40,
                 sliding_window=None)
    m = parse(nemo).preset
    assert m.head_dim == 128 and m.hidden == 5120
    assert costs.kv_bytes_per_token(m) == 40 * 8 * 128 * 2 * 2 == 160 * KiB
    # Without head_dim the quotient is used.
    assert parse(with_(nemo, head_dim=...)).preset.head_dim == 160


def test_falcon_multi_query_and_aliases():
    r = parse(FALCON_7B, n_params=6.922e9)
    m = r.preset
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim) == (32, 71, 1, 64)
    assert costs.kv_bytes_per_token(m) == 8192
    assert dict(r.fields_read)["n_layer"] == 32
    assert r.params_source == "override" and m.n_params == 6.922e9
    # still counted, as FalconModel builds it: transformers gives 6,921,720,704
    assert r.params.total == 6_921_720_704


def test_mla_cache_is_latent_plus_rope():
    r = parse(DEEPSEEK_V3)
    m = r.preset
    assert m.mla_dims == 512 + 64
    assert costs.kv_bytes_per_token(m) == 61 * 576 * 2 == 70_272
    # The hidden_size / heads recipe with num_key_value_heads 128 is 25x too big.
    assert 2 * 61 * 128 * (7168 // 128) * 2 == 1_748_992
    assert r.cache_inputs()["values_per_layer"] == 576
    assert r.cache_inputs()["kv_heads"] is None
    assert m.n_experts == 256 and m.experts_per_token == 8
    # 671 B total, 37 B active (DeepSeek-V3 report), MTP module not included.
    assert r.params.total == pytest.approx(671e9, rel=0.005)
    assert r.params.active == pytest.approx(37e9, rel=0.02)
    assert m.n_active_params == r.params.active


def test_mla_needs_rope_dim():
    with pytest.raises(ConfigError) as e:
        parse(with_(DEEPSEEK_V3, qk_rope_head_dim=...))
    assert (e.value.field, e.value.code) == ("qk_rope_head_dim", "missing")


# --------------------------------------------------------------------------
# Sliding windows
# --------------------------------------------------------------------------


def test_mistral_window_on_every_layer():
    m = parse(MISTRAL_7B).preset
    assert m.window == 4096 and m.layer_windows is None
    assert costs.kv_cache_bytes(m, 32768, window=m.cache_window) == 4096 * 128 * KiB


@pytest.mark.parametrize("off", [None, ...])
def test_mistral_without_window(off):
    m = parse(with_(MISTRAL_7B, sliding_window=off)).preset
    assert m.window is None and m.layer_windows is None


def test_use_sliding_window_false_turns_it_off():
    m = parse(with_(MISTRAL_7B, use_sliding_window=False)).preset
    assert m.window is None
    assert parse(QWEN25_7B).preset.window is None


def test_qwen_default_is_off():
    r = parse(with_(QWEN25_7B, use_sliding_window=...))
    assert r.preset.window is None
    assert ("use_sliding_window", False) in r.defaults_used


def test_qwen_max_window_layers_rule():
    # transformers' Qwen2Config: layer i is sliding when i >= max_window_layers.
    cfg = with_(QWEN25_7B, use_sliding_window=True, sliding_window=4096,
                max_window_layers=20)
    m = parse(cfg).preset
    assert m.windows == (None,) * 20 + (4096,) * 8
    assert m.n_window_layers == 8
    per_layer = 4 * 128 * 2 * 2
    assert costs.kv_cache_bytes_layered(m, 10000) == (20 * 10000 + 8 * 4096) * per_layer
    # max_window_layers 0: every layer; >= layers: none.
    assert parse(with_(cfg, max_window_layers=0)).preset.window == 4096
    assert parse(with_(cfg, max_window_layers=28)).preset.window is None
    # Missing max_window_layers takes Qwen2Config's default, 28.
    r = parse(with_(cfg, max_window_layers=...))
    assert ("max_window_layers", 28) in r.defaults_used and r.preset.window is None


def test_gemma2_alternates_starting_local():
    m = parse(GEMMA2).preset
    assert m.windows[:4] == (4096, None, 4096, None)
    assert m.n_window_layers == 21
    r = parse(with_(GEMMA2, model_type="something_new"))  # query_pre_attn_scalar
    assert r.preset.layer_windows == m.layer_windows
    assert ("sliding_window_pattern", 2) in r.defaults_used


def test_gemma3_nested_text_config_and_pattern():
    r = parse(GEMMA3)
    m = r.preset
    assert (m.n_layers, m.n_heads, m.n_kv_heads, m.head_dim) == (62, 32, 16, 128)
    assert [i for i, w in enumerate(m.windows) if w is None] == list(range(5, 62, 6))
    assert m.local_window == 1024 and m.n_window_layers == 52
    assert m.dtype == "bf16"  # torch_dtype from the top level
    read = dict(r.fields_read)
    assert read["text_config.num_hidden_layers"] == 62
    assert read["torch_dtype"] == "bfloat16"
    assert read["text_config.model_type"] == "gemma3_text"
    defaults = dict(r.defaults_used)
    assert defaults["sliding_window_pattern"] == 6
    assert defaults["max_position_embeddings"] == 131072
    assert defaults["vocab_size"] == 262208
    assert m.max_context == 131072
    # An explicit pattern wins over the default.
    cfg = json.loads(json.dumps(GEMMA3))
    cfg["text_config"]["sliding_window_pattern"] = 2
    assert parse(cfg).preset.n_window_layers == 31


def test_layer_types_list_wins():
    types = ["sliding_attention", "full_attention", "full_attention"] * 14
    m = parse(with_(GEMMA2, layer_types=types)).preset
    assert m.n_window_layers == 14
    assert m.windows[:3] == (4096, None, None)
    all_full = parse(with_(GEMMA2, layer_types=["full_attention"] * 42)).preset
    assert all_full.window is None and all_full.layer_windows is None
    with pytest.raises(ConfigError) as e:
        parse(with_(GEMMA2, layer_types=types, sliding_window=None, model_type="x"))
    assert (e.value.field, e.value.code) == ("sliding_window", "missing")


def test_dtype_key_and_spellings():
    assert parse(with_(LLAMA2_7B, torch_dtype=..., dtype="bfloat16")).preset.dtype == "bf16"
    assert parse(with_(LLAMA2_7B, torch_dtype="float32")).preset.dtype == "fp32"
    assert parse(with_(LLAMA2_7B, torch_dtype=...)).preset.dtype is None
    assert parse(with_(LLAMA2_7B, max_position_embeddings=...)).preset.max_context is None


# --------------------------------------------------------------------------
# Parameter overrides and MoE
# --------------------------------------------------------------------------


def test_moe_counts_mixtral():
    mixtral = with_(MISTRAL_7B, model_type="mixtral", sliding_window=None,
                    num_local_experts=8, num_experts_per_tok=2)
    r = parse(mixtral)
    assert r.params.total == 46_702_792_704
    assert r.preset.n_params == r.params.total
    assert r.preset.n_active_params == r.params.active < r.params.total
    assert (r.preset.n_experts, r.preset.experts_per_token) == (8, 2)


def test_override_params():
    r = parse(LLAMA2_7B, n_params=7e9)
    assert r.preset.n_params == 7e9 and r.params_source == "override"
    assert r.params.total == 6_738_415_616  # still computed, for comparison
    r = parse(LLAMA2_7B, n_params=7e9, n_active_params=2e9)
    assert r.preset.n_active_params == 2e9


def test_params_needed_without_override():
    with pytest.raises(ConfigError) as e:
        parse(with_(LLAMA2_7B, model_type="ctrl"))
    assert (e.value.field, e.value.code) == ("n_params", "params_needed")
    assert e.value.values["model_type"] == "ctrl"
    for missing in ("vocab_size", "intermediate_size"):
        with pytest.raises(ConfigError) as e:
            parse(with_(LLAMA2_7B, **{missing: ...}))
        assert e.value.code == "params_needed"
        assert e.value.values["missing"] == missing
        assert parse(with_(LLAMA2_7B, **{missing: ...}), n_params=1e9).preset.n_params == 1e9


# --------------------------------------------------------------------------
# Bad input: a ConfigError with a field and a stable code, never a traceback
# --------------------------------------------------------------------------

BAD_TEXT = [
    (123, "config", "not_text"),
    (b"{}", "config", "not_text"),
    ("", "config", "missing"),
    ("   \n", "config", "missing"),
    ("<!DOCTYPE html><html><body>config</body></html>", "config", "markup"),
    ("  <?xml version='1.0'?><a/>", "config", "markup"),
    ("{", "config", "not_json"),
    ("{'num_hidden_layers': 32}", "config", "not_json"),
    ("num_hidden_layers: 32", "config", "not_json"),
    ('{"num_hidden_layers": NaN}', "num_hidden_layers", "not_positive_int"),
    ('{"num_hidden_layers": Infinity}', "num_hidden_layers", "not_positive_int"),
    ("[" * 100_000, "config", "not_json"),
    ('{"x": ' + "9" * 5000 + "}", "config", "not_json"),
    ("[1, 2]", "config", "not_object"),
    ('"a string"', "config", "not_object"),
    ("null", "config", "not_object"),
    ('{"num_hidden_layers": 1, "num_hidden_layers": 2}', "num_hidden_layers", "duplicate_key"),
    ("{}", "num_hidden_layers", "missing"),
    (" " * (MAX_CONFIG_CHARS + 1), "config", "too_large"),
    ('{"a": "' + "x" * MAX_CONFIG_CHARS + '"}', "config", "too_large"),
]


@pytest.mark.parametrize("text, field, code", BAD_TEXT)
def test_bad_text(text, field, code):
    with pytest.raises(ConfigError) as e:
        parse_config(text)
    assert (e.value.field, e.value.code) == (field, code)
    assert isinstance(e.value, ValueError)
    assert code in str(e.value)


BAD_FIELDS = [
    (dict(num_hidden_layers=0), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=-32), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=32.5), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=32.0), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers="32"), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=True), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=[32]), "num_hidden_layers", "not_positive_int"),
    (dict(num_hidden_layers=10**6 + 1), "num_hidden_layers", "too_large"),
    (dict(num_hidden_layers=...), "num_hidden_layers", "missing"),
    (dict(num_attention_heads=...), "num_attention_heads", "missing"),
    (dict(num_attention_heads=0), "num_attention_heads", "not_positive_int"),
    (dict(num_key_value_heads=7), "num_key_value_heads", "kv_heads_divide"),
    (dict(num_key_value_heads=64), "num_key_value_heads", "kv_heads_divide"),
    (dict(num_key_value_heads=0), "num_key_value_heads", "not_positive_int"),
    (dict(hidden_size=4100), "hidden_size", "hidden_divide"),
    (dict(hidden_size=...), "hidden_size", "missing"),
    (dict(head_dim=0), "head_dim", "not_positive_int"),
    (dict(head_dim=10**7), "head_dim", "too_large"),
    (dict(max_position_embeddings=-1), "max_position_embeddings", "not_positive_int"),
    (dict(max_position_embeddings=10**12), "max_position_embeddings", "too_large"),
    (dict(sliding_window=0), "sliding_window", "not_positive_int"),
    (dict(sliding_window="4096"), "sliding_window", "not_positive_int"),
    (dict(use_sliding_window="yes"), "use_sliding_window", "not_bool"),
    (dict(tie_word_embeddings=1), "tie_word_embeddings", "not_bool"),
    (dict(model_type="<script>alert(1)</script>"), "model_type", "bad_value"),
    (dict(model_type=7), "model_type", "bad_value"),
    (dict(text_config=[1]), "text_config", "not_object"),
    (dict(layer_types="sliding"), "layer_types", "bad_value"),
    (dict(layer_types=["full_attention"] * 3), "layer_types", "layer_types_length"),
    (dict(layer_types=[1] * 32), "layer_types", "bad_value"),
    (dict(layer_types=["linear_attention"] * 32), "layer_types", "no_kv_cache"),
    (dict(layer_types=["linear_attention", "full_attention"] * 16), "layer_types",
     "state_unsized"),
    (dict(layer_types=["hybrid"] * 32), "layer_types", "unsupported"),
    (dict(is_encoder_decoder=True), "is_encoder_decoder", "encoder_decoder"),
    (dict(num_local_experts=8), "num_experts_per_tok", "missing"),
    (dict(num_local_experts=8, num_experts_per_tok=9), "num_experts_per_tok", "experts_range"),
    (dict(num_local_experts=0, num_experts_per_tok=1), "num_local_experts", "not_positive_int"),
    (dict(kv_lora_rank=-512), "kv_lora_rank", "not_positive_int"),
    (dict(vocab_size=0), "vocab_size", "not_positive_int"),
    (dict(model_type="ctrl"), "n_params", "params_needed"),
    # every size within its limit, together more than any real model (truth2 C-12)
    (dict(hidden_size=999_936, intermediate_size=10_000_000, num_hidden_layers=1024,
          num_attention_heads=32, num_key_value_heads=8), "n_params", "params_too_large"),
]


@pytest.mark.parametrize("changes, field, code", BAD_FIELDS)
def test_bad_fields(changes, field, code):
    with pytest.raises(ConfigError) as e:
        parse(with_(LLAMA2_7B, **changes))
    assert (e.value.field, e.value.code) == (field, code)


@pytest.mark.parametrize(
    "kw, field, code",
    [
        (dict(n_params=0), "n_params", "not_positive_number"),
        (dict(n_params=-7e9), "n_params", "not_positive_number"),
        (dict(n_params=float("nan")), "n_params", "not_positive_number"),
        (dict(n_params=float("inf")), "n_params", "not_positive_number"),
        (dict(n_params="7e9"), "n_params", "not_positive_number"),
        (dict(n_params=True), "n_params", "not_positive_number"),
        (dict(n_params=1e16), "n_params", "too_large"),
        (dict(n_params=1e9, n_active_params=2e9), "n_active_params", "active_exceeds_total"),
        (dict(n_active_params=7e9), "n_active_params", "active_exceeds_total"),
    ],
)
def test_bad_overrides(kw, field, code):
    with pytest.raises(ConfigError) as e:
        parse(LLAMA2_7B, **kw)
    assert (e.value.field, e.value.code) == (field, code)


def test_negative_counts_that_may_be_zero():
    for cfg, field in (
        (with_(QWEN25_7B, use_sliding_window=True, max_window_layers=-1), "max_window_layers"),
        (with_(DEEPSEEK_V3, first_k_dense_replace=-3), "first_k_dense_replace"),
        (with_(DEEPSEEK_V3, n_shared_experts=1.5), "n_shared_experts"),
    ):
        with pytest.raises(ConfigError) as e:
            parse(cfg)
        assert (e.value.field, e.value.code) == (field, "not_nonnegative_int")
    assert parse(with_(DEEPSEEK_V3, n_shared_experts=0)).params.total < 671e9


def test_garbage_never_escapes_as_another_exception():
    rng = random.Random(10)
    alphabet = '{}[]":,0123456789.-eE truefalsnl\\<>\u00e9\ufeff'
    pieces = [json.dumps(LLAMA2_7B), json.dumps(GEMMA3), json.dumps(DEEPSEEK_V3)]
    for _ in range(400):
        if rng.random() < 0.5:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        else:  # a real config with a few characters mangled
            chars = list(rng.choice(pieces))
            for _ in range(rng.randint(1, 4)):
                chars[rng.randrange(len(chars))] = rng.choice(alphabet)
            text = "".join(chars)
        try:
            parse_config(text)
        except ConfigError:
            pass


def test_bom_and_whitespace_are_fine():
    assert parse_config("\ufeff\n  " + json.dumps(LLAMA2_7B)).preset.n_layers == 32


# --------------------------------------------------------------------------
# URL form
# --------------------------------------------------------------------------

CACHE_FIELDS = ("n_layers", "n_heads", "n_kv_heads", "head_dim", "mla_dims", "window",
                "layer_windows", "max_context", "n_params", "n_active_params",
                "dtype", "n_experts", "experts_per_token")


@pytest.mark.parametrize("key", list(ALL_MODELS))
def test_query_round_trip_every_preset(key):
    m = ALL_MODELS[key]
    q = to_query(m)
    assert set(q) <= set(QUERY_KEYS)
    assert all(isinstance(v, str) for v in q.values())
    back = from_query(q)
    for f in CACHE_FIELDS:
        assert getattr(back, f) == getattr(m, f), f
    assert to_query(back) == q
    for tokens in (1, 5000, 40000):
        assert costs.kv_cache_bytes(back, tokens, window=back.cache_window) == \
            costs.kv_cache_bytes(m, tokens, window=m.cache_window)


def test_query_round_trip_parsed_configs():
    for cfg in (LLAMA2_7B, MISTRAL_7B, QWEN25_7B, DEEPSEEK_V3, GEMMA2, GEMMA3,
                with_(QWEN25_7B, use_sliding_window=True, sliding_window=4096,
                      max_window_layers=20)):
        m = parse(cfg).preset
        back = from_query(to_query(m))
        for f in CACHE_FIELDS:
            assert getattr(back, f) == getattr(m, f), f


def test_query_is_short():
    q = to_query(ALL_MODELS["gemma3-27b"])
    assert q == {"layers": "62", "heads": "32", "kv": "16", "hd": "128", "win": "1024",
                 "pat": "LLLLLG", "dtype": "bf16", "ctx": "131072",
                 "params": "27009000000", "mm": "1",   # the language model of a multimodal one
                 "emb": "1409630208"}                   # 262,208 x 5,376, tied: one table
    assert to_query(ALL_MODELS["deepseek-v3"])["wbytes"] == "672854239744"   # fp8 as released
    assert to_query(ALL_MODELS["gemma2-9b"])["pat"] == "LG"
    assert "pat" not in to_query(ALL_MODELS["mistral-7b"])
    assert to_query(ALL_MODELS["mixtral-8x7b"])["moe"] == "8:2"
    assert to_query(ALL_MODELS["deepseek-v3"])["mla"] == "576"
    qwen = parse(with_(QWEN25_7B, use_sliding_window=True, sliding_window=4096,
                       max_window_layers=20)).preset
    assert to_query(qwen)["pat"] == "G20L8"


def test_the_embedding_travels_in_the_link():
    """truth3 N14: quantized weights keep the embedding and the output head at 16 bits, so
    the link carries their count: Llama 3.1 8B, 128,256 x 4,096 x 2 (not tied)."""
    llama = ALL_MODELS["llama3.1-8b"]
    assert llama.embed_params == 128_256 * 4_096 * 2 == 1_050_673_152
    q = to_query(llama)
    assert q["emb"] == "1050673152" and from_query(q).embed_params == 1_050_673_152
    for bad in ("8030000000", "9e9", "-1", "x"):
        with pytest.raises(ConfigError):
            from_query({**q, "emb": bad})
    # a pasted config counts them: Llama 3.2 1B ties the head to the embedding
    with open("tests/data/configs/Llama-3.2-1B.json") as f:
        one = parse_config(f.read()).preset
    assert one.embed_params == 128_256 * 2_048 == 262_668_288


def test_from_query_ignores_other_keys_and_defaults_kv():
    m = from_query({"layers": "32", "heads": "32", "hd": "128", "params": "6.738e9",
                    "lang": "pl", "step": "5"}, name="Mine")
    assert m.n_kv_heads == 32 and m.n_params == 6.738e9 and m.name == "Mine"
    assert costs.kv_bytes_per_token(m) == 512 * KiB


GOOD = {"layers": "32", "heads": "32", "kv": "8", "hd": "128", "params": "8030261248"}

BAD_QUERIES = [
    (dict(layers=...), "layers", "missing"),
    (dict(params=...), "params", "missing"),
    (dict(layers="0"), "layers", "not_positive_int"),
    (dict(layers="-3"), "layers", "not_positive_int"),
    (dict(layers="3.5"), "layers", "not_positive_int"),
    (dict(layers=" 32"), "layers", "not_positive_int"),
    (dict(layers="1e3"), "layers", "not_positive_int"),
    (dict(layers="1000001"), "layers", "too_large"),
    (dict(layers=32), "layers", "not_text"),
    (dict(layers="9" * 300), "layers", "too_large"),
    (dict(kv="7"), "kv", "kv_heads_divide"),
    (dict(kv="64"), "kv", "kv_heads_divide"),
    (dict(params="-1"), "params", "not_positive_number"),
    (dict(params="0"), "params", "not_positive_number"),
    (dict(params="nan"), "params", "not_positive_number"),
    (dict(params="inf"), "params", "not_positive_number"),
    (dict(params="1e99"), "params", "too_large"),
    (dict(active="9e9"), "active", "active_exceeds_total"),
    (dict(dtype="int3"), "dtype", "bad_dtype"),
    (dict(pat="LG"), "win", "missing"),
    (dict(win="4096", pat="LQ"), "pat", "bad_value"),
    (dict(win="4096", pat="<b>"), "pat", "bad_value"),
    (dict(win="4096", pat="G20L8"), "pat", "layer_types_length"),
    (dict(win="0"), "win", "not_positive_int"),
    (dict(moe="8"), "moe", "bad_value"),
    (dict(moe="2:8"), "moe", "experts_range"),
    (dict(moe="0:0"), "moe", "not_positive_int"),
]


@pytest.mark.parametrize("changes, field, code", BAD_QUERIES)
def test_bad_queries(changes, field, code):
    with pytest.raises(ConfigError) as e:
        from_query(with_(GOOD, **changes))
    assert (e.value.field, e.value.code) == (field, code)


def test_bad_query_container():
    with pytest.raises(ConfigError) as e:
        from_query("layers=32")
    assert e.value.code == "not_object"


def test_to_query_refuses_two_window_sizes():
    odd = ModelPreset("o", "o", 2, 4, 2, 8, 1e6, layer_windows=(16, 32))
    with pytest.raises(ConfigError) as e:
        to_query(odd)
    assert e.value.code == "not_encodable"


def test_every_code_is_listed_and_exercised():
    import inspect
    import re

    import explainer.hfconfig as mod

    source = inspect.getsource(mod)
    raised = set(re.findall(r'ConfigError\(\s*[^,()]+(?:\[[^]]*\])?,\s*"([a-z_]+)"', source))
    assert raised <= set(ERROR_CODES)
    for code in ERROR_CODES:
        assert f'"{code}"' in source.split("ERROR_CODES = (")[1].split(")")[0]
        assert source.count(f'"{code}"') >= 2, code  # listed and raised
    exercised = {c for _, _, c in BAD_TEXT} | {c for _, _, c in BAD_FIELDS} | {
        c for _, _, c in BAD_QUERIES}
    # The rest have tests of their own above.
    assert set(ERROR_CODES) - exercised <= {"not_nonnegative_int", "not_encodable",
                                            "not_positive_number", "active_exceeds_total"}


@pytest.mark.parametrize("cfg,total", [
    # NemotronConfig's shape, 4 layers: relu^2 up/down MLP, LayerNorm1P with biases
    (dict(model_type="nemotron", hidden_size=6144, intermediate_size=24576,
          num_attention_heads=48, num_key_value_heads=8, head_dim=128,
          num_hidden_layers=4, vocab_size=256000), 4_706_119_680),
    # ApertusConfig's shape, 4 layers: xIELU up/down MLP, q/k norms
    (dict(model_type="apertus", hidden_size=4096, intermediate_size=14336,
          num_attention_heads=32, num_key_value_heads=8, num_hidden_layers=4,
          vocab_size=131072), 1_711_313_928),
])
def test_up_down_mlps_are_not_gated(cfg, total):
    """N4: Nemotron and Apertus have no gate_proj; the totals are what transformers
    5.25 builds on the meta device from these shapes."""
    assert parse(cfg).params.total == total


def test_granite_hybrid_mamba2_and_shared_mlp():
    """N10: Granite 4.0-H's Mamba-2 mixers and its shared_mlp (shared_intermediate_size).
    GraniteMoeHybridConfig's shape with 4 layers; transformers 5.25 builds 5,018,284,672
    parameters from it on the meta device."""
    cfg = dict(model_type="granitemoehybrid", hidden_size=4096, intermediate_size=11008,
               num_attention_heads=32, num_key_value_heads=32, num_hidden_layers=4,
               vocab_size=32000, num_local_experts=8, num_experts_per_tok=2,
               shared_intermediate_size=1024,
               layer_types=["mamba", "mamba", "mamba", "attention"],
               mamba_n_heads=128, mamba_n_groups=1, mamba_d_state=256, mamba_d_head=64,
               mamba_d_conv=4, mamba_expand=2, mamba_conv_bias=True, mamba_proj_bias=False)
    r = parse(cfg)
    assert r.params.total == 5_018_284_672
    # Mamba-2 state: 128 heads x 64 x 256 + (8192 + 2 x 256) x 4
    assert r.preset.layers[0].fixed_values == 128 * 64 * 256 + (8192 + 512) * 4


def test_gate_less_families_are_counted():
    """GPT-2 (Conv1D c_attn, learned positions, tied head): openai-community/gpt2's
    124,439,808; GPTBigCode's multi-query c_attn is d + 2 x head_dim wide; without
    n_positions the learned positions cannot be sized, so the count is asked for."""
    gpt2 = dict(model_type="gpt2", n_layer=12, n_head=12, n_embd=768, n_positions=1024,
                vocab_size=50257)
    assert parse(gpt2).params.total == 124_439_808
    per_layer_mha = parse(gpt2).params.attention // 12
    bigcode = dict(gpt2, model_type="gpt_bigcode", multi_query=True)
    per_layer_mqa = parse(bigcode).params.attention // 12
    assert per_layer_mha - per_layer_mqa == (768 + 1) * (2 * 768 - 2 * 64)
    with pytest.raises(ConfigError) as e:
        parse(with_(gpt2, n_positions=...))
    assert (e.value.code, e.value.values["missing"]) == ("params_needed", "n_positions")
    # no model_type: the architectures' GPT2LMHeadModel picks the rule
    bare = with_(gpt2, model_type=..., architectures=["GPT2LMHeadModel"])
    assert parse(bare).params.total == 124_439_808


def test_attention_output_gate_and_chatglm_counts():
    """MuseGlimmer's gate_proj is as wide as q_proj (d x H x h per layer); ChatGLM2's
    fused query_key_value and SwiGLU dense_h_to_4h give the card's 6.2 B."""
    muse = dict(model_type="muse_glimmer_text", num_hidden_layers=4, hidden_size=512,
                num_attention_heads=8, num_key_value_heads=2, head_dim=64,
                intermediate_size=1024, vocab_size=1000, tie_word_embeddings=False)
    llama_like = parse(with_(muse, model_type="llama")).params
    gated = parse(muse).params
    assert gated.attention - llama_like.attention == 4 * 512 * 8 * 64
    assert gated.norms - llama_like.norms == 4 * 2 * 512  # four norms per layer
    glm2 = dict(model_type="chatglm", num_layers=28, hidden_size=4096,
                num_attention_heads=32, multi_query_attention=True,
                multi_query_group_num=2, kv_channels=128, ffn_hidden_size=13696,
                padded_vocab_size=65024, add_qkv_bias=True, add_bias_linear=False,
                rmsnorm=True, post_layer_norm=True)
    assert parse(glm2).params.total == 6_243_584_000


def test_chatglm_kv_groups():
    """N1: glm-4-9b-chat's fields (THUDM remote code): 2 K/V groups of kv_channels 128,
    so 2 x 40 x 2 x 128 x 2 B = 40,960 B per token, not 32 heads' 655,360."""
    glm4 = dict(model_type="chatglm", num_layers=40, hidden_size=4096,
                num_attention_heads=32, multi_query_attention=True,
                multi_query_group_num=2, kv_channels=128, ffn_hidden_size=13696,
                padded_vocab_size=151552, seq_length=131072, torch_dtype="bfloat16")
    m = parse(glm4, n_params=9.4e9).preset
    assert (m.n_kv_heads, m.head_dim) == (2, 128)
    assert costs.kv_bytes_per_token(m) == 40_960


def test_a_real_state_passes_the_link():
    """N3: NVIDIA-Nemotron-Nano-9B-v2's Mamba-2 state (128 x 80 x 128 + conv) is
    1,359,872 values: a link carrying it is read back, not refused."""
    state = 128 * 80 * 128 + (128 * 80 + 2 * 8 * 128) * 4
    assert state > 1_000_000
    q = {"layers": "4", "heads": "40", "kv": "8", "hd": "128", "pat": "MMMG",
         "state": str(state), "params": "9000000000"}
    m = from_query(q)
    assert m.layers[0].fixed_values == state
